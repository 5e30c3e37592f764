package redimo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// duringQuery is a DynamoDB client that runs hook before each Query.
type duringQuery struct {
	DynamoDBAPI
	hook func(context.Context, *dynamodb.QueryInput)
}

func (d *duringQuery) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	d.hook(ctx, in)
	return d.DynamoDBAPI.Query(ctx, in, o...)
}

// busyRescorers starts, on each of clients, two goroutines that re-score
// random members of k (m0000, m0001, ... up to n) without a pause, until
// the returned stop is called; writes counts their committed writes.
// Errors fail t.
func busyRescorers(t testing.TB, clients []*Client, k string, n int, writes *atomic.Int64) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for ci, c := range clients {
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(ci), uint64(g)))
				for ctx.Err() == nil {
					m := fmt.Sprintf("m%04d", r.IntN(n))
					// XX: ZINCRBY's first attempt supposes a new member, so at
					// the minimum it would be a crossing write itself.
					_, err := c.ZAddArgs(ctx, k, ZAddArgs{XX: true, Members: []Z{{Score: float64(r.IntN(1000)), Member: m}}})
					if err != nil && ctx.Err() == nil {
						t.Error(err)
						return
					}
					writes.Add(1)
				}
			}()
		}
	}
	return func() { cancel(); wg.Wait() }
}

// TestRankBuildUnderBusyWriters (issue 33): a sorted set that two Clients
// re-score without a pause gets its count items from the write of a third Client that
// takes it to the build minimum: N = 1, the crossing write itself, since
// no condition of the build is about members' writes (rank_build.go).
// Writes surely land inside the build: each of its reads of every index
// value first lets another Client move a member across ranges, remove one
// and add it back. Then the count items are exact (checkRankItems) and
// ranks agree with the order. Through the model of real DynamoDB (5 ms a
// request, its transaction conflicts). Before, the build needed the key's
// version unchanged from its read to its transaction: every build was
// cancelled, the crossing write stayed unranked, and so did the key.
func TestRankBuildUnderBusyWriters(t *testing.T) {
	needDB(t)
	cfg, err := ddbmodel.ParseConfig("latency=5ms,throttling=off")
	require.NoError(t, err)
	db := local.Client(testEndpoint, ddbmodel.New(cfg).Transport(nil))
	const minimum = 60
	ctx := context.Background()
	_, _, p := newTestClient(t)
	k := p + "board"
	client := func() *Client {
		c := NewClient(&counter{db: db}, func(o *Options) { o.TableName = testTable })
		c.ranks.max, c.ranks.min = 20, minimum
		return c
	}
	a, b := client(), client()
	// The adder's reads of every index value (a build's) let writes of a
	// land first: a score change that moves a member across ranges, a
	// removal and an addition. So writes surely fall inside each build,
	// whatever the timing of the busy writers.
	var hooked atomic.Bool
	var landed atomic.Int64
	adder := NewClient(&duringQuery{DynamoDBAPI: &counter{db: db}, hook: func(ctx context.Context, in *dynamodb.QueryInput) {
		if !hooked.Load() || in.IndexName == nil || !strings.Contains(aws.ToString(in.KeyConditionExpression), "BETWEEN") || in.ExclusiveStartKey != nil {
			return
		}
		n := landed.Add(1)
		m := fmt.Sprintf("m%04d", n%(minimum-1))
		_, err := a.ZAddArgs(ctx, k, ZAddArgs{XX: true, Members: []Z{{Score: float64(1000 + n), Member: m}}})
		if err == nil {
			_, err = a.ZRem(ctx, k, fmt.Sprintf("m%04d", (n+7)%(minimum-1)))
		}
		if err == nil {
			_, err = a.ZAdd(ctx, k, Z{Score: float64(-n), Member: fmt.Sprintf("m%04d", (n+7)%(minimum-1))})
		}
		if err != nil {
			t.Error(err)
		}
	}}, func(o *Options) { o.TableName = testTable })
	adder.ranks.max, adder.ranks.min = 20, minimum
	var zs []Z
	for i := range minimum - 1 {
		zs = append(zs, Z{Score: float64(i), Member: fmt.Sprintf("m%04d", i)})
	}
	_, err = adder.ZAdd(ctx, k, zs...) // one short of the minimum: unranked
	require.NoError(t, err)
	require.Zero(t, checkRankItems(t, adder, k))

	var writes atomic.Int64
	stop := busyRescorers(t, []*Client{a, b}, k, minimum-1, &writes)
	defer stop()
	for writes.Load() < 10 {
		time.Sleep(5 * time.Millisecond)
	}
	adds := testenv.Budget(4, 12)
	hooked.Store(true)
	for i := range adds {
		before := writes.Load()
		t0 := time.Now()
		_, err := adder.ZAdd(ctx, k, Z{Score: 0.5, Member: fmt.Sprintf("new%02d", i)})
		require.NoError(t, err)
		if i == 0 {
			t.Logf("the crossing ZADD took %v; %d busy writes and %d landing in its reads meanwhile", time.Since(t0), writes.Load()-before, landed.Load())
			require.Positive(t, landed.Load(), "the build read the key, and writes landed then")
			_, ranked := rawGet(t, model.MetaKey(k))[model.AttrRanked]
			require.True(t, ranked, "ranked by the write that reached the minimum (N = 1)")
		}
	}
	hooked.Store(false)
	stop()
	t.Logf("%d re-scoring writes", writes.Load())
	require.False(t, t.Failed())
	require.Positive(t, checkRankItems(t, adder, k), "exact count items")
	all, err := adder.ZRange(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Len(t, all, minimum-1+adds)
	for i := 0; i < len(all); i += 7 {
		r, ok, err := a.ZRank(ctx, k, all[i])
		require.NoError(t, err)
		require.True(t, ok)
		require.EqualValues(t, i, r, "ZRANK %s", all[i])
	}
	checkStoredCounts(t, p)
}

// A transaction's metadata action journals every member it writes to a
// key being built (rankGuard): with the most writes a transaction holds
// (98, and a count item), a long key and every other clause a write can
// carry, its update expression stays within DynamoDB's 4 KB.
func TestRankJournalFitsAnExpression(t *testing.T) {
	c := NewClient(&counter{}, func(o *Options) { o.TableName = testTable })
	key := strings.Repeat("k", model.InlineKeyLen+10)
	g := &model.Group{Key: key, Typ: model.TypeZSet, Rank: &model.RankBelief{Build: []byte("token"), Ranges: []model.RankRange{{Lo: []byte{}}}}}
	for i := range model.MaxTxItems - 2 {
		m := fmt.Sprintf("member%03d", i)
		g.Writes = append(g.Writes, c.putMember(key, model.TypeZSet, m, model.ZsetIX(float64(i), m)))
	}
	u := c.metaAction(g).Update
	require.NotNil(t, u)
	t.Logf("%d writes: update expression %d bytes, condition %d", len(g.Writes), len(aws.ToString(u.UpdateExpression)), len(aws.ToString(u.ConditionExpression)))
	require.LessOrEqual(t, len(aws.ToString(u.UpdateExpression)), 4096)
	require.LessOrEqual(t, len(aws.ToString(u.ConditionExpression)), 4096)
	require.Contains(t, aws.ToString(u.UpdateExpression), "if_not_exists(#j.#j")
}

// TestRankBuildUnderFaults: the same busy key (re-scored by two Clients,
// crossed by a third) with every Client's transport injecting a fault
// mode into 20% of requests (the everyday suite: one mode, by the seed).
// A build whose requests fail is finished by a later write that adds a
// member: after the adder's writes the key is ranked, and its count items
// are exact. A ZADD that fails is sent again (adding a member twice
// changes nothing).
func TestRankBuildUnderFaults(t *testing.T) {
	needDB(t)
	const minimum = 30
	for _, mode := range faultModes(t, dropResponse, appliedThen5, serverError, throttling, conflicts, slow) {
		t.Run(string(mode), func(t *testing.T) {
			client := func() *Client {
				c := faultyClient(t, &faulty{next: http.DefaultTransport, mode: mode, share: 0.2})
				c.ranks.max, c.ranks.min = 10, minimum
				c.opts.DisableSmallSortedSets = true // member items: ranks (smallz.go)
				return c
			}
			adder, a, b := client(), client(), client()
			clean := cleanClient(t)
			clean.opts.DisableSmallSortedSets = true
			ctx := context.Background()
			k := t.Name() + ":" + randomHex(3) + ":board"
			var zs []Z
			for i := range minimum - 1 {
				zs = append(zs, Z{Score: float64(i), Member: fmt.Sprintf("m%04d", i)})
			}
			_, err := clean.ZAdd(ctx, k, zs...)
			require.NoError(t, err)
			var writes atomic.Int64
			stop := busyRescorers(t, []*Client{a, b}, k, minimum-1, &writes)
			defer stop()
			for writes.Load() < 5 {
				time.Sleep(5 * time.Millisecond)
			}
			adds := 6
			for i := range adds {
				for try := 0; ; try++ {
					_, err := adder.ZAdd(ctx, k, Z{Score: 0.5, Member: fmt.Sprintf("new%02d", i)})
					if err == nil {
						break
					}
					require.Less(t, try, 5, "ZADD: %v", err)
				}
			}
			stop()
			require.False(t, t.Failed())
			require.Positive(t, checkRankItems(t, clean, k), "ranked by the adder's writes, exact count items")
			n, err := clean.ZCard(ctx, k)
			require.NoError(t, err)
			require.EqualValues(t, minimum-1+adds, n)
		})
	}
}
