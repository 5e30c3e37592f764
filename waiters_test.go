package redimo

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// queued waits until key has n waiters of c ready for its feeder
// (waiting, or claimed by a take under way).
func queued(t *testing.T, c *Client, key string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		c.waiters.mu.Lock()
		defer c.waiters.mu.Unlock()
		q := c.waiters.by[key]
		if q == nil {
			return n == 0
		}
		ready := 0
		for _, w := range q.ws {
			if w.state == waiting || w.state == claimed {
				ready++
			}
		}
		return ready == n
	}, 10*time.Second, 5*time.Millisecond, "%d waiters on %s", n, key)
}

// popResult is what one BZPopMin returned.
type popResult struct {
	z   ZWithKey
	ok  bool
	err error
}

// startPops starts n BZPopMin(timeout, keys...) on c, one after the other
// (each queued before the next starts), and returns their results in
// that order once all returned.
func startPops(t *testing.T, c *Client, n int, timeout time.Duration, key string) func() []popResult {
	t.Helper()
	out := make([]popResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			z, ok, err := c.BZPopMin(context.Background(), timeout, key)
			out[i] = popResult{z, ok, err}
		}()
		queued(t, c, key, i+1)
	}
	return func() []popResult { wg.Wait(); return out }
}

// Ten waiters on one key and a ZADD of ten members, under the model of
// real DynamoDB with 60 ms a request (as the issue measured): every
// waiter gets a member, in the order they began to wait, from one pop
// of ten, whether the ZADD came from the waiters' Client (which wakes
// the feeder) or from another (which the feeder sees at its next read):
// a few requests after the ZADD, not ten pops. Before, the waiters were
// served one after the other, a pop (four or five requests) each, and
// with 2 s timeouts the tenth timed out. The timeouts here are long so
// that a loaded machine cannot fail the test; the requests count.
func TestBZPopTenWaitersOneZAdd(t *testing.T) {
	needDB(t)
	cfg, err := ddbmodel.ParseConfig("latency=60ms,jitter=0")
	require.NoError(t, err)
	db := local.Client(testEndpoint, ddbmodel.New(cfg).Transport(nil))
	for _, same := range []bool{true, false} {
		t.Run(map[bool]string{true: "same Client", false: "another Client"}[same], func(t *testing.T) {
			cnt := &counter{db: db}
			// Member items: the pop's Query and transaction are counted
			// (a small sorted set's: TestSmallZWaiters).
			c := NewClient(cnt, func(o *Options) { o.TableName = testTable; o.DisableSmallSortedSets = true })
			producer := c
			if !same {
				producer = NewClient(db, func(o *Options) { o.TableName = testTable; o.DisableSmallSortedSets = true })
			}
			k := t.Name() + ":" + randomHex(3)
			wait := startPops(t, c, 10, 30*time.Second, k)
			zs := byIndex(numbered("job%d", 10))
			cnt.reset()
			t0 := time.Now()
			_, err := producer.ZAdd(context.Background(), k, zs...)
			require.NoError(t, err)
			t1 := time.Now()
			res := wait()
			t.Logf("ZADD %v, then every waiter served %v later", t1.Sub(t0), time.Since(t1))
			for i, r := range res {
				require.NoError(t, r.err)
				require.True(t, r.ok, "waiter %d timed out", i)
				require.Equal(t, ZWithKey{Z: zs[i], Key: k}, r.z, "waiter %d (first come, first served)", i)
			}
			cnt.mu.Lock()
			defer cnt.mu.Unlock()
			t.Logf("the waiters' Client from the ZADD on: %v", cnt.byOp)
			// One pop for the ten: one Query, and its transaction (two
			// attempts: the first, not knowing it empties the key, does
			// not delete the metadata item, as a ZPOPMIN's); the ZADD
			// itself, from the same Client, is one more.
			require.Equal(t, int64(1), cnt.byOp["Query"], "one pop for the ten")
			require.LessOrEqual(t, cnt.byOp["TransactWriteItems"], int64(btoi(same)+2), "one pop for the ten")
			// The pop's GetItem (the metadata item, beside the Query).
			// Serving the waiters one by one took 10 pops: 10 Queries,
			// 10 GetItems, 10 transactions or more. (The feeder's reads
			// of the key, BatchGetItems, are not counted: they go on
			// during the ZADD, which may take seconds on a loaded
			// machine.)
			require.LessOrEqual(t, cnt.byOp["GetItem"], int64(2))
		})
	}
}

// gatedDB holds the first TransactWriteItems (a pop's) until release is
// closed, after closing entered.
type gatedDB struct {
	DynamoDBAPI
	first   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func newGatedDB(db DynamoDBAPI) *gatedDB {
	return &gatedDB{DynamoDBAPI: db, entered: make(chan struct{}), release: make(chan struct{})}
}

// UpdateItem: a small sorted set's pop (smallz.go) is one.
func (g *gatedDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if g.first.CompareAndSwap(false, true) {
		close(g.entered)
		<-g.release
	}
	return g.DynamoDBAPI.UpdateItem(ctx, in, o...)
}

func (g *gatedDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if g.first.CompareAndSwap(false, true) {
		close(g.entered)
		<-g.release
	}
	return g.DynamoDBAPI.TransactWriteItems(ctx, in, o...)
}

// A waiter claimed by a pop under way that leaves (its context ends)
// before the pop returns: the member goes to the next waiter, or back
// into the key when there is none; a waiter whose timeout passes while
// a pop for it is under way gets the member, not nil.
func TestBZPopLeftWhileClaimed(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	other := NewClient(testDB, func(o *Options) { o.TableName = testTable })
	for _, tc := range []string{"cancelled, next waiter", "cancelled, none", "timed out"} {
		t.Run(tc, func(t *testing.T) {
			g := newGatedDB(testDB)
			c := NewClient(g, func(o *Options) { o.TableName = testTable; o.MaxPollInterval = 50 * time.Millisecond })
			k := t.Name() + ":" + randomHex(3)
			wctx, cancel := context.WithCancel(ctx)
			defer cancel()
			timeout, start := time.Duration(0), time.Now()
			if tc == "timed out" {
				timeout = time.Second
			}
			first := make(chan popResult, 1)
			go func() {
				z, ok, err := c.BZPopMin(wctx, timeout, k)
				first <- popResult{z, ok, err}
			}()
			queued(t, c, k, 1)
			// Another Client's ZADD: c's feeder sees it, claims the
			// waiter, pops, and its TransactWriteItems waits at the gate.
			_, err := other.ZAdd(ctx, k, Z{7, "job"})
			require.NoError(t, err)
			select {
			case <-g.entered:
			case <-time.After(10 * time.Second):
				t.Fatal("no pop began")
			}
			second := make(chan popResult, 1)
			switch tc {
			case "cancelled, next waiter":
				go func() {
					z, ok, err := c.BZPopMin(ctx, 10*time.Second, k)
					second <- popResult{z, ok, err}
				}()
				queued(t, c, k, 2) // queued behind the claimed one: no try of its own
				fallthrough
			case "cancelled, none":
				cancel()
				r := <-first
				require.ErrorIs(t, r.err, context.Canceled)
				require.False(t, r.ok)
			case "timed out":
				time.Sleep(time.Until(start.Add(1200 * time.Millisecond))) // past the timeout
			}
			close(g.release)
			switch tc {
			case "cancelled, next waiter":
				r := <-second
				require.NoError(t, r.err)
				require.Equal(t, popResult{z: ZWithKey{Z: Z{7, "job"}, Key: k}, ok: true}, r)
				n, err := other.Exists(ctx, k)
				require.NoError(t, err)
				require.Zero(t, n)
			case "cancelled, none":
				// Back in the key, with its score, once the feeder is done.
				queued(t, c, k, 0)
				require.Eventually(t, func() bool {
					c.waiters.mu.Lock()
					defer c.waiters.mu.Unlock()
					return c.waiters.by[k] == nil
				}, 10*time.Second, 5*time.Millisecond)
				score, ok, err := other.ZScore(ctx, k, "job")
				require.NoError(t, err)
				require.True(t, ok, "the member popped for the waiter that left is lost")
				require.Equal(t, 7.0, score)
			case "timed out":
				r := <-first
				require.NoError(t, r.err)
				require.Equal(t, popResult{z: ZWithKey{Z: Z{7, "job"}, Key: k}, ok: true}, r)
			}
		})
	}
}

// The moment of timeout: a member added by another Client between the
// waiter's last read and its timeout is popped, not left in the key
// while the waiter answers nil. The feeders' reads come at 25, 75, 175,
// 375, 775 and 1575 ms, the next due at 3175 ms; the member comes at
// 2.2 s, the timeout at 3 s (before, the pop answered nil at 3 s).
func TestBZPopTimeoutReadsOnceMore(t *testing.T) {
	ctx, c, _, p := setup(t, func(o *Options) { o.MaxPollInterval = time.Hour })
	other := NewClient(testDB, func(o *Options) { o.TableName = testTable })
	k := p + "q"
	done := make(chan popResult, 1)
	start := time.Now()
	go func() {
		z, ok, err := c.BZPopMin(ctx, 3*time.Second, p+"none", k)
		done <- popResult{z, ok, err}
	}()
	time.Sleep(time.Until(start.Add(2200 * time.Millisecond)))
	_, err := other.ZAdd(ctx, k, Z{1, "late"})
	require.NoError(t, err)
	r := <-done
	t.Logf("answered after %v", time.Since(start))
	require.NoError(t, r.err)
	require.Equal(t, popResult{z: ZWithKey{Z: Z{1, "late"}, Key: k}, ok: true}, r)
}

// Waiters of different kinds on one key are served as Redis serves them,
// first come first served, each by its own rule: BZMPOP MIN COUNT 3
// takes the three lowest, BZPOPMIN the next, BZPOPMAX the highest; a
// waiter on two keys left without a member waits on and is served by
// its other key. (internal/server's TestServerBlockedPopsTogether checks
// the same against redis-server.)
func TestBZPopMixedWaiters(t *testing.T) {
	// Member items: the pops' Queries are counted (small sorted sets:
	// TestSmallZWaiters).
	ctx, c, cnt, p := setup(t, func(o *Options) { o.DisableSmallSortedSets = true })
	k, k2 := p+"k", p+"k2"
	type mres struct {
		key string
		zs  []Z
		err error
	}
	mpop := make(chan mres, 1)
	go func() {
		key, zs, err := c.BZMPop(ctx, 10*time.Second, PopMin, 3, k)
		mpop <- mres{key, zs, err}
	}()
	queued(t, c, k, 1)
	pops := make([]chan popResult, 3)
	for i, f := range []func() (ZWithKey, bool, error){
		func() (ZWithKey, bool, error) { return c.BZPopMin(ctx, 10*time.Second, k) },
		func() (ZWithKey, bool, error) { return c.BZPopMax(ctx, 10*time.Second, k) },
		func() (ZWithKey, bool, error) { return c.BZPopMin(ctx, 10*time.Second, k2, k) },
	} {
		pops[i] = make(chan popResult, 1)
		go func() {
			z, ok, err := f()
			pops[i] <- popResult{z, ok, err}
		}()
		queued(t, c, k, i+2)
	}
	cnt.reset()
	_, err := c.ZAdd(ctx, k, Z{1, "a"}, Z{2, "b"}, Z{3, "c"}, Z{4, "d"}, Z{5, "e"})
	require.NoError(t, err)
	m := <-mpop
	require.NoError(t, m.err)
	require.Equal(t, mres{key: k, zs: []Z{{1, "a"}, {2, "b"}, {3, "c"}}}, m)
	require.Equal(t, popResult{z: ZWithKey{Z: Z{4, "d"}, Key: k}, ok: true}, <-pops[0])
	require.Equal(t, popResult{z: ZWithKey{Z: Z{5, "e"}, Key: k}, ok: true}, <-pops[1])
	cnt.mu.Lock()
	require.Equal(t, int64(2), cnt.byOp["Query"], "one pop of MIN COUNT 4, one of MAX COUNT 1")
	cnt.mu.Unlock()
	select {
	case r := <-pops[2]:
		t.Fatalf("the waiter on %s and %s got %v", k2, k, r)
	case <-time.After(200 * time.Millisecond):
	}
	_, err = c.ZAdd(ctx, k2, Z{9, "z"})
	require.NoError(t, err)
	require.Equal(t, popResult{z: ZWithKey{Z: Z{9, "z"}, Key: k2}, ok: true}, <-pops[2])
}

// Waiters on two Clients sharing a stream of members, many more waiters
// than members at a time: every member is popped once, none is left in
// the key, and a waiter that timed out did so when the key was empty.
func TestBZPopManyWaitersExactlyOnce(t *testing.T) {
	ctx, c1, _, p := setup(t)
	c2 := NewClient(testDB, func(o *Options) { o.TableName = testTable; o.MaxPollInterval = 100 * time.Millisecond })
	k := p + "jobs"
	waiters := testenv.Budget(10, 20)
	members := testenv.Budget(30, 90) // a multiple of 3
	var (
		mu     sync.Mutex
		popped = map[string]int{}
		wg     sync.WaitGroup
		errs   = make(chan error, waiters)
	)
	stop := make(chan struct{})
	for i := range waiters {
		c := []*Client{c1, c2}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, zs, err := c.BZMPop(ctx, 500*time.Millisecond, PopMin, int64(1+i%3), k)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for _, z := range zs {
					popped[z.Member]++
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < members; i += 3 {
		_, err := []*Client{c1, c2}[i%2].ZAdd(ctx, k, Z{float64(i), fmt.Sprint("job", i)}, Z{float64(i + 1), fmt.Sprint("job", i+1)}, Z{float64(i + 2), fmt.Sprint("job", i+2)})
		require.NoError(t, err)
		time.Sleep(15 * time.Millisecond)
	}
	added := time.Now()
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(popped) == members
	}, 20*time.Second, 10*time.Millisecond)
	t.Logf("every member popped %v after the last ZADD", time.Since(added))
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	requirePoppedOnce(t, popped)
	returns(t, int64(0))(c1.Exists(ctx, k))
}

// TestWaitNotice: a blocking command calls its context's wait notice once,
// when it begins to wait, and never when it is served at once; after the
// notice it is queued (what redimo-server reports as blocked).
func TestWaitNotice(t *testing.T) {
	t.Parallel() // its own key prefix
	c, _, p := newTestClient(t)
	k := p + "q"
	var notices atomic.Int32
	ctx := WithWaitNotice(context.Background(), func() {
		notices.Add(1)
		c.waiters.mu.Lock()
		defer c.waiters.mu.Unlock()
		q := c.waiters.by[k]
		if q == nil || len(q.ws) != 1 || q.ws[0].state != waiting {
			t.Errorf("noticed before it was waiting: %+v", q)
		}
	})
	_, err := c.ZAdd(context.Background(), k, Z{Score: 1, Member: "a"})
	require.NoError(t, err)
	z, ok, err := c.BZPopMin(ctx, time.Second, k)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "a", z.Member)
	require.Zero(t, notices.Load(), "served at once: no wait")

	done := make(chan popResult, 1)
	go func() {
		z, ok, err := c.BZPopMin(ctx, 10*time.Second, k)
		done <- popResult{z, ok, err}
	}()
	require.Eventually(t, func() bool { return notices.Load() == 1 }, 10*time.Second, 5*time.Millisecond)
	_, err = c.ZAdd(context.Background(), k, Z{Score: 2, Member: "b"})
	require.NoError(t, err)
	r := <-done
	require.NoError(t, r.err)
	require.True(t, r.ok)
	require.Equal(t, "b", r.z.Member)
	require.EqualValues(t, 1, notices.Load())
}

// cancelAt cancels its context when the step-th request (from arming)
// reaches DynamoDB, after DynamoDB applied it: the caller's context ends
// while the request is in flight, and a request sent under that context
// loses its answer.
type cancelAt struct {
	next   http.RoundTripper
	step   atomic.Int32 // the request that cancels (0: none)
	n      atomic.Int32 // requests since arming
	cancel context.CancelFunc
}

func (h *cancelAt) arm(step int, cancel context.CancelFunc) {
	h.n.Store(0)
	h.cancel = cancel
	h.step.Store(int32(step))
}

func (h *cancelAt) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if s := h.step.Load(); s > 0 && h.n.Add(1) == s {
		h.cancel()
		if err := r.Context().Err(); err != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return nil, err
		}
	}
	return resp, err
}

// TestPopsCancelledAtEveryStep (issue 33, 2): a pop or move whose
// caller's context ends at any step, a write in flight included, either
// returns what it removed or leaves it where it was (handed on or put
// back): no member is in no key. Each command is run with its context
// cancelled at request 1, 2, ... until it completes before the cancel.
func TestPopsCancelledAtEveryStep(t *testing.T) {
	needDB(t)
	t.Parallel()
	ctx := context.Background()
	type op struct {
		name string
		move bool // to dst, else a pop
		run  func(ctx context.Context, c *Client, src, dst string) ([]string, error)
	}
	zmembers := func(zs []Z) []string { return members(zs) }
	ops := []op{
		{name: "BZPOPMIN", run: func(ctx context.Context, c *Client, src, _ string) ([]string, error) {
			z, ok, err := c.BZPopMin(ctx, 5*time.Second, src)
			if !ok {
				return nil, err
			}
			return []string{z.Member}, err
		}},
		{name: "BZMPOP", run: func(ctx context.Context, c *Client, src, _ string) ([]string, error) {
			_, zs, err := c.BZMPop(ctx, 5*time.Second, PopMax, 2, src)
			return zmembers(zs), err
		}},
		{name: "ZPOPMIN", run: func(ctx context.Context, c *Client, src, _ string) ([]string, error) {
			zs, err := c.ZPopMin(ctx, src, 2)
			return zmembers(zs), err
		}},
		{name: "ZMPOP", run: func(ctx context.Context, c *Client, src, _ string) ([]string, error) {
			_, zs, err := c.ZMPop(ctx, PopMin, 2, src)
			return zmembers(zs), err
		}},
		{name: "ZMOVE", move: true, run: func(ctx context.Context, c *Client, src, dst string) ([]string, error) {
			zs, err := c.ZMove(ctx, src, dst, ZMoveArgs{Order: PopMin, Count: 2})
			return zmembers(zs), err
		}},
		{name: "BZMOVE", move: true, run: func(ctx context.Context, c *Client, src, dst string) ([]string, error) {
			zs, err := c.BZMove(ctx, 5*time.Second, src, dst, ZMoveArgs{Order: PopMin, Count: 2})
			return zmembers(zs), err
		}},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			h := &cancelAt{next: http.DefaultTransport}
			c, clean := faultyClient(t, h), cleanClient(t)
			for step := 1; ; step++ {
				require.Less(t, step, 40, "the command never completed before its cancel")
				p := fmt.Sprintf("%s:%d:%s:", t.Name(), step, randomHex(3))
				src, dst := p+"src", p+"dst"
				all := []string{"a", "b", "c"}
				_, err := clean.ZAdd(ctx, src, Z{1, "a"}, Z{2, "b"}, Z{3, "c"})
				require.NoError(t, err)
				cctx, cancel := context.WithCancel(ctx)
				h.arm(step, cancel)
				got, err := o.run(cctx, c, src, dst)
				h.step.Store(0)
				cancel()
				reached := h.n.Load() >= int32(step)
				left, rerr := clean.ZRange(ctx, src, 0, -1)
				require.NoError(t, rerr)
				moved, rerr := clean.ZRange(ctx, dst, 0, -1)
				require.NoError(t, rerr)
				for _, m := range all {
					in := btoi(slices.Contains(left, m)) + btoi(slices.Contains(moved, m))
					if o.move {
						require.Equal(t, 1, in, "step %d: %s in src %v and dst %v (returned %v, %v)", step, m, left, moved, got, err)
						require.Equal(t, slices.Contains(got, m), slices.Contains(moved, m), "step %d: %s returned %v, moved %v (%v)", step, m, got, moved, err)
					} else {
						require.Equal(t, 1, in+btoi(slices.Contains(got, m)), "step %d: %s left %v, returned %v (%v)", step, m, left, got, err)
					}
				}
				if !reached {
					require.NoError(t, err)
					require.NotEmpty(t, got)
					return
				}
			}
		})
	}
}
