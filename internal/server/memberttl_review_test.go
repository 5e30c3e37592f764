package server_test

// Review of member expiry through the Redis protocol. Each FINDING failed
// on the code it was written against (commit 909af23) and passes since the
// fixes that followed; its comment says what Redis 8.12 answers and what
// redimo answered then.

import (
	"context"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// FINDING. Keys whose members all expired are missing keys, through the
// wire too. Redis 8.12 (a key whose every member expired does not exist):
// SISMEMBER → 0, ZRANK → nil, RENAME → "ERR no such key", COPY → 0 with
// the destination untouched. redimo: WRONGTYPE, WRONGTYPE, OK (and the
// destination deleted), 1 (and the destination deleted).
func TestReviewServerAllExpiredKey(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	ctx := context.Background()
	rdb := goRedis(t, ts.addr, 3, "")
	id := randomHex(4)
	s, z, dst := "rev:s:"+id, "rev:z:"+id, "rev:dst:"+id
	do := func(args ...any) any {
		v, err := rdb.Do(ctx, args...).Result()
		if err != nil {
			return "error: " + err.Error()
		}
		return v
	}
	require.Equal(t, int64(1), do("ZADD", z, "1", "a"))
	require.Equal(t, []any{int64(1)}, do("ZPEXPIRE", z, "300", "MEMBERS", "1", "a"))
	require.Equal(t, int64(1), do("SADD", s, "a"))
	require.Equal(t, []any{int64(1)}, do("SPEXPIRE", s, "300", "MEMBERS", "1", "a"))
	require.Equal(t, int64(1), do("SADD", dst, "keep"))
	time.Sleep(400 * time.Millisecond)
	require.Equal(t, "none", do("TYPE", z))
	require.Equal(t, int64(0), do("EXISTS", s))
	got := map[string]any{
		"SISMEMBER z a":      do("SISMEMBER", z, "a"),
		"ZRANK s a":          do("ZRANK", s, "a"),
		"COPY s dst REPLACE": do("COPY", s, dst, "REPLACE"),
	}
	got["SMEMBERS dst after COPY"] = do("SMEMBERS", dst)
	got["RENAME s dst"] = do("RENAME", s, dst)
	got["SMEMBERS dst after RENAME"] = do("SMEMBERS", dst)
	require.Equal(t, map[string]any{
		"SISMEMBER z a":             int64(0),
		"ZRANK s a":                 "error: redis: nil",
		"COPY s dst REPLACE":        int64(0),
		"SMEMBERS dst after COPY":   []any{"keep"},
		"RENAME s dst":              "error: ERR no such key",
		"SMEMBERS dst after RENAME": []any{"keep"},
	}, got)
}

// FINDING. ZRANK of an expired (not yet collected) member: Redis nil;
// redimo its old rank.
func TestReviewServerZRankExpiredMember(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	ctx := context.Background()
	rdb := goRedis(t, ts.addr, 3, "")
	z := "rev:zr:" + randomHex(4)
	require.NoError(t, rdb.Do(ctx, "ZADD", z, "1", "a", "2", "b", "3", "c").Err())
	require.NoError(t, rdb.Do(ctx, "ZPEXPIRE", z, "300", "MEMBERS", "1", "b").Err())
	time.Sleep(400 * time.Millisecond)
	require.Equal(t, int64(2), rdb.ZCard(ctx, z).Val())
	_, err := rdb.ZRank(ctx, z, "b").Result()
	require.Error(t, err, "ZRANK of an expired member is nil")
	_, err = rdb.ZRevRank(ctx, z, "b").Result()
	require.Error(t, err, "ZREVRANK of an expired member is nil")
}
