package server_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestKeyspaceAgainstRedis runs SCAN (iterated to the end, MATCH, COUNT,
// TYPE), KEYS, DBSIZE, RANDOMKEY, TOUCH, OBJECT and FLUSHDB on a
// redimo-server over a table of its own and on redis-server's database 10
// (FLUSHDB must not touch other tests' keys), through go-redis, and the
// error replies as raw bytes.
func TestKeyspaceAgainstRedis(t *testing.T) {
	needRedis(t)
	ctx := context.Background()
	ts := freshServer(t, "ks")
	// FLUSHDB deletes the 30 keys; under make test-all's load that took
	// longer than go-redis's 3 s read timeout once.
	ours := redis.NewClient(&redis.Options{Addr: ts.addr, Protocol: 2, ReadTimeout: 30 * time.Second})
	defer ours.Close()
	ref := redis.NewClient(&redis.Options{Addr: redisAddr, Protocol: 2, DB: 10})
	defer ref.Close()
	require.NoError(t, ref.FlushDB(ctx).Err())
	for i := range 30 {
		k := fmt.Sprintf("k:%02d", i)
		for _, c := range []*redis.Client{ours, ref} {
			if i%4 == 0 {
				require.NoError(t, c.ZAdd(ctx, k, redis.Z{Score: 1, Member: "m"}).Err())
			} else {
				require.NoError(t, c.SAdd(ctx, k, "m").Err())
			}
		}
	}
	for _, match := range []string{"", "*", "k:1*", "k:?3", "x*"} {
		for _, typ := range []string{"", "set", "ZSET", "string"} {
			require.Equal(t, scanKeys(t, ctx, ref, match, typ, 4), scanKeys(t, ctx, ours, match, typ, 4), "SCAN MATCH %q TYPE %q", match, typ)
		}
		got, want := ours.Keys(ctx, match).Val(), ref.Keys(ctx, match).Val()
		slices.Sort(got)
		slices.Sort(want)
		require.Equal(t, want, got, "KEYS %q", match)
	}
	require.Equal(t, ref.DBSize(ctx).Val(), ours.DBSize(ctx).Val())
	require.True(t, ours.Expire(ctx, "k:03", time.Hour).Val())
	require.True(t, ref.Expire(ctx, "k:03", time.Hour).Val())
	require.Contains(t, ref.Info(ctx, "keyspace").Val(), "db10:keys=30,expires=1,")
	require.Equal(t, "# Keyspace\r\ndb0:keys=30,expires=1,avg_ttl=0\r\n", ours.Info(ctx, "keyspace").Val())
	require.Equal(t, ref.Touch(ctx, "k:01", "k:01", "nope").Val(), ours.Touch(ctx, "k:01", "k:01", "nope").Val())
	key := ours.RandomKey(ctx).Val()
	require.EqualValues(t, 1, ref.Exists(ctx, key).Val(), "RANDOMKEY %q", key)

	got, want := dial(t, ts.addr), dial(t, redisAddr)
	for _, args := range [][]string{
		{"SELECT", "10"}, {"SCAN", "x"}, {"SCAN", "0", "COUNT", "0"}, {"SCAN", "0", "COUNT", "x"}, {"SCAN", "0", "FOO", "1"},
		{"SCAN", "0", "MATCH"}, {"SCAN", "0", "TYPE"}, {"SCAN", "-1", "COUNT", "-1"}, {"SCAN", "18446744073709551616"},
		{"SCAN"}, {"KEYS"}, {"KEYS", "a", "b"}, {"DBSIZE", "x"}, {"RANDOMKEY", "x"}, {"TOUCH"},
		{"FLUSHDB", "x"}, {"FLUSHDB", "ASYNC", "SYNC"}, {"FLUSHALL", "foo"}, {"OBJECT"}, {"OBJECT", "foo"},
		{"OBJECT", "ENCODING"}, {"OBJECT", "ENCODING", "nope"}, {"OBJECT", "HELP", "x"},
		{"KEYS", "nope*"}, {"SCAN", "0", "MATCH", "nope*", "COUNT", "1000"},
	} {
		require.Equal(t, want.do(args...), got.do(args...), "%v", args)
	}

	require.Equal(t, "OK", ours.FlushDB(ctx).Val())
	require.Equal(t, "OK", ref.FlushDB(ctx).Val())
	require.Equal(t, ref.DBSize(ctx).Val(), ours.DBSize(ctx).Val())
	require.ErrorIs(t, ours.RandomKey(ctx).Err(), redis.Nil)
	require.Equal(t, "OK", ours.Do(ctx, "FLUSHALL", "ASYNC").Val())
}

// scanKeys returns the keys SCAN MATCH match COUNT count TYPE typ lists
// through go-redis's iterator, sorted, without repeats.
func scanKeys(tb testing.TB, ctx context.Context, c *redis.Client, match, typ string, count int64) []string {
	tb.Helper()
	var out []string
	it := c.ScanType(ctx, 0, match, count, typ).Iterator()
	for it.Next(ctx) {
		out = append(out, it.Val())
	}
	require.NoError(tb, it.Err())
	slices.Sort(out)
	return slices.Compact(out)
}
