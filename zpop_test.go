package redimo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
)

func TestZMPop(t *testing.T) {
	ctx, c, _, p := setup(t)
	a, b, none, s := p+"a", p+"b", p+"none", p+"s"
	_, err := c.ZAdd(ctx, b, Z{1, "x"}, Z{2, "y"}, Z{3, "z"})
	require.NoError(t, err)

	key, zs, err := c.ZMPop(ctx, PopMin, 1, none, a)
	require.NoError(t, err)
	require.Empty(t, zs, "every key missing: nil")
	require.Equal(t, "", key)

	key, zs, err = c.ZMPop(ctx, PopMax, 2, none, a, b)
	require.NoError(t, err)
	require.Equal(t, b, key)
	require.Equal(t, []Z{{3, "z"}, {2, "y"}}, zs)

	key, zs, err = c.ZMPop(ctx, PopMin, 10, b)
	require.NoError(t, err)
	require.Equal(t, b, key)
	require.Equal(t, []Z{{1, "x"}}, zs)
	n, err := c.Exists(ctx, b)
	require.NoError(t, err)
	require.Zero(t, n, "popping the last member deletes the key")

	// The first existing key decides, as in Redis: a set before a sorted
	// set is WRONGTYPE.
	_, err = c.ZAdd(ctx, a, Z{1, "m"})
	require.NoError(t, err)
	_, err = c.SAdd(ctx, s, "m")
	require.NoError(t, err)
	_, _, err = c.ZMPop(ctx, PopMin, 1, none, s, a)
	require.ErrorIs(t, err, ErrWrongType)
	key, zs, err = c.ZMPop(ctx, PopMin, 1, none, a, s)
	require.NoError(t, err)
	require.Equal(t, a, key)
	require.Equal(t, []Z{{1, "m"}}, zs)
}

func TestBZPopTimeoutAndCancel(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	start := time.Now()
	z, ok, err := c.BZPopMin(ctx, 200*time.Millisecond, p+"a", p+"b")
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, ZWithKey{}, z)
	require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)

	// The cost of waiting: the first try reads both metadata items in
	// one BatchGetItem; then each key's feeder reads its key 25 ms
	// later, doubling to 1 s: at 25, 75, 175, 375, 775, 1575 and 2575 ms
	// in 3 s, and once more at the timeout, one BatchGetItem of one
	// metadata item each: 1 + 2×8 = 17.
	cnt.reset()
	_, ok, err = c.BZPopMin(ctx, 3*time.Second, p+"a", p+"b")
	require.NoError(t, err)
	require.False(t, ok)
	t.Logf("3 s of waiting on 2 keys: %s", cnt)
	require.LessOrEqual(t, cnt.requests.Load(), int64(19))
	require.GreaterOrEqual(t, cnt.requests.Load(), int64(7)) // fewer reads when requests are slow (a loaded machine)

	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, _, err := c.BZMPop(cctx, 0, PopMin, 1, p+"a") // forever
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled wait did not end")
	}

	// A member already there is popped without waiting.
	_, err = c.ZAdd(ctx, p+"b", Z{5, "m"}, Z{7, "n"})
	require.NoError(t, err)
	z, ok, err = c.BZPopMax(ctx, time.Second, p+"a", p+"b")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, ZWithKey{Z: Z{7, "n"}, Key: p + "b"}, z)
}

// A write of the same Client wakes a waiter at once, when its next poll is
// three seconds away (it has been waiting for 3.3 s: polls at 25, 75,
// 175, ... 3175 ms, the next at 6375 ms). The bound leaves 2.5 s for the
// wake-up on a loaded machine (one was seen at 0.85 s) and still tells a
// wake-up from a poll.
func TestBZPopWokenByOwnWrite(t *testing.T) {
	ctx, c, _, p := setup(t, func(o *Options) { o.MaxPollInterval = time.Hour })
	k := p + "q"
	type result struct {
		z   ZWithKey
		ok  bool
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		z, ok, err := c.BZPopMin(ctx, 30*time.Second, p+"other", k)
		done <- result{z, ok, err, time.Now()}
	}()
	time.Sleep(3300 * time.Millisecond)
	added := time.Now()
	_, err := c.ZAdd(ctx, k, Z{1, "job"})
	require.NoError(t, err)
	r := <-done
	require.NoError(t, r.err)
	require.True(t, r.ok)
	require.Equal(t, ZWithKey{Z: Z{1, "job"}, Key: k}, r.z)
	latency := r.at.Sub(added)
	t.Logf("woken %v after the ZADD returned", latency)
	require.Less(t, latency, 2500*time.Millisecond, "woken by the write, not by a poll")
}

// Waiters in two Clients (the second sees the first's writes by polling
// only) share 40 members added one by one: each member is popped once.
func TestBZPopExactlyOnce(t *testing.T) {
	c1, _, p := newTestClient(t)
	ctx, c2, _, _ := setup(t, func(o *Options) { o.MaxPollInterval = 50 * time.Millisecond })
	k := p + "jobs"
	const members, waiters = 40, 8
	var (
		mu     sync.Mutex
		popped = map[string]int{}
		total  int
		wg     sync.WaitGroup
		errs   = make(chan error, waiters)
	)
	for i := range waiters {
		c := []*Client{c1, c2}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				z, ok, err := c.BZPopMin(ctx, 3*time.Second, k)
				if err != nil {
					errs <- err
					return
				}
				if !ok {
					return // no more members for 3 s
				}
				mu.Lock()
				popped[z.Member]++
				total++
				mu.Unlock()
			}
		}()
	}
	for i := range members {
		_, err := c1.ZAdd(ctx, k, Z{float64(i), fmt.Sprint("job", i)})
		require.NoError(t, err)
		if i%5 == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, members, total, "every member popped once: %v", popped)
	requirePoppedOnce(t, popped)
	returns(t, int64(0))(c1.Exists(ctx, k))
}

// requirePoppedOnce requires each member of popped (member → times) to
// have been popped once.
func requirePoppedOnce(t *testing.T, popped map[string]int) {
	t.Helper()
	for m, n := range popped {
		require.Equal(t, 1, n, "%s popped %d times", m, n)
	}
}

func TestBZPopWrongType(t *testing.T) {
	ctx, c, _, p := setup(t)
	_, err := c.SAdd(ctx, p+"s", "a")
	require.NoError(t, err)
	_, _, err = c.BZPopMin(ctx, 0, p+"none", p+"s")
	require.True(t, errors.Is(err, ErrWrongType), "%v", err)
}

// TestZPopRequests: a pop reads its range and writes the removal, whose
// metadata condition checks the type and the key's liveness; the metadata
// item is read only when the range is empty. A key that expired with its
// members still stored pops nothing and is purged.
func TestZPopRequests(t *testing.T) {
	for _, small := range []bool{true, false} {
		t.Run(map[bool]string{true: "small", false: "member items"}[small], func(t *testing.T) {
			ctx, c, cnt, p := setup(t, func(o *Options) { o.DisableSmallSortedSets = !small })
			k, s, expiring := p+"z", p+"s", p+"expiring"
			_, err := c.ZAdd(ctx, k, Z{1, "a"}, Z{2, "b"}, Z{3, "c"})
			require.NoError(t, err)

			cnt.reset()
			zs, err := c.ZPopMin(ctx, k)
			require.NoError(t, err)
			require.Equal(t, []Z{{1, "a"}}, zs)
			want := map[string]int64{"Query": 1, "TransactWriteItems": 1}
			if small { // one UpdateItem, planned from what the ZADD left (smallz.go)
				want = map[string]int64{"UpdateItem": 1}
			}
			require.EqualValues(t, want, cnt.byOp, "ZPOPMIN: %s", cnt)

			cnt.reset()
			zs, err = c.ZPopMin(ctx, p+"missing")
			require.NoError(t, err)
			require.Empty(t, zs)
			want = map[string]int64{"Query": 1, "GetItem": 1}
			if small { // the metadata item first (smallz.go): missing, that is all
				want = map[string]int64{"GetItem": 1}
			}
			require.EqualValues(t, want, cnt.byOp, "ZPOPMIN of a missing key: %s", cnt)

			_, err = c.SAdd(ctx, s, "a")
			require.NoError(t, err)
			_, err = c.ZPopMax(ctx, s)
			require.ErrorIs(t, err, ErrWrongType)

			_, err = c.ZAdd(ctx, expiring, Z{1, "a"}, Z{2, "b"})
			require.NoError(t, err)
			ok, err := c.PExpire(ctx, expiring, 50*time.Millisecond)
			require.NoError(t, err)
			require.True(t, ok)
			time.Sleep(100 * time.Millisecond)
			zs, err = c.ZPopMin(ctx, expiring, 2)
			require.NoError(t, err)
			require.Empty(t, zs, "an expired key has no members to pop")
			fresh, _, _ := newTestClient(t)
			n, err := fresh.ZCard(ctx, expiring)
			require.NoError(t, err)
			require.Zero(t, n)
			_, err = c.ZAdd(ctx, expiring, Z{5, "new"})
			require.NoError(t, err)
			all, err := c.ZRangeWithScores(ctx, expiring, 0, -1)
			require.NoError(t, err)
			require.Equal(t, []Z{{5, "new"}}, all, "the expired key's members were purged")
		})
	}
}

// Job-queue benchmarks: a producer ZADDs jobs to one sorted set at a
// steady rate and N consumers take them with BZPOPMIN, half on the
// producer's Client (woken by its writes) and half on a second Client
// (which sees them by polling only), as two application servers on one
// table.
//
// BenchmarkJobQueueLocal runs on DynamoDB Local as it is (no latency);
// BenchmarkJobQueueModel through internal/ddbmodel, the model of real
// DynamoDB (REDIMO_MODEL's settings when set, else
// ddbmodel.DefaultConfig), both Clients sharing one model. Each reports,
// per number of consumers, the add-to-pop latency of the jobs (from the
// ZADD's return to the BZPOPMIN's) at p50, p99 and max, the pops per
// second (and the ZADDs per second: the producer slows down when its
// transactions conflict with the pops'), the pops that timed out, those
// that timed out while a job added over a second before was still
// waiting, and the DynamoDB requests per job (both Clients, the ZADDs
// included); it checks that every job was popped exactly once.
//
//	make bench BENCHFLAGS='-bench JobQueue -benchtime 1x'
//	REDIMO_QUEUE_DURATION=20s REDIMO_MODEL=latency=60ms make bench BENCHFLAGS='-bench JobQueueModel -benchtime 1x'

// queueRate is how many jobs per second the producer adds.
const queueRate = 25

// queueDuration is how long the producer produces: REDIMO_QUEUE_DURATION,
// else 4s.
func queueDuration(b *testing.B) time.Duration {
	return envDuration(b, "REDIMO_QUEUE_DURATION", 4*time.Second)
}

func BenchmarkJobQueueLocal(b *testing.B) {
	needDB(b)
	benchJobQueue(b, func() DynamoDBAPI { return local.Client(testEndpoint, nil) })
}

func BenchmarkJobQueueModel(b *testing.B) {
	needDB(b)
	cfg := modelConfig(b)
	b.Logf("model: %+v", cfg)
	benchJobQueue(b, func() DynamoDBAPI { return local.Client(testEndpoint, ddbmodel.New(cfg).Transport(nil)) })
}

func benchJobQueue(b *testing.B, newDB func() DynamoDBAPI) {
	for _, consumers := range []int{1, 10, 50} {
		b.Run("consumers="+strconv.Itoa(consumers), func(b *testing.B) {
			db := newDB() // one DynamoDB (one model) for both Clients
			cnt := &counter{db: db}
			opts := func(o *Options) { o.TableName = testTable }
			clients := []*Client{NewClient(cnt, opts), NewClient(cnt, opts)}
			var all queueRun
			for range b.N {
				all.add(runJobQueue(b, clients, consumers, queueDuration(b), cnt))
			}
			all.report(b)
		})
	}
}

// queueRun is the outcome of job-queue runs.
type queueRun struct {
	latencies []time.Duration // add-to-pop, one per job
	jobs      int64
	elapsed   time.Duration // from the first ZADD to the last pop
	producing time.Duration // from the first ZADD to the last
	// starved counts the pops that timed out while a job added more than
	// a second before sat in the key.
	starved, timeouts int64
	requests          int64
}

func (r *queueRun) add(o queueRun) {
	r.latencies = append(r.latencies, o.latencies...)
	r.jobs += o.jobs
	r.elapsed += o.elapsed
	r.producing += o.producing
	r.starved += o.starved
	r.timeouts += o.timeouts
	r.requests += o.requests
}

func (r *queueRun) report(b *testing.B) {
	s := slices.Clone(r.latencies)
	slices.Sort(s)
	at := func(p float64) float64 {
		if len(s) == 0 {
			return 0
		}
		return float64(s[min(len(s)-1, int(float64(len(s))*p/100))].Microseconds()) / 1000
	}
	b.ReportMetric(at(50), "add-to-pop-p50-ms")
	b.ReportMetric(at(99), "add-to-pop-p99-ms")
	b.ReportMetric(at(100), "add-to-pop-max-ms")
	b.ReportMetric(float64(r.jobs)/r.elapsed.Seconds(), "pops/s")
	b.ReportMetric(float64(r.jobs)/r.producing.Seconds(), "adds/s")
	b.ReportMetric(float64(r.timeouts), "timeouts")
	b.ReportMetric(float64(r.starved), "starved-timeouts")
	b.ReportMetric(float64(r.requests)/float64(max(1, r.jobs)), "requests/job")
}

// runJobQueue adds jobs for d at queueRate from clients[0], consumers
// pop them with BZPOPMIN (consumer i on clients[i%2]), and returns when
// every job was popped (it fails the benchmark after 60 s more).
func runJobQueue(b *testing.B, clients []*Client, consumers int, d time.Duration, cnt *counter) queueRun {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	key := "JobQueue:" + randomHex(4)
	jobs := int(d.Seconds() * queueRate)
	var (
		mu      sync.Mutex
		added   = make([]time.Time, jobs) // when the job's ZADD returned
		popped  = make([]time.Time, jobs)
		times   = make([]int, jobs) // how many times each job was popped
		left    atomic.Int64
		run     queueRun
		wg      sync.WaitGroup
		errs    = make(chan error, consumers+1)
		allDone = make(chan struct{})
	)
	left.Store(int64(jobs))
	cnt.reset()
	for i := range consumers {
		c := clients[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				z, ok, err := c.BZPopMin(ctx, time.Second, key)
				now := time.Now()
				switch {
				case ctx.Err() != nil:
					return
				case err != nil:
					errs <- err
					return
				case !ok:
					mu.Lock()
					run.timeouts++
					for j := range jobs { // a job added over a second ago and not popped
						if !added[j].IsZero() && popped[j].IsZero() && now.Sub(added[j]) > time.Second {
							run.starved++
							break
						}
					}
					mu.Unlock()
					continue
				}
				j := int(z.Score)
				mu.Lock()
				times[j]++
				if popped[j].IsZero() {
					popped[j] = now
				}
				mu.Unlock()
				if left.Add(-1) == 0 {
					close(allDone)
				}
			}
		}()
	}
	start := time.Now()
	tick := time.NewTicker(time.Second / queueRate)
	for j := range jobs {
		if _, err := clients[0].ZAdd(ctx, key, Z{Score: float64(j), Member: fmt.Sprintf("job%06d", j)}); err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		added[j] = time.Now()
		mu.Unlock()
		<-tick.C
	}
	tick.Stop()
	producing := time.Since(start)
	select {
	case <-allDone:
	case err := <-errs:
		b.Fatal(err)
	case <-time.After(60 * time.Second):
		b.Errorf("%d of %d jobs not popped 60 s after the last was added", left.Load(), jobs)
	}
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	last := start
	for j := range jobs {
		if times[j] > 1 {
			b.Errorf("job %d popped %d times", j, times[j])
		}
		if popped[j].IsZero() {
			continue
		}
		if popped[j].After(last) {
			last = popped[j]
		}
		run.latencies = append(run.latencies, max(0, popped[j].Sub(added[j])))
	}
	run.jobs = int64(len(run.latencies))
	run.elapsed = last.Sub(start)
	run.producing = producing
	run.requests = cnt.requests.Load()
	b.Logf("consumers=%d: %d jobs, %s", consumers, jobs, cnt)
	return run
}
