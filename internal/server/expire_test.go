package server_test

import (
	"context"
	"testing"

	"github.com/redimo-go/redimo/internal/server"
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
		require.Equal(t, step.want, do(step.args...), "%v", step.args)
	}
	// PEXPIRE / PTTL in milliseconds.
	require.Equal(t, int64(1), do("SADD", k, "a"))
	require.Equal(t, int64(1), do("PEXPIRE", k, "100000"))
	pttl := do("PTTL", k).(int64)
	require.True(t, pttl > 99000 && pttl <= 100000, pttl)
}
