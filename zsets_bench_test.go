package redimo

import (
	"context"
	"fmt"
	"testing"
)

// benchZSet fills a sorted set of n members (scores i%1000, so ties occur).
func benchZSet(b *testing.B, c *Client, key string, n int) {
	var zs []Z
	for i := range n {
		zs = append(zs, Z{Score: float64(i % 1000), Member: fmt.Sprintf("player%06d", i)})
	}
	if _, err := c.ZAdd(context.Background(), key, zs...); err != nil {
		b.Fatal(err)
	}
}

// report runs op b.N times and reports requests, items read and capacity
// per op.
func report(b *testing.B, cnt *counter, op func()) {
	cnt.reset()
	for range b.N {
		op()
	}
	n := float64(b.N)
	b.ReportMetric(float64(cnt.requests.Load())/n, "requests/op")
	b.ReportMetric(float64(cnt.reads.Load())/n, "items-read/op")
	b.ReportMetric(cnt.units()/n, "capacity-units/op")
}

// BenchmarkZSet measures request counts of the leaderboard commands on a
// 10,000-member sorted set, with key expiry on (the default) and off.
func BenchmarkZSet(b *testing.B) {
	for _, mode := range []struct {
		name string
		opt  func(*Options)
	}{{"default", func(*Options) {}}, {"DisableKeyExpiry", func(o *Options) { o.DisableKeyExpiry = true }}} {
		ctx, c, cnt, p := setup(b, mode.opt)
		key := p + "board"
		benchZSet(b, c, key, 10000)
		b.Run(mode.name+"/ZRevRangeTop10", func(b *testing.B) {
			report(b, cnt, func() {
				if top, err := c.ZRevRangeWithScores(ctx, key, 0, 9); err != nil || len(top) != 10 {
					b.Fatal(len(top), err)
				}
			})
		})
		b.Run(mode.name+"/ZRangeByScoreLimit10", func(b *testing.B) {
			report(b, cnt, func() {
				if r, err := c.ZRangeByScore(ctx, key, &ZRangeBy{Min: "(500", Max: "+inf", Count: 10}); err != nil || len(r) != 10 {
					b.Fatal(len(r), err)
				}
			})
		})
		b.Run(mode.name+"/ZScore", func(b *testing.B) {
			report(b, cnt, func() {
				if _, ok, err := c.ZScore(ctx, key, "player004242"); err != nil || !ok {
					b.Fatal(err)
				}
			})
		})
		b.Run(mode.name+"/ZCard", func(b *testing.B) {
			report(b, cnt, func() {
				if n, err := c.ZCard(ctx, key); err != nil || n != 10000 {
					b.Fatal(n, err)
				}
			})
		})
		b.Run(mode.name+"/ZRankNear5000", func(b *testing.B) {
			report(b, cnt, func() {
				if r, ok, err := c.ZRank(ctx, key, "player000500"); err != nil || !ok || r < 4000 {
					b.Fatal(r, ok, err)
				}
			})
		})
		b.Run(mode.name+"/ZIncrBy", func(b *testing.B) {
			report(b, cnt, func() {
				if _, err := c.ZIncrBy(ctx, key, 1, "player000001"); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	c, cnt, p := newTestClient(b)
	i := 0
	b.Run("ZAdd1000New", func(b *testing.B) {
		report(b, cnt, func() {
			i++
			benchZSet(b, c, fmt.Sprintf("%snew%d", p, i), 1000)
		})
	})
}
