package redimo

// Sorted-set commands compared with redis-server (REDIMO_TEST_REDIS, which
// make test sets), exhaustively over small option spaces: every ZADD
// option combination, score-bound strings as strtod reads them, every
// ZRANGE form with LIMIT, ZRANGESTORE, the set algebra with weights and
// aggregates. The random sequences of oracle_test.go complement these.

import (
	"context"
	"errors"
	"math"
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

func TestZRedisZAddFlags(t *testing.T) {
	ctx, c, rdb, p := setupRedis(t)
	k := p + "z"
	zaddBoth(t, ctx, c, rdb, k, zaddSeed()...)
	for _, f := range allZAddFlags() {
		cmd := append([]any{"ZADD", k}, anys(f.names()...)...)
		if f.incr {
			for _, s := range zaddStates {
				m := flagMember(f, s.name)
				want, werr := rdb.Do(ctx, append(cmd, fmtScore(s.incrBy), m)...).Result()
				got, ok, err := c.ZAddArgsIncr(ctx, k, f.args(Z{Score: s.incrBy, Member: m}))
				if redisRefused(t, werr, err, ErrSyntax, cmd...) {
					continue
				}
				require.NoError(t, err, m)
				require.Equal(t, werr == nil, ok, m)
				if ok {
					require.Equal(t, want, fmtScore(got), m)
				}
			}
			continue
		}
		var zs []Z
		for _, s := range zaddStates {
			m := flagMember(f, s.name)
			zs = append(zs, Z{Score: s.score, Member: m})
			cmd = append(cmd, fmtScore(s.score), m)
		}
		want, werr := rdb.Do(ctx, cmd...).Result()
		got, err := c.ZAddArgs(ctx, k, f.args(zs...))
		if redisRefused(t, werr, err, ErrSyntax, cmd...) {
			continue
		}
		require.NoError(t, err, f.String())
		require.Equal(t, want, got, "%v", cmd)
	}
	requireSameZSet(t, ctx, c, rdb, k)
}

// Score bounds are read as Redis reads them (strtod): hexadecimal, leading
// spaces, "" and "(" as 0, overflow to ±inf, underflow to 0; and rejected
// where Redis rejects them.
func TestZRedisBounds(t *testing.T) {
	ctx, c, rdb, p := setupRedis(t)
	k := p + "z"
	members := zs(math.Inf(-1), "ninf", -16, "m16", -0.5, "mhalf", 0, "zero", 0, "zero2", 5e-324, "tiny",
		0.5, "half", 1, "one", 1.5, "onehalf", 16, "sixteen", 1e308, "huge", math.Inf(1), "inf")
	zaddBoth(t, ctx, c, rdb, k, members...)
	bounds := []string{
		"", "(", "0", "(0", "-0", "1", "(1", " 1", "\t1", "( 1", " (1", "1 ", "+1", ".5", "5.", "-.5",
		"0x10", "0X10", "(0x10", "-0x10", "0x.8", "0x1.", "0x1p4", "0x1P-1", "0x", "0x1p", "1e", "1e+", "1e1",
		"1e400", "-1e400", "(1e400", "1e-400", "(1e-400", "4.9e-324", "(4.9e-324",
		"inf", "-inf", "+inf", "(inf", "(-inf", "infinity", "-Infinity", "INF", "infinit",
		"nan", "(nan", "-nan", "1_0", "0b1", "1d", "((1", "  ", "abc", "(abc", "1.5.5",
	}
	for _, min := range bounds {
		for _, max := range []string{"+inf", "1", "(1.5", ""} {
			want, werr := rdb.Do(ctx, "ZCOUNT", k, min, max).Result()
			got, err := c.ZCount(ctx, k, min, max)
			if redisRefused(t, werr, err, ErrNotFloat, "ZCOUNT", min, max) {
				continue
			}
			require.NoError(t, err, "ZCOUNT %q %q", min, max)
			require.Equal(t, want, got, "ZCOUNT %q %q", min, max)
		}
		wantZ, werr := rdb.Do(ctx, "ZREVRANGEBYSCORE", k, "+inf", min, "WITHSCORES").Result()
		gotZ, err := c.ZRevRangeByScoreWithScores(ctx, k, &ZRangeBy{Min: min, Max: "+inf"})
		if redisRefused(t, werr, err, ErrNotFloat, "ZREVRANGEBYSCORE", "+inf", min) {
			continue
		}
		require.NoError(t, err)
		require.Equal(t, redisZ(t, wantZ), nonNil(gotZ), "ZREVRANGEBYSCORE +inf %q", min)
	}
	// Scores come back bit for bit.
	for _, z := range members {
		want, err := rdb.ZScore(ctx, k, z.Member).Result()
		require.NoError(t, err)
		got, ok, err := c.ZScore(ctx, k, z.Member)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, math.Float64bits(want), math.Float64bits(got), z.Member)
	}
}

// Every form of ZRANGE (by rank, BYSCORE, BYLEX, REV, LIMIT, WITHSCORES)
// and ZRANGESTORE, compared with redis-server.
func TestZRedisRanges(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx, c, rdb, p := setupRedis(t)
	k, lex, dst := p+"z", p+"lex", p+"dst"
	// Ties at 1 and 3, both infinities.
	scored := zs(1, "b", 1, "a", 1, "c", 2, "d", 3, "f", 3, "e", math.Inf(1), "inf", math.Inf(-1), "ninf", -2.5, "neg")
	equal := zs(0, "", 0, "a", 0, "aa", 0, "b", 0, "c", 0, "d", 0, "\xff", 0, strings.Repeat("a", MaxMemberLen))
	for key, members := range map[string][]Z{k: scored, lex: equal} {
		zaddBoth(t, ctx, c, rdb, key, members...)
	}
	compare := func(a ZRangeArgs, withScores bool) {
		t.Helper()
		cmd := zrangeFlags([]any{"ZRANGE", a.Key, a.Start, a.Stop}, a)
		if a.Offset != 0 || a.Count != 0 {
			cmd = append(cmd, "LIMIT", strconv.FormatInt(a.Offset, 10), strconv.FormatInt(a.Count, 10))
		}
		if withScores {
			cmd = append(cmd, "WITHSCORES")
		}
		want, werr := rdb.Do(ctx, cmd...).Result()
		if withScores {
			got, err := c.ZRangeArgsWithScores(ctx, a)
			likeRedis(t, cmd, want, werr, redisZ, got, err)
			return
		}
		got, err := c.ZRangeArgs(ctx, a)
		likeRedis(t, cmd, want, werr, redisStrings, got, err)
	}
	// The everyday suite compares a share of the range tables below, new
	// ones each run (testenv.Sample); the full suite all of them.
	keep := testenv.Sample(t, 0, 0.4)
	ranks := []string{"-100", "-9", "-3", "-1", "0", "1", "4", "8", "100", "+1", "007", "-0", " 1", "1.5", "9223372036854775807", "-9223372036854775808"}
	for _, start := range ranks {
		for _, stop := range ranks {
			for _, rev := range []bool{false, true} {
				if keep() {
					compare(ZRangeArgs{Key: k, Start: start, Stop: stop, Rev: rev}, rev)
				}
			}
		}
	}
	scores := []string{"-inf", "(-inf", "-2.5", "(-2.5", "1", "(1", "2", "(3", "3", "+inf", "(+inf", "x"}
	limits := [][2]int64{{0, 0}, {0, 2}, {1, -1}, {2, 3}, {-1, 2}, {5, 0}, {100, 1}}
	for _, lo := range scores {
		for _, hi := range scores {
			for _, rev := range []bool{false, true} {
				for i, l := range limits {
					if i > 1 && (lo != "-inf" && lo != "1") {
						continue // every LIMIT on a few ranges, two on all
					}
					if keep() {
						compare(ZRangeArgs{Key: k, Start: lo, Stop: hi, ByScore: true, Rev: rev, Offset: l[0], Count: l[1]}, i%2 == 0)
					}
				}
			}
		}
	}
	long := strings.Repeat("a", 2000)
	lexes := []string{"-", "+", "[", "(", "[a", "(a", "[aa", "(b", "[c", "(\xff", "[\xff", "a", "++", "[" + long, "(" + long}
	for _, lo := range lexes {
		for _, hi := range lexes {
			for _, rev := range []bool{false, true} {
				for i, l := range limits {
					if i > 1 && lo != "-" && lo != "[a" {
						continue
					}
					if keep() {
						compare(ZRangeArgs{Key: lex, Start: lo, Stop: hi, ByLex: true, Rev: rev, Offset: l[0], Count: l[1]}, false)
					}
				}
			}
		}
	}
	// Errors of form: LIMIT by rank, BYLEX WITHSCORES, BYSCORE with BYLEX.
	compare(ZRangeArgs{Key: k, Start: "0", Stop: "1", Count: 1}, false)
	compare(ZRangeArgs{Key: lex, Start: "-", Stop: "+", ByLex: true}, true)
	compare(ZRangeArgs{Key: k, Start: "0", Stop: "1", ByScore: true, ByLex: true}, false)

	// ZRANGESTORE: the stored members and scores, an empty result deletes.
	stores := []ZRangeArgs{
		{Key: k, Start: "0", Stop: "-1"},
		{Key: k, Start: "1", Stop: "3", Rev: true},
		{Key: k, Start: "(1", Stop: "+inf", ByScore: true, Offset: 1, Count: 2},
		{Key: k, Start: "3", Stop: "-inf", ByScore: true, Rev: true},
		{Key: lex, Start: "[a", Stop: "(c", ByLex: true},
		{Key: lex, Start: "+", Stop: "[b", ByLex: true, Rev: true, Count: 2},
		{Key: k, Start: "5", Stop: "1"},
		{Key: p + "missing", Start: "0", Stop: "-1"},
	}
	for _, a := range stores {
		src := a
		args := zrangeFlags([]any{"ZRANGESTORE", dst, a.Key, a.Start, a.Stop}, a)
		if a.Count != 0 {
			args = append(args, "LIMIT", strconv.FormatInt(a.Offset, 10), strconv.FormatInt(a.Count, 10))
		}
		want, err := rdb.Do(ctx, args...).Result()
		require.NoError(t, err, "%q", args)
		got, err := c.ZRangeStore(ctx, dst, src)
		require.NoError(t, err, "%q", args)
		require.Equal(t, want, got, "%q", args)
		wantZ, err := rdb.ZRangeWithScores(ctx, dst, 0, -1).Result()
		require.NoError(t, err)
		gotZ, err := c.ZRangeWithScores(ctx, dst, 0, -1)
		require.NoError(t, err)
		require.Len(t, gotZ, len(wantZ), "%q", args)
		for i := range wantZ {
			require.Equal(t, Z{Score: wantZ[i].Score, Member: wantZ[i].Member.(string)}, gotZ[i], "%q", args)
		}
		if want == int64(0) {
			requireGone(t, c, dst)
		}
	}
}

// ZUNION, ZINTER, ZDIFF (and their STOREs), ZINTERCARD over sorted sets,
// a plain set and a missing key, with every aggregate and several weights.
func TestZRedisAlgebra(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx, c, rdb, p := setupRedis(t)
	z1, z2, z3, s, none, dst := p+"z1", p+"z2", p+"z3", p+"s", p+"none", p+"dst"
	data := map[string][]Z{
		z1: zs(1, "a", 2, "b", 3, "c", math.Inf(1), "i", math.Inf(-1), "j"),
		z2: zs(10, "b", 20, "c", 30, "d", math.Inf(-1), "i", 0.1, "j"),
		z3: zs(-1, "c", 5, "d", 7, "e"),
	}
	for key, members := range data {
		zaddBoth(t, ctx, c, rdb, key, members...)
	}
	_, err := c.SAdd(ctx, s, "c", "d", "q")
	require.NoError(t, err)
	require.NoError(t, rdb.SAdd(ctx, s, "c", "d", "q").Err())

	keySets := [][]string{{z1}, {z1, z2}, {z2, z1}, {z1, z2, z3}, {z1, s}, {s, z3}, {z1, none}, {none, z1}, {z1, z2, s, z3}}
	weightSets := []func(n int) []float64{
		func(int) []float64 { return nil },
		func(n int) []float64 { w := []float64{2, 0.5, -1, 3}; return w[:n] },
		func(n int) []float64 { return make([]float64, n) },
	}
	for _, keys := range keySets {
		for wi, weights := range weightSets {
			for _, agg := range []Aggregate{"", AggregateSum, AggregateMin, AggregateMax, "max"} {
				w := weights(len(keys))
				st := ZStore{Keys: keys, Weights: w, Aggregate: agg}
				tail := anys(keys...)
				if w != nil {
					tail = append(tail, "WEIGHTS")
					for _, x := range w {
						tail = append(tail, fmtScore(x))
					}
				}
				if agg != "" {
					tail = append(tail, "AGGREGATE", string(agg))
				}
				n := strconv.Itoa(len(keys))
				for _, op := range []string{"ZUNION", "ZINTER"} {
					want, err := rdb.Do(ctx, append(append([]any{op, n}, tail...), "WITHSCORES")...).Result()
					require.NoError(t, err)
					var got []Z
					if op == "ZUNION" {
						got, err = c.ZUnionWithScores(ctx, st)
					} else {
						got, err = c.ZInterWithScores(ctx, &st)
					}
					require.NoError(t, err)
					require.Equal(t, redisZ(t, want), nonNil(got), "%s %v %v %q", op, keys, w, agg)

					if wi == 1 && agg == AggregateMax { // the STORE forms, once per key list
						want, err := rdb.Do(ctx, append([]any{op + "STORE", dst, n}, tail...)...).Result()
						require.NoError(t, err)
						var got int64
						if op == "ZUNION" {
							got, err = c.ZUnionStore(ctx, dst, &st)
						} else {
							got, err = c.ZInterStore(ctx, dst, &st)
						}
						require.NoError(t, err)
						require.Equal(t, want, got)
						requireSameZSet(t, ctx, c, rdb, dst, "%sSTORE %v", op, keys)
						if got == 0 {
							requireGone(t, c, dst)
						}
					}
				}
			}
		}
		n := strconv.Itoa(len(keys))
		want, err := rdb.Do(ctx, append(append([]any{"ZDIFF", n}, anys(keys...)...), "WITHSCORES")...).Result()
		require.NoError(t, err)
		got, err := c.ZDiffWithScores(ctx, keys...)
		require.NoError(t, err)
		require.Equal(t, redisZ(t, want), nonNil(got), "ZDIFF %v", keys)
		wantN, err := rdb.Do(ctx, append([]any{"ZDIFFSTORE", dst, n}, anys(keys...)...)...).Result()
		require.NoError(t, err)
		gotN, err := c.ZDiffStore(ctx, dst, keys...)
		require.NoError(t, err)
		require.Equal(t, wantN, gotN, "ZDIFFSTORE %v", keys)
		if gotN == 0 {
			requireGone(t, c, dst)
		}
		for _, limit := range []int64{0, 1, 2, 100} {
			want, err := rdb.Do(ctx, append(append([]any{"ZINTERCARD", n}, anys(keys...)...), "LIMIT", limit)...).Result()
			require.NoError(t, err)
			got, err := c.ZInterCard(ctx, limit, keys...)
			require.NoError(t, err)
			require.Equal(t, want, got, "ZINTERCARD %v LIMIT %d", keys, limit)
		}
	}
	// The destination among the sources: read before it is overwritten.
	want, err := rdb.Do(ctx, "ZUNIONSTORE", z3, "3", z3, z1, s, "WEIGHTS", "2", "1", "5").Result()
	require.NoError(t, err)
	got, err := c.ZUnionStore(ctx, z3, &ZStore{Keys: []string{z3, z1, s}, Weights: []float64{2, 1, 5}})
	require.NoError(t, err)
	require.Equal(t, want, got)
	requireSameZSet(t, ctx, c, rdb, z3)
}

// ZRANDMEMBER's count rules against Redis's: sizes, distinctness, scores.
func TestZRedisRandMember(t *testing.T) {
	ctx, c, rdb, p := setupRedis(t)
	k := p + "z"
	members := zs(1, "a", 2, "b", 3, "c", 4, "d", 5, "e")
	zaddBoth(t, ctx, c, rdb, k, members...)
	score := map[string]float64{}
	for _, z := range members {
		score[z.Member] = z.Score
	}
	for _, count := range []int{-8, -5, -1, 0, 1, 3, 5, 9} {
		want, err := rdb.Do(ctx, "ZRANDMEMBER", k, count, "WITHSCORES").Result()
		require.NoError(t, err)
		got, err := c.ZRandMemberWithScores(ctx, k, count)
		require.NoError(t, err)
		require.Len(t, got, len(redisZ(t, want)), "count %d", count)
		seen := map[string]bool{}
		for _, z := range got {
			require.Equal(t, score[z.Member], z.Score)
			require.False(t, count > 0 && seen[z.Member], "count %d: repeated %q", count, z.Member)
			seen[z.Member] = true
		}
	}
	got, err := c.ZRandMember(ctx, p+"missing", 3)
	require.NoError(t, err)
	require.Empty(t, got)
}
