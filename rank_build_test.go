package redimo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
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
	zs := byIndex(numbered("m%04d", minimum-1))
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
			zs := byIndex(numbered("m%04d", minimum-1))
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

// The count items' build of a busy sorted set (issue 33): a 1,999-member
// sorted set that two Clients re-score without a pause (ZADD XX, two
// goroutines each) while a third Client adds one new member at a time
// (ZADD, one goroutine), so the adder's first ZADD takes the key to
// model.RankMin. Reported: how long after that first ZADD began the key
// was ranked (rk on its metadata item, polled on DynamoDB Local), the
// adder's ZADD latencies (p50, p99) over the run, and what the adder
// sent: Queries (each build reads every index value once or twice) and
// transactions cancelled.
//
// BenchmarkRankBuildBusyModel runs it through internal/ddbmodel, the model
// of real DynamoDB's latency and transaction conflicts, slowed down
// rankBuildSlowdown times (slowModelBy, as BenchmarkManyKeysModel: DynamoDB
// Local then keeps up); times are reported in the model's time (wall
// time divided by rankBuildSlowdown). BenchmarkRankBuildBusyLocal runs it on
// DynamoDB Local as it is (no conflicts: Local runs transactions one at a
// time). Each runs REDIMO_BUILD_DURATION of wall time (default 40s under
// the model, 10s on Local); `make test` runs no benchmark:
//
//	make bench BENCHFLAGS='-bench RankBuildBusy -benchtime 1x'

// rankBuildSlowdown is how many times slower than real DynamoDB
// BenchmarkRankBuildBusyModel runs the model: enough for DynamoDB Local to
// keep up with three writers, and not so much that the retries' backoff
// (real time, not slowed) becomes short beside the model's latencies.
const rankBuildSlowdown = 10

func BenchmarkRankBuildBusyModel(b *testing.B) {
	needDB(b)
	m := slowModelBy(b, rankBuildSlowdown)
	benchRankBuildBusy(b, func() DynamoDBAPI { return local.Client(testEndpoint, m.Transport(nil)) }, rankBuildSlowdown,
		envDuration(b, "REDIMO_BUILD_DURATION", 40*time.Second))
	b.Logf("model: %v", m.Stats())
}

func BenchmarkRankBuildBusyLocal(b *testing.B) {
	needDB(b)
	benchRankBuildBusy(b, func() DynamoDBAPI { return local.Client(testEndpoint, nil) }, 1,
		envDuration(b, "REDIMO_BUILD_DURATION", 10*time.Second))
}

// benchRankBuildBusy runs the scenario above for d of wall time on
// Clients made by db, whose time runs slow times slower than real time.
func benchRankBuildBusy(b *testing.B, db func() DynamoDBAPI, slow float64, d time.Duration) {
	ctx := context.Background()
	direct := NewClient(local.Client(testEndpoint, nil), func(o *Options) { o.TableName = testTable })
	opts := func(o *Options) { o.TableName = testTable }
	for n := range b.N {
		k := fmt.Sprintf("RankBuildBusy:%s:%d", randomHex(3), n)
		var zs []Z
		for i := range model.RankMin - 1 {
			zs = append(zs, Z{Score: float64(i % 500), Member: fmt.Sprintf("p%05d", i)})
		}
		if _, err := direct.ZAdd(ctx, k, zs...); err != nil { // one short of the minimum, unmeasured
			b.Fatal(err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var rescores atomic.Int64
		for ci := range 2 {
			c := NewClient(db(), opts)
			for g := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						// ZADD XX: a re-score (ZINCRBY's first attempt supposes a
						// new member, so at the minimum it would build too).
						z := Z{Score: float64((i * 37) % 500), Member: fmt.Sprintf("p%05d", (ci*997+g*131+i*7)%(model.RankMin-1))}
						if _, err := c.ZAddArgs(ctx, k, ZAddArgs{XX: true, Members: []Z{z}}); err != nil {
							b.Error(err)
							return
						}
						rescores.Add(1)
					}
				}()
			}
		}
		cnt := &counter{db: db()}
		adder := NewClient(cnt, opts)
		time.Sleep(d / 20) // the re-scorers get going
		start := time.Now()
		built := time.Duration(-1)
		wg.Add(1)
		go func() { // watches for rk, on DynamoDB Local
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
				it, err := direct.st.GetItem(ctx, model.MetaKey(k), nil, nil, nil)
				if err != nil {
					b.Error(err)
					return
				}
				if _, ok := it[model.AttrRanked]; ok {
					built = time.Since(start)
					return
				}
			}
		}()
		var lat []time.Duration
		for i := 0; time.Since(start) < d; i++ {
			t0 := time.Now()
			if _, err := adder.ZAdd(ctx, k, Z{Score: 250.5, Member: fmt.Sprintf("new%05d", i)}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		close(stop)
		wg.Wait()
		slices.Sort(lat)
		at := func(q float64) time.Duration { return time.Duration(float64(lat[int(q*float64(len(lat)-1))]) / slow) }
		buildTime := "not ranked within the run"
		if built >= 0 {
			buildTime = (time.Duration(float64(built) / slow)).Round(time.Millisecond).String()
		}
		cnt.mu.Lock()
		queries := cnt.byOp["Query"]
		cnt.mu.Unlock()
		b.Logf("ranked after: %s; %d ZADDs, p50 %v, p99 %v; adder sent %d Queries, %d transactions cancelled (%d by conflicts); %d re-scores (times in the model's time: wall / %v)",
			buildTime, len(lat), at(0.5).Round(time.Millisecond), at(0.99).Round(time.Millisecond), queries, cnt.cancelled.Load(), cnt.conflicts.Load(), rescores.Load(), slow)
		if built >= 0 {
			b.ReportMetric(float64(built)/slow/float64(time.Millisecond), "build-ms")
		}
		b.ReportMetric(float64(at(0.5))/float64(time.Millisecond), "zadd-p50-ms")
		b.ReportMetric(float64(at(0.99))/float64(time.Millisecond), "zadd-p99-ms")
		if built >= 0 {
			checkRankItemsB(b, direct, k)
		}
	}
}

// checkRankItemsB is checkRankItems for a benchmark: the count items of a
// ranked key add up to its members.
func checkRankItemsB(b *testing.B, c *Client, key string) {
	ranges, err := c.readRanges(context.Background(), key)
	if err != nil {
		b.Fatal(err)
	}
	var sum int64
	for _, r := range ranges {
		sum += r.N
	}
	n, err := c.ZCard(context.Background(), key)
	if err != nil {
		b.Fatal(err)
	}
	if sum != n {
		b.Errorf("count items add up to %d, ZCARD %d", sum, n)
	}
}
