package redimo

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/redimo-go/redimo/internal/testenv"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
)

func TestZRanges(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "z"
	// Ties at 1 and 3 come back in member order, both ways.
	_, err := c.ZAdd(ctx, k, zs(1, "b", 1, "a", 1, "c", 2, "d", 3, "f", 3, "e", math.Inf(1), "inf", math.Inf(-1), "ninf")...)
	require.NoError(t, err)
	rng := func(start, stop int64) []string {
		r, err := c.ZRange(ctx, k, start, stop)
		require.NoError(t, err)
		return r
	}
	rev := func(start, stop int64) []string {
		r, err := c.ZRevRange(ctx, k, start, stop)
		require.NoError(t, err)
		return r
	}
	all := []string{"ninf", "a", "b", "c", "d", "e", "f", "inf"}
	require.Equal(t, all, rng(0, -1))
	require.Equal(t, []string{"a", "b"}, rng(1, 2))
	require.Equal(t, []string{"f", "inf"}, rng(-2, -1))
	require.Equal(t, []string{"e", "f", "inf"}, rng(5, 100), "stop past the end")
	require.Equal(t, all, rng(-100, 100), "start before the start")
	require.Empty(t, rng(3, 2))
	require.Empty(t, rng(100, 200))
	require.Empty(t, rng(-1, -2))
	require.Equal(t, []string{"inf", "f", "e"}, rev(0, 2))
	require.Equal(t, []string{"a", "ninf"}, rev(-2, -1))
	require.Equal(t, []string{"c", "b", "a", "ninf"}, rev(4, -1))

	byScore := func(min, max string, off, cnt int64) []string {
		r, err := c.ZRangeByScore(ctx, k, &ZRangeBy{Min: min, Max: max, Offset: off, Count: cnt})
		require.NoError(t, err)
		return r
	}
	revByScore := func(max, min string, off, cnt int64) []string {
		r, err := c.ZRevRangeByScore(ctx, k, &ZRangeBy{Min: min, Max: max, Offset: off, Count: cnt})
		require.NoError(t, err)
		return r
	}
	require.Equal(t, []string{"a", "b", "c", "d"}, byScore("1", "2", 0, 0))
	require.Equal(t, []string{"d"}, byScore("(1", "(3", 0, 0))
	require.Equal(t, []string{"ninf", "a", "b", "c", "d", "e", "f"}, byScore("-inf", "(inf", 0, 0))
	require.Equal(t, []string{"inf"}, byScore("(3", "+inf", 0, 0))
	require.Equal(t, []string{"b", "c"}, byScore("1", "3", 1, 2))
	require.Equal(t, []string{"b", "c", "d", "e", "f"}, byScore("1", "3", 1, -1), "negative count: all")
	require.Empty(t, byScore("1", "3", -1, 2), "negative offset: nothing")
	require.Empty(t, byScore("3", "1", 0, 0), "min > max")
	require.Empty(t, byScore("(1", "1", 0, 0))
	require.Empty(t, byScore("(inf", "+inf", 0, 0))
	require.Equal(t, []string{"f", "e", "d", "c", "b", "a"}, revByScore("3", "1", 0, 0))
	require.Equal(t, []string{"e", "d"}, revByScore("3", "1", 1, 2))
	withScores, err := c.ZRevRangeByScoreWithScores(ctx, k, &ZRangeBy{Min: "-inf", Max: "+inf", Count: 2})
	require.NoError(t, err)
	require.Equal(t, zs(math.Inf(1), "inf", 3, "f"), withScores)

	returns(t, int64(4))(c.ZCount(ctx, k, "1", "(3"))
	returns(t, int64(8))(c.ZCount(ctx, k, "-inf", "+inf"))

	// Unified ZRANGE.
	got, err := c.ZRangeArgs(ctx, ZRangeArgs{Key: k, Start: "3", Stop: "1", ByScore: true, Rev: true, Offset: 1, Count: 3})
	require.NoError(t, err)
	require.Equal(t, []string{"e", "d", "c"}, got)
	got, err = c.ZRangeArgs(ctx, ZRangeArgs{Key: k, Start: "-2", Stop: "-1"})
	require.NoError(t, err)
	require.Equal(t, []string{"f", "inf"}, got)
	got, err = c.ZRangeArgs(ctx, ZRangeArgs{Key: k, Start: "0", Stop: "1", Rev: true})
	require.NoError(t, err)
	require.Equal(t, []string{"inf", "f"}, got)

	// Ranks.
	r, ok, err := c.ZRank(ctx, k, "d")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 4, r)
	r, ok, err = c.ZRevRank(ctx, k, "d")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 3, r)
	rs, ok, err := c.ZRevRankWithScore(ctx, k, "f")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, RankScore{Rank: 1, Score: 3}, rs)
	_, ok, err = c.ZRank(ctx, k, "nope")
	require.NoError(t, err)
	require.False(t, ok)

	// The top 10 of a big set is one request.
	big := p + "big"
	_, err = c.ZAdd(ctx, big, players(0, 2000, 500)...)
	require.NoError(t, err)
	requireTop10(t, ctx, c, cnt, big, Z{Score: 499, Member: "p01999"}, Z{Score: 499, Member: "p01499"})
}

// requireTop10 checks ZREVRANGE key 0 9 WITHSCORES: ten entries starting
// with first and second (ties by member, descending in REV), read by one
// Query of at most 11 items.
func requireTop10(t *testing.T, ctx context.Context, c *Client, cnt *counter, key string, first, second Z) {
	t.Helper()
	cnt.reset()
	top, err := c.ZRevRangeWithScores(ctx, key, 0, 9)
	require.NoError(t, err)
	require.Len(t, top, 10)
	require.Equal(t, []Z{first, second}, top[:2], "ties by member, descending in REV")
	require.EqualValues(t, 1, cnt.byOp["Query"], cnt.String())
	require.LessOrEqual(t, cnt.reads.Load(), int64(11), cnt.String())
}

func TestZLex(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "lex"
	_, err := c.ZAdd(ctx, k, zs(0, "a", 0, "b", 0, "c", 0, "d", 0, "e", 0, "")...)
	require.NoError(t, err)
	lex := func(min, max string) []string {
		r, err := c.ZRangeByLex(ctx, k, &ZRangeBy{Min: min, Max: max})
		require.NoError(t, err)
		return r
	}
	require.Equal(t, []string{"", "a", "b", "c", "d", "e"}, lex("-", "+"))
	require.Equal(t, []string{"b", "c"}, lex("[b", "[c"))
	require.Equal(t, []string{"c"}, lex("(b", "(d"))
	require.Equal(t, []string{"", "a"}, lex("-", "(b"))
	require.Empty(t, lex("(b", "(b"))
	require.Empty(t, lex("[d", "[b"))
	require.Empty(t, lex("+", "-"))
	rev, err := c.ZRevRangeByLex(ctx, k, &ZRangeBy{Min: "[b", Max: "+", Offset: 1, Count: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"d", "c"}, rev)
	returns(t, int64(3))(c.ZLexCount(ctx, k, "(a", "(e"))
	returns(t, int64(2))(c.ZRemRangeByLex(ctx, k, "[b", "(d"))
	require.Equal(t, []string{"", "a", "d", "e"}, lex("-", "+"))

	// Bounds longer than a sort key can hold (members are longer still,
	// TestLongMembersAgainstRedis) still
	// select what Redis selects.
	longest := strings.Repeat("a", model.InlineMemberLen)
	_, err = c.ZAdd(ctx, k, Z{Member: longest})
	require.NoError(t, err)
	longer := strings.Repeat("a", 3000)
	require.Equal(t, []string{"d", "e"}, lex("["+longer, "+"))
	require.Equal(t, []string{"d", "e"}, lex("("+longer, "+"))
	require.Equal(t, []string{"", "a", longest}, lex("-", "("+longer))
	require.Equal(t, []string{"a", longest}, lex("[a", "["+longer))
	require.Empty(t, lex("["+longer, "["+longer+"b"))
	returns(t, int64(0))(c.ZLexCount(ctx, k, "("+longest, "["+longer))
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
	keep := testenv.Sample(t, 0, 0.25)
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
