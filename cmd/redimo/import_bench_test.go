package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/connect"
	"github.com/redimo-go/redimo/internal/testenv"
)

// BenchmarkImport measures `redimo import` (the copy, without the verify
// pass, then the verify pass alone) of four shapes of key from a real
// redis-server into DynamoDB Local: members per second and the cost
// model's units per member. Each iteration imports into a table emptied
// of the keys first, so every member is new.
func BenchmarkImport(b *testing.B) {
	addr := testenv.RedisAddr(b)
	testenv.NeedEndpoint(b)
	ctx := context.Background()
	src := redis.NewClient(&redis.Options{Addr: addr, DB: importRedisDB})
	defer src.Close()
	url := fmt.Sprintf("redis://%s/%d", addr, importRedisDB)
	for _, shape := range []struct {
		name        string
		zset        bool
		keys, count int
	}{
		{"small-sets", false, 200, 10},
		{"small-zsets", true, 200, 10},
		{"big-set", false, 2, 5000},
		{"big-zset", true, 2, 5000},
	} {
		b.Run(shape.name, func(b *testing.B) {
			prefix := "impbench:" + randomHex(4) + ":"
			// tally is the import's own (it takes from it); sum is the
			// benchmark's.
			var tally, sum redimo.Tally
			f := connect.Flags{Table: testTable, Endpoint: endpoint}
			dst, _, err := f.Client(ctx, func(o *redimo.Options) {
				o.Metrics = func(ctx context.Context, r redimo.Request) { tally.Add(ctx, r); sum.Add(ctx, r) }
			})
			require.NoError(b, err)
			pipe := src.Pipeline()
			for k := range shape.keys {
				key := prefix + strconv.Itoa(k)
				for j := 0; j < shape.count; j += 500 {
					var sm []any
					var zm []redis.Z
					for m := j; m < min(j+500, shape.count); m++ {
						sm = append(sm, "member:"+strconv.Itoa(m))
						zm = append(zm, redis.Z{Member: "member:" + strconv.Itoa(m), Score: float64(m) * 1.5})
					}
					if shape.zset {
						pipe.ZAdd(ctx, key, zm...)
					} else {
						pipe.SAdd(ctx, key, sm...)
					}
				}
			}
			_, err = pipe.Exec(ctx)
			require.NoError(b, err)
			clean := func() {
				keys, err := dst.Keys(ctx, prefix+"*")
				require.NoError(b, err)
				for c := range slices.Chunk(keys, 100) {
					_, err := dst.Del(ctx, c...)
					require.NoError(b, err)
				}
			}
			defer func() {
				clean()
				keys, _ := src.Keys(ctx, prefix+"*").Result()
				src.Del(ctx, keys...)
			}()
			connectDst := func() (*redimo.Client, string, error) { return dst, testTable, nil }
			members := float64(shape.keys * shape.count)
			var copyTime, verifyTime time.Duration
			var copyCost, verifyCost redimo.Cost
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				clean()
				sum.Take()
				cp := b.TempDir() + "/cp" + strconv.Itoa(i)
				b.StartTimer()
				start := time.Now()
				code := runImport(ctx, []string{"-quiet", "-verify=false", "-checkpoint", cp, "-match", prefix + "*", url}, io.Discard, io.Discard, connectDst, &tally)
				copyTime += time.Since(start)
				copyCost = copyCost.Plus(sum.Take())
				require.Equal(b, 0, code)
				start = time.Now()
				code = runImport(ctx, []string{"-quiet", "-checkpoint", cp, "-match", prefix + "*", url}, io.Discard, io.Discard, connectDst, &tally)
				require.Equal(b, 0, code)
				b.StopTimer()
				verifyTime += time.Since(start)
				verifyCost = verifyCost.Plus(sum.Take())
				b.StartTimer()
			}
			n := members * float64(b.N)
			b.ReportMetric(n/copyTime.Seconds(), "members/s")
			b.ReportMetric(copyCost.WriteUnits/n, "WCU/member")
			b.ReportMetric(copyCost.ReadUnits/n, "RCU/member")
			b.ReportMetric(float64(copyCost.Requests)/n, "requests/member")
			b.ReportMetric(copyCost.Dollars(redimo.OnDemandPrices)/n*1e6, "$/Mmember")
			b.ReportMetric(n/verifyTime.Seconds(), "verify-members/s")
			b.ReportMetric(verifyCost.ReadUnits/n, "verify-RCU/member")
		})
	}
}
