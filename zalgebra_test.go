package redimo

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestZAlgebra(t *testing.T) {
	ctx, c, _, p := setup(t)
	a, b, s, none := p+"a", p+"b", p+"s", p+"none"
	_, err := c.ZAdd(ctx, a, zs(1, "x", 2, "y", 3, "z")...)
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, b, zs(10, "y", 20, "z", 30, "w")...)
	require.NoError(t, err)
	_, err = c.SAdd(ctx, s, "z", "q")
	require.NoError(t, err)

	u, err := c.ZUnionWithScores(ctx, ZStore{Keys: []string{a, b, none}})
	require.NoError(t, err)
	require.Equal(t, zs(1, "x", 12, "y", 23, "z", 30, "w"), u)
	u, err = c.ZUnionWithScores(ctx, ZStore{Keys: []string{a, b}, Weights: []float64{2, 0.5}, Aggregate: AggregateMax})
	require.NoError(t, err)
	require.Equal(t, zs(2, "x", 5, "y", 10, "z", 15, "w"), u)
	i, err := c.ZInterWithScores(ctx, &ZStore{Keys: []string{a, b, s}})
	require.NoError(t, err)
	require.Equal(t, zs(24, "z"), i, "a plain set counts as score 1")
	i, err = c.ZInterWithScores(ctx, &ZStore{Keys: []string{a, b}, Aggregate: AggregateMin})
	require.NoError(t, err)
	require.Equal(t, zs(2, "y", 3, "z"), i)
	i, err = c.ZInterWithScores(ctx, &ZStore{Keys: []string{a, none}})
	require.NoError(t, err)
	require.Empty(t, i)
	returns(t, zs(1, "x"))(c.ZDiffWithScores(ctx, a, b))
	returns(t, int64(1))(c.ZInterCard(ctx, 1, a, b))
	returns(t, int64(2))(c.ZInterCard(ctx, 0, a, b))

	// inf * 0 is 0, and inf + -inf is 0, as Redis.
	inf := p + "inf"
	_, err = c.ZAdd(ctx, inf, zs(math.Inf(1), "x", math.Inf(-1), "y")...)
	require.NoError(t, err)
	u, err = c.ZUnionWithScores(ctx, ZStore{Keys: []string{inf}, Weights: []float64{0}})
	require.NoError(t, err)
	require.Equal(t, zs(0, "x", 0, "y"), u)
	neg := p + "neg"
	_, err = c.ZAdd(ctx, neg, zs(math.Inf(-1), "x")...)
	require.NoError(t, err)
	u, err = c.ZUnionWithScores(ctx, ZStore{Keys: []string{inf, neg}})
	require.NoError(t, err)
	require.Equal(t, zs(math.Inf(-1), "y", 0, "x"), u)

	// Stores overwrite any type and delete on empty.
	returns(t, int64(4))(c.ZUnionStore(ctx, s, &ZStore{Keys: []string{a, b}}))
	typ, _ := c.Type(ctx, s)
	require.Equal(t, "zset", typ)
	got, _ := c.ZRangeWithScores(ctx, s, 0, -1)
	require.Equal(t, zs(1, "x", 12, "y", 23, "z", 30, "w"), got)
	card, _ := c.ZCard(ctx, s)
	require.EqualValues(t, 4, card)
	returns(t, int64(2))(c.ZInterStore(ctx, s, &ZStore{Keys: []string{a, b}}))
	got, _ = c.ZRangeWithScores(ctx, s, 0, -1)
	require.Equal(t, zs(12, "y", 23, "z"), got)
	returns(t, int64(0))(c.ZDiffStore(ctx, s, a, a))
	requireGone(t, c, s)
	returns(t, int64(2))(c.ZRangeStore(ctx, s, ZRangeArgs{Key: b, Start: "15", Stop: "+inf", ByScore: true}))
	got, _ = c.ZRangeWithScores(ctx, s, 0, -1)
	require.Equal(t, zs(20, "z", 30, "w"), got)
	set := p + "set"
	_, err = c.SAdd(ctx, set, "m")
	require.NoError(t, err)
	returns(t, int64(1))(c.ZRangeStore(ctx, set, ZRangeArgs{Key: a, Start: "0", Stop: "0"}))
	typ, _ = c.Type(ctx, set)
	require.Equal(t, "zset", typ)
}
