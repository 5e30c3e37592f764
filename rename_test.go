package redimo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRenameCopy(t *testing.T) {
	ctx, c, _, p := setup(t)
	z, s, none := p+"z", p+"s", p+"none"
	var zs []Z
	for i := range 150 { // two transactions of members
		zs = append(zs, Z{float64(i % 7), fmt.Sprint("m", i)})
	}
	_, err := c.ZAdd(ctx, z, zs...)
	require.NoError(t, err)
	_, err = c.Expire(ctx, z, time.Hour)
	require.NoError(t, err)
	_, err = c.SAdd(ctx, s, "a", "b")
	require.NoError(t, err)
	want, err := c.ZRangeWithScores(ctx, z, 0, -1)
	require.NoError(t, err)

	require.ErrorIs(t, c.Rename(ctx, none, s), ErrNoSuchKey)
	_, err = c.RenameNX(ctx, none, p+"x")
	require.ErrorIs(t, err, ErrNoSuchKey)
	require.NoError(t, c.Rename(ctx, s, s), "same key: a no-op")
	ok, err := c.RenameNX(ctx, z, s)
	require.NoError(t, err)
	require.False(t, ok, "the destination exists")

	// RENAME onto a key of another type replaces it; the expiry goes along.
	require.NoError(t, c.Rename(ctx, z, s))
	n, err := c.Exists(ctx, z)
	require.NoError(t, err)
	require.Zero(t, n)
	got, err := c.ZRangeWithScores(ctx, s, 0, -1)
	require.NoError(t, err)
	require.Equal(t, want, got)
	ttl, err := c.TTL(ctx, s)
	require.NoError(t, err)
	require.InDelta(t, time.Hour.Seconds(), ttl.Seconds(), 5)

	ok, err = c.RenameNX(ctx, s, z)
	require.NoError(t, err)
	require.True(t, ok)

	// COPY: not onto an existing key without REPLACE; the source stays.
	_, err = c.SAdd(ctx, s, "x")
	require.NoError(t, err)
	ok, err = c.Copy(ctx, z, s, false)
	require.NoError(t, err)
	require.False(t, ok)
	ok, err = c.Copy(ctx, z, s, true)
	require.NoError(t, err)
	require.True(t, ok)
	got, err = c.ZRangeWithScores(ctx, s, 0, -1)
	require.NoError(t, err)
	require.Equal(t, want, got)
	n, err = c.ZCard(ctx, z)
	require.NoError(t, err)
	require.EqualValues(t, 150, n)
	ok, err = c.Copy(ctx, none, p+"y", true)
	require.NoError(t, err)
	require.False(t, ok)
	_, err = c.Copy(ctx, z, z, true)
	require.ErrorIs(t, err, ErrSameKey)
	require.ErrorIs(t, err, ErrInvalidArgument)
}

// renameKeeps renames src to dst and requires dst to answer src's members
// and scores, all of them and those ranked from to from+2.
func renameKeeps(t *testing.T, ctx context.Context, c *Client, src, dst string, from int64) {
	t.Helper()
	want, err := c.ZRangeWithScores(ctx, src, 0, -1)
	require.NoError(t, err)
	require.NoError(t, c.Rename(ctx, src, dst))
	returns(t, want)(c.ZRangeWithScores(ctx, dst, 0, -1))
	returns(t, want[from:from+3])(c.ZRangeWithScores(ctx, dst, from, from+2))
}

// Checked, right: COPY and RENAME carry member expiries (mx, and mn on
// the destination), as Redis 8 keeps hash-field TTLs on COPY and RENAME;
// a member expired but not yet swept is not carried; long members (> 1015
// bytes) and long keys (> 2047 bytes) go through, and SCAN/KEYS/EXISTS
// see exactly the live keys after.
func TestKeysCopyRenameMemberExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	long := strings.Repeat("L", 1500) + "x"
	s, z, z2 := p+"s", p+"z", p+"z2"
	longKey := p + strings.Repeat("K", 2100)
	returns(t, int64(4))(c.SAdd(ctx, s, "a", "b", "c", long))
	returns(t, []int64{1, 1})(c.SExpire(ctx, s, 10*time.Second, ExpireAlways, "a", long))
	returns(t, []int64{1})(c.SExpire(ctx, s, time.Second, ExpireAlways, "b"))
	returns(t, int64(3))(c.ZAdd(ctx, z, Z{1, "a"}, Z{2, long}, Z{3, "c"}))
	returns(t, []int64{1, 1})(c.ZExpire(ctx, z, 10*time.Second, ExpireAlways, "a", long))
	returns(t, true)(c.Expire(ctx, z, time.Hour))
	clock.Add(2 * time.Second) // b expired, not swept

	returns(t, true)(c.Copy(ctx, s, longKey, false))
	returns(t, []int64{8, 8, -2, -1})(c.STTL(ctx, longKey, "a", long, "b", "c"))
	returns(t, int64(3))(c.SCard(ctx, longKey))
	require.NoError(t, c.Rename(ctx, z, z2))
	returns(t, []int64{8, 8, -1})(c.ZTTL(ctx, z2, "a", long, "c"))
	returns(t, []string{"a", long, "c"})(c.ZRange(ctx, z2, 0, -1))
	ttl, err := c.TTL(ctx, z2)
	require.NoError(t, err)
	require.InDelta(t, (time.Hour - 2*time.Second).Seconds(), ttl.Seconds(), 1)
	require.NoError(t, c.Rename(ctx, longKey, p+"short"))
	returns(t, []int64{8, 8, -1})(c.STTL(ctx, p+"short", "a", long, "c"))
	checkStoredCounts(t, p)
	keys, err := c.Keys(ctx, globEscape(p)+"*")
	require.NoError(t, err)
	slices.Sort(keys)
	require.Equal(t, []string{p + "s", p + "short", p + "z2"}, keys)
	returns(t, int64(0))(c.Exists(ctx, z, longKey))

	clock.Add(9 * time.Second) // a and long expire: only c is left in each
	returns(t, true)(c.Copy(ctx, z2, p+"z3", false))
	returns(t, []string{"c"})(c.ZRange(ctx, p+"z3", 0, -1))
	checkStoredCounts(t, p)
}

// Checked, right: a copy or rename onto a ranked sorted set of the other
// type and back leaves the destination's ranks exact, for the client that
// knew the old count items and for a fresh one; a ranked source renamed
// onto a ranked destination too.
func TestKeysRankedDestination(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx, c, fresh, p := twoRanked(t)
	a, b, s := p+"a", p+"b", p+"s"
	require.Greater(t, buildRanked(t, c, a, 40, 40), 1)
	returns(t, int64(2))(c.SAdd(ctx, s, "x", "y"))
	require.NoError(t, c.Rename(ctx, s, a)) // a: a set now
	returns(t, "set")(c.Type(ctx, a))
	returns(t, int64(30))(c.ZAdd(ctx, b, scored(numbered("n%02d", 30), func(i int) float64 { return float64(100 - i) })...))
	returns(t, true)(c.Copy(ctx, b, a, true)) // a: a zset again, unranked
	for _, cl := range []*Client{c, fresh} {
		returns(t, rankAt(24))(both(cl.ZRank(ctx, a, "n05"))) // score 95: rank 24
		returns(t, []string{"n07", "n06", "n05"})(cl.ZRange(ctx, a, 22, 24))
	}
	checkRankItems(t, c, a)
	for _, k := range []string{p + "r", b} { // b: 70 members
		require.Greater(t, buildRanked(t, c, k, 40, 40), 1)
	}
	require.NoError(t, c.Rename(ctx, p+"r", a)) // ranked onto ranked
	require.NoError(t, c.Rename(ctx, b, p+"r"))
	returns(t, int64(40))(c.ZCard(ctx, a))
	for _, cl := range []*Client{c, fresh} {
		returns(t, rankAt(33))(both(cl.ZRank(ctx, a, "m033")))
	}
	returns(t, int64(1))(c.ZAdd(ctx, a, Z{Score: 0.5, Member: "new"}))
	returns(t, rankAt(34))(both(fresh.ZRank(ctx, a, "m033")))
	rankedExact(t, c, a, p)
}

// Checked, right: COPY and RENAME of keys of 150 members (two chunks),
// some with member expiries, under lost responses, applied-then-500 and
// conflicts: the copy holds the members, the counts and mn stay exact.
func TestKeysCopyRenameUnderFaults(t *testing.T) {
	underFaults(t, func(t *testing.T, ctx context.Context, c *Client, p string) {
		z := p + "z"
		returns(t, int64(150))(c.ZAdd(ctx, z, scored(numbered("m%d", 150), func(i int) float64 { return float64(i % 7) })...))
		returns(t, []int64{1, 1, 1})(c.ZExpire(ctx, z, time.Hour, ExpireAlways, "m1", "m2", "m140"))
		want, err := c.ZRangeWithScores(ctx, z, 0, -1)
		require.NoError(t, err)
		returns(t, true)(c.Copy(ctx, z, p+"c", false))
		require.NoError(t, c.Rename(ctx, z, p+"r"))
		returns(t, want)(c.ZRangeWithScores(ctx, p+"c", 0, -1))
		returns(t, want)(c.ZRangeWithScores(ctx, p+"r", 0, -1))
		returns(t, int64(0))(c.Exists(ctx, z))
		checkStoredCounts(t, p)
	})
}

// Checked, right: RENAME of a ranked sorted set onto another ranked one,
// and DEL, under lost responses, applied-then-500 and conflicts: the
// destination's ranks and deep ranges are exact afterwards.
func TestKeysRankedRenameUnderFaults(t *testing.T) {
	underFaults(t, func(t *testing.T, ctx context.Context, c *Client, p string) {
		c.ranks.max, c.ranks.min = 4, 8
		a, b := p+"a", p+"b"
		require.Greater(t, buildRanked(t, c, a, 40, 40), 1)
		require.Greater(t, buildRanked(t, c, b, 40, 10), 1)
		renameKeeps(t, ctx, c, a, b, 30)
		returns(t, rankAt(31))(both(c.ZRank(ctx, b, "m031")))
		returns(t, int64(1))(c.ZAdd(ctx, b, Z{Score: 30.5, Member: "x"}))
		returns(t, rankAt(8))(both(c.ZRevRank(ctx, b, "m031")))
		rankedExact(t, c, b, p)
	})
}
