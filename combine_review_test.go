package redimo

// Adversarial review of write combining (combine.go) and the transaction
// writer (tx.go, retry.go). Each TestCombineReview* test states what is
// expected, what redimo does, and where the cause is. Tests that pass are
// risky paths checked and found right; they say so.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// reviewTx is a DynamoDBAPI in front of DynamoDB Local whose
// transactions can be delayed, held, stalled or answered with an error
// after they were applied.
type reviewTx struct {
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

func (r *reviewTx) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
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
		return nil, &types.InternalServerError{Message: aws.String("review: applied, then the response was lost")}
	}
	return out, err
}

func reviewClient(t *testing.T, delay time.Duration, optFns ...func(*Options)) (*Client, *reviewTx, string) {
	plain, _, p := newTestClient(t)
	r := &reviewTx{DynamoDBAPI: plain.db, delay: delay}
	opts := append([]func(*Options){func(o *Options) { o.TableName = testTable }}, optFns...)
	return NewClient(r, opts...), r, p
}

type holdGate struct{ held, release chan struct{} }

// holdNext makes the next transaction wait until release is closed.
func (r *reviewTx) holdNext() *holdGate {
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

// FINDING (wrong reply; lost members). A shared transaction that DynamoDB
// applied but whose response is an error other than a cancellation (a
// 500 after the SDK's retries, a lost connection) has every attempt sent
// again on its own, with a new ClientRequestToken. The resend meets the
// shared transaction's own writes: SADD's puts fail attribute_not_exists
// and are dropped, so SADD replies 0 for a member it added; SPOP's deletes
// fail attribute_exists, so SPOP picks and pops another member, and the
// first one is gone without being returned by anyone.
// Expected: each command's reply is what it would be alone: alone, the
// same fault makes the command return the error (sendAttempt: out.reasons
// nil, transact returns out.err), never a wrong count, never a silently
// lost member. So SADD replies 1 or fails, and every original member of
// the popped set is either still there or returned by an SPOP.
// ZINCRBY is applied twice (double-counted): its put of a new member
// fails on the resend, its retry (zWrite's decide) adds the increment
// again to the score the shared transaction stored: one ZINCRBY by 1 on
// a new member replies 2 and leaves score 2.
// Cause: combine.go:366-367 (sendShared: `case len(batch) > 1: out =
// txOutcome{alone: true}`) and tx.go:244-250 (sendAttempt resends the
// attempt alone with a fresh token, storage.go:100), for an error after
// which the shared transaction may have been applied.
// Fixed: sendTx resends a TransactWriteItems after an InternalServerError
// with its token (applied at most once), and a shared transaction's other
// errors are every attempt's answer; only a ValidationException (nothing
// applied) sends them again alone.
func TestCombineReviewAppliedThenErrorReplies(t *testing.T) {
	c, tx, p := reviewClient(t, 0, func(o *Options) { o.MaxTransactions = 1 })
	ctx := context.Background()
	adds, pops := p+"adds", p+"pops"
	orig := []string{"a", "b", "c", "d", "e", "f"}
	_, err := c.SAdd(ctx, pops, orig...)
	require.NoError(t, err)

	// One transaction in flight (held) so the next ones queue and share.
	tx.failMin = 3 // alone, each command here sends 2 actions; shared, 3 or more
	tx.failApplied.Store(1)
	g := tx.holdNext()
	holdDone := make(chan error, 1)
	go func() { _, err := c.SAdd(ctx, p+"hold", "x"); holdDone <- err }()
	<-g.held

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
	close(g.release)
	require.NoError(t, <-holdDone)
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

func missing(want, got []string) (out []string) {
	for _, m := range want {
		if !slices.Contains(got, m) {
			out = append(out, m)
		}
	}
	return out
}

// FINDING (wrong reply: ErrContention without contention; livelock). An
// attempt alone on its member, with no conflict at all, is cancelled every
// time a neighbour in its shared transaction has a failing condition (an
// SADD of a member already there), and every such cancellation costs it
// one of its Options.MaxAttempts tries (tx.go:95 `try >= c.opts.MaxAttempts`).
// On a key that keeps receiving such SADDs, every batch holds fresh ones,
// so the attempt never commits and the command returns ErrContention.
// Expected: alone, SADD of a new member commits at the first try and
// replies 1; a neighbour's failed condition must not fail another command.
// Cause: combine.go:360-365 hands every attempt of a cancelled shared
// transaction a failed try, and transact (tx.go:94-96) counts it; the
// retried attempt rejoins the queue with new failing neighbours
// (combine.go:113-128 takes every fitting attempt), instead of being sent
// without the attempts whose conditions failed.
// Fixed: the attempts whose own conditions held go again at once without
// the failed ones (sendShared), not counted as a try.
func TestCombineReviewNeighboursFailingConditionsStarve(t *testing.T) {
	c, _, p := reviewClient(t, 3*time.Millisecond, func(o *Options) { o.MaxAttempts = 20 })
	ctx := context.Background()
	k := p + "s"
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
	checkStoredCounts(t, p)
}

// FINDING (stuck: deadline not honoured). A write whose caller's context
// ends while its transaction is on the wire keeps waiting for it: the
// combiner sends every transaction, even a lone attempt on an idle
// client, with context.WithoutCancel (combine.go:347), so the HTTP request
// and sendTx's conflict/throttling retries with backoff (retry.go, up to
// MaxAttempts sleeps of up to 500 ms) never see the caller's deadline.
// With DisableWriteCombining, the same SADD returns
// context.DeadlineExceeded at its deadline.
// Expected: SADD with a 100 ms deadline against a server that stalls
// returns DeadlineExceeded within about 100 ms, combining or not.
// Actual: with combining on, it waits out the stall (1.5 s) and only then
// returns: nil (the write committed after its deadline) or
// DeadlineExceeded, whichever the select in send picks.
// Cause: combine.go:347 `c.sendTx(context.WithoutCancel(batch[0].ctx), all)`,
// reached from combine.go:83 in the caller's own goroutine.
// Fixed: a lone attempt is sent with its caller's context; a shared
// transaction with one that ends when every caller's has (batchContext).
func TestCombineReviewDeadlineIgnored(t *testing.T) {
	for _, combining := range []bool{false, true} {
		t.Run(fmt.Sprint("combining=", combining), func(t *testing.T) {
			c, tx, p := reviewClient(t, 0, func(o *Options) { o.DisableWriteCombining = !combining })
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

// CHECKED, RIGHT. A caller whose context ends while its attempt waits in
// the queue returns context.Canceled at once, and its write is never sent
// (combine.go:88-97 takes it out of the queue; take skips cancelled ones).
func TestCombineReviewCancelledWhileQueued(t *testing.T) {
	c, tx, p := reviewClient(t, 0, func(o *Options) { o.MaxTransactions = 1 })
	bg := context.Background()
	g := tx.holdNext()
	holdDone := make(chan error, 1)
	go func() { _, err := c.SAdd(bg, p+"hold", "x"); holdDone <- err }()
	<-g.held
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
	close(g.release)
	require.NoError(t, <-holdDone)
	n, err := c.SCard(bg, p+"q")
	require.NoError(t, err)
	require.Zero(t, n, "the cancelled SADD wrote nothing")
	// The queue still drains: a later write goes.
	_, err = c.SAdd(bg, p+"q", "b")
	require.NoError(t, err)
	checkStoredCounts(t, p)
}

// CHECKED, RIGHT. SADD and SREM of the same members from many goroutines
// (never in one batch: fits compares member items, combine.go:211),
// and neighbours whose conditions fail: total added − total removed is the
// final SCARD, and the stored count matches the items.
func TestCombineReviewAddRemoveSameMembers(t *testing.T) {
	c, tx, p := reviewClient(t, 2*time.Millisecond)
	ctx := context.Background()
	k := p + "s"
	members := numbered("m%d", 12)
	var net atomic.Int64
	runWorkers(12, func(w int) {
		r := rand.New(rand.NewPCG(uint64(w), 7))
		for range 8 {
			ms := []string{members[r.IntN(12)], members[r.IntN(12)]}
			if r.IntN(2) == 0 {
				n, err := c.SAdd(ctx, k, ms...)
				if err != nil {
					t.Error(err)
				}
				net.Add(n)
			} else {
				n, err := c.SRem(ctx, k, ms...)
				if err != nil {
					t.Error(err)
				}
				net.Add(-n)
			}
		}
	})
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.Equal(t, net.Load(), n, "added − removed = SCARD")
	checkStoredCounts(t, p)
	t.Logf("96 commands in %d transactions", tx.txs.Load())
}

// CHECKED, RIGHT. SADD and ZADD racing to create one key never share a
// transaction (fits compares types, combine.go:194): exactly one type
// wins, every command of the other gets WRONGTYPE, and the winners'
// replies sum to the cardinality.
func TestCombineReviewMixedTypesCreate(t *testing.T) {
	c, _, p := reviewClient(t, 2*time.Millisecond)
	ctx := context.Background()
	for round := range 6 {
		k := fmt.Sprint(p, "k", round)
		var setOK, zsetOK, wrong, sum atomic.Int64
		runWorkers(8, func(w int) {
			var n int64
			var err error
			if w%2 == 0 {
				n, err = c.SAdd(ctx, k, fmt.Sprint("m", w))
			} else {
				n, err = c.ZAdd(ctx, k, Z{Score: float64(w), Member: fmt.Sprint("m", w)})
			}
			switch {
			case errors.Is(err, ErrWrongType):
				wrong.Add(1)
			case err != nil:
				t.Error(err)
			case w%2 == 0:
				setOK.Add(1)
				sum.Add(n)
			default:
				zsetOK.Add(1)
				sum.Add(n)
			}
		})
		require.True(t, setOK.Load() == 0 || zsetOK.Load() == 0, "one type per key")
		require.EqualValues(t, 4, wrong.Load())
		typ, err := c.Type(ctx, k)
		require.NoError(t, err)
		var card int64
		if typ == "set" {
			card, err = c.SCard(ctx, k)
		} else {
			card, err = c.ZCard(ctx, k)
		}
		require.NoError(t, err)
		require.Equal(t, sum.Load(), card)
	}
	checkStoredCounts(t, p)
}

// CHECKED, RIGHT. Lost responses of shared transactions (the server
// applied them; the SDK resends with the same ClientRequestToken): every
// SADD/SREM/SPOP reply matches the model, each member popped at most once.
func TestCombineReviewDroppedResponses(t *testing.T) {
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
				n, err := c.SAdd(ctx, k, m, fmt.Sprint("u", w, "-", i))
				if err != nil {
					t.Error(err)
				}
				net.Add(n)
			case 1:
				n, err := c.SRem(ctx, k, m)
				if err != nil {
					t.Error(err)
				}
				net.Add(-n)
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

// CHECKED, RIGHT. A ranked sorted set (count items over ranges of at most
// 8 members, so splits and merges happen) under concurrent ZADD, ZREM and
// ZINCRBY sharing transactions: count items merged per range
// (fits, combine.go:204-210; sendShared's rankMerged, combine.go:324) stay exact, ZCARD is
// 200 + added − removed, and each member's score is its increments' sum.
func TestCombineReviewRankedConcurrent(t *testing.T) {
	c, _, p := rankedClient(t, 8, 40)
	c.db = &reviewTx{DynamoDBAPI: c.db, delay: 2 * time.Millisecond}
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
				n, err := c.ZAdd(ctx, k, Z{Score: float64(r.IntN(220)), Member: fmt.Sprint("n", w, "-", i)}, Z{Score: float64(r.IntN(220)), Member: fmt.Sprintf("m%03d", r.IntN(200))})
				if err != nil {
					t.Error(err)
				}
				net.Add(n)
			case 1:
				n, err := c.ZRem(ctx, k, fmt.Sprintf("m%03d", r.IntN(200)), fmt.Sprint("n", r.IntN(8), "-", r.IntN(20)))
				if err != nil {
					t.Error(err)
				}
				net.Add(-n)
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

// CHECKED, RIGHT. A key that expires (PEXPIRE 1 ms, then purged by the
// next write) or is deleted (DEL, whose member deletes share the
// combiner) while combined SADDs/SREMs queue on it: no error, and the
// stored count always matches the member items.
func TestCombineReviewExpireOrDelWhileQueued(t *testing.T) {
	c, _, p := reviewClient(t, 2*time.Millisecond)
	ctx := context.Background()
	k := p + "s"
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
	checkStoredCounts(t, p)
}

// CHECKED, RIGHT. Member expiries racing in shared transactions: SADDEX
// (short expiries), SPEXPIRE, SREM and SADD on the same members from many
// goroutines keep the count and mn exact (checkStoredCounts) and SCARD
// equal to SMEMBERS.
func TestCombineReviewMemberExpiryRace(t *testing.T) {
	c, _, p := reviewClient(t, 2*time.Millisecond)
	ctx := context.Background()
	k := p + "s"
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
	checkStoredCounts(t, p)
}

// FINDING (lost member / wrong reply). A caller whose context ends while
// its attempt is in flight in a shared transaction run by another
// goroutine gets context.Canceled at once (combine.go:88-97: the select
// returns ctx.Err() without waiting for a.done), but that transaction was
// sent with context.WithoutCancel (combine.go:347) and commits the
// attempt's writes anyway. For SPOP this pops a member that no reply
// returns: SPopN returns (nil, Canceled) and the member is gone. Alone, a
// cancelled request is aborted with the caller's context; here the write
// is certain to happen while the reply says nothing was popped.
// Expected: an attempt already on the wire gets its transaction's outcome
// (it is known moments later), so SPOP returns the member it popped (or
// pops nothing): every original member is either still in the set or in
// some SPOP reply.
// Cause: combine.go:88-97 (send gives up on an in-flight attempt; only a
// queued one can be withdrawn) with combine.go:347.
// Fixed: a cancelled caller whose attempt is in flight waits for its
// transaction's outcome (send).
func TestCombineReviewCancelledInFlight(t *testing.T) {
	c, tx, p := reviewClient(t, 0, func(o *Options) { o.MaxTransactions = 1 })
	bg := context.Background()
	k := p + "pops"
	orig := []string{"a", "b", "c", "d"}
	_, err := c.SAdd(bg, k, orig...)
	require.NoError(t, err)
	g1 := tx.holdNext()
	holdDone := make(chan error, 1)
	go func() { _, err := c.SAdd(bg, p+"hold", "x"); holdDone <- err }()
	<-g1.held

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
	close(g1.release)
	require.NoError(t, <-holdDone)
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
// 4 MB) and every error that is not a cancellation.
type limitsTx struct {
	DynamoDBAPI
	mu         sync.Mutex
	maxActions int
	maxBytes   int
	refused    []error
}

func (l *limitsTx) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	size := 0
	for _, a := range in.TransactItems {
		if a.Put != nil {
			for name, v := range a.Put.Item {
				size += len(name)
				switch v := v.(type) {
				case *types.AttributeValueMemberB:
					size += len(v.Value)
				case *types.AttributeValueMemberS:
					size += len(v.Value)
				default:
					size += 21
				}
			}
		}
	}
	out, err := l.DynamoDBAPI.TransactWriteItems(ctx, in, opts...)
	l.mu.Lock()
	l.maxActions, l.maxBytes = max(l.maxActions, len(in.TransactItems)), max(l.maxBytes, size)
	var cancelled *types.TransactionCanceledException
	if err != nil && !errors.As(err, &cancelled) {
		l.refused = append(l.refused, err)
	}
	l.mu.Unlock()
	return out, err
}

// CHECKED, RIGHT. Batches near DynamoDB's limits: with one transaction
// held in flight, 8 SADDs of 5 long members (100 KB each), 5 SADDs of 40
// members and 4 of 33 queue, then go: no transaction has more than 100
// actions or 4 MB of items (fits, combine.go:213), DynamoDB refuses none
// (a refusal would be hidden by the resend alone, so it is counted here),
// and the replies sum to the counts.
func TestCombineReviewBatchLimits(t *testing.T) {
	plain, _, p := newTestClient(t)
	r := &reviewTx{DynamoDBAPI: plain.db}
	l := &limitsTx{DynamoDBAPI: r}
	c := NewClient(l, func(o *Options) { o.TableName = testTable; o.MaxTransactions = 1 })
	ctx := context.Background()
	g := r.holdNext()
	holdDone := make(chan error, 1)
	go func() { _, err := c.SAdd(ctx, p+"hold", "x"); holdDone <- err }()
	<-g.held
	var added [3]atomic.Int64
	var cmds []func()
	for w := range 8 {
		var ms []string
		for j := range 5 {
			ms = append(ms, fmt.Sprintf("%d-%d-", w, j)+string(make([]byte, 100_000)))
		}
		cmds = append(cmds, func() {
			n, err := c.SAdd(ctx, p+"0", ms...)
			if err != nil {
				t.Error(err)
			}
			added[0].Add(n)
		})
	}
	for k, shape := range map[int][2]int{1: {5, 40}, 2: {4, 33}} { // commands, members each
		size := shape[1]
		for w := range shape[0] {
			ms := numbered(fmt.Sprint(w, "-m%d"), size)
			cmds = append(cmds, func() {
				n, err := c.SAdd(ctx, fmt.Sprint(p, k), ms...)
				if err != nil {
					t.Error(err)
				}
				added[k].Add(n)
			})
		}
	}
	wait := startWorkers(len(cmds), func(i int) { cmds[i]() })
	waitQueued(t, c, len(cmds))
	close(g.release)
	require.NoError(t, <-holdDone)
	wait()
	for k := range 3 {
		n, err := c.SCard(ctx, fmt.Sprint(p, k))
		require.NoError(t, err)
		require.Equal(t, added[k].Load(), n)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	require.Empty(t, l.refused, "transactions DynamoDB refused")
	require.LessOrEqual(t, l.maxActions, maxTxItems)
	require.LessOrEqual(t, l.maxBytes, 4<<20)
	t.Logf("%d commands; largest transaction: %d actions, %d bytes of items", len(cmds), l.maxActions, l.maxBytes)
	checkStoredCounts(t, p)
}
