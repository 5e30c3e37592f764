package redimo

// The reference redis-server (REDIMO_TEST_REDIS, which make test sets)
// and the helpers that compare redimo's replies and keys with its own:
// the differential tests beside each command use them (zrange_test.go,
// zalgebra_test.go, zsets_test.go, ...; oracle_test.go's random sequences).

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/testenv"
)

// redisAddr is the address of the redis-server to compare with, or skips
// (fails under REDIMO_TEST_REQUIRE=1).
var redisAddr = testenv.RedisAddr

// zRedis connects to the redis-server to compare with, or skips (fails
// under REDIMO_TEST_REQUIRE=1).
func zRedis(t *testing.T) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr(t), Protocol: 2})
	t.Cleanup(func() { _ = rdb.Close() })
	require.NoError(t, rdb.Ping(context.Background()).Err())
	return rdb
}

// zRedisKey is zRedis for a test of the one key k, deleted from
// redis-server when the test ends.
func zRedisKey(t *testing.T, k string) *redis.Client {
	t.Helper()
	rdb := zRedis(t)
	redisDel(t, rdb, k)
	return rdb
}

// zrangeFlags appends a's BYSCORE, BYLEX and REV to a ZRANGE-like
// command.
func zrangeFlags(cmd []any, a ZRangeArgs) []any {
	for _, f := range []struct {
		on   bool
		name string
	}{{a.ByScore, "BYSCORE"}, {a.ByLex, "BYLEX"}, {a.Rev, "REV"}} {
		if f.on {
			cmd = append(cmd, f.name)
		}
	}
	return cmd
}

// setupRedis is setup for the tests against redis-server, with a go-redis
// client too; the keys under the test's prefix are deleted from
// redis-server when the test ends.
func setupRedis(t *testing.T) (context.Context, *Client, *redis.Client, string) {
	t.Helper()
	rdb := zRedis(t)
	ctx, c, _, p := setup(t)
	t.Cleanup(func() {
		keys, _ := rdb.Keys(context.Background(), globEscape(p)+"*").Result()
		if len(keys) > 0 {
			rdb.Del(context.Background(), keys...)
		}
	})
	return ctx, c, rdb, p
}

// globEscape quotes the characters of s that Redis's KEYS pattern reads
// as wildcards.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`, "]", `\]`).Replace(s)
}

// redisDel deletes keys from redis-server when the test ends.
func redisDel(t *testing.T, rdb *redis.Client, keys ...string) {
	t.Cleanup(func() { rdb.Del(context.Background(), keys...) })
}

// redisZ decodes a RESP2 WITHSCORES reply.
func redisZ(t *testing.T, v any) []Z {
	t.Helper()
	flat, ok := v.([]any)
	require.True(t, ok, "%#v", v)
	out := []Z{}
	for i := 0; i+1 < len(flat); i += 2 {
		s, err := strconv.ParseFloat(flat[i+1].(string), 64)
		require.NoError(t, err)
		out = append(out, Z{Score: s, Member: flat[i].(string)})
	}
	return out
}

func redisStrings(t *testing.T, v any) []string {
	t.Helper()
	list, ok := v.([]any)
	require.True(t, ok, "%#v", v)
	out := []string{}
	for _, x := range list {
		out = append(out, x.(string))
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// redisErr reports whether redis answered with an error (not nil).
func redisErr(err error) bool { return err != nil && !errors.Is(err, redis.Nil) }

// zaddBoth adds zs to key with redimo's c and redis-server's rdb.
func zaddBoth(t *testing.T, ctx context.Context, c *Client, rdb *redis.Client, key string, zs ...Z) {
	t.Helper()
	_, err := c.ZAdd(ctx, key, zs...)
	require.NoError(t, err)
	for _, z := range zs {
		require.NoError(t, rdb.ZAdd(ctx, key, redis.Z{Score: z.Score, Member: z.Member}).Err())
	}
}

// requireSameZSet requires key to hold the same members with the same
// scores in redimo (c) and redis-server (rdb).
func requireSameZSet(t *testing.T, ctx context.Context, c *Client, rdb *redis.Client, key string, msgAndArgs ...any) {
	t.Helper()
	want, err := rdb.Do(ctx, "ZRANGE", key, "0", "-1", "WITHSCORES").Result()
	require.NoError(t, err)
	got, err := c.ZRangeWithScores(ctx, key, 0, -1)
	require.NoError(t, err)
	require.Equal(t, redisZ(t, want), nonNil(got), msgAndArgs...)
}

// redisRefused reports whether redis-server answered cmd with an error
// (werr); then redimo's err must be reason.
func redisRefused(t *testing.T, werr, err, reason error, cmd ...any) bool {
	t.Helper()
	if !redisErr(werr) {
		return false
	}
	require.ErrorIs(t, err, reason, "%q: redis %v", cmd, werr)
	return true
}

// likeRedis checks redimo's reply (got, err) to cmd against
// redis-server's (want, werr): ErrInvalidArgument where Redis answered an
// error, else no error and want as convert reads it.
func likeRedis[E any](t *testing.T, cmd []any, want any, werr error, convert func(*testing.T, any) []E, got []E, err error) {
	t.Helper()
	if redisRefused(t, werr, err, ErrInvalidArgument, cmd...) {
		return
	}
	require.NoError(t, err, "%q", cmd)
	require.Equal(t, convert(t, want), nonNil(got), "%q", cmd)
}

func anys(s ...string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}
