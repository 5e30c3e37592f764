package redimo

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestZRescoreRequests pins what a ZINCRBY of an existing member of a
// sorted set of member items costs (BENCHMARKS.md, "Sorted-set
// re-scores"): requests on DynamoDB Local and the cost model's units.
// The first increment of a key assumes the member new (a cancelled
// transaction, then the re-score); once this Client met re-scores on the
// key, it reads the member first (eventually consistent) and sends one
// transaction.
func TestZRescoreRequests(t *testing.T) {
	var tally Tally
	c, cnt, _ := meteredClient(t, func(o *Options) { o.Metrics = tally.Add })
	ctx := context.Background()
	k := t.Name() + ":" + randomHex(3)
	_, err := c.ZAdd(ctx, k, players(0, 200, 10)...)
	require.NoError(t, err)

	// step is one ZINCRBY: the member, the increment and the score it
	// makes, then the requests and units it must cost (rcu < 0: not
	// checked).
	type step struct {
		what      string
		member    string
		by, score float64
		requests  int64
		wcu, rcu  float64
		ops       map[string]int64 // nil: not checked
	}
	run := func(s step) {
		t.Helper()
		cnt.reset()
		tally.Take()
		got, err := c.ZIncrBy(ctx, k, s.by, s.member)
		require.NoError(t, err)
		require.EqualValues(t, s.score, got, s.what)
		cost := tally.Take()
		cnt.mu.Lock()
		ops := maps.Clone(cnt.byOp)
		cnt.mu.Unlock()
		t.Logf("%s: %d requests %v, %.2f RCU, %.2f WCU", s.what, cnt.requests.Load(), ops, cost.ReadUnits, cost.WriteUnits)
		require.EqualValues(t, s.requests, cnt.requests.Load(), s.what)
		require.EqualValues(t, s.wcu, cost.WriteUnits, s.what)
		if s.rcu >= 0 {
			require.EqualValues(t, s.rcu, cost.ReadUnits, s.what)
		}
		if s.ops != nil {
			require.Equal(t, s.ops, ops, s.what)
		}
	}
	readWrite := map[string]int64{"GetItem": 1, "TransactWriteItems": 1}
	for _, s := range []step{
		// The first assumes the member new: a cancelled put (4), then
		// the re-score (8).
		{what: "first ZINCRBY of an existing member", member: "p00042", by: 5, score: 7, requests: 2, wcu: 12, rcu: -1},
		// Then the member is read first: the member (2), its index
		// entry's move (4), the metadata item (2).
		{what: "next ZINCRBY of an existing member", member: "p00043", by: 5, score: 8, requests: 2, wcu: 8, rcu: 0.5, ops: readWrite},
		// A new member on such a key: the read, then the put (the
		// member, its new index entry, the metadata item)...
		{what: "ZINCRBY of a new member after re-scores", member: "new", by: 3, score: 3, requests: 2, wcu: 6, rcu: -1},
		// ... after which the next increment assumes new again.
		{what: "the next new member", member: "new2", by: 3, score: 3, requests: 1, wcu: 6, rcu: -1},
		// A member this Client wrote last: its own index value, no read.
		{what: "ZINCRBY of a member this Client wrote last", member: "p00043", by: 1, score: 9, requests: 1, wcu: 8, rcu: -1},
		{what: "another it wrote last", member: "new", by: 1, score: 4, requests: 1, wcu: 8, rcu: -1},
	} {
		run(s)
	}
	cnt.reset()
	_, err = c.ZAdd(ctx, k, Z{Score: 42, Member: "new2"}) // ZADD of one member: the same
	require.NoError(t, err)
	require.EqualValues(t, 1, cnt.requests.Load())

	// A member this Client removed is not assumed there: no cancelled
	// attempt (the read, as re-scores are what the key last met).
	_, err = c.ZRem(ctx, k, "new")
	require.NoError(t, err)
	run(step{what: "a member this Client removed", member: "new", by: 2, score: 2, requests: 2, wcu: 6, rcu: 0.5})
}

// hookGet runs hook once, after the first GetItem (the re-score's read of
// its member) answered: another Client's write lands between the read
// and the write it plans.
type hookGet struct {
	DynamoDBAPI
	once sync.Once
	hook func()
}

func (h *hookGet) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := h.DynamoDBAPI.GetItem(ctx, in, o...)
	if h.hook != nil {
		h.once.Do(h.hook)
	}
	return out, err
}

// TestZRescoreStaleRead: a re-score whose read of the member is stale by
// the time it writes (another Client re-scored it, removed it, deleted
// or expired the key, or made it a set) replies and writes as Redis
// would after that other write: the transaction's conditions judge, never
// the read.
func TestZRescoreStaleRead(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	type scenario = struct {
		name    string
		between func(t *testing.T, c *Client, k string)
		want    float64 // the reply to ZINCRBY k 5 m (m scored 1)
		card    int64
		wrong   bool                                       // WRONGTYPE
		run     func(c *Client, k string) (float64, error) // nil: ZINCRBY k 5 m, which replies want
	}
	for _, sc := range []scenario{
		{name: "re-scored", between: func(t *testing.T, c *Client, k string) {
			_, err := c.ZIncrBy(ctx, k, 10, "m")
			require.NoError(t, err)
		}, want: 16, card: 3},
		{name: "ZREM", between: func(t *testing.T, c *Client, k string) {
			_, err := c.ZRem(ctx, k, "m")
			require.NoError(t, err)
		}, want: 5, card: 3},
		{name: "DEL", between: func(t *testing.T, c *Client, k string) {
			_, err := c.Del(ctx, k)
			require.NoError(t, err)
		}, want: 5, card: 1},
		{name: "expired", between: func(t *testing.T, c *Client, k string) {
			_, err := c.PExpire(ctx, k, time.Millisecond)
			require.NoError(t, err)
			time.Sleep(5 * time.Millisecond)
		}, want: 5, card: 1},
		{name: "ZINCRBY 0 after DEL", between: func(t *testing.T, c *Client, k string) {
			_, err := c.Del(ctx, k)
			require.NoError(t, err)
		}, run: func(c *Client, k string) (float64, error) { return c.ZIncrBy(ctx, k, 0, "m") }, want: 0, card: 1},
		{name: "ZADD of the same score after DEL", between: func(t *testing.T, c *Client, k string) {
			_, err := c.Del(ctx, k)
			require.NoError(t, err)
		}, run: func(c *Client, k string) (float64, error) {
			n, err := c.ZAdd(ctx, k, Z{Score: 1, Member: "m"})
			if err == nil && n != 1 {
				return 0, fmt.Errorf("ZADD added %d, want 1", n)
			}
			return 1, err
		}, want: 1, card: 1},
		{name: "ZADD NX after ZREM", between: func(t *testing.T, c *Client, k string) {
			_, err := c.ZRem(ctx, k, "m")
			require.NoError(t, err)
		}, run: func(c *Client, k string) (float64, error) {
			n, err := c.ZAddArgs(ctx, k, ZAddArgs{NX: true, Members: []Z{{Score: 7, Member: "m"}}})
			if err == nil && n != 1 {
				return 0, fmt.Errorf("ZADD NX added %d, want 1", n)
			}
			return 7, err
		}, want: 7, card: 3},
		{name: "DEL then SADD", between: func(t *testing.T, c *Client, k string) {
			_, err := c.Del(ctx, k)
			require.NoError(t, err)
			_, err = c.SAdd(ctx, k, "m")
			require.NoError(t, err)
		}, wrong: true},
	} {
		for _, cached := range []bool{false, true} {
			name := sc.name + "/read"
			if cached {
				name = sc.name + "/own write"
			}
			t.Run(name, func(t *testing.T) {
				k := t.Name() + ":" + randomHex(3)
				// Member items: the re-score's read of the member (a small
				// sorted set's writes are compare-and-swaps: smallz_test.go).
				other, _, _ := newTestClient(t, func(o *Options) { o.DisableSmallSortedSets = true })
				h := &hookGet{DynamoDBAPI: testDB}
				c := NewClient(h, func(o *Options) { o.TableName = testTable; o.DisableSmallSortedSets = true })
				_, err := other.ZAdd(ctx, k, Z{Score: 2, Member: "a"}, Z{Score: 3, Member: "b"})
				require.NoError(t, err)
				if cached {
					// c wrote m last: its next write assumes m as c left it,
					// and another Client's write comes before that one.
					_, err = c.ZAdd(ctx, k, Z{Score: 1, Member: "m"})
					require.NoError(t, err)
					sc.between(t, other, k)
				} else {
					_, err = other.ZAdd(ctx, k, Z{Score: 1, Member: "m"})
					require.NoError(t, err)
					_, err = c.ZIncrBy(ctx, k, 0.5, "a") // c meets a re-score: its next one reads first
					require.NoError(t, err)
					h.hook = func() { sc.between(t, other, k) }
				}
				run := sc.run
				if run == nil {
					run = func(c *Client, k string) (float64, error) { return c.ZIncrBy(ctx, k, 5, "m") }
				}
				s, err := run(c, k)
				if sc.wrong {
					require.ErrorIs(t, err, ErrWrongType)
					ms, err := other.SMembers(ctx, k)
					require.NoError(t, err)
					require.Equal(t, []string{"m"}, ms)
					return
				}
				require.NoError(t, err)
				require.Equal(t, sc.want, s)
				got, ok, err := other.ZScore(ctx, k, "m")
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, sc.want, got)
				card, err := other.ZCard(ctx, k)
				require.NoError(t, err)
				require.Equal(t, sc.card, card)
				all, err := other.ZRangeWithScores(ctx, k, 0, -1)
				require.NoError(t, err)
				require.Len(t, all, int(card))
			})
		}
	}
}

// TestZRescoreWatch: WATCH on a key whose member another Client re-scores
// (by the read-first path) fails the transaction; one not touched
// commits.
func TestZRescoreWatch(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	c, other := cleanClient(t), cleanClient(t)
	k := t.Name() + ":" + randomHex(3)
	_, err := c.ZAdd(ctx, k, players(0, 50, 7)...)
	require.NoError(t, err)
	for _, m := range []string{"p00001", "p00002"} { // other meets re-scores: it reads first from now on
		_, err = other.ZIncrBy(ctx, k, 1, m)
		require.NoError(t, err)
	}
	exec := func(w *Watch) error {
		return c.ExecWatched(ctx, w, func(p *Pipeline) error {
			_, err := p.ZAdd(ctx, k+":copy", Z{Score: 1, Member: "x"})
			return err
		})
	}
	w, err := c.WatchKeys(ctx, k)
	require.NoError(t, err)
	s, err := other.ZIncrBy(ctx, k, 2.5, "p00003")
	require.NoError(t, err)
	require.Equal(t, 5.5, s)
	require.ErrorIs(t, exec(w), ErrTxFailed)
	n, err := c.Exists(ctx, k+":copy")
	require.NoError(t, err)
	require.Zero(t, n)

	// A member other wrote last: its re-score assumes its own index value.
	w, err = c.WatchKeys(ctx, k)
	require.NoError(t, err)
	s, err = other.ZIncrBy(ctx, k, 1, "p00001")
	require.NoError(t, err)
	require.Equal(t, 3.0, s)
	require.ErrorIs(t, exec(w), ErrTxFailed)

	w, err = c.WatchKeys(ctx, k)
	require.NoError(t, err)
	require.NoError(t, exec(w))
	n, err = c.Exists(ctx, k+":copy")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

// TestZRescoreRanked: read-first re-scores of a ranked key that move
// members across its ranges keep the count items exact (rank.go).
func TestZRescoreRanked(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	c := cleanClient(t)
	c.ranks.min, c.ranks.max = 20, 10
	k := t.Name() + ":" + randomHex(3)
	_, err := c.ZAdd(ctx, k, players(0, 60, 60)...) // p000i scored i
	require.NoError(t, err)
	require.True(t, c.belief(k).Ranked, "built by the ZADD")
	for i := range 10 {
		m := players(i*5, i*5+1, 60)[0].Member
		_, err := c.ZIncrBy(ctx, k, 100, m) // to the top: across every range
		require.NoError(t, err)
	}
	requireRanksInOrder(t, c, k)
	require.True(t, c.belief(k).Ranked, "the re-scores kept the key ranked")
}

// TestZRescoreFaults: re-scores under lost responses, writes applied then
// answered 500, and transaction conflicts, from two Clients at once (one
// faulty, one clean, so each one's guesses go stale), add up exactly:
// no increment applied twice or lost, the count and the count items
// (checkStoredCounts) exact.
func TestZRescoreFaults(t *testing.T) {
	underFaults(t, func(t *testing.T, ctx context.Context, c *Client, p string) {
		k := p + "board"
		clean := cleanClient(t)
		ms := numbered("p%02d", 10)
		for _, m := range ms {
			_, err := c.ZAdd(ctx, k, Z{Score: 0, Member: m})
			require.NoError(t, err)
		}
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			want = map[string]float64{}
		)
		for w, cl := range []*Client{c, clean, c} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 30 {
					m := ms[(i*7+w*3)%len(ms)]
					by := float64(1 + (i+w)%4)
					var err error
					if i%3 == 0 {
						_, _, err = cl.ZAddArgsIncr(ctx, k, ZAddArgs{Members: []Z{{Score: by, Member: m}}})
					} else {
						_, err = cl.ZIncrBy(ctx, k, by, m)
					}
					if !assert.NoError(t, err) {
						return
					}
					mu.Lock()
					want[m] += by
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		for _, m := range ms {
			s, ok, err := clean.ZScore(ctx, k, m)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want[m], s, m)
		}
		card, err := clean.ZCard(ctx, k)
		require.NoError(t, err)
		require.EqualValues(t, len(ms), card)
		checkStoredCounts(t, p)
	})
}

// TestZRescoreRacesDelete: re-scores (read-first and own-write guesses)
// racing DEL and key expiry from another Client leave the stored counts
// equal to the member items (checkStoredCounts: no member written into a
// deleted or expired key survives it), and every score is one a Redis
// history allows: a member's score is the sum of the increments since
// the key last went.
func TestZRescoreRacesDelete(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	c, other := cleanClient(t), cleanClient(t)
	_, _, p := newTestClient(t)
	k := p + "board"
	ms := numbered("p%02d", 4)
	for round := range 6 {
		_, err := c.ZAdd(ctx, k, Z{Score: 0, Member: ms[0]}, Z{Score: 0, Member: ms[1]})
		require.NoError(t, err)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(round) * time.Millisecond)
			var err error
			if round%2 == 0 {
				_, err = other.Del(ctx, k)
			} else {
				_, err = other.PExpire(ctx, k, time.Millisecond)
			}
			assert.NoError(t, err)
		}()
		for i := range 12 {
			s, err := c.ZIncrBy(ctx, k, 1, ms[i%len(ms)])
			require.NoError(t, err)
			require.LessOrEqual(t, s, float64(3), "at most 3 increments of a member since the key last went")
		}
		wg.Wait()
		time.Sleep(2 * time.Millisecond)
		checkStoredCounts(t, p)
		all, err := other.ZRangeWithScores(ctx, k, 0, -1)
		require.NoError(t, err)
		for _, z := range all {
			require.GreaterOrEqual(t, z.Score, float64(0))
		}
		_, err = other.Del(ctx, k)
		require.NoError(t, err)
	}
	checkStoredCounts(t, p)
	require.Empty(t, rawPartition(t, model.PkValue(k)))
}
