package redimo

// BenchmarkDelCost: the requests and capacity units of DEL of a 10,000-
// member set and sorted set (issue 31: DEL marks the key dead in one
// write, then reclaims its items), on DynamoDB Local, as DynamoDB reported
// them (ReturnConsumedCapacity):
//
//	make bench BENCHFLAGS='-bench DelCost -benchtime 1x'

import (
	"context"
	"testing"
)

func BenchmarkDelCost(b *testing.B) {
	ctx := context.Background()
	const n = 10000
	for _, zset := range []bool{false, true} {
		name := "set"
		if zset {
			name = "zset"
		}
		b.Run(name, func(b *testing.B) {
			var requests, units float64
			for range b.N {
				c, cnt, p := newTestClient(b)
				k := p + "big"
				ms := numbered("m%05d", n)
				var err error
				if zset {
					zs := make([]Z, n)
					for i, m := range ms {
						zs[i] = Z{float64(i), m}
					}
					_, err = c.ZAdd(ctx, k, zs...)
				} else {
					_, err = c.SAdd(ctx, k, ms...)
				}
				if err != nil {
					b.Fatal(err)
				}
				cnt.reset()
				if d, err := c.Del(ctx, k); err != nil || d != 1 {
					b.Fatal(d, err)
				}
				requests += float64(cnt.requests.Load())
				units += cnt.units()
			}
			b.ReportMetric(requests/float64(b.N), "requests/DEL")
			b.ReportMetric(units/float64(b.N), "units/DEL")
		})
	}
}
