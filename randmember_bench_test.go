package redimo

// Benchmarks of issue 13's reads: uniform random set members
// (randmember.go), a member's neighbours (around.go), and ranks on big
// sorted sets (O(rank) until sorted sets get a rank index).
//
//	make bench BENCHFLAGS='-bench "BenchmarkRandom|BenchmarkRank" -benchtime 3x'

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRandomMember: SRANDMEMBER and SPOP on a 10,000-member set,
// bucket trials against the whole-set read.
func BenchmarkRandomMember(b *testing.B) {
	c, cnt, p := newTestClient(b)
	ctx := context.Background()
	key := p + "s"
	if _, err := c.SAdd(ctx, key, benchMembers("member", 10_000)...); err != nil {
		b.Fatal(err)
	}
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
}

// BenchmarkRankBig: ZRANK/ZREVRANK and ZRevRankAround on sorted sets of
// 10,000 and 100,000 members (scores i%1000: ties), for the member at the
// median rank and the one at the last rank.
func BenchmarkRankBig(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		c, cnt, p := newTestClient(b)
		ctx := context.Background()
		key := p + "board"
		cnt.reset()
		benchZSet(b, c, key, n)
		b.Logf("loading %d members: %v", n, cnt)
		// Scores i%1000, ties ordered by member: the member of score 499
		// with the highest index is near the median; player with score
		// 999 and highest index is last.
		median := fmt.Sprintf("player%06d", n-1000+499)
		last := fmt.Sprintf("player%06d", n-1)
		for _, m := range []struct{ name, member string }{{"median", median}, {"last", last}} {
			b.Run(fmt.Sprintf("%d/ZRank_%s", n, m.name), func(b *testing.B) {
				report(b, cnt, func() {
					if _, ok, err := c.ZRank(ctx, key, m.member); err != nil || !ok {
						b.Fatal(ok, err)
					}
				})
			})
			b.Run(fmt.Sprintf("%d/ZRevRankAround2_%s", n, m.name), func(b *testing.B) {
				report(b, cnt, func() {
					if a, ok, err := c.ZRevRankAround(ctx, key, m.member, 2); err != nil || !ok || len(a.Members) < 3 {
						b.Fatal(ok, err)
					}
				})
			})
		}
	}
}
