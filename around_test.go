package redimo

import (
	"context"
	"fmt"
	"testing"

	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/redis/go-redis/v9"

	"github.com/stretchr/testify/require"
)

// TestRankAroundAgainstRedis compares ZRankAround and ZRevRankAround with
// ZRANK/ZREVRANK and ZRANGE/ZREVRANGE rank-n rank+n WITHSCORES on
// redis-server, on a set whose scores tie in runs (ties are ordered by
// member), at both ends and in the middle.
func TestRankAroundAgainstRedis(t *testing.T) {
	c, cnt, p := newTestClient(t)
	ctx := context.Background()
	k := p + "board"
	rdb := zRedisKey(t, k)
	var zs []Z
	for i := range 300 {
		zs = append(zs, Z{Score: float64(i % 17), Member: fmt.Sprintf("p%03d", (i*7919)%300)})
	}
	_, err := c.ZAdd(ctx, k, zs...)
	require.NoError(t, err)
	for _, z := range zs {
		require.NoError(t, rdb.ZAdd(ctx, k, redis.Z{Score: z.Score, Member: z.Member}).Err())
	}
	// Every combination in the full suite; a seeded share of them, the
	// ends always, in the everyday one (testenv.Sample).
	keep := testenv.Sample(t, 0, 0.35)
	for _, member := range []string{"p000", "p001", "p150", "p298", "p299", zs[0].Member, zs[299].Member} {
		for _, n := range []int64{0, 1, 3, 40} {
			for _, rev := range []bool{false, true} {
				if !keep() && member != "p000" && member != "p299" {
					continue
				}
				var (
					got Around
					ok  bool
				)
				cnt.reset()
				if rev {
					got, ok, err = c.ZRevRankAround(ctx, k, member, n)
				} else {
					got, ok, err = c.ZRankAround(ctx, k, member, n)
				}
				require.NoError(t, err)
				require.True(t, ok)
				require.LessOrEqual(t, cnt.requests.Load(), int64(5), "BatchGetItem, count items, count, 2 neighbour Queries: %v", cnt)
				var rank int64
				if rev {
					rank, err = rdb.ZRevRank(ctx, k, member).Result()
				} else {
					rank, err = rdb.ZRank(ctx, k, member).Result()
				}
				require.NoError(t, err)
				cmd := "ZRANGE"
				if rev {
					cmd = "ZREVRANGE"
				}
				v, err := rdb.Do(ctx, cmd, k, max(rank-n, 0), rank+n, "WITHSCORES").Result()
				require.NoError(t, err)
				want := redisZ(t, v)
				require.Equal(t, rank, got.Rank, "%s rev=%v n=%d", member, rev, n)
				require.Equal(t, max(rank-n, 0), got.First)
				require.Equal(t, want, got.Members, "%s rev=%v n=%d", member, rev, n)
				require.Equal(t, member, got.Members[got.Rank-got.First].Member)
			}
		}
	}
	_, ok, err := c.ZRevRankAround(ctx, k, "nobody", 2)
	require.NoError(t, err)
	require.False(t, ok)
	_, ok, err = c.ZRevRankAround(ctx, p+"missing", "p000", 2)
	require.NoError(t, err)
	require.False(t, ok)
	_, err = c.SAdd(ctx, p+"set", "p000")
	require.NoError(t, err)
	_, _, err = c.ZRevRankAround(ctx, p+"set", "p000", 2)
	require.ErrorIs(t, err, ErrWrongType)
	for _, n := range []int64{-1, MaxAround + 1} {
		cnt.reset()
		_, _, err = c.ZRankAround(ctx, k, "p000", n)
		require.ErrorIs(t, err, ErrOutOfRange)
		require.Zero(t, cnt.requests.Load(), "refused before any request")
	}
}
