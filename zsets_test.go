package redimo

import (
	"github.com/redimo-go/redimo/internal/model"

	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// players are members p<from> to p<to-1> (five digits), member i scored
// i mod mod: a leaderboard with ties.
func players(from, to, mod int) []Z {
	var out []Z
	for i := from; i < to; i++ {
		out = append(out, Z{Score: float64(i % mod), Member: fmt.Sprintf("p%05d", i)})
	}
	return out
}

func zs(pairs ...any) []Z {
	var out []Z
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Z{Score: toF(pairs[i]), Member: pairs[i+1].(string)})
	}
	return out
}

func toF(v any) float64 {
	switch v := v.(type) {
	case int:
		return float64(v)
	case float64:
		return v
	}
	panic(v)
}

func TestZAddFlags(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "z"
	add := func(args ZAddArgs) int64 {
		n, err := c.ZAddArgs(ctx, k, args)
		require.NoError(t, err)
		return n
	}
	score := func(m string) (float64, bool) {
		s, ok, err := c.ZScore(ctx, k, m)
		require.NoError(t, err)
		return s, ok
	}
	require.EqualValues(t, 0, add(ZAddArgs{XX: true, Members: zs(1, "a")}), "XX on a missing key adds nothing")
	n, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n, "and creates no key")

	require.EqualValues(t, 2, add(ZAddArgs{Members: zs(1, "a", 2, "b")}))
	require.EqualValues(t, 1, add(ZAddArgs{Members: zs(5, "a", 3, "c")}), "updates are not counted without CH")
	s, _ := score("a")
	require.Equal(t, 5.0, s)
	require.EqualValues(t, 2, add(ZAddArgs{Ch: true, Members: zs(6, "a", 3, "c", 1, "d")}), "CH: a changed + d added; c unchanged")

	require.EqualValues(t, 0, add(ZAddArgs{NX: true, Members: zs(100, "a")}))
	s, _ = score("a")
	require.Equal(t, 6.0, s, "NX never updates")
	require.EqualValues(t, 1, add(ZAddArgs{NX: true, Members: zs(7, "e")}))

	require.EqualValues(t, 0, add(ZAddArgs{XX: true, Members: zs(9, "f")}))
	_, ok := score("f")
	require.False(t, ok, "XX never adds")
	require.EqualValues(t, 1, add(ZAddArgs{XX: true, Ch: true, Members: zs(9, "e")}))

	require.EqualValues(t, 0, add(ZAddArgs{GT: true, Ch: true, Members: zs(1, "e")}))
	s, _ = score("e")
	require.Equal(t, 9.0, s, "GT: lower score ignored")
	require.EqualValues(t, 1, add(ZAddArgs{GT: true, Ch: true, Members: zs(10, "e")}))
	require.EqualValues(t, 1, add(ZAddArgs{GT: true, Members: zs(1, "g")}), "GT still adds new members")
	require.EqualValues(t, 0, add(ZAddArgs{LT: true, Ch: true, Members: zs(50, "e")}))
	require.EqualValues(t, 1, add(ZAddArgs{LT: true, Ch: true, Members: zs(-1, "e")}))
	require.EqualValues(t, 0, add(ZAddArgs{XX: true, GT: true, Ch: true, Members: zs(-5, "e")}))
	require.EqualValues(t, 1, add(ZAddArgs{XX: true, LT: true, Ch: true, Members: zs(-5, "e")}))
	require.EqualValues(t, 0, add(ZAddArgs{XX: true, LT: true, Ch: true, Members: zs(-9, "nope")}))

	// INCR.
	v, ok, err := c.ZAddArgsIncr(ctx, k, ZAddArgs{Members: zs(2.5, "a")})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 8.5, v)
	_, ok, err = c.ZAddArgsIncr(ctx, k, ZAddArgs{NX: true, Members: zs(1, "a")})
	require.NoError(t, err)
	require.False(t, ok, "NX INCR on an existing member: nil")
	_, ok, err = c.ZAddArgsIncr(ctx, k, ZAddArgs{XX: true, Members: zs(1, "zz")})
	require.NoError(t, err)
	require.False(t, ok, "XX INCR on a missing member: nil")
	_, ok, err = c.ZAddArgsIncr(ctx, k, ZAddArgs{GT: true, Members: zs(-1, "a")})
	require.NoError(t, err)
	require.False(t, ok, "GT INCR that lowers: nil")
	v, ok, err = c.ZAddArgsIncr(ctx, k, ZAddArgs{XX: true, Members: zs(0, "a")})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 8.5, v, "INCR 0 answers the score")

	// Duplicates in one call: last wins.
	require.EqualValues(t, 1, add(ZAddArgs{Members: zs(1, "h", 2, "h")}))
	s, _ = score("h")
	require.Equal(t, 2.0, s)

	card, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	members, err := c.ZRange(ctx, k, 0, -1)
	require.NoError(t, err)
	require.EqualValues(t, len(members), card)
}

func TestZAddBadInput(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "z"
	cnt.reset()
	bad := []ZAddArgs{
		{NX: true, XX: true, Members: zs(1, "a")},
		{GT: true, LT: true, Members: zs(1, "a")},
		{NX: true, GT: true, Members: zs(1, "a")},
		{NX: true, LT: true, Members: zs(1, "a")},
		{Members: []Z{{Score: math.NaN(), Member: "a"}}},
		{},
	}
	for _, args := range bad {
		_, err := c.ZAddArgs(ctx, k, args)
		require.ErrorIs(t, err, ErrInvalidArgument, "%+v", args)
	}
	_, _, err := c.ZAddArgsIncr(ctx, k, ZAddArgs{Members: zs(1, "a", 2, "b")})
	require.ErrorIs(t, err, ErrSyntax)
	_, err = c.ZIncrBy(ctx, k, math.NaN(), "a")
	require.ErrorIs(t, err, ErrNotFloat)
	for _, r := range [][2]string{{"(abc", "1"}, {"1", "x"}, {"nan", "1"}, {"1 ", "1"}, {"1_0", "2"}, {"((1", "2"}} {
		_, err := c.ZRangeByScore(ctx, k, &ZRangeBy{Min: r[0], Max: r[1]})
		require.ErrorIs(t, err, ErrNotFloat, "%v", r)
		_, err = c.ZCount(ctx, k, r[0], r[1])
		require.ErrorIs(t, err, ErrNotFloat, "%v", r)
		_, err = c.ZRemRangeByScore(ctx, k, r[0], r[1])
		require.ErrorIs(t, err, ErrNotFloat, "%v", r)
	}
	for _, r := range [][2]string{{"a", "+"}, {"-", "b"}, {"", "+"}} {
		_, err := c.ZRangeByLex(ctx, k, &ZRangeBy{Min: r[0], Max: r[1]})
		require.ErrorIs(t, err, ErrSyntax, "%v", r)
	}
	_, err = c.ZPopMin(ctx, k, -1)
	require.ErrorIs(t, err, ErrOutOfRange)
	_, err = c.ZUnionStore(ctx, p+"d", &ZStore{Keys: []string{k}, Aggregate: "AVG"})
	require.ErrorIs(t, err, ErrSyntax)
	_, err = c.ZUnionStore(ctx, p+"d", &ZStore{Keys: []string{k}, Weights: []float64{1, 2}})
	require.ErrorIs(t, err, ErrSyntax)
	for _, rank := range []string{"a", "+1", "007", "-0", " 1", "1.5"} {
		_, err = c.ZRangeArgs(ctx, ZRangeArgs{Key: k, Start: rank, Stop: "1"})
		require.ErrorIs(t, err, ErrNotInteger, rank)
	}
	_, err = c.ZRangeByScore(ctx, k, nil)
	require.ErrorIs(t, err, ErrSyntax)
	_, err = c.ZRevRangeByLex(ctx, k, nil)
	require.ErrorIs(t, err, ErrSyntax)
	longKey := strings.Repeat("k", MaxKeyLen+1)
	for name, store := range map[string]func() error{
		"ZINTERSTORE": func() error { _, err := c.ZInterStore(ctx, longKey, &ZStore{Keys: []string{k}}); return err },
		"ZDIFFSTORE":  func() error { _, err := c.ZDiffStore(ctx, longKey, k); return err },
		"ZRANGESTORE": func() error {
			_, err := c.ZRangeStore(ctx, longKey, ZRangeArgs{Key: k, Start: "0", Stop: "-1"})
			return err
		},
	} {
		require.ErrorIs(t, store(), ErrKeyTooLong, name)
	}
	require.EqualValues(t, 0, cnt.requests.Load(), "all rejected before any request: %s", cnt)

	// NaN from INCR: an error, nothing written.
	_, err = c.ZAdd(ctx, k, Z{Score: math.Inf(1), Member: "a"})
	require.NoError(t, err)
	before := scanTable(t, p)
	_, err = c.ZIncrBy(ctx, k, math.Inf(-1), "a")
	require.ErrorIs(t, err, ErrNotFloat)
	require.Equal(t, before, scanTable(t, p))
}

func TestZScoresRoundTrip(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "z"
	scores := []float64{1e308, -1e308, 5e-324, -5e-324, 0.1, math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1.7976931348623157e308}
	for i, s := range scores {
		m := fmt.Sprint("m", i)
		_, err := c.ZAdd(ctx, k, Z{Score: s, Member: m})
		require.NoError(t, err)
		got, ok, err := c.ZScore(ctx, k, m)
		require.NoError(t, err)
		require.True(t, ok)
		want := s
		if s == 0 {
			want = 0 // -0 is stored as 0
		}
		require.Equal(t, math.Float64bits(want), math.Float64bits(got), "%v", s)
	}
	all, err := c.ZRangeWithScores(ctx, k, 0, -1)
	require.NoError(t, err)
	for i := 1; i < len(all); i++ {
		require.LessOrEqual(t, all[i-1].Score, all[i].Score)
	}
	require.Equal(t, math.Inf(-1), all[0].Score)
	require.Equal(t, math.Inf(1), all[len(all)-1].Score)
}

func TestZRemovesAndPops(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, zs(1, "a", 2, "b", 3, "c", 4, "d", 5, "e", 6, "f")...)
	require.NoError(t, err)
	n, err := c.ZRem(ctx, k, "a", "nope", "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.ZRemRangeByScore(ctx, k, "(2", "3")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.ZRemRangeByRank(ctx, k, -1, -1)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	rest, err := c.ZRangeWithScores(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Equal(t, zs(2, "b", 4, "d", 5, "e"), rest)

	popped, err := c.ZPopMax(ctx, k)
	require.NoError(t, err)
	require.Equal(t, zs(5, "e"), popped)
	popped, err = c.ZPopMin(ctx, k, 10)
	require.NoError(t, err)
	require.Equal(t, zs(2, "b", 4, "d"), popped)
	requireGone(t, c, k)
	popped, err = c.ZPopMin(ctx, k)
	require.NoError(t, err)
	require.Empty(t, popped)

	for _, empty := range []func() error{
		func() error { _, err := c.ZRem(ctx, k, "x"); return err },
		func() error { _, err := c.ZRemRangeByRank(ctx, k, 0, -1); return err },
		func() error { _, err := c.ZRemRangeByScore(ctx, k, "-inf", "+inf"); return err },
		func() error { _, err := c.ZRemRangeByLex(ctx, k, "-", "+"); return err },
	} {
		_, err := c.ZAdd(ctx, k, zs(1, "x")...)
		require.NoError(t, err)
		require.NoError(t, empty())
		requireGone(t, c, k)
	}
}

func TestZWrongTypeAndExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	s, z := p+"s", p+"z"
	_, err := c.SAdd(ctx, s, "a")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, z, zs(1, "a")...)
	require.NoError(t, err)
	before := scanTable(t, p)
	calls := map[string]func() error{
		"ZADD":          func() error { _, err := c.ZAdd(ctx, s, zs(1, "b")...); return err },
		"ZINCRBY":       func() error { _, err := c.ZIncrBy(ctx, s, 1, "a"); return err },
		"ZREM":          func() error { _, err := c.ZRem(ctx, s, "a"); return err },
		"ZSCORE":        func() error { _, _, err := c.ZScore(ctx, s, "a"); return err },
		"ZCARD":         func() error { _, err := c.ZCard(ctx, s); return err },
		"ZRANGE":        func() error { _, err := c.ZRange(ctx, s, 0, -1); return err },
		"ZRANGEBYSCORE": func() error { _, err := c.ZRangeByScore(ctx, s, &ZRangeBy{Min: "-inf", Max: "+inf"}); return err },
		"ZRANGEBYLEX":   func() error { _, err := c.ZRangeByLex(ctx, s, &ZRangeBy{Min: "-", Max: "+"}); return err },
		"ZCOUNT":        func() error { _, err := c.ZCount(ctx, s, "-inf", "+inf"); return err },
		"ZRANK":         func() error { _, _, err := c.ZRank(ctx, s, "a"); return err },
		"ZPOPMIN":       func() error { _, err := c.ZPopMin(ctx, s); return err },
		"ZSCAN":         func() error { return firstErr(c.ZScan(ctx, s, "")) },
		"ZRANDMEMBER":   func() error { _, err := c.ZRandMember(ctx, s, 1); return err },
		"ZRANDMEMBER 0": func() error { _, err := c.ZRandMember(ctx, s, 0); return err },
		"ZLEXCOUNT":     func() error { _, err := c.ZLexCount(ctx, s, "-", "+"); return err },
		"ZMSCORE":       func() error { _, _, err := c.ZMScore(ctx, s, "a", "b"); return err },
		"ZREVRANK":      func() error { _, _, err := c.ZRevRank(ctx, s, "a"); return err },
		"ZPOPMAX":       func() error { _, err := c.ZPopMax(ctx, s, 2); return err },
		"ZREMRANGEBYSCORE": func() error {
			_, err := c.ZRemRangeByScore(ctx, s, "-inf", "+inf")
			return err
		},
		"ZREMRANGEBYLEX": func() error { _, err := c.ZRemRangeByLex(ctx, s, "-", "+"); return err },
		"ZRANGESTORE":    func() error { _, err := c.ZRangeStore(ctx, z, ZRangeArgs{Key: s, Start: "0", Stop: "-1"}); return err },
		"ZADD XX INCR": func() error {
			_, _, err := c.ZAddArgsIncr(ctx, s, ZAddArgs{XX: true, Members: zs(1, "a")})
			return err
		},
		"ZREMRANGE":     func() error { _, err := c.ZRemRangeByRank(ctx, s, 0, -1); return err },
		"SADD on zset":  func() error { _, err := c.SAdd(ctx, z, "b"); return err },
		"SCARD on zset": func() error { _, err := c.SCard(ctx, z); return err },
	}
	for name, call := range calls {
		require.ErrorIs(t, call(), ErrWrongType, name)
	}
	require.Equal(t, before, scanTable(t, p), "nothing written")

	// An expired sorted set is missing for every read.
	_, err = c.Expire(ctx, z, time.Second)
	require.NoError(t, err)
	clock.Add(time.Second)
	_, ok, err := c.ZScore(ctx, z, "a")
	require.NoError(t, err)
	require.False(t, ok)
	r, err := c.ZRange(ctx, z, 0, -1)
	require.NoError(t, err)
	require.Empty(t, r)
	n, err := c.ZCount(ctx, z, "-inf", "+inf")
	require.NoError(t, err)
	require.Zero(t, n)
	_, ok, err = c.ZRank(ctx, z, "a")
	require.NoError(t, err)
	require.False(t, ok)
	v, err := c.ZIncrBy(ctx, z, 5, "a")
	require.NoError(t, err)
	require.Equal(t, 5.0, v, "a write starts a fresh key")
}

func TestZConcurrency(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx, c, _, p := setup(t)
	k := p + "hot"
	var added atomic.Int64
	each := testenv.Budget(4, 10)
	runWorkers(16, func(w int) {
		for i := range each {
			_, err := c.ZIncrBy(ctx, k, 1.5, "shared")
			require.NoError(t, err)
			n, err := c.ZAdd(ctx, k, Z{Score: float64(i), Member: fmt.Sprint("m", (w+i)%20)})
			require.NoError(t, err)
			added.Add(n)
		}
	})
	s, ok, err := c.ZScore(ctx, k, "shared")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, float64(16*each)*1.5, s, "no lost increment")
	card, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.Equal(t, added.Load()+1, card)
	all, err := c.ZRange(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Len(t, all, int(card))
}

func TestZScanAndRandMember(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, zs(3, "user:1", 1, "user:2", 2, "admin:1")...)
	require.NoError(t, err)
	var got []Z
	for z, err := range c.ZScan(ctx, k, "user:*") {
		require.NoError(t, err)
		got = append(got, z)
	}
	require.Equal(t, zs(3, "user:1", 1, "user:2"), got)
	require.NoError(t, firstErr(c.ZScan(ctx, k, strings.Repeat("u", MaxMemberLen+1)+"*")),
		"a literal prefix longer than any member matches nothing")
	seen := map[string]bool{}
	for range 60 {
		r, err := c.ZRandMember(ctx, k, 1)
		require.NoError(t, err)
		seen[r[0]] = true
	}
	require.Len(t, seen, 3)
	r, err := c.ZRandMemberWithScores(ctx, k, -7)
	require.NoError(t, err)
	require.Len(t, r, 7)
	r, err = c.ZRandMemberWithScores(ctx, k, 5)
	require.NoError(t, err)
	require.Len(t, r, 3)
}

// With DisableKeyExpiry, reads that find members skip the metadata item:
// ZRevRange's top 10 is one request, a present member one item read.
// Wrong types are still errors.
func TestDisableKeyExpiry(t *testing.T) {
	ctx, c, cnt, p := setup(t, func(o *Options) { o.DisableKeyExpiry = true })
	z, s := p+"z", p+"s"
	var many []Z
	for i := range 300 {
		many = append(many, Z{Score: float64(i), Member: fmt.Sprint("m", i)})
	}
	_, err := c.ZAdd(ctx, z, many...)
	require.NoError(t, err)
	_, err = c.SAdd(ctx, s, "a")
	require.NoError(t, err)

	cnt.reset()
	top, err := c.ZRevRange(ctx, z, 0, 9)
	require.NoError(t, err)
	require.Len(t, top, 10)
	require.Equal(t, "m299", top[0])
	require.EqualValues(t, 1, cnt.requests.Load(), cnt.String())

	cnt.reset()
	score, ok, err := c.ZScore(ctx, z, "m7")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 7.0, score)
	require.EqualValues(t, 1, cnt.requests.Load(), cnt.String())
	require.EqualValues(t, 1, cnt.reads.Load(), cnt.String())

	cnt.reset()
	ok, err = c.SIsMember(ctx, s, "a")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 1, cnt.requests.Load(), cnt.String())
	ok, err = c.SIsMember(ctx, s, "zz")
	require.NoError(t, err)
	require.False(t, ok)

	_, err = c.ZRevRange(ctx, s, 0, 9)
	require.ErrorIs(t, err, ErrWrongType, "found members of the other type")
	_, _, err = c.ZScore(ctx, s, "a")
	require.ErrorIs(t, err, ErrWrongType, "missing member: the metadata tells")
	_, err = c.SIsMember(ctx, z, "m1")
	require.ErrorIs(t, err, ErrWrongType)
	r, err := c.ZRange(ctx, p+"missing", 0, -1)
	require.NoError(t, err)
	require.Empty(t, r)

	// A count cannot see the type of what it counted (set members are in
	// the index too): the metadata item still tells.
	big := p + "bigset"
	var ms []string
	for i := range 150 {
		ms = append(ms, fmt.Sprint(i))
	}
	_, err = c.SAdd(ctx, big, ms...)
	require.NoError(t, err)
	_, err = c.ZCount(ctx, big, "-inf", "+inf")
	require.ErrorIs(t, err, ErrWrongType)
	_, err = c.ZLexCount(ctx, big, "-", "+")
	require.ErrorIs(t, err, ErrWrongType)

	// The whole set needs no cardinality first: one Query.
	cnt.reset()
	all, err := c.ZRange(ctx, z, 0, -1)
	require.NoError(t, err)
	require.Len(t, all, 300)
	require.EqualValues(t, 1, cnt.requests.Load(), cnt.String())

	_, err = c.Expire(ctx, z, time.Minute)
	require.ErrorIs(t, err, ErrKeyExpiryDisabled)
}

// The request counts the issue asks for, on a 10,000-member sorted set.
// With key expiry on (the default) a range read also reads the metadata
// item, in parallel with its Query (same latency, one more request); with
// Options.DisableKeyExpiry the top 10 is one request.
func TestZRequestCounts(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx, c, cnt, p := setup(t)
	k := p + "board"

	first := players(0, 1000, 100)
	cnt.reset()
	n, err := c.ZAdd(ctx, k, first...)
	require.NoError(t, err)
	require.EqualValues(t, 1000, n)
	require.LessOrEqual(t, cnt.requests.Load(), int64(25), "ZAdd of 1000 members: %s", cnt)
	t.Logf("ZADD 1000 new members: %s", cnt)

	_, err = c.ZAdd(ctx, k, players(1000, 10000, 100)...)
	require.NoError(t, err)

	requireTop10(t, ctx, c, cnt, k, Z{Score: 99, Member: "p09999"}, Z{Score: 99, Member: "p09899"})
	require.EqualValues(t, 2, cnt.requests.Load(), "the Query and, in parallel, the metadata: %s", cnt)

	cnt.reset()
	bottom, err := c.ZRangeByScoreWithScores(ctx, k, &ZRangeBy{Min: "-inf", Max: "+inf", Count: 10})
	require.NoError(t, err)
	require.Equal(t, Z{Score: 0, Member: "p00000"}, bottom[0])
	require.Equal(t, Z{Score: 0, Member: "p00100"}, bottom[1])
	require.EqualValues(t, 1, cnt.byOp["Query"], cnt.String())
	require.LessOrEqual(t, cnt.reads.Load(), int64(11), cnt.String())

	cnt.reset()
	s, ok, err := c.ZScore(ctx, k, "p04242")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 42.0, s)
	require.EqualValues(t, 1, cnt.requests.Load(), "ZSCORE: %s", cnt)

	cnt.reset()
	card, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 10000, card)
	require.EqualValues(t, 1, cnt.requests.Load(), "ZCARD: %s", cnt)

	// The first ZRANK of a set of model.RankMin members or more builds its count
	// items (rank.go); then a rank reads the count items and one range.
	r, ok, err := c.ZRank(ctx, k, "p00050") // score 50: 50 ties × 100 scores below it
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 5000, r)
	cnt.reset()
	r, ok, err = c.ZRank(ctx, k, "p00050")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 5000, r)
	require.EqualValues(t, 3, cnt.requests.Load(), "BatchGetItem and the count items in parallel, then one range's COUNT: %s", cnt)
	require.Less(t, cnt.reads.Load(), int64(model.RankMax+100), cnt.String())

	fast := NewClient(cnt, func(o *Options) { o.TableName = testTable; o.DisableKeyExpiry = true })
	cnt.reset()
	topIDs, err := fast.ZRevRange(ctx, k, 0, 9)
	require.NoError(t, err)
	require.Len(t, topIDs, 10)
	require.EqualValues(t, 1, cnt.requests.Load(), "DisableKeyExpiry: %s", cnt)
}

// TestAggregateCount checks Redis 8.8's AGGREGATE COUNT on known inputs:
// scores ignored, a member scoring the number of inputs holding it, or
// the sum of their weights (the random comparison with a model is in the
// differential test).
func TestAggregateCount(t *testing.T) {
	ctx, c, _, p := setup(t)
	a, b, s, none := p+"a", p+"b", p+"s", p+"none"
	_, err := c.ZAdd(ctx, a, Z{Score: 5, Member: "x"}, Z{Score: -3, Member: "y"}, Z{Score: math.Inf(1), Member: "z"})
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, b, Z{Score: 100, Member: "x"}, Z{Score: 0, Member: "z"})
	require.NoError(t, err)
	_, err = c.SAdd(ctx, s, "x", "w")
	require.NoError(t, err)

	zs, err := c.ZUnionWithScores(ctx, ZStore{Keys: []string{a, b, s, none}, Aggregate: AggregateCount})
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "w"}, {1, "y"}, {2, "z"}, {3, "x"}}, zs)
	zs, err = c.ZUnionWithScores(ctx, ZStore{Keys: []string{a, b, s}, Weights: []float64{2, 0.5, -1}, Aggregate: "count"})
	require.NoError(t, err)
	require.Equal(t, []Z{{-1, "w"}, {1.5, "x"}, {2, "y"}, {2.5, "z"}}, zs)
	zs, err = c.ZInterWithScores(ctx, &ZStore{Keys: []string{a, b}, Weights: []float64{math.Inf(1), 0}, Aggregate: AggregateCount})
	require.NoError(t, err)
	require.Equal(t, []Z{{math.Inf(1), "x"}, {math.Inf(1), "z"}}, zs)
	n, err := c.ZInterStore(ctx, p+"d", &ZStore{Keys: []string{a, b, s}, Aggregate: AggregateCount})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	zs, err = c.ZRangeWithScores(ctx, p+"d", 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{3, "x"}}, zs)
	n, err = c.ZUnionStore(ctx, p+"d", &ZStore{Keys: []string{a, a}, Aggregate: AggregateCount})
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	zs, err = c.ZRangeWithScores(ctx, p+"d", 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{2, "x"}, {2, "y"}, {2, "z"}}, zs)
	_, err = c.ZUnion(ctx, ZStore{Keys: []string{a}, Aggregate: "AVG"})
	require.ErrorIs(t, err, ErrSyntax)
}
