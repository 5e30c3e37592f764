package redimo

import (
	"context"
	"math"
	"strings"
	"testing"

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
