package redimo

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every command with bad arguments: a typed error (errors.Is on
// ErrInvalidArgument and the specific reason, errors.As *ArgError), no
// request sent, nothing written.
func TestRejectsBadInput(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "k"
	// Existing keys of both types, so a rejection cannot hide behind "missing".
	_, err := c.SAdd(ctx, k+"s", "a")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, k+"z", Z{Score: 1, Member: "a"})
	require.NoError(t, err)
	s, z := k+"s", k+"z"
	long := strings.Repeat("m", MaxMemberLen+1)
	longKey := strings.Repeat("k", MaxKeyLen+1)
	nan := math.NaN()

	cases := []struct {
		name   string
		reason error
		call   func() error
	}{
		{"SADD no members", ErrSyntax, func() error { _, err := c.SAdd(ctx, s); return err }},
		{"SADD long member", ErrMemberTooLong, func() error { _, err := c.SAdd(ctx, s, "ok", long); return err }},
		{"SADD long key", ErrKeyTooLong, func() error { _, err := c.SAdd(ctx, longKey, "a"); return err }},
		{"SREM no members", ErrSyntax, func() error { _, err := c.SRem(ctx, s); return err }},
		{"SREM long member", ErrMemberTooLong, func() error { _, err := c.SRem(ctx, s, long); return err }},
		{"SCARD long key", ErrKeyTooLong, func() error { _, err := c.SCard(ctx, longKey); return err }},
		{"SISMEMBER long member", ErrMemberTooLong, func() error { _, err := c.SIsMember(ctx, s, long); return err }},
		{"SMISMEMBER none", ErrSyntax, func() error { _, err := c.SMIsMember(ctx, s); return err }},
		{"SMEMBERS long key", ErrKeyTooLong, func() error { _, err := c.SMembers(ctx, longKey); return err }},
		{"SSCAN long key", ErrKeyTooLong, func() error { return firstErr(c.SScan(ctx, longKey, "")) }},
		{"SRANDMEMBER huge negative", ErrOutOfRange, func() error { _, err := c.SRandMemberN(ctx, s, math.MinInt64); return err }},
		{"SPOP negative", ErrOutOfRange, func() error { _, err := c.SPopN(ctx, s, -1); return err }},
		{"SMOVE long member", ErrMemberTooLong, func() error { _, err := c.SMove(ctx, s, k+"d", long); return err }},
		{"SMOVE long destination", ErrKeyTooLong, func() error { _, err := c.SMove(ctx, s, longKey, "a"); return err }},
		{"SINTER no keys", ErrSyntax, func() error { _, err := c.SInter(ctx); return err }},
		{"SINTERCARD negative limit", ErrOutOfRange, func() error { _, err := c.SInterCard(ctx, -1, s); return err }},
		{"SUNIONCARD negative limit", ErrOutOfRange, func() error { _, err := c.SUnionCard(ctx, -1, s); return err }},
		{"SDIFFCARD negative limit", ErrOutOfRange, func() error { _, err := c.SDiffCard(ctx, -1, s, s); return err }},
		{"SUNION no keys", ErrSyntax, func() error { _, err := c.SUnion(ctx); return err }},
		{"SDIFF long key", ErrKeyTooLong, func() error { _, err := c.SDiff(ctx, s, longKey); return err }},
		{"SUNIONSTORE long destination", ErrKeyTooLong, func() error { _, err := c.SUnionStore(ctx, longKey, s); return err }},
		{"DEL long key", ErrKeyTooLong, func() error { _, err := c.Del(ctx, s, longKey); return err }},
		{"EXISTS long key", ErrKeyTooLong, func() error { _, err := c.Exists(ctx, longKey); return err }},
		{"EXPIRE bad condition", ErrSyntax, func() error { _, err := c.ExpireWith(ctx, s, time.Minute, "SOMETIMES"); return err }},
		{"ZADD NaN", ErrNotFloat, func() error { _, err := c.ZAdd(ctx, z, Z{Score: nan, Member: "b"}); return err }},
		{"ZADD NaN among good", ErrNotFloat, func() error {
			_, err := c.ZAdd(ctx, z, Z{Score: 1, Member: "b"}, Z{Score: nan, Member: "c"})
			return err
		}},
		{"ZADD NX XX", ErrSyntax, func() error {
			_, err := c.ZAddArgs(ctx, z, ZAddArgs{NX: true, XX: true, Members: []Z{{1, "b"}}})
			return err
		}},
		{"ZADD GT LT", ErrSyntax, func() error {
			_, err := c.ZAddArgs(ctx, z, ZAddArgs{GT: true, LT: true, Members: []Z{{1, "b"}}})
			return err
		}},
		{"ZADD NX GT", ErrSyntax, func() error {
			_, err := c.ZAddArgs(ctx, z, ZAddArgs{NX: true, GT: true, Members: []Z{{1, "b"}}})
			return err
		}},
		{"ZADD no members", ErrSyntax, func() error { _, err := c.ZAdd(ctx, z); return err }},
		{"ZADD long member", ErrMemberTooLong, func() error { _, err := c.ZAdd(ctx, z, Z{Score: 1, Member: long}); return err }},
		{"ZADD INCR two members", ErrSyntax, func() error {
			_, _, err := c.ZAddArgsIncr(ctx, z, ZAddArgs{Members: []Z{{1, "a"}, {2, "b"}}})
			return err
		}},
		{"ZINCRBY NaN", ErrNotFloat, func() error { _, err := c.ZIncrBy(ctx, z, nan, "a"); return err }},
		{"ZREM none", ErrSyntax, func() error { _, err := c.ZRem(ctx, z); return err }},
		{"ZSCORE long member", ErrMemberTooLong, func() error { _, _, err := c.ZScore(ctx, z, long); return err }},
		{"ZCOUNT (abc", ErrNotFloat, func() error { _, err := c.ZCount(ctx, z, "(abc", "1"); return err }},
		{"ZCOUNT nan", ErrNotFloat, func() error { _, err := c.ZCount(ctx, z, "0", "nan"); return err }},
		{"ZLEXCOUNT no bracket", ErrSyntax, func() error { _, err := c.ZLexCount(ctx, z, "a", "+"); return err }},
		{"ZRANGEBYSCORE trailing space", ErrNotFloat, func() error { _, err := c.ZRangeByScore(ctx, z, &ZRangeBy{Min: "1 ", Max: "1"}); return err }},
		{"ZREVRANGEBYSCORE bad", ErrNotFloat, func() error { _, err := c.ZRevRangeByScore(ctx, z, &ZRangeBy{Min: "x", Max: "1"}); return err }},
		{"ZRANGEBYLEX bad", ErrSyntax, func() error { _, err := c.ZRangeByLex(ctx, z, &ZRangeBy{Min: "-", Max: "b"}); return err }},
		{"ZRANGE non-integer", ErrNotInteger, func() error { _, err := c.ZRangeArgs(ctx, ZRangeArgs{Key: z, Start: "1.5", Stop: "2"}); return err }},
		{"ZRANGE BYSCORE BYLEX", ErrSyntax, func() error {
			_, err := c.ZRangeArgs(ctx, ZRangeArgs{Key: z, Start: "1", Stop: "2", ByScore: true, ByLex: true})
			return err
		}},
		{"ZRANGE LIMIT by rank", ErrSyntax, func() error {
			_, err := c.ZRangeArgs(ctx, ZRangeArgs{Key: z, Start: "0", Stop: "1", Count: 1})
			return err
		}},
		{"ZRANGE BYLEX WITHSCORES", ErrSyntax, func() error {
			_, err := c.ZRangeArgsWithScores(ctx, ZRangeArgs{Key: z, Start: "-", Stop: "+", ByLex: true})
			return err
		}},
		{"ZREMRANGEBYSCORE bad", ErrNotFloat, func() error { _, err := c.ZRemRangeByScore(ctx, z, "((", "1"); return err }},
		{"ZREMRANGEBYLEX bad", ErrSyntax, func() error { _, err := c.ZRemRangeByLex(ctx, z, "x", "+"); return err }},
		{"ZPOPMIN negative", ErrOutOfRange, func() error { _, err := c.ZPopMin(ctx, z, -2); return err }},
		{"ZPOPMAX two counts", ErrSyntax, func() error { _, err := c.ZPopMax(ctx, z, 1, 2); return err }},
		{"SCAN negative count", ErrOutOfRange, func() error { _, _, err := c.Scan(ctx, 0, "", -1); return err }},
		{"SCAN TYPE negative count", ErrOutOfRange, func() error { _, _, err := c.ScanType(ctx, 0, "", -5, "set"); return err }},
		{"ZMPOP count 0", ErrOutOfRange, func() error { _, _, err := c.ZMPop(ctx, PopMin, 0, z); return err }},
		{"BZMPOP count -1", ErrOutOfRange, func() error { _, _, err := c.BZMPop(ctx, 0, PopMax, -1, z); return err }},
		{"BZPOPMIN negative timeout", ErrOutOfRange, func() error { _, _, err := c.BZPopMin(ctx, -time.Second, z); return err }},
		{"ZUNIONSTORE no keys", ErrSyntax, func() error { _, err := c.ZUnionStore(ctx, k+"d", &ZStore{}); return err }},
		{"ZUNIONSTORE weights count", ErrSyntax, func() error {
			_, err := c.ZUnionStore(ctx, k+"d", &ZStore{Keys: []string{z}, Weights: []float64{1, 2}})
			return err
		}},
		{"ZINTERSTORE NaN weight", ErrNotFloat, func() error {
			_, err := c.ZInterStore(ctx, k+"d", &ZStore{Keys: []string{z}, Weights: []float64{nan}})
			return err
		}},
		{"ZUNION bad aggregate", ErrSyntax, func() error { _, err := c.ZUnion(ctx, ZStore{Keys: []string{z}, Aggregate: "AVG"}); return err }},
		{"ZINTERCARD negative", ErrOutOfRange, func() error { _, err := c.ZInterCard(ctx, -1, z); return err }},
		{"ZRANDMEMBER huge negative", ErrOutOfRange, func() error { _, err := c.ZRandMember(ctx, z, -MaxRandCount-1); return err }},
		{"ZSCAN long key", ErrKeyTooLong, func() error { return firstErr(c.ZScan(ctx, longKey, "")) }},
		{"RateLimiter limit 0", ErrOutOfRange, func() error { _, err := c.RateLimiter(0, time.Second).Allow(ctx, k); return err }},
		{"ShardedSet 0 shards", ErrOutOfRange, func() error { _, err := c.ShardedSet(k, 0).Add(ctx, "a"); return err }},
		{"ExpiringSet ttl 0", ErrOutOfRange, func() error { _, err := c.ExpiringSet(k+"e").Add(ctx, 0, "a"); return err }},
	}
	before := scanTable(t, p)
	cnt.reset()
	for _, tc := range cases {
		err := tc.call()
		require.ErrorIs(t, err, ErrInvalidArgument, tc.name)
		require.ErrorIs(t, err, tc.reason, tc.name)
		var ae *ArgError
		require.True(t, errors.As(err, &ae), tc.name)
		require.NotEmpty(t, ae.Command, tc.name)
		require.NotEmpty(t, ae.Arg, tc.name)
	}
	require.EqualValues(t, 0, cnt.requests.Load(), "every rejection happens before any request: %s", cnt)
	require.Equal(t, before, scanTable(t, p), "nothing written")
}

// Keys and members that look like expression syntax are only ever values:
// they round-trip.
func TestPlaceholderSafety(t *testing.T) {
	ctx, c, _, p := setup(t)
	nasty := []string{"#pk", ":v", ") OR attribute_exists(pk", "sk", "#t = :t", "ünïcødé ✓", "\x00", "\xff\xfe", "", "pk = :pk AND begins_with(sk, :p)"}
	for _, k := range nasty {
		key := p + k
		n, err := c.SAdd(ctx, key, nasty...)
		require.NoError(t, err)
		require.EqualValues(t, len(nasty), n)
		members, err := c.SMembers(ctx, key)
		require.NoError(t, err)
		require.Equal(t, sorted(nasty), members)
		for _, m := range nasty {
			ok, err := c.SIsMember(ctx, key, m)
			require.NoError(t, err)
			require.True(t, ok, "%q", m)
		}
		zkey := key + ":z"
		for i, m := range nasty {
			_, err := c.ZAdd(ctx, zkey, Z{Score: 0, Member: m})
			require.NoError(t, err)
			s, ok, err := c.ZScore(ctx, zkey, m)
			require.NoError(t, err)
			require.True(t, ok)
			require.Zero(t, s, "%d", i)
		}
		lex, err := c.ZRangeByLex(ctx, zkey, &ZRangeBy{Min: "-", Max: "+"})
		require.NoError(t, err)
		require.Equal(t, sorted(nasty), lex)
		n, err = c.SRem(ctx, key, nasty...)
		require.NoError(t, err)
		require.EqualValues(t, len(nasty), n)
		n, err = c.Del(ctx, zkey)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		requireGone(t, c, key)
	}
}
