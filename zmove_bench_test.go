package redimo

import (
	"fmt"
	"testing"
)

// BenchmarkZMove measures the requests and items read of a move between
// two sorted sets of 100 members each (moves alternate direction, so
// both stay full), against the baseline a client without ZMOVE runs: a
// ZPOPMIN then a ZADD of what it popped (two commands, not atomic: a
// crash between them loses the members).
func BenchmarkZMove(b *testing.B) {
	ctx, c, cnt, p := setup(b)
	fill := func(key string) {
		zs := make([]Z, 100)
		for i := range zs {
			zs[i] = Z{Score: float64(i), Member: fmt.Sprintf("%s-%03d", key[len(p):], i)} // "name:rand:a-007"
		}
		if _, err := c.ZAdd(ctx, key, zs...); err != nil {
			b.Fatal(err)
		}
	}
	keys := func(name string) (string, string) { // fresh keys for every run of a sub-benchmark
		name += ":" + randomHex(3)
		a, z := p+name+":a", p+name+":b"
		fill(a)
		fill(z)
		return a, z
	}
	txPerOp := func(b *testing.B) {
		cnt.mu.Lock()
		tx := cnt.byOp["TransactWriteItems"]
		cnt.mu.Unlock()
		b.ReportMetric(float64(tx)/float64(b.N), "transactions/op")
	}
	for _, count := range []int64{1, 10, 49} {
		b.Run(fmt.Sprintf("ZMove/count=%d", count), func(b *testing.B) {
			src, dst := keys(fmt.Sprintf("zmove%d", count))
			i := 0
			report(b, cnt, func() {
				from, to := src, dst
				if i++; i%2 == 0 {
					from, to = dst, src
				}
				if zs, err := c.ZMove(ctx, from, to, ZMoveArgs{Order: PopMin, Count: count}); err != nil || int64(len(zs)) != count {
					b.Fatal(len(zs), err)
				}
			})
			txPerOp(b)
		})
		b.Run(fmt.Sprintf("baseline-ZPopMin+ZAdd/count=%d", count), func(b *testing.B) {
			src, dst := keys(fmt.Sprintf("pop%d", count))
			i := 0
			report(b, cnt, func() {
				from, to := src, dst
				if i++; i%2 == 0 {
					from, to = dst, src
				}
				zs, err := c.ZPopMin(ctx, from, count)
				if err != nil || int64(len(zs)) != count {
					b.Fatal(len(zs), err)
				}
				if _, err := c.ZAdd(ctx, to, zs...); err != nil {
					b.Fatal(err)
				}
			})
			txPerOp(b)
		})
	}
	b.Run("ZMoveMember/1", func(b *testing.B) {
		src, dst := keys("member")
		i := 0
		report(b, cnt, func() {
			from, to := src, dst
			m := src[len(p):] + "-050"
			if i++; i%2 == 0 {
				from, to = dst, src
			}
			if zs, err := c.ZMoveMember(ctx, from, to, ZMoveMemberArgs{Members: []string{m}}); err != nil || len(zs) != 1 {
				b.Fatal(len(zs), err)
			}
		})
		txPerOp(b)
	})
}
