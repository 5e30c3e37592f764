package redimo

// Benchmarks of issue 13's reads: uniform random set members
// (randmember.go), a member's neighbours (around.go), and ranks on big
// sorted sets (O(rank) until sorted sets get a rank index).
//
//	make bench BENCHFLAGS='-bench "BenchmarkRandom|BenchmarkRank" -benchtime 3x'

import (
	"fmt"
	"testing"
)

// BenchmarkRandomMember: SRANDMEMBER and SPOP on a 10,000-member set,
// bucket trials against the whole-set read.
func BenchmarkRandomMember(b *testing.B) {
	ctx, c, cnt, p := setup(b)
	key := p + "s"
	fill(b, ctx, c, key, benchMembers("member", 10_000)...)
	for _, count := range []int64{1, 10, -10, 100} {
		b.Run(fmt.Sprintf("SRandMemberN_%d", count), func(b *testing.B) {
			report(b, cnt, func() {
				if ms, err := c.SRandMemberN(ctx, key, count); err != nil || len(ms) != int(max(count, -count)) {
					b.Fatal(len(ms), err)
				}
			})
		})
	}
	b.Run("SPop", func(b *testing.B) {
		report(b, cnt, func() {
			if _, ok, err := c.SPop(ctx, key); err != nil || !ok {
				b.Fatal(ok, err)
			}
		})
	})
	b.Run("SPopN_10", func(b *testing.B) {
		report(b, cnt, func() {
			if ms, err := c.SPopN(ctx, key, 10); err != nil || len(ms) != 10 {
				b.Fatal(len(ms), err)
			}
		})
	})
}

// BenchmarkRankBig: ZRANK/ZREVRANK, ZRevRankAround and ZRANGE deep in a
// 100,000-member sorted set with count items (rank.go), for the member at
// the median rank and the last one; scores i%1000 (ties) and all equal.
// Also the build (logged) and writes on the ranked key. (The figures
// before count items are in BENCHMARKS.md.)
func BenchmarkRankBig(b *testing.B) {
	const n = 100_000
	for _, scores := range []string{"ties", "equal"} {
		ctx, c, cnt, p := setup(b)
		key := p + "board"
		cnt.reset()
		var zs []Z
		for i := range n {
			s := float64(i % 1000)
			if scores == "equal" {
				s = 7
			}
			zs = append(zs, Z{Score: s, Member: fmt.Sprintf("player%06d", i)})
		}
		if _, err := c.ZAdd(ctx, key, zs...); err != nil {
			b.Fatal(err)
		}
		fmt.Printf("%s: loading %d members: %v\n", scores, n, cnt)
		// Ties ordered by member: with scores i%1000 the median member is
		// player(n-1000+499), the last player(n-1); all equal: by name.
		median, last := fmt.Sprintf("player%06d", n-1000+499), fmt.Sprintf("player%06d", n-1)
		if scores == "equal" {
			median = fmt.Sprintf("player%06d", n/2)
		}
		cnt.reset()
		if _, ok, err := c.ZRank(ctx, key, median); err != nil || !ok {
			b.Fatal(ok, err)
		}
		ranges, _ := c.readRanges(ctx, key)
		fmt.Printf("%s: the first ZRANK (count items built by the load's write that reached 2,000 members): %v, %.0f capacity units; %d ranges\n", scores, cnt, cnt.units(), len(ranges))
		for _, m := range []struct{ name, member string }{{"median", median}, {"last", last}} {
			b.Run(fmt.Sprintf("%s/ZRank_%s/index", scores, m.name), func(b *testing.B) {
				report(b, cnt, func() {
					if _, ok, err := c.ZRank(ctx, key, m.member); err != nil || !ok {
						b.Fatal(ok, err)
					}
				})
			})
			b.Run(fmt.Sprintf("%s/ZRevRank_%s/index", scores, m.name), func(b *testing.B) {
				report(b, cnt, func() {
					if _, ok, err := c.ZRevRank(ctx, key, m.member); err != nil || !ok {
						b.Fatal(ok, err)
					}
				})
			})
			b.Run(fmt.Sprintf("%s/ZRevRankAround2_%s/index", scores, m.name), func(b *testing.B) {
				report(b, cnt, func() {
					if a, ok, err := c.ZRevRankAround(ctx, key, m.member, 2); err != nil || !ok || len(a.Members) < 3 {
						b.Fatal(ok, err)
					}
				})
			})
		}
		for _, start := range []int64{n / 2, n/2 + 250} { // a range's start, and its middle
			b.Run(fmt.Sprintf("%s/ZRange_%d_+9/index", scores, start), func(b *testing.B) {
				report(b, cnt, func() {
					if zs, err := c.ZRangeWithScores(ctx, key, start, start+9); err != nil || len(zs) != 10 {
						b.Fatal(len(zs), err)
					}
				})
			})
		}
		i := 0
		b.Run(scores+"/ZAdd1000New/index", func(b *testing.B) {
			report(b, cnt, func() {
				var more []Z
				for j := range 1000 {
					more = append(more, Z{Score: float64(j % 1000), Member: fmt.Sprintf("new%03d-%06d", i, j)})
				}
				i++
				if _, err := c.ZAdd(ctx, key, more...); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(scores+"/ZIncrBy/index", func(b *testing.B) {
			report(b, cnt, func() {
				if _, err := c.ZIncrBy(ctx, key, 1, median); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
