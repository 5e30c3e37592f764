package redimo

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkHotSetWriters: 32 concurrent writers add distinct members, one
// per SAdd, to one plain set and to a 16-shard sharded set. It reports
// writes per second, requests and cancelled transactions (conflicts with
// other writers) per 1,000 writes. DynamoDB Local serialises writes in one
// process and has no partition limits, so the throughput ratio here says
// little about real DynamoDB, where one partition takes ~1,000 WCU/s; the
// conflict counts show the contention on the single metadata item.
func BenchmarkHotSetWriters(b *testing.B) {
	const writers, perWriter = 32, 40
	ctx, c, cnt, p := setup(b)
	run := func(name string, add func(member string) error) {
		cnt.reset()
		var failed atomic.Int64
		start := time.Now()
		runWorkers(writers, func(w int) {
			for i := range perWriter {
				if err := add(fmt.Sprintf("w%02d-%04d", w, i)); err != nil {
					failed.Add(1)
				}
			}
		})
		elapsed := time.Since(start)
		if failed.Load() > 0 {
			b.Fatalf("%s: %d writes failed", name, failed.Load())
		}
		total := float64(writers * perWriter)
		b.ReportMetric(total/elapsed.Seconds(), name+"-writes/s")
		b.ReportMetric(float64(cnt.requests.Load())/total*1000, name+"-requests/1000writes")
		b.ReportMetric(float64(cnt.cancelled.Load())/total*1000, name+"-cancelled/1000writes")
		b.ReportMetric(float64(cnt.conflicts.Load())/total*1000, name+"-conflicts/1000writes")
	}
	for n := range b.N {
		plain := fmt.Sprintf("%splain%d", p, n)
		run("plain", func(m string) error { _, err := c.SAdd(ctx, plain, m); return err })
		sharded := c.ShardedSet(fmt.Sprintf("%ssharded%d", p, n), 16)
		run("sharded16", func(m string) error { _, err := sharded.Add(ctx, m); return err })
		cnt.reset()
		if card, err := sharded.Card(ctx); err != nil || card != writers*perWriter {
			b.Fatal(card, err)
		}
		b.ReportMetric(float64(cnt.requests.Load()), "sharded16-card-requests")
	}
}
