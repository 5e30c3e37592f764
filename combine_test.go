package redimo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
)

// slowTx is a DynamoDBAPI whose transactions take at least d, as on real
// DynamoDB, so that writers overlap; it counts them and their actions.
type slowTx struct {
	DynamoDBAPI
	d       time.Duration
	txs     atomic.Int64
	actions atomic.Int64
}

func (s *slowTx) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	s.txs.Add(1)
	s.actions.Add(int64(len(in.TransactItems)))
	time.Sleep(s.d)
	return s.DynamoDBAPI.TransactWriteItems(ctx, in, opts...)
}

func slowClient(t *testing.T, d time.Duration, optFns ...func(*Options)) (*Client, *slowTx, string) {
	plain, _, p := newTestClient(t)
	s := &slowTx{DynamoDBAPI: plain.st.DB, d: d}
	// Write combining shares transactions: the sets here are member
	// items, whatever their size (smallset.go), and so are the sorted sets
	// (smallz.go).
	opts := append([]func(*Options){func(o *Options) { o.TableName = testTable; o.DisableSmallSets = true; o.DisableSmallSortedSets = true }}, optFns...)
	return NewClient(s, opts...), s, p
}

// Concurrent single-member SADDs on one key share transactions, and every
// reply and the count are what they would be alone. Keys are independent
// (no Client-wide cap since issue 23): on each key one transaction is in
// flight and the writers that wait for it share the next, so with 8
// writers per key (4 keys) about 2 transactions carry 8 SADDs.
func TestCombiningSharesTransactions(t *testing.T) {
	for _, keys := range []int{1, 4} {
		t.Run(fmt.Sprint(keys, " keys"), func(t *testing.T) {
			c, s, p := slowClient(t, 10*time.Millisecond)
			ctx := context.Background()
			const writers, each = 32, 5
			var added atomic.Int64
			runWorkers(writers, func(w int) {
				for i := range each {
					// Every member twice: the second add must reply 0.
					n, err := c.SAdd(ctx, fmt.Sprint(p, w%keys), fmt.Sprint("m", (w*each+i)/2))
					require.NoError(t, err)
					added.Add(n)
				}
			})
			var card int64
			for k := range keys {
				n, err := c.SCard(ctx, fmt.Sprint(p, k))
				require.NoError(t, err)
				card += n
			}
			require.EqualValues(t, card, added.Load(), "replies sum to the count")
			checkStoredCounts(t, p)
			ops := int64(writers * each)
			t.Logf("%d SADDs on %d keys: %d transactions, %d actions", ops, keys, s.txs.Load(), s.actions.Load())
			// Alone, each SADD is a transaction (ops of them, or more with
			// retries). How many share depends on how many writers the
			// scheduler has waiting at once: 14 (1 key) on an idle 2-core
			// machine; with 8 writers per key, one alone then 7 together
			// at best, about ops/4 (40 measured); fewer than half proves
			// sharing.
			require.Less(t, s.txs.Load(), ops/2, "concurrent writes share transactions")
		})
	}
}

// ZINCRBY from many goroutines on one member: each reply is a distinct
// step of the count, exactly as one at a time would give.
func TestCombiningZIncrByReplies(t *testing.T) {
	c, _, p := slowClient(t, 5*time.Millisecond)
	ctx := context.Background()
	k := p + "board"
	writers, each := testenv.Budget(8, 16), testenv.Budget(4, 6)
	var mu sync.Mutex
	var got []float64
	runWorkers(writers, func(w int) {
		for range each {
			f, err := c.ZIncrBy(ctx, k, 1, "hot")
			require.NoError(t, err)
			_, err = c.ZIncrBy(ctx, k, 1, fmt.Sprint("cold", w))
			require.NoError(t, err)
			mu.Lock()
			got = append(got, f)
			mu.Unlock()
		}
	})
	slices.Sort(got)
	for i, f := range got {
		require.EqualValues(t, i+1, f, "ZINCRBY replies are the steps 1..n")
	}
	n, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 1+writers, n)
	checkStoredCounts(t, p)
}

// A wrong type fails only the command that meets it: its neighbours in
// the same shared transaction succeed.
func TestCombiningWrongTypeIsolated(t *testing.T) {
	c, s, p := slowClient(t, 10*time.Millisecond)
	ctx := context.Background()
	_, err := c.ZAdd(ctx, p+"z", Z{Score: 1, Member: "a"})
	require.NoError(t, err)
	var wrong, ok atomic.Int64
	runWorkers(24, func(i int) {
		key := p + "s"
		if i%3 == 0 {
			key = p + "z"
		}
		n, err := c.SAdd(ctx, key, fmt.Sprint("m", i))
		switch {
		case err == nil && n == 1 && key == p+"s":
			ok.Add(1)
		case key == p+"z":
			require.ErrorIs(t, err, ErrWrongType)
			wrong.Add(1)
		default:
			t.Errorf("SADD %s m%d: %d, %v", key, i, n, err)
		}
	})
	require.EqualValues(t, 8, wrong.Load())
	require.EqualValues(t, 16, ok.Load())
	n, err := c.SCard(ctx, p+"s")
	require.NoError(t, err)
	require.EqualValues(t, 16, n)
	t.Logf("%d transactions", s.txs.Load())
}

// The batching rules, without DynamoDB: attempts on one key leave in
// order, never two writes of one member or two types of one key in one
// transaction, at most 100 actions, and busy keys wait.
func TestCombinerTake(t *testing.T) {
	c := NewClient(nil, func(o *Options) { o.MaxTransactions = 2 })
	cb := c.combiner
	att := func(key string, typ model.KeyType, members ...string) *attempt {
		g := &model.Group{Key: key, Typ: typ}
		a := &attempt{ctx: context.Background(), done: make(chan txOutcome, 1)}
		for _, m := range members {
			w := c.putMember(key, typ, m, nil)
			g.Writes = append(g.Writes, w)
			a.actions = append(a.actions, w.Action)
			a.owners, a.writes = append(a.owners, g), append(a.writes, w)
		}
		a.actions = append(a.actions, c.metaAction(g))
		a.owners, a.writes = append(a.owners, g), append(a.writes, nil)
		return a
	}
	many := make([]string, 97)
	for i := range many {
		many[i] = fmt.Sprint("x", i)
	}
	a1 := att("k", model.TypeSet, "a")
	a2 := att("k", model.TypeSet, "a", "b") // same member as a1: next transaction
	a3 := att("k", model.TypeSet, "c")      // after a2 on k: waits with it
	a4 := att("j", model.TypeZSet, "a")     // another key: joins
	a5 := att("j", model.TypeSet, "b")      // another type on j: never with a4
	a6 := att("i", model.TypeSet, many...)  // 98 actions: too many beside the others
	a7 := att("h", model.TypeSet, "h")
	cb.queue = []*attempt{a1, a2, a3, a4, a5, a6, a7}
	names := map[*attempt]string{a1: "a1", a2: "a2", a3: "a3", a4: "a4", a5: "a5", a6: "a6", a7: "a7"}
	name := func(as []*attempt) []string {
		var out []string
		for _, a := range as {
			out = append(out, names[a])
		}
		return out
	}
	b := cb.take()
	require.Equal(t, []string{"a1", "a4", "a7"}, name(b))
	require.Equal(t, []string{"a2", "a3", "a5", "a6"}, name(cb.queue))
	// Keys k, j and h are busy: only i can go, in a second slot.
	b2 := cb.take()
	require.Equal(t, []string{"a6"}, name(b2))
	require.Nil(t, cb.take(), "both slots busy")
	// The first transaction ends: k and j go, in their order.
	for _, a := range b {
		for _, g := range a.owners {
			delete(cb.busy, g.Key)
		}
	}
	cb.inflight--
	b3 := cb.take()
	require.Equal(t, []string{"a2", "a3", "a5"}, name(b3), "j is free: the set attempt goes now")
	require.Empty(t, cb.queue)
}

// Concurrent ZINCRBY/ZADD/ZREM on a ranked sorted set share transactions:
// their count-item actions merge into one per count item (sums of their
// changes), the replies are exact (ZINCRBY's are distinct steps of the
// hot member's score) and the count items match a recount of the raw
// table, splits included (ranges of at most 12).
func TestCombiningRankedKey(t *testing.T) {
	c, s, p := slowClient(t, 10*time.Millisecond)
	c.ranks.max, c.ranks.min = 12, 40
	ctx := context.Background()
	k := p + "board"
	require.Positive(t, buildRanked(t, c, k, 120, 4))
	require.True(t, c.belief(k).Ranked)
	const writers = 24
	each := testenv.Budget(3, 6)

	// Sharing: ZINCRBYs of distinct members of another key, each staying
	// between its neighbours (distinct scores, small increments), so
	// that all apply at their first try: their count-item actions (ADD 0
	// to the ~20 ranges of 6 to 12 the ZADD's build and splits left) merge.
	spread := p + "spread"
	ranges := buildRanked(t, c, spread, 120, 120)
	require.GreaterOrEqual(t, ranges, 10)
	s.txs.Store(0)
	runWorkers(writers, func(w int) {
		for i := range each {
			_, err := c.ZIncrBy(ctx, spread, 0.001, fmt.Sprintf("m%03d", (w*each+i)%120))
			require.NoError(t, err)
		}
	})
	// Alone, every ZINCRBY is a transaction: 20-30 on an idle 2-core
	// machine.
	t.Logf("%d ZINCRBYs: %d transactions", writers*each, s.txs.Load())
	require.Less(t, s.txs.Load(), int64(writers*each/2), "writes of the ranked key share transactions")
	require.Equal(t, ranges, checkRankItems(t, c, spread), "score steps within neighbours: no range changed")

	// Exactness: a mix whose failed conditions (ZADD of a member that
	// exists, ZREM of one that does not, a count item split or merged
	// meanwhile) cancel shared transactions.
	var (
		mu             sync.Mutex
		hot            []float64
		added, removed atomic.Int64
	)
	runWorkers(writers, func(w int) {
		for i := range each {
			m := fmt.Sprintf("m%03d", (w*7+i*13)%160)
			switch (w + i) % 4 {
			case 0:
				f, err := c.ZIncrBy(ctx, k, 1, "hot")
				require.NoError(t, err)
				mu.Lock()
				hot = append(hot, f)
				mu.Unlock()
			case 1:
				n, err := c.ZAdd(ctx, k, Z{Score: float64((w + i) % 5), Member: m})
				require.NoError(t, err)
				added.Add(n)
			case 2:
				n, err := c.ZRem(ctx, k, m)
				require.NoError(t, err)
				removed.Add(n)
			case 3:
				_, err := c.ZIncrBy(ctx, k, float64(w%3)-1, m)
				require.NoError(t, err)
				_, _, err = c.ZRank(ctx, k, m)
				require.NoError(t, err)
			}
		}
	})
	slices.Sort(hot)
	for i, f := range hot {
		require.EqualValues(t, i+1, f, "ZINCRBY replies are the steps 1..n")
	}
	require.Positive(t, checkRankItems(t, c, k), "count items exact after combined writes")
	checkStoredCounts(t, p)
	// Every member's rank from the count items is its position.
	all, err := c.ZRangeWithScores(ctx, k, 0, -1)
	require.NoError(t, err)
	for i, z := range all {
		r, ok, err := c.ZRank(ctx, k, z.Member)
		require.NoError(t, err)
		require.True(t, ok)
		require.EqualValues(t, i, r, z.Member)
	}
	t.Logf("mix: +%d ZADD, -%d ZREM", added.Load(), removed.Load())
}

// Attempts of a ranked key join when they agree on its ranges: one action
// per count item in the shared transaction, adding the sum of their
// changes; an attempt that knows other bounds, or believes the key
// unranked, waits for the next transaction.
func TestCombinerTakeRanked(t *testing.T) {
	c := NewClient(nil)
	cb := c.combiner
	ranges := []model.RankRange{{Lo: []byte{}, Hi: []byte("m")}, {Lo: []byte("m")}}
	stale := []model.RankRange{{Lo: []byte{}, Hi: []byte("q")}, {Lo: []byte("q")}}
	att := func(b *model.RankBelief, member string, ix []byte) *attempt {
		g := &model.Group{Key: "k", Typ: model.TypeZSet, Rank: b}
		w := c.putMember("k", model.TypeZSet, member, ix)
		g.Writes = []*model.Write{w}
		a := &attempt{ctx: context.Background(), done: make(chan txOutcome, 1)}
		for _, x := range append(g.Writes, c.rankWrites(g)...) {
			a.actions = append(a.actions, x.Action)
			a.owners, a.writes = append(a.owners, g), append(a.writes, x)
		}
		a.actions = append(a.actions, c.metaAction(g))
		a.owners, a.writes = append(a.owners, g), append(a.writes, nil)
		return a
	}
	known := &model.RankBelief{Ranked: true, Ranges: ranges}
	a1 := att(known, "a", []byte("b"))
	a2 := att(known, "c", []byte("d"))                                          // same count item, same bound: joins
	a3 := att(known, "e", []byte("x"))                                          // the other count item: joins
	a4 := att(&model.RankBelief{Ranked: true, Ranges: stale}, "f", []byte("c")) // another bound for "": waits
	a5 := att(&model.RankBelief{}, "g", []byte("e"))                            // unranked belief: waits
	cb.queue = []*attempt{a1, a2, a3, a4, a5}
	b := cb.take()
	require.Equal(t, []*attempt{a1, a2, a3}, b)
	require.Equal(t, []*attempt{a4, a5}, cb.queue)
	require.Equal(t, model.RankCond(a1.writes[1]), model.RankCond(a2.writes[1]))
	merged := model.RankMerged([]*model.Write{a1.writes[1], a2.writes[1]})
	require.Equal(t, model.Num(2), merged.Update.ExpressionAttributeValues[":d"], "the sum of their changes")
	require.Equal(t, model.Num(1), a1.writes[1].Action.Update.ExpressionAttributeValues[":d"], "each attempt's own action unchanged")
}

// Write combining and the transaction writer at their risky edges: each
// test below says what is expected; where a comment says what redimo
// did, the test caught that bug.

// heldTx is a DynamoDBAPI in front of DynamoDB Local whose
// transactions can be delayed, held, stalled or answered with an error
// after they were applied.
type heldTx struct {
	DynamoDBAPI
	delay time.Duration // every transaction waits this long first
	// gate, when set, holds the next transaction until its release is
	// closed; its held is closed when it starts waiting (holdNext).
	gate atomic.Pointer[holdGate]
	// stall: every transaction waits this long, or until its context
	// ends (as an HTTP request to a stalled server would).
	stall time.Duration
	// failApplied: the next failApplied transactions of at least failMin
	// actions are applied, then answered with a 500 (the SDK's retries of
	// an applied-then-lost request exhausted).
	failApplied atomic.Int32
	failMin     int
	txs         atomic.Int64
}

func (r *heldTx) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	r.txs.Add(1)
	if g := r.gate.Swap(nil); g != nil {
		close(g.held)
		<-g.release
	}
	if r.delay > 0 {
		time.Sleep(r.delay)
	}
	if r.stall > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(r.stall):
		}
	}
	out, err := r.DynamoDBAPI.TransactWriteItems(ctx, in, opts...)
	if err == nil && len(in.TransactItems) >= r.failMin && r.failApplied.Add(-1) >= 0 {
		return nil, &types.InternalServerError{Message: &appliedLost}
	}
	return out, err
}

var appliedLost = "test: applied, then the response was lost"

func heldClient(t *testing.T, delay time.Duration, optFns ...func(*Options)) (*Client, *heldTx, string) {
	plain, _, p := newTestClient(t)
	r := &heldTx{DynamoDBAPI: plain.st.DB, delay: delay}
	// Write combining shares transactions: the sets here are member
	// items, whatever their size (smallset.go), and so are the sorted sets
	// (smallz.go).
	opts := append([]func(*Options){func(o *Options) { o.TableName = testTable; o.DisableSmallSets = true; o.DisableSmallSortedSets = true }}, optFns...)
	return NewClient(r, opts...), r, p
}

// heldSet is heldClient and a set key under its prefix.
func heldSet(t *testing.T, delay time.Duration, optFns ...func(*Options)) (*Client, *heldTx, string) {
	c, tx, p := heldClient(t, delay, optFns...)
	return c, tx, p + "s"
}

type holdGate struct{ held, release chan struct{} }

// holdSAdd holds an SADD of p+"hold" in flight (its transaction waits),
// so that the next writes queue; release lets it go and requires it
// committed.
func (r *heldTx) holdSAdd(t *testing.T, c *Client, p string) (release func()) {
	g := r.holdNext()
	done := make(chan error, 1)
	go func() { _, err := c.SAdd(context.Background(), p+"hold", "x"); done <- err }()
	<-g.held
	return func() {
		t.Helper()
		close(g.release)
		require.NoError(t, <-done)
	}
}

// holdNext makes the next transaction wait until release is closed.
func (r *heldTx) holdNext() *holdGate {
	g := &holdGate{held: make(chan struct{}), release: make(chan struct{})}
	r.gate.Store(g)
	return g
}

// waitQueued waits until n attempts wait in c's combiner queue.
func waitQueued(t *testing.T, c *Client, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.combiner.mu.Lock()
		q := len(c.combiner.queue)
		c.combiner.mu.Unlock()
		if q >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d attempts queued, want %d", q, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A shared transaction DynamoDB
// applied but answered with an error other than a cancellation (a 500
// after the SDK's retries, a lost connection) had every attempt sent again
// alone with a new ClientRequestToken, meeting its own writes: SADD
// replied 0 for a member it added, SPOP popped another member and the
// first was gone, returned by no one, and one ZINCRBY by 1 on a new member
// replied 2 and left score 2 (applied twice).
// Expected: each reply is what the command alone would answer (alone, the
// same fault returns the error): SADD replies 1 or fails, every original
// member is still there or returned by an SPOP, ZINCRBY counts once.
// Fixed: sendTx resends a TransactWriteItems after an InternalServerError
// with its token (applied at most once), and a shared transaction's other
// errors are every attempt's answer; only a ValidationException (nothing
// applied) sends them again alone.
func TestCombineAppliedThenErrorReplies(t *testing.T) {
	c, tx, p := heldClient(t, 0, func(o *Options) { o.MaxTransactions = 1 })
	ctx := context.Background()
	adds, pops := p+"adds", p+"pops"
	orig := []string{"a", "b", "c", "d", "e", "f"}
	_, err := c.SAdd(ctx, pops, orig...)
	require.NoError(t, err)

	// One transaction in flight (held) so the next ones queue and share.
	tx.failMin = 3 // alone, each command here sends 2 actions; shared, 3 or more
	tx.failApplied.Store(1)
	release := tx.holdSAdd(t, c, p)

	var (
		mu      sync.Mutex
		added   = map[string]int64{}
		addErr  = map[string]error{}
		popped  []string
		popErrs []error
	)
	var wg sync.WaitGroup
	for _, m := range []string{"n1", "n2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := c.SAdd(ctx, adds, m)
			mu.Lock()
			added[m], addErr[m] = n, err
			mu.Unlock()
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := c.SPopN(ctx, pops, 1)
			mu.Lock()
			popped = append(popped, got...)
			popErrs = append(popErrs, err)
			mu.Unlock()
		}()
	}
	incrs := map[string]float64{}
	incrErr := map[string]error{}
	for _, m := range []string{"x", "y"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := c.ZIncrBy(ctx, p+"z", 1, m)
			mu.Lock()
			incrs[m], incrErr[m] = f, err
			mu.Unlock()
		}()
	}
	waitQueued(t, c, 6)
	release()
	wg.Wait()

	for _, m := range []string{"n1", "n2"} {
		ok, err := c.SIsMember(ctx, adds, m)
		require.NoError(t, err)
		require.True(t, ok)
		if addErr[m] == nil && added[m] != 1 {
			t.Errorf("SADD %s replied %d (no error), but this command added it: want 1 (or an error)", m, added[m])
		}
	}
	for _, m := range []string{"x", "y"} {
		score, _, err := c.ZScore(ctx, p+"z", m)
		require.NoError(t, err)
		if score != 1 || (incrErr[m] == nil && incrs[m] != 1) {
			t.Errorf("one ZINCRBY %s by 1 on a new member: replied %v (err %v), score now %v: want 1 and 1", m, incrs[m], incrErr[m], score)
		}
	}
	left, err := c.SMembers(ctx, pops)
	require.NoError(t, err)
	all := append(append([]string(nil), left...), popped...)
	slices.Sort(all)
	if !slices.Equal(all, orig) {
		t.Errorf("SPOP x2 (errors %v) returned %v, set holds %v: members %v vanished, popped by no reply",
			popErrs, popped, left, missing(orig, all))
	}
	checkStoredCounts(t, p)
}

// tallied is a command's count, its error (if any) reported with t.Error:
// for workers, where require cannot stop the test.
func tallied(t testing.TB) func(int64, error) int64 {
	return func(n int64, err error) int64 {
		if err != nil {
			t.Error(err)
		}
		return n
	}
}

func missing(want, got []string) (out []string) {
	for _, m := range want {
		if !slices.Contains(got, m) {
			out = append(out, m)
		}
	}
	return out
}

// An
// attempt alone on its member, with no conflict, was cancelled whenever a
// neighbour in its shared transaction had a failing condition (an SADD of
// a member already there), each time costing one of its MaxAttempts tries;
// on a key that keeps receiving such SADDs it never committed and returned
// ErrContention.
// Expected: as alone, SADD of a new member replies 1; a neighbour's failed
// condition does not fail another command.
// Fixed: the attempts whose own conditions held go again at once without
// the failed ones (sendShared), not counted as a try.
func TestCombineNeighboursFailingConditionsStarve(t *testing.T) {
	c, _, k := heldSet(t, 3*time.Millisecond, func(o *Options) { o.MaxAttempts = 20 })
	ctx := context.Background()
	const writers = 12
	olds := numbered("old%d", writers)
	_, err := c.SAdd(ctx, k, olds...)
	require.NoError(t, err)
	var stop atomic.Bool
	var loopErrs atomic.Int64
	wait := startWorkers(writers, func(w int) {
		for !stop.Load() {
			// Already a member: replies 0, its own condition fails once.
			if n, err := c.SAdd(ctx, k, olds[w]); err != nil || n != 0 {
				loopErrs.Add(1)
			}
		}
	})
	time.Sleep(30 * time.Millisecond)
	var failed []string
	for i := range 2 {
		m := fmt.Sprint("new", i)
		n, err := c.SAdd(ctx, k, m)
		if err != nil || n != 1 {
			failed = append(failed, fmt.Sprintf("SADD %s: %d, %v", m, n, err))
		}
	}
	stop.Store(true)
	wait()
	require.Zero(t, loopErrs.Load())
	require.Empty(t, failed, "an SADD of a new member, with no conflict on its member, must reply 1")
	checkStoredCounts(t, k)
}

// The combiner sent every
// transaction, even a lone attempt on an idle client, with
// context.WithoutCancel, so the HTTP request and sendTx's retries with
// backoff never saw the caller's deadline.
// Expected (as with DisableWriteCombining): SADD with a 100 ms deadline
// against a stalled server returns DeadlineExceeded within about 100 ms.
// Before: with combining it waited out the stall (1.5 s), then returned
// nil (committed after its deadline) or DeadlineExceeded.
// Fixed: a lone attempt is sent with its caller's context; a shared
// transaction with one that ends when every caller's has (batchContext).
func TestCombineDeadlineIgnored(t *testing.T) {
	for _, combining := range []bool{false, true} {
		t.Run(fmt.Sprint("combining=", combining), func(t *testing.T) {
			c, tx, p := heldClient(t, 0, func(o *Options) { o.DisableWriteCombining = !combining })
			tx.stall = 1500 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := c.SAdd(ctx, p+"s", "a")
			took := time.Since(start)
			require.ErrorIs(t, err, context.DeadlineExceeded, "after %v", took)
			require.Less(t, took, 700*time.Millisecond, "SADD returns at its deadline")
		})
	}
}

// A caller whose context ends while its attempt waits in
// the queue returns context.Canceled at once, and its write is never sent
// (taken out of the queue; take skips cancelled ones).
func TestCombineCancelledWhileQueued(t *testing.T) {
	c, tx, p := heldClient(t, 0, func(o *Options) { o.MaxTransactions = 1 })
	bg := context.Background()
	release := tx.holdSAdd(t, c, p)
	ctx, cancel := context.WithCancel(bg)
	got := make(chan error, 1)
	go func() { _, err := c.SAdd(ctx, p+"q", "a"); got <- err }()
	waitQueued(t, c, 1)
	cancel()
	select {
	case err := <-got:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(time.Second):
		t.Fatal("a cancelled queued SADD did not return")
	}
	release()
	n, err := c.SCard(bg, p+"q")
	require.NoError(t, err)
	require.Zero(t, n, "the cancelled SADD wrote nothing")
	// The queue still drains: a later write goes.
	_, err = c.SAdd(bg, p+"q", "b")
	require.NoError(t, err)
	checkStoredCounts(t, p)
}

// SADD and SREM of the same members from many goroutines
// (never in one batch: fits compares member items), with neighbours whose
// conditions fail: added − removed is the final SCARD, and the stored
// count matches the items.
func TestCombineAddRemoveSameMembers(t *testing.T) {
	c, tx, k := heldSet(t, 2*time.Millisecond)
	ctx := context.Background()
	members := numbered("m%d", 12)
	var net atomic.Int64
	runWorkers(12, func(w int) {
		r := rand.New(rand.NewPCG(uint64(w), 7))
		for range 8 {
			ms := []string{members[r.IntN(12)], members[r.IntN(12)]}
			if r.IntN(2) == 0 {
				net.Add(tallied(t)(c.SAdd(ctx, k, ms...)))
			} else {
				net.Add(-tallied(t)(c.SRem(ctx, k, ms...)))
			}
		}
	})
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.Equal(t, net.Load(), n, "added − removed = SCARD")
	checkStoredCounts(t, k)
	t.Logf("96 commands in %d transactions", tx.txs.Load())
}

// SADD and ZADD racing to create one key never share a
// transaction (fits compares types): exactly one type wins, every command
// of the other gets WRONGTYPE, and the winners' replies sum to the
// cardinality.
func TestCombineMixedTypesCreate(t *testing.T) {
	c, _, p := heldClient(t, 2*time.Millisecond)
	ctx := context.Background()
	for round := range 6 {
		k := fmt.Sprint(p, "k", round)
		var added [8]int64
		var errs [8]error
		runWorkers(8, func(w int) {
			if w%2 == 0 {
				added[w], errs[w] = c.SAdd(ctx, k, fmt.Sprint("m", w))
			} else {
				added[w], errs[w] = c.ZAdd(ctx, k, Z{Score: float64(w), Member: fmt.Sprint("m", w)})
			}
		})
		var winners [2]int // SADDs, ZADDs that did not fail
		var wrong, sum int64
		for w, err := range errs {
			if err != nil {
				require.ErrorIs(t, err, ErrWrongType)
				wrong++
				continue
			}
			winners[w%2]++
			sum += added[w]
		}
		require.True(t, winners[0] == 0 || winners[1] == 0, "one type per key")
		require.EqualValues(t, 4, wrong)
		typ, err := c.Type(ctx, k)
		require.NoError(t, err)
		card := c.ZCard
		if typ == "set" {
			card = c.SCard
		}
		returns(t, sum)(card(ctx, k))
	}
	checkStoredCounts(t, p)
}

// Lost responses of shared transactions (the server
// applied them; the SDK resends with the same ClientRequestToken): every
// SADD/SREM/SPOP reply matches the model, each member popped at most once.
func TestCombineDroppedResponses(t *testing.T) {
	f := &faulty{next: http.DefaultTransport, mode: dropResponse, share: 0.25}
	c := faultyClient(t, f)
	p := t.Name() + ":" + randomHex(3) + ":"
	ctx := context.Background()
	k, pk := p+"s", p+"pop"
	pool := numbered("p%d", 40)
	_, err := c.SAdd(ctx, pk, pool...)
	require.NoError(t, err)
	var net atomic.Int64
	var mu sync.Mutex
	var popped []string
	runWorkers(10, func(w int) {
		for i := range 12 {
			m := fmt.Sprint("m", (w*12+i)%17)
			switch i % 3 {
			case 0:
				net.Add(tallied(t)(c.SAdd(ctx, k, m, fmt.Sprint("u", w, "-", i))))
			case 1:
				net.Add(-tallied(t)(c.SRem(ctx, k, m)))
			default:
				got, err := c.SPopN(ctx, pk, 1)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				popped = append(popped, got...)
				mu.Unlock()
			}
		}
	})
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.Equal(t, net.Load(), n, "added − removed = SCARD")
	left, err := c.SMembers(ctx, pk)
	require.NoError(t, err)
	all := append(append([]string(nil), left...), popped...)
	slices.Sort(all)
	want := slices.Clone(pool)
	slices.Sort(want)
	require.Equal(t, want, all, "every member popped once or still there")
	checkStoredCounts(t, p)
	t.Log(f.summary())
}

// A ranked sorted set (count items over ranges of at most
// 8 members, so splits and merges happen) under concurrent ZADD, ZREM and
// ZINCRBY sharing transactions: count items merged per range (fits;
// sendShared's model.RankMerged) stay exact, ZCARD is 200 + added − removed, and
// each member's score is its increments' sum.
func TestCombineRankedConcurrent(t *testing.T) {
	c, _, p := rankedClient(t, 8, 40)
	c.st.DB = &heldTx{DynamoDBAPI: c.st.DB, delay: 2 * time.Millisecond}
	ctx := context.Background()
	k := p + "board"
	require.Positive(t, buildRanked(t, c, k, 200, 200))
	var net atomic.Int64
	var incr [4]atomic.Int64 // increments of h0..h3
	runWorkers(6, func(w int) {
		r := rand.New(rand.NewPCG(uint64(w), 11))
		for i := range 12 {
			switch i % 4 {
			case 0:
				net.Add(tallied(t)(c.ZAdd(ctx, k, Z{Score: float64(r.IntN(220)), Member: fmt.Sprint("n", w, "-", i)}, Z{Score: float64(r.IntN(220)), Member: fmt.Sprintf("m%03d", r.IntN(200))})))
			case 1:
				net.Add(-tallied(t)(c.ZRem(ctx, k, fmt.Sprintf("m%03d", r.IntN(200)), fmt.Sprint("n", r.IntN(8), "-", r.IntN(20)))))
			default:
				h := r.IntN(4)
				if _, err := c.ZIncrBy(ctx, k, 1, fmt.Sprint("h", h)); err != nil {
					t.Error(err)
				}
				incr[h].Add(1)
			}
		}
	})
	n, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	var hs int64
	for h := range incr {
		if incr[h].Load() > 0 {
			hs++
			score, _, err := c.ZScore(ctx, k, fmt.Sprint("h", h))
			require.NoError(t, err)
			require.EqualValues(t, incr[h].Load(), score, "h%d: sum of its increments", h)
		}
	}
	require.Equal(t, 200+net.Load()+hs, n, "ZCARD = 200 + added − removed")
	ranges := checkRankItems(t, c, k)
	checkStoredCounts(t, p)
	t.Logf("%d ranges after", ranges)
}

// A key that expires (PEXPIRE 1 ms, then purged by the
// next write) or is deleted (DEL, whose member deletes share the
// combiner) while combined SADDs/SREMs queue on it: no error, and the
// stored count always matches the member items.
func TestCombineExpireOrDelWhileQueued(t *testing.T) {
	c, _, k := heldSet(t, 2*time.Millisecond)
	ctx := context.Background()
	var stop atomic.Bool
	wait := startWorkers(8, func(w int) {
		for i := 0; !stop.Load(); i++ {
			var err error
			if i%3 == 2 {
				_, err = c.SRem(ctx, k, fmt.Sprint("m", (w+i)%10))
			} else {
				_, err = c.SAdd(ctx, k, fmt.Sprint("m", (w+i)%10), fmt.Sprint("u", w, "-", i))
			}
			if err != nil {
				t.Error(err)
			}
		}
	})
	for i := range 10 {
		time.Sleep(15 * time.Millisecond)
		var err error
		if i%2 == 0 {
			_, err = c.PExpire(ctx, k, time.Millisecond)
		} else {
			_, err = c.Del(ctx, k) // its deletes go through the combiner too
		}
		if err != nil {
			t.Error(err)
		}
	}
	stop.Store(true)
	wait()
	countsMatchMembers(t, ctx, c, []string{k}, nil)
	time.Sleep(5 * time.Millisecond)
	_, err := c.SAdd(ctx, k, "last") // purges what expired last
	require.NoError(t, err)
	checkStoredCounts(t, k)
}

// Member expiries racing in shared transactions: SADDEX
// (short expiries), SPEXPIRE, SREM and SADD on the same members from many
// goroutines keep the count and mn exact (checkStoredCounts) and SCARD
// equal to SMEMBERS.
func TestCombineMemberExpiryRace(t *testing.T) {
	c, _, k := heldSet(t, 2*time.Millisecond)
	ctx := context.Background()
	runWorkers(8, func(w int) {
		for i := range 15 {
			m := fmt.Sprint("m", (w*3+i)%8)
			var err error
			switch i % 4 {
			case 0:
				_, err = c.SAddEx(ctx, k, time.Duration(1+i%3)*time.Millisecond*20, false, m, fmt.Sprint("x", w))
			case 1:
				_, err = c.SPExpire(ctx, k, 30*time.Millisecond, ExpireAlways, m)
			case 2:
				_, err = c.SRem(ctx, k, m)
			default:
				_, err = c.SAdd(ctx, k, m)
			}
			if err != nil {
				t.Error(err)
			}
		}
	})
	countsMatchMembers(t, ctx, c, []string{k}, nil)
	checkStoredCounts(t, k)
}

// A caller whose context ended while
// its attempt was in flight in a shared transaction run by another
// goroutine got context.Canceled at once, yet that transaction (sent with
// context.WithoutCancel) committed its writes: SPopN returned (nil,
// Canceled) and the member it popped was gone.
// Expected: an attempt already on the wire gets its transaction's outcome,
// so SPOP returns the member it popped (or pops nothing): every original
// member is still in the set or in some SPOP reply.
// Fixed: a cancelled caller whose attempt is in flight waits for its
// transaction's outcome (send).
func TestCombineCancelledInFlight(t *testing.T) {
	c, tx, p := heldClient(t, 0, func(o *Options) { o.MaxTransactions = 1 })
	bg := context.Background()
	k := p + "pops"
	orig := []string{"a", "b", "c", "d"}
	_, err := c.SAdd(bg, k, orig...)
	require.NoError(t, err)
	release := tx.holdSAdd(t, c, p)

	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	type res struct {
		got []string
		err error
	}
	done := make(chan res, 1)
	go func() { got, err := c.SPopN(ctx, k, 1); done <- res{got, err} }()
	waitQueued(t, c, 1)
	other := make(chan error, 1)
	go func() { _, err := c.SAdd(bg, p+"other", "y"); other <- err }()
	waitQueued(t, c, 2)
	// The SPOP's transaction, shared with the SADD, goes next, in a
	// goroutine of the combiner: hold it on the wire, then cancel the
	// SPOP's caller. (Alone in its transaction, an attempt is sent with
	// its caller's context, as without combining: cancelled, its request
	// is abandoned and its outcome unknown.)
	g2 := tx.holdNext()
	release()
	<-g2.held
	cancel()
	select {
	case r := <-done:
		t.Fatalf("a cancelled SPOP in flight returned before its transaction: %v, %v", r.got, r.err)
	case <-time.After(100 * time.Millisecond):
	}
	close(g2.release)
	require.NoError(t, <-other)
	r := <-done
	require.NoError(t, r.err, "its transaction committed: its reply is the pop")
	require.Len(t, r.got, 1)
	left, err := c.SMembers(bg, k)
	require.NoError(t, err)
	all := append(append([]string(nil), left...), r.got...)
	slices.Sort(all)
	require.Equal(t, orig, all, "SPOP replied %v, %v; the set holds %v: a member vanished, popped by no reply",
		r.got, r.err, left)
	checkStoredCounts(t, p)
}

// limitsTx records the largest transaction it sees (actions, and the
// aggregate size of its items' attribute values, which DynamoDB caps at
// 4 MB) and every error it returns.
type limitsTx struct {
	DynamoDBAPI
	mu         sync.Mutex
	maxActions int
	maxBytes   int
	errs       []error
}

// valueBytes is what an attribute value counts towards an item's size, at
// most: its bytes for B and S, 21 (the most a number takes) otherwise.
func valueBytes(v types.AttributeValue) int {
	if b, ok := v.(*types.AttributeValueMemberB); ok {
		return len(b.Value)
	}
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return len(s.Value)
	}
	return 21
}

func (l *limitsTx) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	size := 0
	for _, a := range in.TransactItems {
		if a.Put != nil {
			for name, v := range a.Put.Item {
				size += len(name) + valueBytes(v)
			}
		}
	}
	out, err := l.DynamoDBAPI.TransactWriteItems(ctx, in, opts...)
	l.mu.Lock()
	l.maxActions, l.maxBytes = max(l.maxActions, len(in.TransactItems)), max(l.maxBytes, size)
	if err != nil {
		l.errs = append(l.errs, err)
	}
	l.mu.Unlock()
	return out, err
}

// Batches near DynamoDB's limits: with one transaction
// held in flight, 8 SADDs of 5 long members (100 KB each), 5 SADDs of 40
// members and 4 of 33 queue, then go: no transaction has more than 100
// actions or 4 MB of items (fits), DynamoDB refuses none (the resend alone
// would hide a refusal, so it is checked here), and the replies sum to the
// counts.
func TestCombineBatchLimits(t *testing.T) {
	plain, _, p := newTestClient(t)
	r := &heldTx{DynamoDBAPI: plain.st.DB}
	l := &limitsTx{DynamoDBAPI: r}
	c := NewClient(l, func(o *Options) {
		o.TableName = testTable
		o.MaxTransactions = 1
		o.DisableSmallSets = true
		o.DisableSmallSortedSets = true
	})
	ctx := context.Background()
	release := r.holdSAdd(t, c, p)
	var added [3]atomic.Int64
	var cmds []func()
	for w := range 8 {
		var ms []string
		for j := range 5 {
			ms = append(ms, fmt.Sprintf("%d-%d-", w, j)+string(make([]byte, 100_000)))
		}
		cmds = append(cmds, func() {
			added[0].Add(tallied(t)(c.SAdd(ctx, p+"0", ms...)))
		})
	}
	for k, shape := range map[int][2]int{1: {5, 40}, 2: {4, 33}} { // commands, members each
		size := shape[1]
		for w := range shape[0] {
			ms := numbered(fmt.Sprint(w, "-m%d"), size)
			cmds = append(cmds, func() {
				added[k].Add(tallied(t)(c.SAdd(ctx, fmt.Sprint(p, k), ms...)))
			})
		}
	}
	wait := startWorkers(len(cmds), func(i int) { cmds[i]() })
	waitQueued(t, c, len(cmds))
	release()
	wait()
	for k := range 3 {
		n, err := c.SCard(ctx, fmt.Sprint(p, k))
		require.NoError(t, err)
		require.Equal(t, added[k].Load(), n)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, err := range l.errs { // only cancellations: DynamoDB refused none
		var cancelled *types.TransactionCanceledException
		require.ErrorAs(t, err, &cancelled, "a transaction DynamoDB refused")
	}
	require.LessOrEqual(t, l.maxActions, model.MaxTxItems)
	require.LessOrEqual(t, l.maxBytes, 4<<20)
	t.Logf("%d commands; largest transaction: %d actions, %d bytes of items", len(cmds), l.maxActions, l.maxBytes)
	checkStoredCounts(t, p)
}

// Writes of different keys never wait for each other (issue 23): 8
// concurrent SADDs of 8 keys, each transaction taking 50 ms, go as 8
// transactions at once (with the old Client-wide cap of 4, the last 4
// waited and shared a fifth: 5 measured); with one transaction held in
// flight, SADDs of other keys commit while a write of the held key waits
// for it; with Options.MaxTransactions = 1, another key's SADD waits too.
func TestCombineOtherKeysDoNotWait(t *testing.T) {
	ctx := context.Background()
	slow, s, sp := slowClient(t, 50*time.Millisecond)
	runWorkers(8, func(w int) {
		n, err := slow.SAdd(ctx, fmt.Sprint(sp, w), "a")
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
	})
	require.EqualValues(t, 8, s.txs.Load(), "one transaction per key, none waited to share")

	c, tx, p := heldClient(t, 0)
	release := tx.holdSAdd(t, c, p)
	for k := range 8 {
		n, err := c.SAdd(ctx, fmt.Sprint(p, "other", k), "a") // returns while the hold is in flight
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
	}
	same := make(chan error, 1)
	go func() { _, err := c.SAdd(ctx, p+"hold", "y"); same <- err }()
	waitQueued(t, c, 1) // the held key's next write waits for it
	release()
	require.NoError(t, <-same)

	capped, tx, p := heldClient(t, 0, func(o *Options) { o.MaxTransactions = 1 })
	release = tx.holdSAdd(t, capped, p)
	other := make(chan error, 1)
	go func() { _, err := capped.SAdd(ctx, p+"other", "a"); other <- err }()
	waitQueued(t, capped, 1)
	release()
	require.NoError(t, <-other)
	checkStoredCounts(t, p)
}

// Hot-key benchmarks: many goroutines writing one key.
//
// BenchmarkHotKeysLocal runs on DynamoDB Local as it is (no latency, no
// conflicts, no partition limits): single-member SADDs from 32 goroutines
// on one key and on 32 keys, against a baseline that writes each member
// with one plain PutItem (what the predecessor library did).
//
// BenchmarkHotKeysModel runs the same kind of load, 64 goroutines on one
// key, through internal/ddbmodel, a model of real DynamoDB's latency,
// transaction conflicts and per-partition throughput (REDIMO_MODEL's
// settings when it is set, else ddbmodel.DefaultConfig): a plain set, a
// 16-shard ShardedSet and ZINCRBY on one leaderboard. Each checks that the
// counts the commands reported add up to what the key holds.
//
// Each scenario runs for REDIMO_HOT_DURATION (default 3s) per b.N:
//
//	make bench BENCHFLAGS='-bench HotKeys -benchtime 1x'
//	REDIMO_HOT_DURATION=60s make bench BENCHFLAGS='-bench HotKeysModel -benchtime 1x'

// hotDuration is how long each scenario runs: REDIMO_HOT_DURATION, else 3s.
func hotDuration(b *testing.B) time.Duration {
	return envDuration(b, "REDIMO_HOT_DURATION", 3*time.Second)
}

// envDuration is the duration the environment variable name gives, else def.
func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		b.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}

// hotResult accumulates one scenario's runs.
type hotResult struct {
	ops        int64 // commands that succeeded
	added      int64 // what they reported (members added, increments applied)
	contention int64 // commands that failed with ErrContention
	errs       int64 // commands that failed otherwise
	firstErr   error
	latencies  []time.Duration // of the commands that succeeded
	elapsed    time.Duration
}

// hammer runs op from workers goroutines until d has passed (commands
// under way then finish: none is cancelled, so none is left half-done),
// and adds the outcome to r. op(w, i) is worker w's i-th command; it
// returns what the command reported.
func (r *hotResult) hammer(workers int, d time.Duration, op func(w, i int) (int64, error)) {
	var (
		mu       sync.Mutex
		start    = time.Now()
		deadline = start.Add(d)
	)
	runWorkers(workers, func(w int) {
		var lat []time.Duration
		var ops, added, contention, errs int64
		var first error
		for i := 0; time.Now().Before(deadline); i++ {
			t0 := time.Now()
			n, err := op(w, i)
			switch {
			case err == nil:
				ops++
				added += n
				lat = append(lat, time.Since(t0))
			case errors.Is(err, ErrContention):
				contention++
			default:
				errs++
				if first == nil {
					first = err
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		r.ops += ops
		r.added += added
		r.contention += contention
		r.errs += errs
		r.latencies = append(r.latencies, lat...)
		if r.firstErr == nil {
			r.firstErr = first
		}
	})
	r.elapsed += time.Since(start)
}

func (r *hotResult) opsPerSec() float64 { return float64(r.ops) / r.elapsed.Seconds() }

// percentile returns the p-th percentile (0..100) of the latencies, in ms.
func (r *hotResult) percentile(p float64) float64 {
	if len(r.latencies) == 0 {
		return 0
	}
	s := slices.Clone(r.latencies)
	slices.Sort(s)
	i := min(len(s)-1, int(float64(len(s))*p/100))
	return float64(s[i].Microseconds()) / 1000
}

// report reports r's metrics under name.
func (r *hotResult) report(b *testing.B, name string) {
	b.ReportMetric(r.opsPerSec(), name+"-ops/s")
	b.ReportMetric(r.percentile(50), name+"-p50-ms")
	b.ReportMetric(r.percentile(99), name+"-p99-ms")
	b.ReportMetric(float64(r.contention), name+"-ErrContention")
	b.ReportMetric(float64(r.errs), name+"-errors")
	if r.firstErr != nil {
		b.Logf("%s: %d commands failed, the first with: %v", name, r.errs, r.firstErr)
	}
}

func BenchmarkHotKeysLocal(b *testing.B) {
	needDB(b)
	const workers = 32
	d := hotDuration(b)
	// Straight to DynamoDB Local, even when REDIMO_MODEL models the other
	// tests' client.
	db := local.Client(testEndpoint, nil)
	cnt := &counter{db: db}
	c := NewClient(cnt, func(o *Options) { o.TableName = testTable })
	alone := NewClient(db, func(o *Options) { o.TableName = testTable; o.DisableWriteCombining = true })
	ctx := context.Background()
	p := "HotKeysLocal:" + randomHex(3) + ":"
	member := func(w, i int) string { return fmt.Sprintf("w%02d-%07d", w, i) }
	put := func(key, m string) error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable, Item: model.ItemKey(key, model.MemberSK(model.TypeSet, m))})
		return err
	}
	var one, many, baseOne, baseMany, oneAlone, manyAlone hotResult
	var localConflicts int64 // transactions DynamoDB Local itself cancelled for a conflict
	var oneTx int64          // transactions of the one-key SADDs
	for n := range b.N {
		key := func(kind string, w int) string { return fmt.Sprintf("%s%s%d:%d", p, kind, n, w) }
		before := one.added
		cnt.reset()
		one.hammer(workers, d, func(w, i int) (int64, error) { return c.SAdd(ctx, key("one", 0), member(w, i)) })
		localConflicts += cnt.conflicts.Load()
		cnt.mu.Lock()
		oneTx += cnt.byOp["TransactWriteItems"]
		cnt.mu.Unlock()
		card, err := c.SCard(ctx, key("one", 0))
		if err != nil {
			b.Fatal(err)
		}
		if card != one.added-before {
			b.Errorf("SCARD %d, but the SADDs reported %d members added", card, one.added-before)
		}
		baseOne.hammer(workers, d, func(w, i int) (int64, error) { return 1, put(key("base-one", 0), member(w, i)) })
		many.hammer(workers, d, func(w, i int) (int64, error) { return c.SAdd(ctx, key("many", w), member(w, i)) })
		baseMany.hammer(workers, d, func(w, i int) (int64, error) { return 1, put(key("base-many", w), member(w, i)) })
		oneAlone.hammer(workers, d, func(w, i int) (int64, error) { return alone.SAdd(ctx, key("one-alone", 0), member(w, i)) })
		manyAlone.hammer(workers, d, func(w, i int) (int64, error) { return alone.SAdd(ctx, key("many-alone", w), member(w, i)) })
	}
	oneAlone.report(b, "sadd-1key-uncombined")
	manyAlone.report(b, "sadd-32keys-uncombined")
	one.report(b, "sadd-1key")
	many.report(b, "sadd-32keys")
	baseOne.report(b, "baseline-put-1key")
	baseMany.report(b, "baseline-put-32keys")
	b.ReportMetric(float64(localConflicts), "sadd-1key-tx-conflicts")
	b.ReportMetric(float64(one.ops)/float64(max(oneTx, 1)), "sadd-1key-commands/tx")
	b.ReportMetric(one.opsPerSec()/baseOne.opsPerSec(), "ratio-1key")
	b.ReportMetric(many.opsPerSec()/baseMany.opsPerSec(), "ratio-32keys")
}

// modelConfig is REDIMO_MODEL's model, else the documented defaults.
func modelConfig(b *testing.B) ddbmodel.Config {
	if os.Getenv(ddbmodel.EnvVar) == "" {
		return ddbmodel.DefaultConfig()
	}
	m, err := ddbmodel.FromEnv()
	if err != nil {
		b.Fatal(err)
	}
	if m == nil {
		b.Skipf("%s turns the model off", ddbmodel.EnvVar)
	}
	return m.Config()
}

// BenchmarkHotKeysModel runs each scenario with write combining off (every
// command its own transactions) and on (the default).
func BenchmarkHotKeysModel(b *testing.B) {
	for _, combine := range []bool{false, true} {
		b.Run(map[bool]string{false: "combining=off", true: "combining=on"}[combine], func(b *testing.B) {
			benchHotKeysModel(b, combine)
		})
	}
}

func benchHotKeysModel(b *testing.B, combine bool) {
	needDB(b)
	const workers = 64
	d := hotDuration(b)
	cfg := modelConfig(b)
	m := ddbmodel.New(cfg)
	// The SDK's default retryer, as an application has it.
	cnt := &counter{db: local.Client(testEndpoint, m.Transport(nil))}
	c := NewClient(cnt, func(o *Options) { o.TableName = testTable; o.DisableWriteCombining = !combine })
	ctx := context.Background()
	p := "HotKeysModel:" + randomHex(3) + ":"
	b.Logf("model: %+v; %d goroutines, %v per scenario", cfg, workers, d)

	type scenario struct {
		name string
		res  hotResult
		st   ddbmodel.Stats
		seen int64 // transactions the client saw cancelled by a conflict (the model's and DynamoDB Local's own)
	}
	scenarios := []*scenario{{name: "sadd"}, {name: "sharded16"}, {name: "zincrby"}}
	add := func(s *scenario, st ddbmodel.Stats) {
		s.seen += cnt.conflicts.Load()
		if s.st == nil {
			s.st = ddbmodel.Stats{}
		}
		for op, o := range st {
			t := s.st[op]
			t.Requests, t.Conflicts, t.Throttles = t.Requests+o.Requests, t.Conflicts+o.Conflicts, t.Throttles+o.Throttles
			t.WCU, t.RCU = t.WCU+o.WCU, t.RCU+o.RCU
			s.st[op] = t
		}
	}
	for n := range b.N {
		member := func(w, i int) string { return fmt.Sprintf("w%02d-%07d", w, i) }

		// A plain set: every SADD also updates the key's metadata item.
		key := fmt.Sprintf("%sset%d", p, n)
		var r hotResult
		m.ResetStats()
		cnt.reset()
		r.hammer(workers, d, func(w, i int) (int64, error) { return c.SAdd(ctx, key, member(w, i)) })
		add(scenarios[0], m.Stats())
		card, err := c.SCard(ctx, key)
		if err != nil {
			b.Fatal(err)
		}
		if card != r.added {
			b.Errorf("sadd: SCARD %d, but the SADDs reported %d members added", card, r.added)
		}
		mergeHot(&scenarios[0].res, &r)

		// A 16-shard sharded set.
		sharded := c.ShardedSet(fmt.Sprintf("%ssharded%d", p, n), 16)
		r = hotResult{}
		m.ResetStats()
		cnt.reset()
		r.hammer(workers, d, func(w, i int) (int64, error) { return sharded.Add(ctx, member(w, i)) })
		add(scenarios[1], m.Stats())
		if card, err = sharded.Card(ctx); err != nil {
			b.Fatal(err)
		}
		if card != r.added {
			b.Errorf("sharded16: Card %d, but the Adds reported %d members added", card, r.added)
		}
		mergeHot(&scenarios[1].res, &r)

		// ZINCRBY by 1 of 100 players on one leaderboard: the scores must
		// sum to the increments that succeeded.
		board := fmt.Sprintf("%sboard%d", p, n)
		var players sync.Map
		var incrs atomic.Int64
		r = hotResult{}
		m.ResetStats()
		cnt.reset()
		r.hammer(workers, d, func(w, i int) (int64, error) {
			player := fmt.Sprintf("player%03d", (w*31+i*7)%100)
			if _, err := c.ZIncrBy(ctx, board, 1, player); err != nil {
				return 0, err
			}
			players.Store(player, true)
			incrs.Add(1)
			return 1, nil
		})
		add(scenarios[2], m.Stats())
		sum, members := scoreSum(ctx, b, c, board)
		distinct := 0
		players.Range(func(any, any) bool { distinct++; return true })
		if sum != float64(incrs.Load()) || members != distinct {
			b.Errorf("zincrby: scores sum to %v over %d members, but %d increments of %d members succeeded",
				sum, members, incrs.Load(), distinct)
		}
		mergeHot(&scenarios[2].res, &r)
	}
	for _, s := range scenarios {
		s.res.report(b, s.name)
		tx := s.st["TransactWriteItems"]
		all := s.st.Total()
		b.ReportMetric(float64(all.Requests)/float64(max(1, s.res.ops)), s.name+"-requests/op")
		b.ReportMetric(float64(tx.Conflicts), s.name+"-tx-conflicts")
		b.ReportMetric(float64(s.seen-tx.Conflicts), s.name+"-local-tx-conflicts")
		b.ReportMetric(float64(all.Throttles), s.name+"-throttled")
		b.ReportMetric(all.WCU/s.res.elapsed.Seconds(), s.name+"-WCU/s")
		b.Logf("%s: %d ok, %d ErrContention, %d other errors in %v; model: %v",
			s.name, s.res.ops, s.res.contention, s.res.errs, s.res.elapsed.Round(time.Millisecond), s.st)
	}
}

// mergeHot adds r's counts to into.
func mergeHot(into, r *hotResult) {
	into.ops += r.ops
	into.added += r.added
	into.contention += r.contention
	into.errs += r.errs
	into.latencies = append(into.latencies, r.latencies...)
	into.elapsed += r.elapsed
	if into.firstErr == nil {
		into.firstErr = r.firstErr
	}
}

// BenchmarkHotRankedBoardModel: 64 goroutines ZINCRBY 100 players of a
// 2,000-member leaderboard under the model of real DynamoDB, the board
// unranked and then ranked (count items built by a ZRANK: rank.go), write
// combining on. Ranked attempts carry count items and are not combined
// with other attempts of their key (combine.go): this measures what that
// costs a hot leaderboard.
func BenchmarkHotRankedBoardModel(b *testing.B) {
	needDB(b)
	const workers, players = 64, 2000
	d := hotDuration(b)
	m := ddbmodel.New(modelConfig(b))
	c := NewClient(&counter{db: local.Client(testEndpoint, m.Transport(nil))}, func(o *Options) { o.TableName = testTable })
	ctx := context.Background()
	p := "HotRanked:" + randomHex(3) + ":"
	for n := range b.N {
		for _, ranked := range []bool{false, true} {
			board := fmt.Sprintf("%s%d-%v", p, n, ranked)
			var zs []Z
			for i := range players {
				zs = append(zs, Z{Score: float64(i % 50), Member: fmt.Sprintf("player%04d", i)})
			}
			if _, err := c.ZAdd(ctx, board, zs...); err != nil {
				b.Fatal(err)
			}
			if ranked {
				if _, _, err := c.ZRank(ctx, board, "player0000"); err != nil {
					b.Fatal(err)
				}
				if !c.belief(board).Ranked {
					b.Fatal("the ZRANK did not build the count items")
				}
			}
			var incrs atomic.Int64
			var r hotResult
			r.hammer(workers, d, func(w, i int) (int64, error) {
				if _, err := c.ZIncrBy(ctx, board, 1, fmt.Sprintf("player%04d", (w*31+i*7)%100)); err != nil {
					return 0, err
				}
				incrs.Add(1)
				return 1, nil
			})
			sum, _ := scoreSum(ctx, b, c, board)
			if base := float64(players/50) * (49 * 50 / 2); sum-base != float64(incrs.Load()) {
				b.Errorf("ranked=%v: scores grew by %v, but %d increments succeeded", ranked, sum-base, incrs.Load())
			}
			r.report(b, map[bool]string{false: "unranked", true: "ranked"}[ranked])
		}
	}
}

// scoreSum returns the sum of the scores of the sorted set key and its
// number of members.
func scoreSum(ctx context.Context, b *testing.B, c *Client, key string) (sum float64, n int) {
	zs, err := c.ZRangeWithScores(ctx, key, 0, -1)
	if err != nil {
		b.Fatal(err)
	}
	for _, z := range zs {
		sum += z.Score
	}
	return sum, len(zs)
}
