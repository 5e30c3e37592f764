package redimo

// Review of member expiry (memberttl.go). Tests named TestReview*. Those
// marked FINDING failed on the code they were written against (commit
// 909af23) and pass since the fixes that followed; their comments say what
// Redis 8.12 answers and what redimo answered then, with file:line of that
// code. The others cover paths that were right already.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"
)

// allExpiredSet makes key a set whose only members expire 1 s from now,
// then moves the clock past them: a missing key for Redis.
func allExpiredSet(t *testing.T, ctx context.Context, c *Client, clock *fakeClock, key string, members ...string) {
	t.Helper()
	_, err := c.SAddEx(ctx, key, time.Second, false, members...)
	require.NoError(t, err)
	clock.Add(2 * time.Second)
}

// allExpiredZSet is allExpiredSet for a sorted set.
func allExpiredZSet(t *testing.T, ctx context.Context, c *Client, clock *fakeClock, key string, members ...string) {
	t.Helper()
	for i, m := range members {
		_, err := c.ZAdd(ctx, key, Z{Score: float64(i), Member: m})
		require.NoError(t, err)
	}
	_, err := c.ZExpire(ctx, key, time.Second, ExpireAlways, members...)
	require.NoError(t, err)
	clock.Add(2 * time.Second)
}

// FINDING. MULTI; SREM k a; EXEC where a is a live member with an expiry:
// the member item goes but the metadata's mn (members with an expiry) is
// not decremented: exec.go's commit/metaWrite never write mn. Redis: SREM
// returns 1 (redimo does too), and the stored counts must stay exact
// (checkStoredCounts: stored mn 1, 0 member items with an expiry).
func TestReviewExecSRemMemberWithExpiry(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	k := p + "s"
	_, err := c.SAdd(ctx, k, "a", "b")
	require.NoError(t, err)
	got, err := c.SExpire(ctx, k, time.Minute, ExpireAlways, "a")
	require.NoError(t, err)
	require.Equal(t, []int64{1}, got)
	var removed int64
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		var err error
		removed, err = tx.SRem(ctx, k, "a")
		return err
	})
	require.NoError(t, err)
	require.EqualValues(t, 1, removed)
	checkStoredCounts(t, k)
}

// FINDING. MULTI; ZADD k 5 a; EXEC on a member a with an expiry changes
// its score by a Put of a whole new item (exec.go commit: putMember with
// "#ix = :old"), which drops mx: the member loses its expiry while mn
// still counts it. The same ZADD outside MULTI keeps the expiry (ZTTL 60).
// Expected: EXEC acts as the direct command (ZTTL a = 60) and the stored
// mn matches; redimo: ZTTL a = -1 and stored mn 1 with 0 members with mx.
func TestReviewExecZAddKeepsMemberExpiry(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	direct, viaExec := p+"direct", p+"exec"
	for _, k := range []string{direct, viaExec} {
		_, err := c.ZAdd(ctx, k, Z{Score: 1, Member: "a"}, Z{Score: 2, Member: "b"})
		require.NoError(t, err)
		got, err := c.ZExpire(ctx, k, time.Minute, ExpireAlways, "a")
		require.NoError(t, err)
		require.Equal(t, []int64{1}, got)
	}
	_, err := c.ZAdd(ctx, direct, Z{Score: 5, Member: "a"})
	require.NoError(t, err)
	want, err := c.ZTTL(ctx, direct, "a")
	require.NoError(t, err)
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.ZAdd(ctx, viaExec, Z{Score: 5, Member: "a"})
		return err
	})
	require.NoError(t, err)
	got, err := c.ZTTL(ctx, viaExec, "a")
	require.NoError(t, err)
	require.Equal(t, want, got, "ZTTL after ZADD of a new score: direct vs inside MULTI/EXEC")
	checkStoredCounts(t, p)
}

// FINDING. MULTI; ZINCRBY k 1 a; ZREM k b; EXEC: the same mn leak through
// EXEC's ZINCRBY (score change by Put) and ZREM (delete) of members with
// an expiry.
func TestReviewExecZIncrByZRemMemberExpiry(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, Z{Score: 1, Member: "a"}, Z{Score: 2, Member: "b"}, Z{Score: 3, Member: "c"})
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, k, time.Minute, ExpireAlways, "a", "b")
	require.NoError(t, err)
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		if _, err := tx.ZIncrBy(ctx, k, 1, "a"); err != nil {
			return err
		}
		_, err := tx.ZRem(ctx, k, "b")
		return err
	})
	require.NoError(t, err)
	checkStoredCounts(t, k)
}

// FINDING. A sorted set whose every member expired is a missing key, so
// SISMEMBER/SMISMEMBER/STTL on it answer as on a missing key (0, [0],
// [-2]). redimo: WRONGTYPE, from probe (sets.go:160), which checks the
// metadata's type without settle (memberttl.go: settle) as typedMeta does.
func TestReviewProbeWrongTypeAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	allExpiredZSet(t, ctx, c, clock, k, "a")
	typ, err := c.Type(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "none", typ)
	in, err := c.SIsMember(ctx, k, "a")
	require.NoError(t, err, "SISMEMBER on a key whose members all expired")
	require.False(t, in)
	ins, err := c.SMIsMember(ctx, k, "a", "b")
	require.NoError(t, err, "SMISMEMBER")
	require.Equal(t, []bool{false, false}, ins)
	ttl, err := c.STTL(ctx, k, "a")
	require.NoError(t, err, "STTL")
	require.Equal(t, []int64{-2}, ttl)
}

// FINDING. The same through the sorted-set reads: a set whose members all
// expired, ZSCORE/ZMSCORE/ZTTL on it. Redis: nil, [nil], [-2]; redimo:
// WRONGTYPE (probe, sets.go:160).
func TestReviewZScoreWrongTypeAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	allExpiredSet(t, ctx, c, clock, k, "a")
	_, ok, err := c.ZScore(ctx, k, "a")
	require.NoError(t, err, "ZSCORE on a key whose members all expired")
	require.False(t, ok)
	_, oks, err := c.ZMScore(ctx, k, "a")
	require.NoError(t, err, "ZMSCORE")
	require.Equal(t, []bool{false}, oks)
	ttl, err := c.ZTTL(ctx, k, "a")
	require.NoError(t, err, "ZTTL")
	require.Equal(t, []int64{-2}, ttl)
}

// FINDING. Set algebra with a source that is a sorted set whose members
// all expired (a missing key): SUNION s z = members of s, SINTERCARD 0 s z
// = 0, SDIFF s z = members of s. redimo: WRONGTYPE, from typedMetas
// (generic.go:129, used by setMetas sets.go:481) which does not settle
// before checking the type.
func TestReviewSetAlgebraWrongTypeAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	s, z := p+"s", p+"z"
	_, err := c.SAdd(ctx, s, "x", "y")
	require.NoError(t, err)
	allExpiredZSet(t, ctx, c, clock, z, "x")
	u, err := c.SUnion(ctx, s, z)
	require.NoError(t, err, "SUNION with a key whose members all expired")
	sort.Strings(u)
	require.Equal(t, []string{"x", "y"}, u)
	d, err := c.SDiff(ctx, s, z)
	require.NoError(t, err, "SDIFF")
	sort.Strings(d)
	require.Equal(t, []string{"x", "y"}, d)
	n, err := c.SInterCard(ctx, 0, s, z)
	require.NoError(t, err, "SINTERCARD")
	require.Zero(t, n)
}

// FINDING. COPY from a source whose members all expired (a missing key):
// Redis returns 0 and leaves destination alone. redimo returns true and
// deletes destination: Copy (rename.go:82) reads metas without settle, so
// the source looks like a set, and copyKey deletes destination then
// copies no (live) member.
func TestReviewCopyFromAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	src, dst := p+"src", p+"dst"
	_, err := c.SAdd(ctx, dst, "q")
	require.NoError(t, err)
	allExpiredSet(t, ctx, c, clock, src, "a")
	ok, err := c.Copy(ctx, src, dst, true)
	require.NoError(t, err)
	require.False(t, ok, "COPY of a missing source")
	members, err := c.SMembers(ctx, dst)
	require.NoError(t, err)
	require.Equal(t, []string{"q"}, members, "destination untouched")
	checkStoredCounts(t, p)
}

// FINDING. COPY (no REPLACE) onto a destination whose members all expired
// (a missing key): Redis copies and returns 1. redimo returns false and
// copies nothing (rename.go:86: ms[1].typ != typeNone without settle).
func TestReviewCopyOntoAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	src, dst := p+"src", p+"dst"
	_, err := c.SAdd(ctx, src, "a")
	require.NoError(t, err)
	allExpiredZSet(t, ctx, c, clock, dst, "q")
	ok, err := c.Copy(ctx, src, dst, false)
	require.NoError(t, err)
	require.True(t, ok, "COPY onto a missing destination")
	members, err := c.SMembers(ctx, dst)
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, members)
	checkStoredCounts(t, p)
}

// FINDING. RENAME of a key whose members all expired: Redis "ERR no such
// key", newkey untouched. redimo: OK, and newkey deleted (rename.go:44
// getMeta without settle; copyKey deletes newkey and copies nothing).
func TestReviewRenameAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k, nk := p+"k", p+"nk"
	_, err := c.SAdd(ctx, nk, "q")
	require.NoError(t, err)
	allExpiredSet(t, ctx, c, clock, k, "a")
	err = c.Rename(ctx, k, nk)
	require.ErrorIs(t, err, ErrNoSuchKey, "RENAME of a missing key")
	members, err := c.SMembers(ctx, nk)
	require.NoError(t, err)
	require.Equal(t, []string{"q"}, members, "newkey untouched")
}

// FINDING. RENAMENX onto a newkey whose members all expired (missing):
// Redis renames and returns 1. redimo returns false (rename.go:53 getMeta
// of newkey without settle).
func TestReviewRenameNXOntoAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k, nk := p+"k", p+"nk"
	_, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	allExpiredSet(t, ctx, c, clock, nk, "q")
	ok, err := c.RenameNX(ctx, k, nk)
	require.NoError(t, err)
	require.True(t, ok, "RENAMENX onto a missing key")
	members, err := c.SMembers(ctx, nk)
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, members)
	checkStoredCounts(t, p)
}

// FINDING. ZRANK/ZREVRANK (and WITHSCORE) of an expired, not yet deleted
// member: Redis answers nil (the member is missing). redimo answers a rank
// (ok true) and its old score: rankProbe (rank.go:838) takes the member
// item from its BatchGetItem without checking expiredAt, as probe does
// (sets.go:155).
func TestReviewZRankOfExpiredMember(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, Z{1, "a"}, Z{2, "b"}, Z{3, "c"})
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, k, time.Second, ExpireAlways, "b")
	require.NoError(t, err)
	clock.Add(time.Second)
	_, ok, err := c.ZScore(ctx, k, "b")
	require.NoError(t, err)
	require.False(t, ok, "ZSCORE agrees the member is gone")
	rk, ok, err := c.ZRank(ctx, k, "b")
	require.NoError(t, err)
	require.False(t, ok, "ZRANK of an expired member: nil (got rank %d)", rk)
	rk, ok, err = c.ZRevRank(ctx, k, "b")
	require.NoError(t, err)
	require.False(t, ok, "ZREVRANK of an expired member: nil (got rank %d)", rk)
	rs, ok, err := c.ZRankWithScore(ctx, k, "b")
	require.NoError(t, err)
	require.False(t, ok, "ZRANK WITHSCORE of an expired member: nil (got %+v)", rs)
}

// FINDING. ZRANK on a set whose members all expired (a missing key):
// Redis nil; redimo WRONGTYPE (rank.go:846, no settle).
func TestReviewZRankWrongTypeAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	allExpiredSet(t, ctx, c, clock, k, "a")
	_, ok, err := c.ZRank(ctx, k, "a")
	require.NoError(t, err, "ZRANK on a key whose members all expired")
	require.False(t, ok)
}

// Reads of sorted-set members through many paths, with a third of the
// members expired and not yet deleted.
func TestReviewZReadsSkipExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	var zs []Z
	var expiring []string
	for i := range 12 {
		m := fmt.Sprintf("m%02d", i)
		zs = append(zs, Z{Score: float64(i), Member: m})
		if i%3 == 0 {
			expiring = append(expiring, m)
		}
	}
	_, err := c.ZAdd(ctx, k, zs...)
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, k, time.Second, ExpireAlways, expiring...)
	require.NoError(t, err)
	clock.Add(time.Second) // expiry == now: expired
	live := []string{"m01", "m02", "m04", "m05", "m07", "m08", "m10", "m11"}
	rev := append([]string(nil), live...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}

	n, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 8, n)
	r, err := c.ZRange(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Equal(t, live, r)
	r, err = c.ZRange(ctx, k, 2, 4)
	require.NoError(t, err)
	require.Equal(t, live[2:5], r)
	r, err = c.ZRevRange(ctx, k, 0, 2)
	require.NoError(t, err)
	require.Equal(t, rev[:3], r)
	r, err = c.ZRangeByScore(ctx, k, &ZRangeBy{Min: "-inf", Max: "+inf", Offset: 1, Count: 3})
	require.NoError(t, err)
	require.Equal(t, live[1:4], r)
	r, err = c.ZRevRangeByScore(ctx, k, &ZRangeBy{Min: "0", Max: "9", Offset: 1, Count: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"m07", "m05"}, r)
	_, err = c.ZAdd(ctx, p+"lex", Z{Member: "a"}, Z{Member: "b"}, Z{Member: "c"}, Z{Member: "d"}, Z{Member: "e"})
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, p+"lex", time.Second, ExpireAlways, "b", "d")
	require.NoError(t, err)
	clock.Add(time.Second)
	r, err = c.ZRangeByLex(ctx, p+"lex", &ZRangeBy{Min: "-", Max: "+", Offset: 1, Count: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"c", "e"}, r)
	r, err = c.ZRevRangeByLex(ctx, p+"lex", &ZRangeBy{Min: "-", Max: "+", Offset: 0, Count: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"e", "c"}, r)
	n, err = c.ZLexCount(ctx, p+"lex", "[a", "[d")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	n, err = c.ZCount(ctx, k, "0", "6")
	require.NoError(t, err)
	require.EqualValues(t, 4, n)
	rk, ok, err := c.ZRank(ctx, k, "m05")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 3, rk)
	rk, ok, err = c.ZRevRank(ctx, k, "m05")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 4, rk)
	sc, oks, err := c.ZMScore(ctx, k, "m00", "m01", "m03")
	require.NoError(t, err)
	require.Equal(t, []bool{false, true, false}, oks)
	require.Equal(t, 1.0, sc[1])
	for _, cnt := range []int{-20, 20, 3, -3} {
		rm, err := c.ZRandMember(ctx, k, cnt)
		require.NoError(t, err)
		for _, m := range rm {
			require.Contains(t, live, m, "ZRANDMEMBER %d", cnt)
		}
		switch {
		case cnt == 20:
			require.Len(t, rm, 8)
		case cnt < 0:
			require.Len(t, rm, -cnt)
		}
	}
	var scanned []string
	for z, err := range c.ZScan(ctx, k, "") {
		require.NoError(t, err)
		scanned = append(scanned, z.Member)
	}
	sort.Strings(scanned)
	require.Equal(t, live, scanned)
	u, err := c.ZUnionWithScores(ctx, ZStore{Keys: []string{k}, Weights: []float64{2}})
	require.NoError(t, err)
	require.Len(t, u, 8)
	n, err = c.ZInterCard(ctx, 3, k, k)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	n, err = c.ZInterCard(ctx, 0, k, k)
	require.NoError(t, err)
	require.EqualValues(t, 8, n)
	n, err = c.ZRangeStore(ctx, p+"rs", ZRangeArgs{Key: k, Start: "0", Stop: "-1"})
	require.NoError(t, err)
	require.EqualValues(t, 8, n)
	n, err = c.ZUnionStore(ctx, p+"us", &ZStore{Keys: []string{k, p + "lex"}, Weights: []float64{1, 2}})
	require.NoError(t, err)
	require.EqualValues(t, 11, n)
	checkStoredCounts(t, p)

	// Pops: count greater than the live members.
	popped, err := c.ZPopMin(ctx, k, 3)
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "m01"}, {2, "m02"}, {4, "m04"}}, popped)
	popped, err = c.ZPopMax(ctx, k, 100)
	require.NoError(t, err)
	require.Len(t, popped, 5)
	require.Equal(t, "m11", popped[0].Member)
	n, err = c.ZCard(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n)
	ex, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, ex)
	checkStoredCounts(t, p)
}

// ZREMRANGEBYRANK/BYSCORE/BYLEX across expired members count only live ones.
func TestReviewZRemRangeAcrossExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	var zs []Z
	for i := range 10 {
		zs = append(zs, Z{Score: float64(i), Member: fmt.Sprintf("m%d", i)})
	}
	_, err := c.ZAdd(ctx, k, zs...)
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, k, time.Second, ExpireAlways, "m0", "m2", "m5", "m9")
	require.NoError(t, err)
	clock.Add(time.Second)
	// live: m1 m3 m4 m6 m7 m8
	n, err := c.ZRemRangeByRank(ctx, k, 0, 1) // m1 m3
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	n, err = c.ZRemRangeByScore(ctx, k, "4", "5") // m4
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.ZRemRangeByRank(ctx, k, -1, -1) // m8
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	r, err := c.ZRange(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []string{"m6", "m7"}, r)
	n, err = c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	checkStoredCounts(t, k)
}

// Writes meeting expired sorted-set members treat them as missing.
func TestReviewZWritesOnExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, Z{5, "a"}, Z{5, "b"}, Z{5, "c"}, Z{5, "d"}, Z{5, "live"})
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, k, time.Second, ExpireAlways, "a", "b", "c", "d")
	require.NoError(t, err)
	clock.Add(time.Second)
	// GT without XX adds a missing member (Redis: GT/LT only restrict updates).
	n, err := c.ZAddArgs(ctx, k, ZAddArgs{GT: true, Members: []Z{{1, "a"}}})
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "ZADD GT of an expired member adds it")
	s, ok, err := c.ZScore(ctx, k, "a")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 1.0, s)
	n, err = c.ZAddArgs(ctx, k, ZAddArgs{XX: true, Ch: true, Members: []Z{{9, "b"}}})
	require.NoError(t, err)
	require.Zero(t, n, "ZADD XX ignores an expired member")
	_, ok, err = c.ZScore(ctx, k, "b")
	require.NoError(t, err)
	require.False(t, ok)
	f, err := c.ZIncrBy(ctx, k, 2, "c")
	require.NoError(t, err)
	require.Equal(t, 2.0, f, "ZINCRBY starts from 0")
	n, err = c.ZAddArgs(ctx, k, ZAddArgs{NX: true, Members: []Z{{7, "d"}}})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 4, n)
	got, err := c.ZTTL(ctx, k, "a", "b", "c", "d", "live")
	require.NoError(t, err)
	require.Equal(t, []int64{-1, -2, -1, -1, -1}, got)
	checkStoredCounts(t, k)
}

// Expiry replies: == now deletes (2), past EXPIREAT (2), GT/LT with no
// expiry (GT: none is infinite, never greater → 0; LT: sets → 1), NX/XX.
func TestReviewExpiryReplies(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	_, err := c.SAdd(ctx, k, "a", "b", "c", "d", "e")
	require.NoError(t, err)
	now := clock.Now()
	got, err := c.SPExpireAt(ctx, k, now, ExpireAlways, "a")
	require.NoError(t, err)
	require.Equal(t, []int64{2}, got, "expiry == now deletes")
	got, err = c.SPExpireAt(ctx, k, now.Add(-time.Hour), ExpireAlways, "b", "zz")
	require.NoError(t, err)
	require.Equal(t, []int64{2, -2}, got)
	got, err = c.SExpire(ctx, k, time.Minute, ExpireGT, "c")
	require.NoError(t, err)
	require.Equal(t, []int64{0}, got)
	got, err = c.SExpire(ctx, k, time.Minute, ExpireLT, "c")
	require.NoError(t, err)
	require.Equal(t, []int64{1}, got)
	got, err = c.SExpire(ctx, k, time.Minute, ExpireXX, "d")
	require.NoError(t, err)
	require.Equal(t, []int64{0}, got)
	got, err = c.SExpire(ctx, k, 2*time.Minute, ExpireXX, "c")
	require.NoError(t, err)
	require.Equal(t, []int64{1}, got)
	got, err = c.SExpire(ctx, k, time.Minute, ExpireGT, "c")
	require.NoError(t, err)
	require.Equal(t, []int64{0}, got)
	got, err = c.SPExpireAt(ctx, k, now.Add(-time.Hour), ExpireGT, "c") // condition fails first
	require.NoError(t, err)
	require.Equal(t, []int64{0}, got)
	got, err = c.SPExpireAt(ctx, k, now.Add(-time.Hour), ExpireLT, "c")
	require.NoError(t, err)
	require.Equal(t, []int64{2}, got)
	got, err = c.SExpireTime(ctx, k, "c", "d", "e")
	require.NoError(t, err)
	require.Equal(t, []int64{-2, -1, -1}, got)
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	checkStoredCounts(t, k)
	// SADDEX KEEPTTL on an existing member without expiry keeps none.
	added, err := c.SAddEx(ctx, k, time.Minute, true, "d")
	require.NoError(t, err)
	require.Zero(t, added)
	got, err = c.STTL(ctx, k, "d")
	require.NoError(t, err)
	require.Equal(t, []int64{-1}, got)
	checkStoredCounts(t, k)
}

// Sets: random picks, pops, scans, algebra *STORE onto a key with member
// expiries, DEL then re-create.
func TestReviewSetPathsSkipExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	var all []string
	for i := range 20 {
		all = append(all, fmt.Sprintf("m%02d", i))
	}
	_, err := c.SAdd(ctx, k, all...)
	require.NoError(t, err)
	_, err = c.SExpire(ctx, k, time.Second, ExpireAlways, all[:17]...)
	require.NoError(t, err)
	clock.Add(time.Second)
	live := all[17:]
	for _, cnt := range []int64{-10, 10, 2} {
		rm, err := c.SRandMemberN(ctx, k, cnt)
		require.NoError(t, err)
		for _, m := range rm {
			require.Contains(t, live, m, "SRANDMEMBER %d", cnt)
		}
		if cnt == 10 {
			require.Len(t, rm, 3)
		}
		if cnt < 0 {
			require.Len(t, rm, int(-cnt))
		}
	}
	var scanned []string
	for m, err := range c.SScan(ctx, k, "") {
		require.NoError(t, err)
		scanned = append(scanned, m)
	}
	sort.Strings(scanned)
	require.Equal(t, live, scanned)

	other := p + "o"
	_, err = c.SAdd(ctx, other, "m00", "m18", "m19", "x")
	require.NoError(t, err)
	n, err := c.SInterCard(ctx, 1, k, other)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.SUnionCard(ctx, 0, k, other)
	require.NoError(t, err)
	require.EqualValues(t, 5, n)
	n, err = c.SDiffCard(ctx, 0, other, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)

	// SINTERSTORE onto a key with live and expired member expiries.
	dst := p + "dst"
	_, err = c.SAddEx(ctx, dst, time.Minute, false, "m18", "y")
	require.NoError(t, err)
	_, err = c.SAddEx(ctx, dst, time.Second, false, "m19", "z")
	require.NoError(t, err)
	clock.Add(time.Second)
	n, err = c.SInterStore(ctx, dst, k, other)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	got, err := c.STTL(ctx, dst, "m18", "m19", "y", "z")
	require.NoError(t, err)
	require.Equal(t, []int64{-1, -1, -2, -2}, got)
	checkStoredCounts(t, p)

	popped, err := c.SPopN(ctx, k, 10)
	require.NoError(t, err)
	sort.Strings(popped)
	require.Equal(t, live, popped)
	ex, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, ex)
	checkStoredCounts(t, p)

	// DEL of a key with member expiries, then re-create: no stale expiry.
	_, err = c.SAddEx(ctx, k, time.Minute, false, "a", "b")
	require.NoError(t, err)
	_, err = c.Del(ctx, k)
	require.NoError(t, err)
	_, err = c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	got, err = c.STTL(ctx, k, "a")
	require.NoError(t, err)
	require.Equal(t, []int64{-1}, got)
	checkStoredCounts(t, p)
}

// COPY with member expiries: the copy keeps live expiries, not expired
// members; a key expiry together with member expiries.
func TestReviewCopyAndKeyExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	src, dst := p+"src", p+"dst"
	_, err := c.SAdd(ctx, src, "a", "b", "c")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, src, 10*time.Second, ExpireAlways, "a")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, src, time.Second, ExpireAlways, "b")
	require.NoError(t, err)
	clock.Add(time.Second)
	ok, err := c.Copy(ctx, src, dst, false)
	require.NoError(t, err)
	require.True(t, ok)
	got, err := c.SPTTL(ctx, dst, "a", "b", "c")
	require.NoError(t, err)
	require.Equal(t, []int64{9000, -2, -1}, got)
	n, err := c.SCard(ctx, dst)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	checkStoredCounts(t, p)

	ok, err = c.Expire(ctx, dst, 5*time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	clock.Add(5 * time.Second)
	ex, err := c.Exists(ctx, dst)
	require.NoError(t, err)
	require.Zero(t, ex)
	added, err := c.SAdd(ctx, dst, "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, added)
	got, err = c.STTL(ctx, dst, "a")
	require.NoError(t, err)
	require.Equal(t, []int64{-1}, got)
	n, err = c.SCard(ctx, dst)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	checkStoredCounts(t, p)

	err = c.Rename(ctx, src, p+"ren")
	require.NoError(t, err)
	got, err = c.SPTTL(ctx, p+"ren", "a", "b", "c")
	require.NoError(t, err)
	require.Equal(t, []int64{4000, -2, -1}, got)
	checkStoredCounts(t, p)
}

// A ranked sorted set (count items built by a rank read) that then gets a
// member expiry: ranks, counts and ranges skip the expired member.
func TestReviewRankedKeyMemberExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	c.ranks.min = 20
	c.ranks.max = 8
	k := p + "z"
	var zs []Z
	for i := range 40 {
		zs = append(zs, Z{Score: float64(i), Member: fmt.Sprintf("m%02d", i)})
	}
	_, err := c.ZAdd(ctx, k, zs...)
	require.NoError(t, err)
	rk, ok, err := c.ZRank(ctx, k, "m30") // builds the count items
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 30, rk)
	_, err = c.ZExpire(ctx, k, time.Second, ExpireAlways, "m01", "m02", "m03")
	require.NoError(t, err)
	clock.Add(time.Second)
	rk, ok, err = c.ZRank(ctx, k, "m30")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 27, rk)
	rk, ok, err = c.ZRevRank(ctx, k, "m00")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 36, rk)
	r, err := c.ZRange(ctx, k, 1, 2)
	require.NoError(t, err)
	require.Equal(t, []string{"m04", "m05"}, r)
	n, err := c.ZCount(ctx, k, "0", "10")
	require.NoError(t, err)
	require.EqualValues(t, 8, n)
	n, err = c.ZRemRangeByRank(ctx, k, 0, 1)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	r, err = c.ZRange(ctx, k, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"m05"}, r)
	checkStoredCounts(t, k)
}

// Long members (> 1015 bytes) with an expiry.
func TestReviewLongMemberExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	long1 := string(make([]byte, 1100)) + "1"
	long2 := string(make([]byte, 1100)) + "2"
	_, err := c.SAdd(ctx, k, long1, long2, "short")
	require.NoError(t, err)
	got, err := c.SExpire(ctx, k, time.Second, ExpireAlways, long1)
	require.NoError(t, err)
	require.Equal(t, []int64{1}, got)
	clock.Add(time.Second)
	in, err := c.SMIsMember(ctx, k, long1, long2)
	require.NoError(t, err)
	require.Equal(t, []bool{false, true}, in)
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	added, err := c.SAdd(ctx, k, long1)
	require.NoError(t, err)
	require.EqualValues(t, 1, added)
	checkStoredCounts(t, k)
	removed, err := c.SRem(ctx, k, long2)
	require.NoError(t, err)
	require.EqualValues(t, 1, removed)
	checkStoredCounts(t, k)
}

// FINDING (each failing subtest). Every command of one type on a key of
// the other type whose members all expired acts as on a missing key (the
// promise: "a wrong-type command on it acts as on a missing key"): Redis
// answers as for a missing key; redimo answers WRONGTYPE on the failing
// subtests. Each subtest is one command on fresh keys (a write sweeps the
// key, which would hide the read paths' behaviour from later subtests).
func TestReviewWrongTypeAllExpiredCommands(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	type keys struct{ s, z, live, zlive, dst string }
	mk := func(name string) keys {
		k := keys{s: p + name + ":s", z: p + name + ":z", live: p + name + ":live", zlive: p + name + ":zlive", dst: p + name + ":dst"}
		_, err := c.SAddEx(ctx, k.s, time.Second, false, "a", "b")
		require.NoError(t, err)
		_, err = c.ZAdd(ctx, k.z, Z{1, "a"}, Z{2, "b"})
		require.NoError(t, err)
		_, err = c.ZExpire(ctx, k.z, time.Second, ExpireAlways, "a", "b")
		require.NoError(t, err)
		clock.Add(2 * time.Second)
		_, err = c.SAdd(ctx, k.live, "a")
		require.NoError(t, err)
		_, err = c.ZAdd(ctx, k.zlive, Z{1, "a"})
		require.NoError(t, err)
		return k
	}
	drain := func(seq func(func(Z, error) bool)) error {
		for _, err := range seq {
			if err != nil {
				return err
			}
		}
		return nil
	}
	drainS := func(seq func(func(string, error) bool)) error {
		for _, err := range seq {
			if err != nil {
				return err
			}
		}
		return nil
	}
	cases := []struct {
		name string
		f    func(k keys) error
	}{
		{"ZCARD set", func(k keys) error { _, err := c.ZCard(ctx, k.s); return err }},
		{"SCARD zset", func(k keys) error { _, err := c.SCard(ctx, k.z); return err }},
		{"ZRANGE set", func(k keys) error { _, err := c.ZRange(ctx, k.s, 0, -1); return err }},
		{"ZRANGEBYSCORE set", func(k keys) error {
			_, err := c.ZRangeByScore(ctx, k.s, &ZRangeBy{Min: "-inf", Max: "+inf"})
			return err
		}},
		{"ZRANGEBYLEX set", func(k keys) error { _, err := c.ZRangeByLex(ctx, k.s, &ZRangeBy{Min: "-", Max: "+"}); return err }},
		{"ZCOUNT set", func(k keys) error { _, err := c.ZCount(ctx, k.s, "-inf", "+inf"); return err }},
		{"ZLEXCOUNT set", func(k keys) error { _, err := c.ZLexCount(ctx, k.s, "-", "+"); return err }},
		{"ZRANDMEMBER set", func(k keys) error { _, err := c.ZRandMember(ctx, k.s, -3); return err }},
		{"ZPOPMIN set", func(k keys) error { _, err := c.ZPopMin(ctx, k.s, 2); return err }},
		{"ZREMRANGEBYRANK set", func(k keys) error { _, err := c.ZRemRangeByRank(ctx, k.s, 0, -1); return err }},
		{"ZREM set", func(k keys) error { _, err := c.ZRem(ctx, k.s, "a"); return err }},
		{"ZSCAN set", func(k keys) error { return drain(c.ZScan(ctx, k.s, "")) }},
		{"ZEXPIRE set", func(k keys) error { _, err := c.ZExpire(ctx, k.s, time.Minute, ExpireAlways, "a"); return err }},
		{"ZPERSIST set", func(k keys) error { _, err := c.ZPersist(ctx, k.s, "a"); return err }},
		{"SMEMBERS zset", func(k keys) error { _, err := c.SMembers(ctx, k.z); return err }},
		{"SRANDMEMBER zset", func(k keys) error { _, err := c.SRandMemberN(ctx, k.z, -3); return err }},
		{"SPOP zset", func(k keys) error { _, err := c.SPopN(ctx, k.z, 2); return err }},
		{"SREM zset", func(k keys) error { _, err := c.SRem(ctx, k.z, "a"); return err }},
		{"SSCAN zset", func(k keys) error { return drainS(c.SScan(ctx, k.z, "")) }},
		{"SEXPIRE zset", func(k keys) error { _, err := c.SExpire(ctx, k.z, time.Minute, ExpireAlways, "a"); return err }},
		{"SMOVE zset→set", func(k keys) error { _, err := c.SMove(ctx, k.z, k.live, "a"); return err }},
		{"SMOVE set→zset", func(k keys) error { _, err := c.SMove(ctx, k.live, k.z, "a"); return err }},
		{"SINTERCARD set,zset", func(k keys) error { _, err := c.SInterCard(ctx, 0, k.live, k.z); return err }},
		{"SUNIONSTORE set,zset", func(k keys) error { _, err := c.SUnionStore(ctx, k.dst, k.live, k.z); return err }},
		{"ZUNION zset,set", func(k keys) error { _, err := c.ZUnion(ctx, ZStore{Keys: []string{k.zlive, k.s}}); return err }},
		{"ZINTERCARD zset,set", func(k keys) error { _, err := c.ZInterCard(ctx, 0, k.zlive, k.s); return err }},
		{"ZDIFF zset,set", func(k keys) error { _, err := c.ZDiff(ctx, k.zlive, k.s); return err }},
		{"ZRANGESTORE from set", func(k keys) error {
			_, err := c.ZRangeStore(ctx, k.dst, ZRangeArgs{Key: k.s, Start: "0", Stop: "-1"})
			return err
		}},
		{"ZMPOP set,zset", func(k keys) error { _, _, err := c.ZMPop(ctx, PopMin, 1, k.s, k.zlive); return err }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := mk(fmt.Sprint(i))
			require.NoError(t, tc.f(k), "%s on a key whose members all expired: as on a missing key", tc.name)
		})
	}
}

// Writes that delete or rewrite live members that carry an expiry keep
// the stored count and mn exact: pops, range removals, SMOVE, *STORE onto
// a destination that is also a source, ZINCRBY.
func TestReviewWritesOnLiveExpiringMembers(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	z := p + "z"
	var zs []Z
	var names []string
	for i := range 10 {
		m := fmt.Sprintf("m%d", i)
		zs = append(zs, Z{float64(i), m})
		names = append(names, m)
	}
	_, err := c.ZAdd(ctx, z, zs...)
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, z, time.Minute, ExpireAlways, names[:8]...)
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, z, time.Second, ExpireAlways, "m8")
	require.NoError(t, err)
	clock.Add(time.Second) // m8 expired; m0..m7 live with expiry; m9 none
	popped, err := c.ZPopMin(ctx, z, 2)
	require.NoError(t, err)
	require.Equal(t, []Z{{0, "m0"}, {1, "m1"}}, popped)
	checkStoredCounts(t, z)
	popped, err = c.ZPopMax(ctx, z, 2)
	require.NoError(t, err)
	require.Equal(t, []Z{{9, "m9"}, {7, "m7"}}, popped)
	checkStoredCounts(t, z)
	n, err := c.ZRemRangeByScore(ctx, z, "2", "3")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	checkStoredCounts(t, z)
	f, err := c.ZIncrBy(ctx, z, 10, "m4")
	require.NoError(t, err)
	require.Equal(t, 14.0, f)
	got, err := c.ZTTL(ctx, z, "m4")
	require.NoError(t, err)
	require.Equal(t, []int64{59}, got, "ZINCRBY keeps the member's expiry")
	checkStoredCounts(t, z)
	// ZUNIONSTORE onto z itself with WEIGHTS: members lose their expiry.
	other := p + "o"
	_, err = c.ZAdd(ctx, other, Z{100, "m5"}, Z{1, "x"})
	require.NoError(t, err)
	n, err = c.ZUnionStore(ctx, z, &ZStore{Keys: []string{z, other}, Weights: []float64{2, 1}})
	require.NoError(t, err)
	require.EqualValues(t, 4, n) // m4 m5 m6 x
	got, err = c.ZTTL(ctx, z, "m4", "m5", "m6", "m8", "x")
	require.NoError(t, err)
	require.Equal(t, []int64{-1, -1, -1, -2, -1}, got)
	sc, _, err := c.ZScore(ctx, z, "m5")
	require.NoError(t, err)
	require.Equal(t, 110.0, sc)
	checkStoredCounts(t, p)

	// Sets: SPOP, SMOVE, SINTERSTORE onto a source with expiries.
	s := p + "s"
	_, err = c.SAddEx(ctx, s, time.Minute, false, "a", "b", "c", "d")
	require.NoError(t, err)
	_, err = c.SAddEx(ctx, s, time.Second, false, "e")
	require.NoError(t, err)
	clock.Add(time.Second)
	one, ok, err := c.SPop(ctx, s)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotEqual(t, "e", one)
	checkStoredCounts(t, p)
	left, err := c.SMembers(ctx, s)
	require.NoError(t, err)
	require.Len(t, left, 3)
	moved, err := c.SMove(ctx, s, p+"s2", left[0])
	require.NoError(t, err)
	require.True(t, moved)
	checkStoredCounts(t, p)
	_, err = c.SAdd(ctx, p+"s3", left[1], left[2], "zz")
	require.NoError(t, err)
	n, err = c.SInterStore(ctx, s, s, p+"s3")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	got, err = c.STTL(ctx, s, left[1], left[2], "e")
	require.NoError(t, err)
	require.Equal(t, []int64{-1, -1, -2}, got)
	checkStoredCounts(t, p)
	// *STORE with an empty result onto a key with only expired members.
	_, err = c.SAddEx(ctx, p+"gone", time.Second, false, "q")
	require.NoError(t, err)
	clock.Add(time.Second)
	n, err = c.SDiffStore(ctx, p+"gone", p+"s3", p+"s3")
	require.NoError(t, err)
	require.Zero(t, n)
	checkStoredCounts(t, p)
	ex, err := c.Exists(ctx, p+"gone")
	require.NoError(t, err)
	require.Zero(t, ex)
}

// SCARD's validated count (seenCounts) across writes by another client,
// clock moves, SCOLLECT, a key expiry, DEL and re-create.
func TestReviewLiveCountCache(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	c2, _, _, _ := newClockedClient(t, func(o *Options) { o.Now = clock.Now })
	k := p + "s"
	_, err := c.SAdd(ctx, k, "a", "b", "c", "d", "e", "f")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, k, time.Second, ExpireAlways, "a")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, k, 2*time.Second, ExpireAlways, "b")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, k, 3*time.Second, ExpireAlways, "c")
	require.NoError(t, err)
	card := func(want int64) {
		t.Helper()
		for _, cl := range []*Client{c, c2} {
			n, err := cl.SCard(ctx, k)
			require.NoError(t, err)
			require.EqualValues(t, want, n)
		}
	}
	card(6)
	clock.Add(time.Second)
	card(5)
	clock.Add(time.Second)
	card(4)
	_, err = c2.SAddEx(ctx, k, time.Second, false, "g")
	require.NoError(t, err)
	card(5)
	require.NoError(t, c2.SCollect(ctx, k))
	card(5)
	clock.Add(time.Second) // c, g expire
	card(3)
	_, err = c2.SRem(ctx, k, "d")
	require.NoError(t, err)
	card(2)
	_, err = c2.Del(ctx, k)
	require.NoError(t, err)
	card(0)
	_, err = c2.SAddEx(ctx, k, time.Second, false, "x", "y")
	require.NoError(t, err)
	card(2)
	clock.Add(500 * time.Millisecond)
	card(2)
	_, err = c2.Expire(ctx, k, 100*time.Millisecond)
	require.NoError(t, err)
	clock.Add(100 * time.Millisecond)
	card(0)
	_, err = c2.ZAdd(ctx, k, Z{1, "z"})
	require.NoError(t, err)
	n, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	_, err = c.SCard(ctx, k)
	require.ErrorIs(t, err, ErrWrongType)
	checkStoredCounts(t, k)
}

// Concurrent writers with a wider mix than TestMemberExpiryConcurrent
// (SPERSIST/ZPERSIST, SREM/ZREM/pops/range removals of members with an
// expiry, SMOVE, *STORE onto a key with expiries, DEL, ZADD GT, SADDEX
// KEEPTTL, expiries in the past), with and without faults: stored counts
// and mn exact, counts equal to the members read.
func TestReviewConcurrentWide(t *testing.T) {
	underFaults(t, func(t *testing.T, ctx context.Context, c *Client, p string) {
		sets := []string{p + "s1", p + "s2"}
		zsets := []string{p + "z1", p + "z2"}
		var wg sync.WaitGroup
		stop := time.Now().Add(3 * time.Second)
		errs := make(chan error, 100)
		for w := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 7))
				for time.Now().Before(stop) {
					s, z := sets[r.IntN(2)], zsets[r.IntN(2)]
					m := fmt.Sprintf("m%d", r.IntN(8))
					d := time.Duration(r.IntN(80)-10) * time.Millisecond
					var err error
					switch r.IntN(16) {
					case 0:
						_, err = c.SAdd(ctx, s, m, "x"+m)
					case 1:
						_, err = c.SRem(ctx, s, m)
					case 2:
						_, err = c.SPExpire(ctx, s, max(d, 0), ExpireCondition([]string{"", "NX", "XX", "GT", "LT"}[r.IntN(5)]), m, "x"+m)
					case 3:
						_, err = c.SPersist(ctx, s, m)
					case 4:
						_, err = c.SAddEx(ctx, s, time.Duration(1+r.IntN(60))*time.Millisecond, r.IntN(2) == 0, m)
					case 5:
						_, err = c.SMove(ctx, sets[0], sets[1], m)
					case 6:
						_, err = c.SPopN(ctx, s, 2)
					case 7:
						_, err = c.SUnionStore(ctx, s, sets[0], sets[1])
					case 8:
						_, err = c.ZAddArgs(ctx, z, ZAddArgs{GT: r.IntN(2) == 0, Members: []Z{{float64(r.IntN(5)), m}}})
					case 9:
						_, err = c.ZRem(ctx, z, m)
					case 10:
						_, err = c.ZPExpire(ctx, z, max(d, 0), ExpireAlways, m)
					case 11:
						_, err = c.ZPersist(ctx, z, m)
					case 12:
						_, err = c.ZPopMin(ctx, z, 2)
					case 13:
						_, err = c.ZRemRangeByScore(ctx, z, "1", "2")
					case 14:
						_, err = c.ZIncrBy(ctx, z, 1, m)
					case 15:
						if r.IntN(4) == 0 {
							_, err = c.Del(ctx, s, z)
						} else {
							_, err = c.ZInterStore(ctx, z, &ZStore{Keys: []string{zsets[0], zsets[1]}, Aggregate: "MAX"})
						}
					}
					if err != nil && !errors.Is(err, ErrContention) {
						select {
						case errs <- fmt.Errorf("op on %s/%s: %w", s, z, err):
						default:
						}
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		checkStoredCounts(t, p)
		time.Sleep(100 * time.Millisecond)
		for _, k := range append(append([]string(nil), sets...), zsets...) {
			var n int64
			var err error
			var members []string
			if k == sets[0] || k == sets[1] {
				n, err = c.SCard(ctx, k)
				require.NoError(t, err)
				members, err = c.SMembers(ctx, k)
			} else {
				n, err = c.ZCard(ctx, k)
				require.NoError(t, err)
				members, err = c.ZRange(ctx, k, 0, -1)
			}
			require.NoError(t, err)
			require.EqualValues(t, len(members), n, "key %q: count and members", k)
		}
		for _, k := range zsets {
			require.NoError(t, c.ZCollect(ctx, k))
		}
		for _, k := range sets {
			require.NoError(t, c.SCollect(ctx, k))
		}
		checkStoredCounts(t, p)
	})
}

// FINDING. A ShardedSet's shards are plain set keys (sharded.go: "Shard i
// is the plain set key Key+"{i}" (SMEMBERS "visitors{3}" shows it)"), so
// their members can carry an expiry (SEXPIRE visitors{3} ...). The
// ShardedSet's reads ignore it: Card sums the stored counts
// (sharded.go:234 cards: m.card, not the live count) and MIsMember takes
// the member items from a BatchGetItem without expiredAt (sharded.go:202).
// Expected (the promise: an expired member is invisible to every command,
// never counted): Card 1, MIsMember [false true]; redimo: Card 2,
// MIsMember [true true].
func TestReviewShardedSetMemberExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	ss := c.ShardedSet(p+"v", 2)
	// two members in different shards
	a, b := "", ""
	for i := 0; a == "" || b == ""; i++ {
		m := fmt.Sprintf("m%d", i)
		switch ss.shardOf(m) {
		case 0:
			if a == "" {
				a = m
			}
		case 1:
			if b == "" {
				b = m
			}
		}
	}
	_, err := ss.Add(ctx, a, b)
	require.NoError(t, err)
	got, err := c.SExpire(ctx, ss.shard(0), time.Second, ExpireAlways, a)
	require.NoError(t, err)
	require.Equal(t, []int64{1}, got)
	clock.Add(time.Second)
	n, err := c.SCard(ctx, ss.shard(0))
	require.NoError(t, err)
	require.Zero(t, n, "the shard key itself counts the member out")
	in, err := ss.MIsMember(ctx, a, b)
	require.NoError(t, err)
	n, err = ss.Card(ctx)
	require.NoError(t, err)
	var members []string
	for m, err := range ss.Members(ctx) {
		require.NoError(t, err)
		members = append(members, m)
	}
	type view struct {
		Card      int64
		MIsMember []bool
		Members   []string
	}
	require.Equal(t, view{1, []bool{false, true}, []string{b}}, view{n, in, members},
		"ShardedSet reads of a shard member that expired")
}

// slowReadDB moves a fake clock on by step during every BatchGetItem: a
// read that takes step.
type slowReadDB struct {
	DynamoDBAPI
	clock *fakeClock
	step  time.Duration
}

func (s *slowReadDB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	out, err := s.DynamoDBAPI.BatchGetItem(ctx, in, o...)
	s.clock.Add(s.step)
	return out, err
}

// FINDING (low severity: replies only). SPEXPIRE k 10 MEMBERS 1 a (a
// positive relative time): Redis sets the expiry and replies 1; it never
// replies 2 (deleted) to a time that is not in the past when the command
// runs. redimo computes the expiry before its read of the member
// (memberttl.go SPExpire: c.nowMs()+d) and decides after it, with a later
// now (memberExpire: now := c.nowMs() after probe): when the read takes
// longer than d (here 20 ms for a 10 ms expiry) it replies 2 and deletes
// the member. The server computes the time the same way before the call
// (internal/server/memberttl.go expire), so SPEXPIRE with small values
// replies 2 on a slow round trip.
func TestReviewRelativeExpirySlowRead(t *testing.T) {
	needDB(t)
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	db := &slowReadDB{DynamoDBAPI: testDB, clock: clock}
	c := NewClient(db, func(o *Options) { o.TableName = testTable; o.Now = clock.Now })
	ctx := context.Background()
	k := t.Name() + ":" + randomHex(3) + ":s"
	_, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	db.step = 20 * time.Millisecond
	got, err := c.SPExpire(ctx, k, 10*time.Millisecond, ExpireAlways, "a")
	require.NoError(t, err)
	require.Equal(t, []int64{1}, got, "a positive relative expiry is set, not a deletion")
}

// FINDING. OBJECT ENCODING of a key whose members all expired (a missing
// key): Redis answers nil (redis-server: "ERR no such key"); redimo
// "hashtable", ok true (keyspace.go ObjectEncoding: getMeta without settle).
func TestReviewObjectEncodingAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	allExpiredSet(t, ctx, c, clock, k, "a")
	ex, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, ex)
	enc, ok, err := c.ObjectEncoding(ctx, k)
	require.NoError(t, err)
	require.False(t, ok, "OBJECT ENCODING of a missing key (got %q)", enc)
}

// Random picks and pops on a set where most members expired (300 stored,
// 10 live); ZRANGESTORE onto its own source; SMOVE into a destination
// whose copy of the member expired.
func TestReviewMostlyExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k, z := p+"s", p+"z"
	var all []string
	var zs []Z
	for i := range 300 {
		m := fmt.Sprintf("m%03d", i)
		all = append(all, m)
		zs = append(zs, Z{float64(i), m})
	}
	_, err := c.SAdd(ctx, k, all...)
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, z, zs...)
	require.NoError(t, err)
	_, err = c.SExpire(ctx, k, time.Second, ExpireAlways, all[:290]...)
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, z, time.Second, ExpireAlways, all[5:295]...)
	require.NoError(t, err)
	clock.Add(time.Second)
	liveS := all[290:]
	liveZ := append(append([]string(nil), all[:5]...), all[295:]...)
	rm, err := c.SRandMemberN(ctx, k, 5)
	require.NoError(t, err)
	require.Len(t, rm, 5)
	for _, m := range rm {
		require.Contains(t, liveS, m)
	}
	zr, err := c.ZRandMember(ctx, z, 7)
	require.NoError(t, err)
	require.Len(t, zr, 7)
	for _, m := range zr {
		require.Contains(t, liveZ, m)
	}
	zr, err = c.ZRandMember(ctx, z, -30)
	require.NoError(t, err)
	require.Len(t, zr, 30)
	for _, m := range zr {
		require.Contains(t, liveZ, m)
	}
	popped, err := c.SPopN(ctx, k, 4)
	require.NoError(t, err)
	require.Len(t, popped, 4)
	for _, m := range popped {
		require.Contains(t, liveS, m)
	}
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 6, n)
	checkStoredCounts(t, p)

	// ZRANGESTORE z z 0 -1: the live members, none with an expiry.
	_, err = c.ZExpire(ctx, z, time.Hour, ExpireAlways, all[0])
	require.NoError(t, err)
	n, err = c.ZRangeStore(ctx, z, ZRangeArgs{Key: z, Start: "0", Stop: "-1"})
	require.NoError(t, err)
	require.EqualValues(t, 10, n)
	got, err := c.ZTTL(ctx, z, all[0], all[1], all[100])
	require.NoError(t, err)
	require.Equal(t, []int64{-1, -1, -2}, got)
	checkStoredCounts(t, p)

	// SMOVE into a destination whose copy of the member expired.
	src, dst := p+"src", p+"dst"
	_, err = c.SAdd(ctx, src, "a")
	require.NoError(t, err)
	_, err = c.SAddEx(ctx, dst, time.Second, false, "a", "b")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, dst, "c")
	require.NoError(t, err)
	clock.Add(time.Second)
	moved, err := c.SMove(ctx, src, dst, "a")
	require.NoError(t, err)
	require.True(t, moved)
	members, err := c.SMembers(ctx, dst)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, members)
	n, err = c.SCard(ctx, dst)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	got, err = c.STTL(ctx, dst, "a")
	require.NoError(t, err)
	require.Equal(t, []int64{-1}, got)
	checkStoredCounts(t, p)
}

// MULTI/EXEC on keys with expired members: reads inside the transaction
// skip them, a key whose members all expired is missing (another type
// may be written to it), and the stored counts stay exact.
func TestReviewExecReadsExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	s, z := p+"s", p+"z"
	_, err := c.SAdd(ctx, s, "a", "b", "c")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, s, time.Second, ExpireAlways, "a", "b")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, z, Z{1, "a"})
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, z, time.Second, ExpireAlways, "a")
	require.NoError(t, err)
	clock.Add(time.Second)
	var (
		card          int64
		in            []bool
		members       []string
		added, zadded int64
		typ           string
	)
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		var err error
		if card, err = tx.SCard(ctx, s); err != nil {
			return err
		}
		if in, err = tx.SMIsMember(ctx, s, "a", "c"); err != nil {
			return err
		}
		if members, err = tx.SMembers(ctx, s); err != nil {
			return err
		}
		if added, err = tx.SAdd(ctx, s, "a"); err != nil {
			return err
		}
		if typ, err = tx.Type(ctx, z); err != nil {
			return err
		}
		zadded, err = tx.SAdd(ctx, z, "x") // z is missing: becomes a set
		return err
	})
	require.NoError(t, err)
	require.EqualValues(t, 1, card)
	require.Equal(t, []bool{false, true}, in)
	require.Equal(t, []string{"c"}, members)
	require.EqualValues(t, 1, added)
	require.Equal(t, "none", typ)
	require.EqualValues(t, 1, zadded)
	n, err := c.SCard(ctx, s)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	checkStoredCounts(t, p)
}

// A second client that saw the key ranked (its belief) reads ranks and
// deep rank ranges after the first gave members an expiry (which unranks
// the key): expired members are skipped.
func TestReviewRankedBeliefOtherClient(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	c2, _, _, _ := newClockedClient(t, func(o *Options) { o.Now = clock.Now })
	for _, cl := range []*Client{c, c2} {
		cl.ranks.min, cl.ranks.max = 20, 8
	}
	k := p + "z"
	var zs []Z
	for i := range 60 {
		zs = append(zs, Z{float64(i), fmt.Sprintf("m%02d", i)})
	}
	_, err := c.ZAdd(ctx, k, zs...)
	require.NoError(t, err)
	for _, cl := range []*Client{c, c2} {
		rk, ok, err := cl.ZRank(ctx, k, "m50")
		require.NoError(t, err)
		require.True(t, ok)
		require.EqualValues(t, 50, rk)
		r, err := cl.ZRange(ctx, k, 40, 41)
		require.NoError(t, err)
		require.Equal(t, []string{"m40", "m41"}, r)
		n, err := cl.ZCount(ctx, k, "10", "49")
		require.NoError(t, err)
		require.EqualValues(t, 40, n)
	}
	_, err = c.ZExpire(ctx, k, time.Second, ExpireAlways, "m01", "m02", "m03", "m04", "m05")
	require.NoError(t, err)
	clock.Add(time.Second)
	rk, ok, err := c2.ZRank(ctx, k, "m50")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 45, rk)
	r, err := c2.ZRange(ctx, k, 40, 41)
	require.NoError(t, err)
	require.Equal(t, []string{"m45", "m46"}, r)
	r, err = c2.ZRevRange(ctx, k, 54, -1)
	require.NoError(t, err)
	require.Equal(t, []string{"m00"}, r)
	n, err := c2.ZCount(ctx, k, "0", "49")
	require.NoError(t, err)
	require.EqualValues(t, 45, n)
	zr, err := c2.ZRandMember(ctx, k, -200)
	require.NoError(t, err)
	for _, m := range zr {
		require.NotContains(t, []string{"m01", "m02", "m03", "m04", "m05"}, m)
	}
	n, err = c2.ZRemRangeByRank(ctx, k, 0, 1) // m00 m06
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	r, err = c2.ZRange(ctx, k, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"m07"}, r)
	checkStoredCounts(t, k)
}

// SCAN/SCAN TYPE/KEYS/RANDOMKEY-style listings leave out a key whose
// members all expired.
func TestReviewKeyListingsAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	allExpiredSet(t, ctx, c, clock, k, "a", "b")
	z := p + "z"
	allExpiredZSet(t, ctx, c, clock, z, "a")
	keys, err := c.Keys(ctx, p+"*")
	require.NoError(t, err)
	require.Empty(t, keys)
	var all []string
	cursor := uint64(0)
	for {
		got, next, err := c.ScanType(ctx, cursor, p+"*", 1000, "set")
		require.NoError(t, err)
		all = append(all, got...)
		if next == 0 {
			break
		}
		cursor = next
	}
	require.Empty(t, all)
	cursor = 0
	for {
		got, next, err := c.ScanType(ctx, cursor, p+"*", 1000, "zset")
		require.NoError(t, err)
		all = append(all, got...)
		if next == 0 {
			break
		}
		cursor = next
	}
	require.Empty(t, all)
	n, err := c.Touch(ctx, k, z)
	require.NoError(t, err)
	require.Zero(t, n)
}

// FINDING. ZMPOP/BZPOPMIN/BZPOPMAX/BZMPOP on a sorted set whose members
// all expired (a missing key). Redis: ZMPOP → nil; ZMPOP z live → pops
// from live; BZPOPMIN z 0.3 → nil after the timeout. redimo: ErrContention
// ("too many conflicting concurrent writes") for each: mpop (zpop.go:160)
// reads the keys' metadata without settle, takes z as the first existing
// key, pop finds no live member, and the loop "another client emptied
// the key: look again" repeats until MaxAttempts. (BZPOPMAX on a set whose
// members all expired: WRONGTYPE, zpop.go:177.)
func TestReviewZMPopAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	z, live := p+"z", p+"live"
	allExpiredZSet(t, ctx, c, clock, z, "a", "b")
	_, err := c.ZAdd(ctx, live, Z{1, "x"})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	type result struct {
		Key string
		Zs  []Z
		Err string
	}
	es := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	var got []result
	key, zs, err := c.ZMPop(ctx, PopMin, 2, z)
	got = append(got, result{key, zs, es(err)})
	key, zs, err = c.ZMPop(ctx, PopMin, 2, z, live)
	got = append(got, result{key, zs, es(err)})
	zk, _, err := c.BZPopMin(ctx, 300*time.Millisecond, z)
	got = append(got, result{zk.Key, nil, es(err)})
	key, zs, err = c.BZMPop(ctx, 300*time.Millisecond, PopMax, 1, z)
	got = append(got, result{key, zs, es(err)})
	require.Equal(t, []result{{}, {live, []Z{{1, "x"}}, ""}, {}, {}}, got,
		"ZMPOP z; ZMPOP z live; BZPOPMIN z 0.3; BZMPOP 0.3 1 z MAX")
}

// FINDING (same cause as TestReviewWrongTypeAllExpiredCommands). BZPOPMAX
// s z where s is a set whose members all expired: Redis treats s as
// missing (waits on z, times out: nil); redimo WRONGTYPE.
func TestReviewBZPopSetAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	s, z := p+"s", p+"z"
	allExpiredSet(t, ctx, c, clock, s, "a")
	_, err := c.ZAdd(ctx, z, Z{1, "x"})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	got, ok, err := c.BZPopMax(ctx, 300*time.Millisecond, s, z)
	require.NoError(t, err, "BZPOPMAX on a set whose members all expired: a missing key")
	require.True(t, ok)
	require.Equal(t, ZWithKey{Z: Z{1, "x"}, Key: z}, got)
}

// Commands of a key's own type on a key whose members all expired act as
// on a missing key. Each subtest on fresh keys.
func TestReviewOwnTypeAllExpiredCommands(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	type keys struct{ s, z, live, dst string }
	mk := func(name string) keys {
		k := keys{s: p + name + ":s", z: p + name + ":z", live: p + name + ":live", dst: p + name + ":dst"}
		_, err := c.SAddEx(ctx, k.s, time.Second, false, "a", "b")
		require.NoError(t, err)
		_, err = c.ZAdd(ctx, k.z, Z{1, "a"}, Z{2, "b"})
		require.NoError(t, err)
		_, err = c.ZExpire(ctx, k.z, time.Second, ExpireAlways, "a", "b")
		require.NoError(t, err)
		clock.Add(2 * time.Second)
		_, err = c.SAdd(ctx, k.live, "a")
		require.NoError(t, err)
		return k
	}
	cases := []struct {
		name string
		f    func(k keys) (any, error)
		want any
	}{
		{"SCARD", func(k keys) (any, error) { return c.SCard(ctx, k.s) }, int64(0)},
		{"ZCARD", func(k keys) (any, error) { return c.ZCard(ctx, k.z) }, int64(0)},
		{"SPOP 3", func(k keys) (any, error) { return c.SPopN(ctx, k.s, 3) }, []string(nil)},
		{"SRANDMEMBER -3", func(k keys) (any, error) { return c.SRandMemberN(ctx, k.s, -3) }, []string(nil)},
		{"ZPOPMIN 3", func(k keys) (any, error) { return c.ZPopMin(ctx, k.z, 3) }, []Z(nil)},
		{"ZRANDMEMBER -3", func(k keys) (any, error) { return c.ZRandMember(ctx, k.z, -3) }, []string(nil)},
		{"ZRANGE -2 -1", func(k keys) (any, error) { return c.ZRange(ctx, k.z, -2, -1) }, []string(nil)},
		{"ZCOUNT", func(k keys) (any, error) { return c.ZCount(ctx, k.z, "-inf", "+inf") }, int64(0)},
		{"SMOVE s live a", func(k keys) (any, error) { return c.SMove(ctx, k.s, k.live, "a") }, false},
		{"SINTERSTORE dst s live", func(k keys) (any, error) { return c.SInterStore(ctx, k.dst, k.s, k.live) }, int64(0)},
		{"SUNIONCARD s live", func(k keys) (any, error) { return c.SUnionCard(ctx, 0, k.s, k.live) }, int64(1)},
		{"ZUNIONSTORE dst z live", func(k keys) (any, error) {
			return c.ZUnionStore(ctx, k.dst, &ZStore{Keys: []string{k.z, k.live}})
		}, int64(1)},
		{"ZREMRANGEBYRANK z 0 -1", func(k keys) (any, error) { return c.ZRemRangeByRank(ctx, k.z, 0, -1) }, int64(0)},
		{"DEL s z", func(k keys) (any, error) { return c.Del(ctx, k.s, k.z) }, int64(0)},
		{"SADD s a (then TYPE)", func(k keys) (any, error) {
			if _, err := c.SAdd(ctx, k.s, "a"); err != nil {
				return nil, err
			}
			return c.SMembers(ctx, k.s)
		}, []string{"a"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := mk(fmt.Sprint(i))
			got, err := tc.f(k)
			require.NoError(t, err)
			if v := reflectValueOf(got); v != nil {
				got = v
			}
			require.Equal(t, tc.want, got)
			checkStoredCounts(t, p+fmt.Sprint(i)+":")
		})
	}
}

// reflectValueOf turns empty non-nil slices into typed nil ones, so that
// [] and nil compare equal.
func reflectValueOf(v any) any {
	switch x := v.(type) {
	case []string:
		if len(x) == 0 {
			return []string(nil)
		}
	case []Z:
		if len(x) == 0 {
			return []Z(nil)
		}
	}
	return nil
}

// ZADD ... INCR on expired members: XX → nil; GT/NX → starts from 0.
func TestReviewZAddIncrOnExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, Z{5, "a"}, Z{5, "b"}, Z{5, "c"}, Z{9, "live"})
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, k, time.Second, ExpireAlways, "a", "b", "c")
	require.NoError(t, err)
	clock.Add(time.Second)
	_, ok, err := c.ZAddArgsIncr(ctx, k, ZAddArgs{XX: true, Members: []Z{{2, "a"}}})
	require.NoError(t, err)
	require.False(t, ok, "ZADD XX INCR of an expired member: nil")
	f, ok, err := c.ZAddArgsIncr(ctx, k, ZAddArgs{GT: true, Members: []Z{{-3, "b"}}})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, -3.0, f, "ZADD GT INCR of an expired member starts from 0")
	f, ok, err = c.ZAddArgsIncr(ctx, k, ZAddArgs{NX: true, Members: []Z{{4, "c"}}})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 4.0, f)
	n, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	checkStoredCounts(t, k)
}

// Replies of the member-expiry commands stay exact when DynamoDB applies
// a transaction and its answer is lost (or is a 500): NX sets (1, not 0
// from a re-run), PERSIST removes (1), a time in the past deletes (2, not
// -2), SADDEX adds (1).
func TestReviewExpiryRepliesUnderFaults(t *testing.T) {
	for _, mode := range []faultMode{dropResponse, appliedThen5, serverError, conflicts} {
		t.Run(string(mode), func(t *testing.T) {
			needDB(t)
			c := faultyClient(t, &faulty{next: http.DefaultTransport, mode: mode, share: 0.4})
			ctx := context.Background()
			p := t.Name() + ":" + randomHex(3) + ":"
			for i := range 15 {
				k := fmt.Sprintf("%sk%d", p, i)
				_, err := c.SAdd(ctx, k, "a", "b", "c")
				require.NoError(t, err)
				got, err := c.SExpire(ctx, k, time.Hour, ExpireNX, "a", "b")
				require.NoError(t, err)
				require.Equal(t, []int64{1, 1}, got, "SEXPIRE NX")
				got, err = c.SPersist(ctx, k, "a")
				require.NoError(t, err)
				require.Equal(t, []int64{1}, got, "SPERSIST")
				got, err = c.SExpire(ctx, k, 0, ExpireAlways, "b")
				require.NoError(t, err)
				require.Equal(t, []int64{2}, got, "SEXPIRE 0")
				n, err := c.SAddEx(ctx, k, time.Hour, false, "d", "a")
				require.NoError(t, err)
				require.EqualValues(t, 1, n, "SADDEX")
				got, err = c.ZExpire(ctx, k+"z", time.Hour, ExpireAlways, "x")
				require.NoError(t, err)
				require.Equal(t, []int64{-2}, got)
			}
			checkStoredCounts(t, p)
		})
	}
}

// FINDING. Key-level expiry commands on a key whose members all expired
// (a missing key). Redis: TTL → -2, PEXPIRETIME → -2, PERSIST → 0,
// EXPIRE → 0. redimo: TTL -1, PEXPIRETIME -1 (expire.go:278 pttl and
// expire.go:306 PExpireTime read getMeta without settle) and EXPIRE true
// (expire.go:157, same), which also writes an expiry onto the missing key.
func TestReviewKeyExpiryOnAllExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	allExpiredSet(t, ctx, c, clock, k, "a")
	type view struct {
		Expire, Persist bool
		TTL             time.Duration
		ExpireTime      int64
		Errs            []string
	}
	var v view
	var err error
	note := func(err error) {
		if err != nil {
			v.Errs = append(v.Errs, err.Error())
		}
	}
	v.TTL, err = c.TTL(ctx, k)
	note(err)
	v.ExpireTime, err = c.PExpireTime(ctx, k)
	note(err)
	v.Persist, err = c.Persist(ctx, k)
	note(err)
	v.Expire, err = c.Expire(ctx, k, time.Hour)
	note(err)
	require.Equal(t, view{TTL: -2, ExpireTime: -2}, v, "EXPIRE, PERSIST, TTL, PEXPIRETIME of a missing key")
}

// FINDING (low severity, API edge). SAddEx with a time to live under a
// millisecond (d > 0 passes its check) stores the member with expiry =
// now (d.Milliseconds() is 0: memberttl.go SAddEx at := c.nowMs() +
// d.Milliseconds()), so it replies 1 (added) for a member that is
// already expired and invisible. Expected: refuse it as d <= 0 is refused
// (ErrOutOfRange), or round up to 1 ms so that the member exists.
func TestReviewSAddExSubMillisecond(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	k := p + "s"
	n, err := c.SAddEx(ctx, k, 500*time.Microsecond, false, "a")
	if err != nil {
		require.ErrorIs(t, err, ErrOutOfRange) // refusing it is fine too
		return
	}
	in, err := c.SIsMember(ctx, k, "a")
	require.NoError(t, err)
	require.Equal(t, []any{int64(1), true}, []any{n, in}, "SADDEX 0.5 ms: reply 1, yet the member is already gone")
}

// Sorted-set algebra with a plain set source (score 1) whose members
// partly expired; ZDIFF/ZINTER/ZUNION skip them, with WEIGHTS and stores.
func TestReviewZAlgebraWithSetSource(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	z, s := p+"z", p+"s"
	_, err := c.ZAdd(ctx, z, Z{1, "a"}, Z{2, "b"}, Z{3, "c"})
	require.NoError(t, err)
	_, err = c.SAdd(ctx, s, "a", "b", "c", "d")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, s, time.Second, ExpireAlways, "b", "d")
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, z, time.Second, ExpireAlways, "c")
	require.NoError(t, err)
	clock.Add(time.Second)
	inter, err := c.ZInterWithScores(ctx, &ZStore{Keys: []string{z, s}, Weights: []float64{10, 1}})
	require.NoError(t, err)
	require.Equal(t, []Z{{11, "a"}}, inter)
	union, err := c.ZUnionWithScores(ctx, ZStore{Keys: []string{z, s}})
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "c"}, {2, "a"}, {2, "b"}}, union)
	diff, err := c.ZDiffWithScores(ctx, s, z)
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "c"}}, diff)
	n, err := c.ZInterCard(ctx, 0, z, s)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.ZDiffStore(ctx, p+"d", s, z)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.ZInterStore(ctx, z, &ZStore{Keys: []string{z, s}})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	checkStoredCounts(t, p)
}
