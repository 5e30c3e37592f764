package redimo

// BenchmarkCostTable: what a million commands cost, for three workloads,
// computed from the requests the commands make on DynamoDB Local priced by
// the cost model (price.go, Request.PricedReadUnits and PricedWriteUnits)
// at DynamoDB's on-demand prices (OnDemandPrices), beside:
//
//   - the plain client: each write command one PutItem of its member's
//     item, each read command one strongly consistent GetItem, no counts
//     (what a hand-written DynamoDB client does), priced by the same model;
//   - Upstash's pay-as-you-go serverless Redis ($0.2 per 100,000
//     commands) and ElastiCache Serverless for Redis OSS and for Valkey
//     (per million ECPUs, one ECPU per command of under 1 KB, plus the
//     storage each meters at the least whatever the data, which makes the
//     break-even volume: the commands a month at which redimo's bill
//     reaches ElastiCache's). docs/costs.md names the source of each
//     price.
//
// The mixes (commands chosen at random, 8 goroutines):
//
//   - visitors: unique visitors per page and day (20 sets, 5,000 users):
//     90% SADD of a visitor (new or returning), 5% SCARD, 5% SISMEMBER;
//   - leaderboard: 5 boards of 1,000 players: 70% ZINCRBY, 15% ZREVRANGE
//     0 9 WITHSCORES, 10% ZSCORE, 5% ZREVRANK;
//   - tags: tags of 1,000 posts (100 tags): 40% SADD, 10% SREM, 40%
//     SISMEMBER, 10% SCARD;
//   - expiring: members with an expiry of their own (who is online: 20
//     sets, 5,000 users): 70% SADDEX of 10 minutes (new or refreshed), 20%
//     SISMEMBER, 10% SCARD;
//   - queue: a job queue (issue 34; 10 queues): 50% ZADD of a job scored by
//     its time, 50% BZPOPMIN of one with a 20 ms timeout (its waiting
//     reads included); a job is one of each, so $ per million jobs is
//     twice the per-command figure. The plain client counts a PutItem
//     for each (a pop's DeleteItem costs as much; the Query that finds
//     the job is not counted).
//
// It prints the table BENCHMARKS.md and docs/costs.md show:
//
//	make bench BENCHFLAGS='-bench CostTable -benchtime 1x'

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
)

// Other services' prices, in US dollars (us-east-1; docs/costs.md names
// the source of each).
const (
	// upstashPerMillion is a million commands at Upstash's pay-as-you-go
	// rate, $0.2 per 100,000 commands.
	upstashPerMillion = 2.0
	// ElastiCache Serverless bills requests in ECPUs (one per KB a command
	// transfers: one for each command of these mixes) and storage in
	// GB-hours, at least 1 GB (Redis OSS) or 100 MB (Valkey) per cache.
	redisOSSPerMillionECPU, valkeyPerMillionECPU = 0.0034, 0.0023
	redisOSSPerGBHour, valkeyPerGBHour           = 0.125, 0.084
	redisOSSMinGB, valkeyMinGB                   = 1.0, 0.1
	hoursPerMonth                                = 730
)

// elastiCache is an ElastiCache Serverless engine's prices.
type elastiCache struct {
	name             string
	perMillionECPU   float64
	perGBHour, minGB float64
}

var elastiCaches = []elastiCache{
	{"ElastiCache Serverless Redis OSS", redisOSSPerMillionECPU, redisOSSPerGBHour, redisOSSMinGB},
	{"ElastiCache Serverless Valkey", valkeyPerMillionECPU, valkeyPerGBHour, valkeyMinGB},
}

// minimum is what a cache costs a month however idle: its minimum
// storage.
func (e elastiCache) minimum() float64 { return e.minGB * e.perGBHour * hoursPerMonth }

// breakEven is the commands a month, in millions, at which a service
// costing perMillion a million commands (and nothing idle) costs as much
// as e with its minimum storage; 0 when it never does.
func (e elastiCache) breakEven(perMillion float64) float64 {
	if perMillion <= e.perMillionECPU {
		return 0
	}
	return e.minimum() / (perMillion - e.perMillionECPU)
}

// costMix is a workload: op runs command i of a worker on c (redimo) and
// says whether it is a write; the plain client makes one PutItem of the
// member's item for a write, one GetItem of it for a read.
type costMix struct {
	name string
	op   func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (write bool, k, member string, err error)
}

var costMixes = []costMix{
	{"visitors", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("page%02d", rng.IntN(20))), fmt.Sprintf("user%04d", rng.IntN(5000))
		switch p := rng.IntN(100); {
		case p < 90:
			_, err := c.SAdd(ctx, k, m)
			return true, k, m, err
		case p < 95:
			_, err := c.SCard(ctx, k)
			return false, k, m, err
		default:
			_, err := c.SIsMember(ctx, k, m)
			return false, k, m, err
		}
	}},
	{"leaderboard", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("board%d", rng.IntN(5))), fmt.Sprintf("player%04d", rng.IntN(1000))
		switch p := rng.IntN(100); {
		case p < 70:
			_, err := c.ZIncrBy(ctx, k, float64(1+rng.IntN(10)), m)
			return true, k, m, err
		case p < 85:
			_, err := c.ZRevRangeWithScores(ctx, k, 0, 9)
			return false, k, m, err
		case p < 95:
			_, _, err := c.ZScore(ctx, k, m)
			return false, k, m, err
		default:
			_, _, err := c.ZRevRank(ctx, k, m)
			return false, k, m, err
		}
	}},
	{"tags", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("post%04d", rng.IntN(1000))), fmt.Sprintf("tag%03d", rng.IntN(100))
		switch p := rng.IntN(100); {
		case p < 40:
			_, err := c.SAdd(ctx, k, m)
			return true, k, m, err
		case p < 50:
			_, err := c.SRem(ctx, k, m)
			return true, k, m, err
		case p < 90:
			_, err := c.SIsMember(ctx, k, m)
			return false, k, m, err
		default:
			_, err := c.SCard(ctx, k)
			return false, k, m, err
		}
	}},
	{"expiring", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("online%02d", rng.IntN(20))), fmt.Sprintf("user%04d", rng.IntN(5000))
		switch p := rng.IntN(100); {
		case p < 70:
			_, err := c.SAddEx(ctx, k, 10*time.Minute, false, m)
			return true, k, m, err
		case p < 90:
			_, err := c.SIsMember(ctx, k, m)
			return false, k, m, err
		default:
			_, err := c.SCard(ctx, k)
			return false, k, m, err
		}
	}},
	{"queue", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("queue%d", rng.IntN(10))), fmt.Sprintf("job%016x", rng.Uint64())
		if rng.IntN(2) == 0 {
			_, err := c.ZAdd(ctx, k, Z{Score: float64(time.Now().UnixMicro()), Member: m})
			return true, k, m, err
		}
		_, _, err := c.BZPopMin(ctx, 20*time.Millisecond, k)
		return true, k, m, err
	}},
}

func BenchmarkCostTable(b *testing.B) {
	needDB(b)
	const workers, warm, measured = 8, 4000, 2000
	db := local.Client(testEndpoint, nil)
	var tally Tally
	// REDIMO_DISABLE_SMALL_SETS=1: every set member an item, as before
	// issue 26 (the "before" of BENCHMARKS.md's small-set table).
	noSmall := os.Getenv("REDIMO_DISABLE_SMALL_SETS") == "1"
	c := NewClient(db, func(o *Options) { o.TableName = testTable; o.Metrics = tally.Add; o.DisableSmallSets = noSmall })
	ixs := c.st.DB.(*api).indexes
	ctx := context.Background()
	if err := c.CheckTable(ctx); err != nil {
		b.Fatal(err)
	}
	p := "CostTable:" + randomHex(3) + ":"
	type row struct {
		redimo, plain Cost
		commands      int
	}
	rows := map[string]*row{}
	for n := range b.N {
		for _, mix := range costMixes {
			r := rows[mix.name]
			if r == nil {
				r = &row{}
				rows[mix.name] = r
			}
			key := func(k string) string { return fmt.Sprintf("%s%s%d:%s", p, mix.name, n, k) }
			var (
				mu    sync.Mutex
				plain Cost
				first error
			)
			run := func(count int, seed uint64, measure bool) {
				runWorkers(workers, func(w int) {
					rng := rand.New(rand.NewPCG(seed, uint64(w)))
					for range count / workers {
						write, k, m, err := mix.op(ctx, c, key, rng)
						if err == nil && measure {
							var pc Cost
							pc, err = plainCommand(ctx, db, ixs, write, "plain:"+k, m)
							mu.Lock()
							plain = plain.Plus(pc)
							mu.Unlock()
						}
						if err != nil {
							mu.Lock()
							first = err
							mu.Unlock()
							return
						}
					}
				})
			}
			run(warm, uint64(n), false) // the sets grow to their working size
			tally.Take()
			run(measured, uint64(n)+1000, true)
			if first != nil {
				b.Fatalf("%s: %v", mix.name, first)
			}
			r.redimo = r.redimo.Plus(tally.Take())
			r.plain = r.plain.Plus(plain)
			r.commands += measured / workers * workers
		}
	}
	perM := func(x float64, cmds int) float64 { return x / float64(cmds) * 1e6 }
	// The table goes to stdout whole (a benchmark's log keeps 10 lines).
	fmt.Printf("DynamoDB on-demand, us-east-1: $%.3f per million RCU, $%.3f per million WCU\n",
		OnDemandPrices.PerMillionReadUnits, OnDemandPrices.PerMillionWriteUnits)
	fmt.Printf("| mix | client | requests / command | RCU / command | WCU / command | $ per million commands |\n")
	fmt.Printf("|---|---|---|---|---|---|\n")
	for _, mix := range costMixes {
		r := rows[mix.name]
		for _, side := range []struct {
			name string
			c    Cost
		}{{"redimo", r.redimo}, {"plain", r.plain}} {
			cmds := float64(r.commands)
			dollars := perM(side.c.Dollars(OnDemandPrices), r.commands)
			fmt.Printf("| %s | %s | %.2f | %.2f | %.2f | $%.2f |\n", mix.name, side.name,
				float64(side.c.Requests)/cmds, side.c.ReadUnits/cmds, side.c.WriteUnits/cmds, dollars)
			b.ReportMetric(side.c.ReadUnits/cmds, mix.name+"-"+side.name+"-RCU/cmd")
			b.ReportMetric(side.c.WriteUnits/cmds, mix.name+"-"+side.name+"-WCU/cmd")
			b.ReportMetric(dollars, mix.name+"-"+side.name+"-$/Mcmd")
		}
	}
	fmt.Printf("\nDollars per million commands; ElastiCache: one ECPU per command, and at least $%.2f (Redis OSS) or $%.2f (Valkey) a month of storage\n",
		elastiCaches[0].minimum(), elastiCaches[1].minimum())
	fmt.Printf("| mix | redimo | plain DynamoDB client | Upstash | %s | %s | break-even with Redis OSS, commands a month | with Valkey |\n",
		elastiCaches[0].name, elastiCaches[1].name)
	fmt.Printf("|---|---|---|---|---|---|---|---|\n")
	for _, mix := range costMixes {
		r := rows[mix.name]
		redimo, plain := perM(r.redimo.Dollars(OnDemandPrices), r.commands), perM(r.plain.Dollars(OnDemandPrices), r.commands)
		fmt.Printf("| %s | $%.2f | $%.2f | $%.2f | $%.4f | $%.4f | %.1f million | %.1f million |\n", mix.name, redimo, plain,
			upstashPerMillion, elastiCaches[0].perMillionECPU, elastiCaches[1].perMillionECPU,
			elastiCaches[0].breakEven(redimo), elastiCaches[1].breakEven(redimo))
		b.ReportMetric(elastiCaches[0].breakEven(redimo), mix.name+"-breakeven-redis-Mcmd/month")
		b.ReportMetric(elastiCaches[1].breakEven(redimo), mix.name+"-breakeven-valkey-Mcmd/month")
	}
}

// plainCommand is the plain client's command: one PutItem of member's item
// in key for a write, one strongly consistent GetItem of it for a read;
// priced by the cost model.
func plainCommand(ctx context.Context, db *dynamodb.Client, ixs []model.IndexShape, write bool, key, member string) (Cost, error) {
	it := model.ItemKey(key, model.MemberSK(model.TypeSet, member))
	if write {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable, Item: it})
		return Cost{Requests: 1, WriteUnits: model.PricedWrite("Put", it, it, nil, nil, nil, nil, ixs)}, err
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &testTable, Key: it, ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		return Cost{}, err
	}
	reported := 0.0
	if out.ConsumedCapacity != nil {
		reported = aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
	}
	return Cost{Requests: 1, ReadUnits: model.PricedRead(reported, aws.Bool(true), out.Item)}, nil
}

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
