package server_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// cmdstatUsec is the usec of command name in INFO commandstats, -1 when
// it is not listed.
func cmdstatUsec(t *testing.T, ctx context.Context, rdb *redis.Client, name string) int64 {
	t.Helper()
	info, err := rdb.Info(ctx, "commandstats").Result()
	require.NoError(t, err)
	m := regexp.MustCompile(`cmdstat_` + name + `:calls=\d+,usec=(\d+),`).FindStringSubmatch(info)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// Fix: INFO commandstats' usec of pipelined commands that run at once is
// their share of the run's time, not each one's wall time (which counted
// the same milliseconds once per command: 50 SADDs in 277 ms added 13 s).
func TestCommandstatsUsecPipelined(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	ctx := context.Background()
	rdb := goRedis(t, ts.addr, 2, "")
	k := "usec:" + randomHex(4)
	begin := time.Now()
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range 50 {
			p.SAdd(ctx, k, "m"+strconv.Itoa(i))
		}
		return nil
	})
	wall := time.Since(begin)
	require.NoError(t, err)
	require.EqualValues(t, 50, rdb.SCard(ctx, k).Val())
	usec := cmdstatUsec(t, ctx, rdb, "sadd")
	require.Positive(t, usec)
	require.LessOrEqual(t, usec, wall.Microseconds(), "50 SADDs that took %v in all", wall)
	require.NoError(t, rdb.Del(ctx, k).Err())
}

// Fix: CONFIG RESETSTAT resets INFO commandstats and INFO stats, as Redis's.
func TestConfigResetstat(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	ctx := context.Background()
	rdb := goRedis(t, ts.addr, 2, "")
	require.NoError(t, rdb.Ping(ctx).Err())
	require.NoError(t, rdb.Echo(ctx, "x").Err())
	require.GreaterOrEqual(t, cmdstatUsec(t, ctx, rdb, "ping"), int64(0))
	require.Equal(t, "OK", rdb.ConfigResetStat(ctx).Val())
	require.EqualValues(t, -1, cmdstatUsec(t, ctx, rdb, "ping"), "commandstats reset")
	info, err := rdb.Info(ctx, "stats").Result()
	require.NoError(t, err)
	require.Contains(t, info, "total_connections_received:0\r\n")
	require.Regexp(t, `total_commands_processed:[12]\r\n`, info, "the INFO calls since the reset")
	help, err := rdb.Do(ctx, "CONFIG", "HELP").StringSlice()
	require.NoError(t, err)
	require.Contains(t, help, "RESETSTAT")
}
