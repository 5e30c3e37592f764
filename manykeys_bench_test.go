package redimo

// Many keys at once: 64 goroutines writing single-member SADDs over 1,000
// keys (issue 23), against two references run in the same benchmark on
// the same DynamoDB:
//
//   - floor: each SADD sent as one TransactWriteItems of its member item
//     and its key's metadata item (the items redimo writes, built by the
//     same code), with nothing capped, queued or combined; a conflict is
//     resent by sendTx as redimo resends one. Exact counts at the lowest
//     latency a closed loop can have.
//   - plain: one PutItem per SADD (no metadata item, no counts): what a
//     plain DynamoDB client does.
//
// and, as the behaviour before issue 23, redimo with Options.MaxTransactions
// set to 4 (the old default Client-wide cap).
//
// BenchmarkManyKeysModel runs them through internal/ddbmodel, the model of
// real DynamoDB's latency, conflicts and partition throughput
// (REDIMO_MODEL's settings when set, else ddbmodel.DefaultConfig), slowed
// down manySlowdown times; BenchmarkManyKeysLocal on DynamoDB Local as it
// is. Each checks at the end that the keys' SCARDs add up to what the
// SADDs (and the floor's transactions) reported.
//
// Why slowed down: the model adds real DynamoDB's latency in front of
// DynamoDB Local, which stays the store and runs transactions one at a
// time, a few milliseconds each on a busy 2-core machine. 64 writers at
// the model's 12 ms per transaction would offer ~5,000 transactions a
// second, so every scenario would measure DynamoDB Local's own rate
// (~100-350 a second here), not DynamoDB's. With every latency
// manySlowdown times longer and every partition's capacity manySlowdown
// times smaller (its burst as many times longer: the same banked units),
// the model runs manySlowdown times slower than real time in every
// respect, DynamoDB Local keeps up, and the figures are reported in the
// model's time: ops/s multiplied by manySlowdown, latencies divided by it.
//
// Each scenario runs for REDIMO_HOT_DURATION (default 10s) per b.N;
// `make test` runs no benchmark:
//
//	make bench BENCHFLAGS='-bench ManyKeys -benchtime 1x'

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
)

const (
	manyWorkers = 64
	manyKeys    = 1000
	// manySlowdown is how many times slower than real DynamoDB
	// BenchmarkManyKeysModel runs the model (see above).
	manySlowdown = 100
)

// manyDuration is how long each scenario runs: REDIMO_HOT_DURATION, else 10s.
func manyDuration(b *testing.B) time.Duration {
	if os.Getenv("REDIMO_HOT_DURATION") == "" {
		return 10 * time.Second
	}
	return hotDuration(b)
}

func BenchmarkManyKeysModel(b *testing.B) {
	needDB(b)
	m := slowModel(b)
	benchManyKeys(b, local.Client(testEndpoint, m.Transport(nil)), m, manySlowdown)
}

// slowModel is the model of real DynamoDB run manySlowdown times slower
// (see above).
func slowModel(b *testing.B) *ddbmodel.Model { return slowModelBy(b, manySlowdown) }

// slowModelBy is the model of real DynamoDB run slow times slower.
func slowModelBy(b *testing.B, slow int) *ddbmodel.Model {
	cfg := modelConfig(b)
	b.Logf("model: %+v, run %d times slower", cfg, slow)
	k := time.Duration(slow)
	cfg.ReadLatency, cfg.WriteLatency, cfg.TransactLatency = k*cfg.ReadLatency, k*cfg.WriteLatency, k*cfg.TransactLatency
	cfg.PartitionWCU, cfg.PartitionRCU, cfg.Burst = cfg.PartitionWCU/float64(slow), cfg.PartitionRCU/float64(slow), k*cfg.Burst
	return ddbmodel.New(cfg)
}

func BenchmarkManyKeysLocal(b *testing.B) {
	needDB(b)
	// Straight to DynamoDB Local, even when REDIMO_MODEL models the other
	// tests' client.
	benchManyKeys(b, local.Client(testEndpoint, nil), nil, 1)
}

// benchManyKeys runs the four scenarios on db; m, when not nil, is the
// model db goes through (its request and capacity counts are reported),
// run slow times slower than real time.
func benchManyKeys(b *testing.B, db *dynamodb.Client, m *ddbmodel.Model, slow float64) {
	d := manyDuration(b)
	// Reads that check the counts, and the warm-up, go straight to
	// DynamoDB Local: they are not measured.
	direct := NewClient(local.Client(testEndpoint, nil), func(o *Options) { o.TableName = testTable })
	cnt := &counter{db: db}
	opts := func(o *Options) { o.TableName = testTable }
	c := NewClient(cnt, opts)
	capped := NewClient(cnt, opts, func(o *Options) { o.MaxTransactions = 4 })
	floor := NewClient(cnt, opts, func(o *Options) { o.DisableWriteCombining = true })
	ctx := context.Background()
	if err := c.CheckTable(ctx); err != nil { // the DescribeTable outside the runs
		b.Fatal(err)
	}
	p := "ManyKeys:" + randomHex(3) + ":"
	b.Logf("%d goroutines, single-member SADDs over %d keys, %v per scenario", manyWorkers, manyKeys, d)

	type scenario struct {
		name string
		res  hotResult
		txs  int64 // TransactWriteItems sent (the counter's)
		reqs int64 // requests of every kind (the counter's)
		st   ddbmodel.OpStats
		// inTime is the commands that succeeded by the deadline, in d.
		inTime int64
		d      time.Duration
	}
	// opsPerSec is s's commands per second, in the model's time.
	opsPerSec := func(s *scenario) float64 { return float64(s.inTime) / s.d.Seconds() * slow }
	var (
		redimo = &scenario{name: "redimo"}
		cap4   = &scenario{name: "cap4"}
		flr    = &scenario{name: "floor"}
		plain  = &scenario{name: "plain"}
	)
	member := func(w, i int) string { return fmt.Sprintf("w%02d-%07d", w, i) }
	run := func(s *scenario, keys func(k int) string, op func(key, member string) (int64, error)) {
		if m != nil {
			m.ResetStats()
		}
		cnt.reset()
		var r hotResult
		rngs := make([]*rand.Rand, manyWorkers)
		for w := range rngs {
			rngs[w] = rand.New(rand.NewPCG(uint64(w), 23))
		}
		// Commands under way at the deadline finish (none is left
		// half-done, and the counts are checked), but ops/s counts those
		// that finished by it: in the slowed-down model the tail is a
		// second or more.
		deadline := time.Now().Add(d)
		var inTime atomic.Int64
		r.hammer(manyWorkers, d, func(w, i int) (int64, error) {
			n, err := op(keys(rngs[w].IntN(manyKeys)), member(w, i))
			if err == nil && !time.Now().After(deadline) {
				inTime.Add(1)
			}
			return n, err
		})
		mergeHot(&s.res, &r)
		s.inTime += inTime.Load()
		s.d += d
		cnt.mu.Lock()
		s.txs += cnt.byOp["TransactWriteItems"]
		cnt.mu.Unlock()
		s.reqs += cnt.requests.Load()
		if m != nil {
			t := m.Stats().Total()
			s.st.Requests += t.Requests
			s.st.Conflicts += t.Conflicts
			s.st.Throttles += t.Throttles
			s.st.WCU += t.WCU
		}
	}
	// sum is the sum of the SCARDs of the keys, read 16 at a time.
	sum := func(keys func(k int) string) int64 {
		var total atomic.Int64
		var failed atomic.Pointer[error]
		runWorkers(16, func(w int) {
			for k := w; k < manyKeys; k += 16 {
				n, err := direct.SCard(ctx, keys(k))
				if err != nil {
					failed.Store(&err)
					return
				}
				total.Add(n)
			}
		})
		if err := failed.Load(); err != nil {
			b.Fatal(*err)
		}
		return total.Load()
	}
	check := func(s *scenario, before int64, keys func(k int) string) {
		if got := sum(keys); got != s.res.added-before {
			b.Errorf("%s: the SCARDs add up to %d, but %d members were reported added", s.name, got, s.res.added-before)
		}
	}
	// A warm-up, not measured: DynamoDB Local (a JVM) is slower at first,
	// which would count against whichever scenario runs first.
	var warm hotResult
	warm.hammer(manyWorkers, min(d, 3*time.Second), func(w, i int) (int64, error) {
		return direct.SAdd(ctx, fmt.Sprintf("%swarm:%04d", p, (w*7919+i)%manyKeys), member(w, i))
	})
	for n := range b.N {
		keysOf := func(kind string) func(k int) string {
			return func(k int) string { return fmt.Sprintf("%s%s%d:%04d", p, kind, n, k) }
		}
		steps := []func(){
			func() {
				before := redimo.res.added
				run(redimo, keysOf("redimo"), func(key, m string) (int64, error) { return c.SAdd(ctx, key, m) })
				check(redimo, before, keysOf("redimo"))
			},
			func() {
				before := cap4.res.added
				run(cap4, keysOf("cap4"), func(key, m string) (int64, error) { return capped.SAdd(ctx, key, m) })
				check(cap4, before, keysOf("cap4"))
			},
			func() {
				before := flr.res.added
				run(flr, keysOf("floor"), func(key, member string) (int64, error) {
					w := floor.putMember(key, model.TypeSet, member, nil)
					g := &model.Group{Key: key, Typ: model.TypeSet, Writes: []*model.Write{w}}
					if err := floor.st.SendTx(ctx, []types.TransactWriteItem{w.Action, floor.metaAction(g)}); err != nil {
						return 0, err
					}
					return 1, nil
				})
				check(flr, before, keysOf("floor"))
			},
			func() {
				run(plain, keysOf("plain"), func(key, member string) (int64, error) {
					cnt.count("PutItem")
					_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable, Item: model.ItemKey(key, model.MemberSK(model.TypeSet, member))})
					return 1, err
				})
			},
		}
		// Each round starts with another scenario: none always runs
		// first (or always after the same one).
		for i := range steps {
			steps[(n+i)%len(steps)]()
		}
	}
	for _, s := range []*scenario{redimo, cap4, flr, plain} {
		r := s.res // in the model's time
		for i := range r.latencies {
			r.latencies[i] = time.Duration(float64(r.latencies[i]) / slow)
		}
		r.report(b, s.name)
		b.ReportMetric(opsPerSec(s), s.name+"-ops/s") // replaces report's, which counts the tail
		b.ReportMetric(float64(s.reqs)/float64(max(1, s.res.ops)), s.name+"-requests/op")
		if s.txs > 0 {
			b.ReportMetric(float64(s.res.ops)/float64(s.txs), s.name+"-commands/tx")
		}
		if m != nil {
			b.ReportMetric(s.st.WCU/float64(max(1, s.res.ops)), s.name+"-WCU/op")
			b.ReportMetric(float64(s.st.Conflicts), s.name+"-tx-conflicts")
			b.ReportMetric(float64(s.st.Throttles), s.name+"-throttled")
		}
		b.Logf("%s: %d ok, %d ErrContention, %d other errors in %v; %d requests, %d TransactWriteItems",
			s.name, s.res.ops, s.res.contention, s.res.errs, s.res.elapsed.Round(time.Millisecond), s.reqs, s.txs)
	}
	b.ReportMetric(opsPerSec(redimo)/opsPerSec(flr), "redimo/floor")
	b.ReportMetric(opsPerSec(redimo)/opsPerSec(plain), "redimo/plain")
	b.ReportMetric(opsPerSec(cap4)/opsPerSec(flr), "cap4/floor")
}
