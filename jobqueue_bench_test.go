package redimo

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

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
)

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
