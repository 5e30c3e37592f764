package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestExpiryCommands: the replies redis-server 7.0 gives for the same
// script (checked with redis-cli).
func TestExpiryCommands(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	ctx := context.Background()
	rdb := goRedis(t, ts.addr, 2, "")
	k := "expire:" + randomHex(4)
	do := func(args ...any) any {
		v, err := rdb.Do(ctx, args...).Result()
		if err != nil {
			return "error: " + err.Error()
		}
		return v
	}
	script := []struct {
		args []any
		want any
	}{
		{[]any{"SADD", k, "a"}, int64(1)},
		{[]any{"EXPIRE", k, "100"}, int64(1)},
		{[]any{"TTL", k}, int64(100)},
		{[]any{"EXPIRE", k, "50", "NX"}, int64(0)},
		{[]any{"EXPIRE", k, "200", "GT"}, int64(1)},
		{[]any{"TTL", k}, int64(200)},
		{[]any{"EXPIRE", k, "10", "XX", "LT"}, int64(1)},
		{[]any{"TTL", k}, int64(10)},
		{[]any{"EXPIRE", k, "10", "NX", "XX"}, "error: ERR NX and XX, GT or LT options at the same time are not compatible"},
		{[]any{"EXPIRE", k, "abc"}, "error: ERR value is not an integer or out of range"},
		{[]any{"EXPIRE", k, "1", "FOO"}, "error: ERR Unsupported option FOO"},
		{[]any{"EXPIRE", k, "10", "GT", "LT"}, "error: ERR GT and LT options at the same time are not compatible"},
		{[]any{"PERSIST", k}, int64(1)},
		{[]any{"TTL", k}, int64(-1)},
		{[]any{"TTL", k + "nokey"}, int64(-2)},
		{[]any{"PTTL", k + "nokey"}, int64(-2)},
		{[]any{"EXPIRE", k + "nokey", "10"}, int64(0)},
		{[]any{"EXPIREAT", k, "1"}, int64(1)},
		{[]any{"EXISTS", k}, int64(0)},
	}
	for _, step := range script {
		got := do(step.args...)
		// A TTL may have lost its second by the time it is read, on a
		// busy machine (Redis rounds the milliseconds left).
		if ttl, ok := step.want.(int64); ok && step.args[0] == "TTL" && ttl > 0 && got == ttl-1 {
			continue
		}
		require.Equal(t, step.want, got, "%v", step.args)
	}
	// PEXPIRE / PTTL in milliseconds.
	require.Equal(t, int64(1), do("SADD", k, "a"))
	require.Equal(t, int64(1), do("PEXPIRE", k, "100000"))
	pttl := do("PTTL", k).(int64)
	require.True(t, pttl > 99000 && pttl <= 100000, pttl)
}

// TestExpireRangeAgainstRedis: EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT
// across the int64 edges give redis-server's replies, and leave the same
// TTL, PTTL, EXPIRETIME and PEXPIRETIME (within the clock difference of the
// two servers) or the same missing key. Before issue 9, huge values
// overflowed into the past and deleted the key.
func TestExpireRangeAgainstRedis(t *testing.T) {
	needRedis(t)
	ts := startServer(t, nil, server.Config{})
	ctx := context.Background()
	ours, ref := goRedis(t, ts.addr, 2, ""), goRedis(t, redisAddr, 2, "")
	const max, min = "9223372036854775807", "-9223372036854775808"
	values := []string{
		max, min, "9223372036854775", "9223372036854776", "-9223372036854775", "-9223372036854776",
		"9223372036854775806", "9223372036852000000", "10000000000", "-10000000000", "100000000000000",
		"0", "1", "-1", "4102444800", "4102444800000", "99999999999999999999", "1.5",
	}
	for _, cmd := range []string{"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"} {
		for _, v := range values {
			if v == "1" && (cmd == "EXPIRE" || cmd == "PEXPIRE") {
				continue // expires within a second: the two servers' checks would race it
			}
			for _, opt := range []string{"", "GT"} {
				k := "expirerange:" + randomHex(4)
				args := []any{cmd, k, v}
				if opt != "" {
					args = append(args, opt)
				}
				for _, c := range []*redis.Client{ours, ref} {
					require.NoError(t, c.SAdd(ctx, k, "m").Err())
					require.NoError(t, c.Expire(ctx, k, 1000*time.Second).Err())
				}
				got, gotErr := ours.Do(ctx, args...).Result()
				want, wantErr := ref.Do(ctx, args...).Result()
				require.Equal(t, fmt.Sprint(want, wantErr), fmt.Sprint(got, gotErr), "%v", args)
				for _, q := range []string{"EXISTS", "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"} {
					g, err := ours.Do(ctx, q, k).Int64()
					require.NoError(t, err, "%s after %v", q, args)
					w, err := ref.Do(ctx, q, k).Int64()
					require.NoError(t, err)
					slack := int64(0)
					switch q {
					case "PTTL", "PEXPIRETIME":
						slack = 2000 // the servers' clocks and the time between the commands
					case "TTL", "EXPIRETIME":
						slack = 2
					}
					require.InDelta(t, w, g, float64(slack), "%s after %v: redis %d, redimo %d", q, args, w, g)
				}
				ref.Del(ctx, k)
			}
		}
	}
}
