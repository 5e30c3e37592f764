package redimo

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

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
)

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
