package redimo

// Small sets in one item (issue 26) under the model of real DynamoDB
// (internal/ddbmodel, slowed down manySlowdown times as
// BenchmarkManyKeysModel, whose comment says why; figures in the model's
// time), each scenario against today's encoding (Options.DisableSmallSets:
// every member an item) in the same run:
//
//   - sadd: 64 goroutines of single-member SADDs over 1,000 keys (each
//     stays small); plain: one PutItem per SADD, what a plain DynamoDB
//     client (the seed library) pays;
//   - mix: the same keys, 1 SADD for 4 SISMEMBERs (tags read more than
//     written);
//   - hot: 64 goroutines of SADD/SREM of 20 members on one key.
//
// Each checks that the SCARDs add up to the replies. Each scenario runs
// for REDIMO_HOT_DURATION (default 10s):
//
//	make bench BENCHFLAGS='-bench SmallSets -benchtime 1x'

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/ddbmodel"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
)

func BenchmarkSmallSetsModel(b *testing.B) {
	needDB(b)
	m := slowModel(b)
	db := local.Client(testEndpoint, m.Transport(nil))
	d := manyDuration(b)
	direct := NewClient(local.Client(testEndpoint, nil), func(o *Options) { o.TableName = testTable })
	small := NewClient(db, func(o *Options) { o.TableName = testTable })
	items := NewClient(db, func(o *Options) { o.TableName = testTable; o.DisableSmallSets = true })
	ctx := context.Background()
	if err := small.CheckTable(ctx); err != nil {
		b.Fatal(err)
	}
	p := "SmallSets:" + randomHex(3) + ":"
	type result struct {
		res    hotResult
		inTime int64
		d      time.Duration
		st     ddbmodel.OpStats
	}
	results := map[string]*result{}
	opsPerSec := func(name string) float64 {
		r := results[name]
		return float64(r.inTime) / r.d.Seconds() * manySlowdown
	}
	run := func(name string, op func(w, i int) (int64, error)) {
		r := results[name]
		if r == nil {
			r = &result{}
			results[name] = r
		}
		m.ResetStats()
		deadline := time.Now().Add(d)
		var inTime atomic.Int64
		var h hotResult
		h.hammer(manyWorkers, d, func(w, i int) (int64, error) {
			n, err := op(w, i)
			if err == nil && !time.Now().After(deadline) {
				inTime.Add(1)
			}
			return n, err
		})
		mergeHot(&r.res, &h)
		r.inTime += inTime.Load()
		r.d += d
		t := m.Stats().Total()
		r.st.Requests += t.Requests
		r.st.WCU += t.WCU
		r.st.RCU += t.RCU
	}
	scard := func(keys ...string) int64 {
		var total int64
		for _, key := range keys {
			n, err := direct.SCard(ctx, key)
			if err != nil {
				b.Fatal(err)
			}
			total += n
		}
		return total
	}
	// A warm-up, not measured (DynamoDB Local is slower at first).
	var warm hotResult
	warm.hammer(manyWorkers, min(d, 3*time.Second), func(w, i int) (int64, error) {
		return direct.SAdd(ctx, fmt.Sprintf("%swarm:%04d", p, (w*7919+i)%manyKeys), fmt.Sprint(i))
	})
	for n := range b.N {
		rngs := make([]*rand.Rand, manyWorkers)
		for w := range rngs {
			rngs[w] = rand.New(rand.NewPCG(uint64(w), 26))
		}
		keyOf := func(kind string, k int) string { return fmt.Sprintf("%s%s%d:%04d", p, kind, n, k) }
		allKeys := func(kind string) []string {
			out := make([]string, manyKeys)
			for k := range out {
				out[k] = keyOf(kind, k)
			}
			return out
		}
		check := func(name, kind string, before int64) {
			if got, want := scard(allKeys(kind)...), results[name].res.added-before; got != want {
				b.Errorf("%s: the SCARDs add up to %d, the replies to %d", name, got, want)
			}
		}
		member := func(w, i int) string { return fmt.Sprintf("w%02d-%07d", w, i) }
		for _, enc := range []struct {
			name string
			c    *Client
		}{{"small", small}, {"items", items}} {
			name := "sadd-" + enc.name
			before := int64(0)
			if r := results[name]; r != nil {
				before = r.res.added
			}
			run(name, func(w, i int) (int64, error) {
				return enc.c.SAdd(ctx, keyOf(name, rngs[w].IntN(manyKeys)), member(w, i))
			})
			check(name, name, before)
			// The mix reads the keys sadd wrote.
			run("mix-"+enc.name, func(w, i int) (int64, error) {
				key := keyOf(name, rngs[w].IntN(manyKeys))
				if i%5 == 0 {
					_, err := enc.c.SAdd(ctx, key, member(w, i)+"m")
					return 0, err
				}
				_, err := enc.c.SIsMember(ctx, key, member(w, i-1))
				return 0, err
			})
			hot := keyOf("hot-"+enc.name, 0)
			var net atomic.Int64
			run("hot-"+enc.name, func(w, i int) (int64, error) {
				m := fmt.Sprint("t", rngs[w].IntN(20))
				if i%2 == 0 {
					n, err := enc.c.SAdd(ctx, hot, m)
					net.Add(n)
					return n, err
				}
				n, err := enc.c.SRem(ctx, hot, m)
				net.Add(-n)
				return n, err
			})
			if got := scard(hot); got != net.Load() {
				b.Errorf("hot-%s: SCARD %d, the replies say %d", enc.name, got, net.Load())
			}
		}
		run("plain", func(w, i int) (int64, error) {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable,
				Item: model.ItemKey(keyOf("plain", rngs[w].IntN(manyKeys)), model.MemberSK(model.TypeSet, member(w, i)))})
			return 1, err
		})
	}
	for _, name := range []string{"sadd-small", "sadd-items", "plain", "mix-small", "mix-items", "hot-small", "hot-items"} {
		r := results[name]
		res := r.res
		for i := range res.latencies {
			res.latencies[i] = time.Duration(float64(res.latencies[i]) / manySlowdown)
		}
		res.report(b, name)
		b.ReportMetric(opsPerSec(name), name+"-ops/s")
		ops := float64(max(1, res.ops))
		b.ReportMetric(r.st.WCU/ops, name+"-WCU/op")
		b.ReportMetric(r.st.RCU/ops, name+"-RCU/op")
		b.ReportMetric(float64(r.st.Requests)/ops, name+"-requests/op")
		b.Logf("%s: %d ok, %d ErrContention, %d other errors (first: %v)", name, res.ops, res.contention, res.errs, res.firstErr)
	}
	b.ReportMetric(opsPerSec("sadd-small")/opsPerSec("plain"), "small/plain")
	b.ReportMetric(opsPerSec("sadd-small")/opsPerSec("sadd-items"), "small/items")
	b.ReportMetric(opsPerSec("mix-small")/opsPerSec("mix-items"), "mix-small/items")
	b.ReportMetric(opsPerSec("hot-small")/opsPerSec("hot-items"), "hot-small/items")
}

// BenchmarkSmallSetWriterLanes: the write units of an SADD to a small set
// near its member budget (40 members of 14 bytes) after w other Clients
// wrote it within the token horizon, each leaving its lane's token
// (smallset.go): the item grows 27 bytes a writer, so past about eight
// writers an hour its writes cost 2 units instead of 1. Figures from
// DynamoDB Local's consumed capacity:
//
//	make bench BENCHFLAGS='-bench SmallSetWriterLanes -benchtime 1x'
func BenchmarkSmallSetWriterLanes(b *testing.B) {
	ctx := context.Background()
	for _, writers := range []int{0, 1, 4, 8, 16, 32} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			var units, size float64
			for range b.N {
				c, cnt, p := newTestClient(b)
				k := p + "s"
				if _, err := c.SAdd(ctx, k, numbered("member-%07d", 40)...); err != nil {
					b.Fatal(err)
				}
				for w := range writers {
					o, _, _ := newTestClient(b)
					m := fmt.Sprintf("member-%07d", w%40)
					if _, err := o.SRem(ctx, k, m); err != nil {
						b.Fatal(err)
					}
					if _, err := o.SAdd(ctx, k, m); err != nil {
						b.Fatal(err)
					}
				}
				cnt.reset()
				if _, err := c.SAdd(ctx, k, "new-member-00"); err != nil {
					b.Fatal(err)
				}
				units += cnt.units()
				it, err := c.st.GetItem(ctx, model.MetaKey(k), nil, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				size += float64(model.ItemSize(it))
			}
			b.ReportMetric(units/float64(b.N), "WCU/SADD")
			b.ReportMetric(size/float64(b.N), "item-bytes")
		})
	}
}
