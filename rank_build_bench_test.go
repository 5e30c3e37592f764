package redimo

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

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
)

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
