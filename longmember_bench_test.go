package redimo

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkLongMembers measures what members over 1015 bytes cost against
// short ones: requests, items read and capacity (as DynamoDB Local
// reports it) per command, for members of 100, 2,000 and 100,000 bytes.
func BenchmarkLongMembers(b *testing.B) {
	for _, size := range []int{100, 2000, 100_000} {
		ctx, c, cnt, p := setup(b)
		member := func(i int) string {
			head := fmt.Sprintf("m%07d-", i)
			return head + strings.Repeat("x", size-len(head))
		}
		z := p + "z"
		var zs []Z
		for i := range 100 {
			zs = append(zs, Z{Score: float64(i % 10), Member: member(i)})
		}
		if _, err := c.ZAdd(ctx, z, zs...); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%dB", size)
		next := 1000
		b.Run(name+"/SAdd10", func(b *testing.B) {
			report(b, cnt, func() {
				ms := make([]string, 10)
				for i := range ms {
					ms[i], next = member(next), next+1
				}
				if n, err := c.SAdd(ctx, p+"s", ms...); err != nil || n != 10 {
					b.Fatal(n, err)
				}
			})
		})
		b.Run(name+"/SIsMember", func(b *testing.B) {
			report(b, cnt, func() {
				if ok, err := c.SIsMember(ctx, p+"s", member(1000)); err != nil || !ok {
					b.Fatal(ok, err)
				}
			})
		})
		b.Run(name+"/ZRange0to99", func(b *testing.B) {
			report(b, cnt, func() {
				if r, err := c.ZRangeWithScores(ctx, z, 0, 99); err != nil || len(r) != 100 {
					b.Fatal(len(r), err)
				}
			})
		})
		b.Run(name+"/ZRevRangeTop10", func(b *testing.B) {
			report(b, cnt, func() {
				if r, err := c.ZRevRangeWithScores(ctx, z, 0, 9); err != nil || len(r) != 10 {
					b.Fatal(len(r), err)
				}
			})
		})
		b.Run(name+"/ZRank", func(b *testing.B) {
			report(b, cnt, func() {
				if _, ok, err := c.ZRank(ctx, z, member(55)); err != nil || !ok {
					b.Fatal(ok, err)
				}
			})
		})
	}
}
