package redimo

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
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
	each := testenv.Budget(3, 10)
	// 16 writers in 4 Clients: each Client's writers of the key take
	// turns (a small sorted set's writes) or share transactions, and the
	// Clients race.
	clients := []*Client{c}
	for len(clients) < 4 {
		o, _, _ := newTestClient(t)
		clients = append(clients, o)
	}
	runWorkers(16, func(w int) {
		c := clients[w%len(clients)]
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

// With DisableKeyExpiry, EXPIRE fails; reads still read the metadata item
// beside the members (a member found may be of a key a DEL has marked
// dead: TestDelWholeWithoutKeyExpiry), in parallel or in the same
// request. Wrong types are errors.
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
	require.EqualValues(t, 2, cnt.requests.Load(), "the Query and, in parallel, the metadata item: %s", cnt)

	cnt.reset()
	score, ok, err := c.ZScore(ctx, z, "m7")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 7.0, score)
	require.EqualValues(t, 1, cnt.requests.Load(), cnt.String())
	require.EqualValues(t, 2, cnt.reads.Load(), "the member and the metadata item: %s", cnt)

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

	// The whole set needs no cardinality first: one Query, and the
	// metadata item in parallel.
	cnt.reset()
	all, err := c.ZRange(ctx, z, 0, -1)
	require.NoError(t, err)
	require.Len(t, all, 300)
	require.EqualValues(t, 2, cnt.requests.Load(), cnt.String())

	_, err = c.Expire(ctx, z, time.Minute)
	require.ErrorIs(t, err, ErrKeyExpiryDisabled)
}

// The request counts the issue asks for, on a 10,000-member sorted set.
// A range read also reads the metadata item, in parallel with its Query
// (same latency, one more request), with Options.DisableKeyExpiry too.
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

	// A board past model.RankMin, so that ranks read count items.
	size := testenv.Budget(2_200, 10_000)
	_, err = c.ZAdd(ctx, k, players(1000, size, 100)...)
	require.NoError(t, err)

	requireTop10(t, ctx, c, cnt, k, Z{Score: 99, Member: fmt.Sprintf("p%05d", size-1)}, Z{Score: 99, Member: fmt.Sprintf("p%05d", size-101)})
	require.EqualValues(t, 2, cnt.requests.Load(), "the Query and, in parallel, the metadata: %s", cnt)

	cnt.reset()
	bottom, err := c.ZRangeByScoreWithScores(ctx, k, &ZRangeBy{Min: "-inf", Max: "+inf", Count: 10})
	require.NoError(t, err)
	require.Equal(t, Z{Score: 0, Member: "p00000"}, bottom[0])
	require.Equal(t, Z{Score: 0, Member: "p00100"}, bottom[1])
	require.EqualValues(t, 1, cnt.byOp["Query"], cnt.String())
	require.LessOrEqual(t, cnt.reads.Load(), int64(11), cnt.String())

	cnt.reset()
	s, ok, err := c.ZScore(ctx, k, "p00042")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 42.0, s)
	require.EqualValues(t, 1, cnt.requests.Load(), "ZSCORE: %s", cnt)

	cnt.reset()
	card, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, size, card)
	require.EqualValues(t, 1, cnt.requests.Load(), "ZCARD: %s", cnt)

	// The first ZRANK of a set of model.RankMin members or more builds its count
	// items (rank.go); then a rank reads the count items and one range.
	r, ok, err := c.ZRank(ctx, k, "p00050") // score 50: size/100 members at each of the 50 scores below
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 50*size/100, r)
	cnt.reset()
	r, ok, err = c.ZRank(ctx, k, "p00050")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 50*size/100, r)
	require.EqualValues(t, 3, cnt.requests.Load(), "BatchGetItem and the count items in parallel, then one range's COUNT: %s", cnt)
	require.Less(t, cnt.reads.Load(), int64(model.RankMax+100), cnt.String())

	fast := NewClient(cnt, func(o *Options) { o.TableName = testTable; o.DisableKeyExpiry = true })
	cnt.reset()
	topIDs, err := fast.ZRevRange(ctx, k, 0, 9)
	require.NoError(t, err)
	require.Len(t, topIDs, 10)
	require.EqualValues(t, 2, cnt.requests.Load(), "DisableKeyExpiry: %s", cnt)
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

// ZADD's flags (NX, XX, GT, LT, CH, INCR), all here: their cases one by
// one, inside EXEC, every combination against a model and against
// redis-server.

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

// ZADD's flags in one transaction, as Redis's MULTI/EXEC
// answers them: XX/NX/GT/LT/CH, INCR answering nil when a flag refuses it,
// ZINCRBY after ZREM (a new member), a member twice in one ZADD CH, and
// ZREMRANGEBY*/pops on what the transaction wrote, then the end state and
// the stored counts.
func TestZAddFlagsInExec(t *testing.T) {
	runDiff(t, func(p string) []xop {
		k := p + "z"
		return []xop{
			xzadd("ZADD", k, false, false, false, false, false, Z{1, "a"}, Z{2, "b"}),
			xzadd("ZADD XX new", k, false, true, false, false, false, Z{5, "c"}),
			xzadd("ZADD NX old", k, true, false, false, false, false, Z{9, "a"}),
			xzadd("ZADD GT CH", k, false, false, true, false, true, Z{0, "a"}, Z{3, "b"}, Z{7, "d"}),
			xzadd("ZADD LT CH", k, false, false, false, true, true, Z{0, "a"}, Z{3, "b"}),
			xzincr("ZADD NX INCR old", k, true, false, false, false, Z{1, "a"}),
			xzincr("ZADD XX INCR new", k, false, true, false, false, Z{1, "zz"}),
			xzincr("ZADD GT INCR down", k, false, false, true, false, Z{-1, "a"}),
			xzincr("ZADD GT INCR new", k, false, false, true, false, Z{-4, "e"}),
			xzincr("ZADD LT INCR zero", k, false, false, false, true, Z{0, "b"}),
			xop{"ZINCRBY", func(ctx context.Context, tx redis.Pipeliner) func() string {
				return rincr(tx.ZIncrBy(ctx, k, 2, "a"))
			}, func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.ZIncrBy(ctx, k, 2, "a")) }},
			xcmd("ZREM", k, "a", "nope"),
			xop{"ZINCRBY after ZREM", func(ctx context.Context, tx redis.Pipeliner) func() string {
				return rincr(tx.ZIncrBy(ctx, k, 2.5, "a"))
			}, func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.ZIncrBy(ctx, k, 2.5, "a")) }},
			xzadd("ZADD CH twice", k, false, false, false, false, true, Z{4, "f"}, Z{6, "f"}, Z{2.5, "a"}),
			xzall("ZRANGE all", k),
			xzrange("ZRANGEBYSCORE LIMIT", ZRangeArgs{Key: k, Start: "(2", Stop: "+inf", ByScore: true, Offset: 1, Count: 2}),
			xzrange("ZREVRANGEBYLEX", ZRangeArgs{Key: k, Start: "[f", Stop: "-", ByLex: true, Rev: true}),
			xcmd("ZREMRANGEBYSCORE", k, "-inf", "(0"),
			xcmd("ZREMRANGEBYRANK", k, "-1", "-1"),
			xop{"ZPOPMIN 2", func(ctx context.Context, tx redis.Pipeliner) func() string { return rzsl(tx.ZPopMin(ctx, k, 2)) },
				func(ctx context.Context, tx Pipeliner) string { return xzs(tx.ZPopMin(ctx, k, 2)) }},
			xcmd("ZCARD", k),
			xzall("ZRANGE end", k),
		}
	}, "z")
}

// Every combination of ZADD's options, on a missing member and on members
// whose score the new one is below, equal to and above: replies and the
// scores afterwards are Redis's (zaddModel, checked against redis-server by
// TestZRedisZAddFlags). Invalid combinations are ErrSyntax before any
// request.
func TestZAddFlagMatrix(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, zaddSeed()...)
	require.NoError(t, err)

	want := map[string]float64{}
	for _, f := range allZAddFlags() {
		if !f.valid() {
			cnt.reset()
			var err error
			if f.incr {
				_, _, err = c.ZAddArgsIncr(ctx, k, f.args(Z{Score: 1, Member: "x"}))
			} else {
				_, err = c.ZAddArgs(ctx, k, f.args(Z{Score: 1, Member: "x"}))
			}
			require.ErrorIs(t, err, ErrSyntax, f.String())
			require.ErrorIs(t, err, ErrInvalidArgument, f.String())
			require.Zero(t, cnt.requests.Load(), f.String())
			continue
		}
		if f.incr {
			for _, s := range zaddStates {
				m := flagMember(f, s.name)
				by := s.incrBy
				after, present, _, reply, isNil := zaddModel(f, zaddCur, s.exists, by)
				got, ok, err := c.ZAddArgsIncr(ctx, k, f.args(Z{Score: by, Member: m}))
				require.NoError(t, err, m)
				require.Equal(t, !isNil, ok, m)
				if ok {
					require.Equal(t, reply, got, m)
				}
				if present {
					want[m] = after
				}
			}
			continue
		}
		// All four states in one call: the counts add up.
		var zs []Z
		var total int64
		for _, s := range zaddStates {
			m := flagMember(f, s.name)
			zs = append(zs, Z{Score: s.score, Member: m})
			after, present, counted, _, _ := zaddModel(f, zaddCur, s.exists, s.score)
			total += counted
			if present {
				want[m] = after
			}
		}
		n, err := c.ZAddArgs(ctx, k, f.args(zs...))
		require.NoError(t, err, f.String())
		require.Equal(t, total, n, f.String())
	}
	// Members of invalid combinations were seeded and never touched.
	for _, f := range allZAddFlags() {
		if !f.valid() {
			for _, s := range zaddStates[1:] {
				want[flagMember(f, s.name)] = zaddCur
			}
		}
	}
	all, err := c.ZRangeWithScores(ctx, k, 0, -1)
	require.NoError(t, err)
	got := map[string]float64{}
	for _, z := range all {
		got[z.Member] = z.Score
	}
	require.Equal(t, want, got)
	card, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, len(want), card)
}

// INCR that would make NaN (inf + -inf) is ErrNotFloat and writes nothing,
// GT and LT included: Redis judges the sum before them. NX on an existing
// member is nil before any sum.
func TestZAddIncrNaN(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, Z{Score: math.Inf(1), Member: "a"})
	require.NoError(t, err)
	before := scanTable(t, p)
	for _, args := range []ZAddArgs{{}, {XX: true}, {Ch: true}, {GT: true}, {XX: true, LT: true}} {
		args.Members = []Z{{Score: math.Inf(-1), Member: "a"}}
		_, _, err := c.ZAddArgsIncr(ctx, k, args)
		require.ErrorIs(t, err, ErrNotFloat, "%+v", args)
	}
	_, err = c.ZIncrBy(ctx, k, math.Inf(-1), "a")
	require.ErrorIs(t, err, ErrNotFloat)
	require.Equal(t, before, scanTable(t, p), "nothing written")
	_, ok, err := c.ZAddArgsIncr(ctx, k, ZAddArgs{NX: true, Members: []Z{{Score: math.Inf(-1), Member: "a"}}})
	require.NoError(t, err)
	require.False(t, ok)
	s, _, err := c.ZScore(ctx, k, "a")
	require.NoError(t, err)
	require.Equal(t, math.Inf(1), s)
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

// zaddFlags is one combination of ZADD's options.
type zaddFlags struct{ nx, xx, gt, lt, ch, incr bool }

func (f zaddFlags) String() string { return strings.Join(f.names(), " ") }

// names are the options of f as ZADD takes them.
func (f zaddFlags) names() []string {
	var s []string
	for _, o := range []struct {
		on   bool
		name string
	}{{f.nx, "NX"}, {f.xx, "XX"}, {f.gt, "GT"}, {f.lt, "LT"}, {f.ch, "CH"}, {f.incr, "INCR"}} {
		if o.on {
			s = append(s, o.name)
		}
	}
	return s
}

// valid is Redis's check: NX with XX, GT with LT, NX with GT or LT are
// syntax errors.
func (f zaddFlags) valid() bool {
	return !(f.nx && f.xx) && !(f.gt && f.lt) && !(f.nx && (f.gt || f.lt))
}

func (f zaddFlags) args(members ...Z) ZAddArgs {
	return ZAddArgs{NX: f.nx, XX: f.xx, GT: f.gt, LT: f.lt, Ch: f.ch, Members: members}
}

// allZAddFlags is every combination of NX, XX, GT, LT, CH and INCR.
func allZAddFlags() []zaddFlags {
	var out []zaddFlags
	for bits := range 1 << 6 {
		b := func(i int) bool { return bits&(1<<i) != 0 }
		out = append(out, zaddFlags{b(0), b(1), b(2), b(3), b(4), b(5)})
	}
	return out
}

// zaddModel is Redis's zsetAdd (t_zset.c) for one member: from the current
// score (exists false: missing) and the given score, the score afterwards,
// what the reply counts (added, or changed with CH), and for INCR the
// reply (nilReply: Redis's nil).
func zaddModel(f zaddFlags, cur float64, exists bool, score float64) (after float64, present bool, counted int64, reply float64, nilReply bool) {
	if !exists {
		if f.xx {
			return 0, false, 0, 0, true
		}
		return score, true, 1, score, false
	}
	if f.nx {
		return cur, true, 0, 0, true
	}
	next := score
	if f.incr {
		next = cur + score
	}
	if (f.lt && next >= cur) || (f.gt && next <= cur) {
		return cur, true, 0, 0, true
	}
	if next != cur && f.ch {
		counted = 1
	}
	return next, true, counted, next, false
}

// zaddCur is the score of every existing member before ZADD in the tests
// of ZADD's options.
const zaddCur = 10.0

// zaddStates are the states of a member before ZADD: missing, or at
// zaddCur with the new score (score; incrBy for INCR) below, equal to or
// above it.
var zaddStates = []struct {
	name          string
	exists        bool
	score, incrBy float64
}{{"missing", false, 7, 7}, {"lower", true, 4, -6}, {"equal", true, zaddCur, 0}, {"higher", true, 12, 2}}

// flagMember is the member of the tests of ZADD's options for the
// combination f and the state named state.
func flagMember(f zaddFlags, state string) string { return f.String() + "|" + state }

// zaddSeed is every existing member at zaddCur: one per combination of
// options and existing state.
func zaddSeed() []Z {
	var seed []Z
	for _, f := range allZAddFlags() {
		for _, s := range zaddStates[1:] {
			seed = append(seed, Z{Score: zaddCur, Member: flagMember(f, s.name)})
		}
	}
	return seed
}

// benchZSet fills a sorted set of n members (scores i%1000, so ties occur).
func benchZSet(b *testing.B, c *Client, key string, n int) {
	var zs []Z
	for i := range n {
		zs = append(zs, Z{Score: float64(i % 1000), Member: fmt.Sprintf("player%06d", i)})
	}
	if _, err := c.ZAdd(context.Background(), key, zs...); err != nil {
		b.Fatal(err)
	}
}

// report runs op b.N times and reports requests, items read and capacity
// per op.
func report(b *testing.B, cnt *counter, op func()) {
	cnt.reset()
	for range b.N {
		op()
	}
	n := float64(b.N)
	b.ReportMetric(float64(cnt.requests.Load())/n, "requests/op")
	b.ReportMetric(float64(cnt.reads.Load())/n, "items-read/op")
	b.ReportMetric(cnt.units()/n, "capacity-units/op")
}

// BenchmarkZSet measures request counts of the leaderboard commands on a
// 10,000-member sorted set, with key expiry on (the default) and off.
func BenchmarkZSet(b *testing.B) {
	for _, mode := range []struct {
		name string
		opt  func(*Options)
	}{{"default", func(*Options) {}}, {"DisableKeyExpiry", func(o *Options) { o.DisableKeyExpiry = true }}} {
		ctx, c, cnt, p := setup(b, mode.opt)
		key := p + "board"
		benchZSet(b, c, key, 10000)
		b.Run(mode.name+"/ZRevRangeTop10", func(b *testing.B) {
			report(b, cnt, func() {
				if top, err := c.ZRevRangeWithScores(ctx, key, 0, 9); err != nil || len(top) != 10 {
					b.Fatal(len(top), err)
				}
			})
		})
		b.Run(mode.name+"/ZRangeByScoreLimit10", func(b *testing.B) {
			report(b, cnt, func() {
				if r, err := c.ZRangeByScore(ctx, key, &ZRangeBy{Min: "(500", Max: "+inf", Count: 10}); err != nil || len(r) != 10 {
					b.Fatal(len(r), err)
				}
			})
		})
		b.Run(mode.name+"/ZScore", func(b *testing.B) {
			report(b, cnt, func() {
				if _, ok, err := c.ZScore(ctx, key, "player004242"); err != nil || !ok {
					b.Fatal(err)
				}
			})
		})
		b.Run(mode.name+"/ZCard", func(b *testing.B) {
			report(b, cnt, func() {
				if n, err := c.ZCard(ctx, key); err != nil || n != 10000 {
					b.Fatal(n, err)
				}
			})
		})
		b.Run(mode.name+"/ZRankNear5000", func(b *testing.B) {
			report(b, cnt, func() {
				if r, ok, err := c.ZRank(ctx, key, "player000500"); err != nil || !ok || r < 4000 {
					b.Fatal(r, ok, err)
				}
			})
		})
		b.Run(mode.name+"/ZIncrBy", func(b *testing.B) {
			report(b, cnt, func() {
				if _, err := c.ZIncrBy(ctx, key, 1, "player000001"); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	c, cnt, p := newTestClient(b)
	i := 0
	b.Run("ZAdd1000New", func(b *testing.B) {
		report(b, cnt, func() {
			i++
			benchZSet(b, c, fmt.Sprintf("%snew%d", p, i), 1000)
		})
	})
}
