package server_test

import (
	"context"
	"strconv"

	"github.com/redimo-go/redimo"
	"github.com/redis/go-redis/v9"
)

// zsetBenchOps are the sorted-set commands of BenchmarkProtocolOverhead:
// ZADD of a random member with a random score, and ZRANGE of the first 10.
func zsetBenchOps(key string) []benchOp {
	score := func(r string) float64 { f, _ := strconv.ParseFloat(r, 64); return f }
	return []benchOp{
		{"ZADD", []string{"zadd", key, "__rand_int__", "__rand_int__"},
			func(ctx context.Context, c *redimo.Client, r string) error {
				_, err := c.ZAdd(ctx, key, redimo.Z{Score: score(r), Member: r})
				return err
			},
			func(ctx context.Context, c *redis.Client, r string) error {
				return c.ZAdd(ctx, key, redis.Z{Score: score(r), Member: r}).Err()
			}},
		{"ZRANGE", []string{"zrange", key, "0", "9"},
			func(ctx context.Context, c *redimo.Client, _ string) error {
				_, err := c.ZRange(ctx, key, 0, 9)
				return err
			},
			func(ctx context.Context, c *redis.Client, _ string) error { return c.ZRange(ctx, key, 0, 9).Err() }},
	}
}
