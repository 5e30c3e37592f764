package redimo

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestKeyExpiry(t *testing.T) {
	// Member items, whose purge this checks (small sets: TestSmallSetExpiry).
	ctx, c, p, clock := setupClocked(t, func(o *Options) { o.DisableSmallSets = true })
	k, other := p+"k", p+"other"
	_, err := c.SAdd(ctx, k, "a", "b")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, other, "b", "z")
	require.NoError(t, err)

	ttl := func(key string) time.Duration {
		d, err := c.TTL(ctx, key)
		require.NoError(t, err)
		return d
	}
	ok := func(b bool, err error) bool {
		require.NoError(t, err)
		return b
	}
	require.Equal(t, TTLPersistent, ttl(k))
	require.Equal(t, TTLMissing, ttl(p+"missing"))
	require.False(t, ok(c.Expire(ctx, p+"missing", time.Second)))

	require.True(t, ok(c.Expire(ctx, k, 10*time.Second)))
	require.Equal(t, 10*time.Second, ttl(k))
	clock.Add(1400 * time.Millisecond)
	require.Equal(t, 9*time.Second, ttl(k), "TTL rounds to the second")
	pttl, err := c.PTTL(ctx, k)
	require.NoError(t, err)
	require.Equal(t, 8600*time.Millisecond, pttl)

	require.False(t, ok(c.ExpireWith(ctx, k, 20*time.Second, ExpireNX)))
	require.True(t, ok(c.ExpireWith(ctx, k, 20*time.Second, ExpireXX)))
	require.False(t, ok(c.ExpireWith(ctx, k, 5*time.Second, ExpireGT)))
	require.True(t, ok(c.ExpireWith(ctx, k, 5*time.Second, ExpireLT)))
	require.True(t, ok(c.ExpireWith(ctx, k, 30*time.Second, ExpireGT)))
	require.Equal(t, 30*time.Second, ttl(k))
	require.False(t, ok(c.ExpireWith(ctx, other, time.Second, ExpireXX)), "XX needs an expiry")
	require.False(t, ok(c.ExpireWith(ctx, other, time.Second, ExpireGT)), "no expiry counts as infinite for GT")
	_, err = c.ExpireWith(ctx, k, time.Second, ExpireCondition(99))
	require.ErrorIs(t, err, ErrSyntax)

	require.True(t, ok(c.Persist(ctx, k)))
	require.False(t, ok(c.Persist(ctx, k)))
	require.Equal(t, TTLPersistent, ttl(k))

	// Expired: every command sees a missing key.
	require.True(t, ok(c.PExpireAt(ctx, k, clock.Now().Add(10*time.Second))))
	clock.Add(10 * time.Second)
	n, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n)
	typ, err := c.Type(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "none", typ)
	card, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.Zero(t, card)
	require.False(t, ok(c.SIsMember(ctx, k, "a")))
	flags, err := c.SMIsMember(ctx, k, "a", "b")
	require.NoError(t, err)
	require.Equal(t, []bool{false, false}, flags)
	members, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Empty(t, members)
	for m, err := range c.SScan(ctx, k, "a*") {
		require.NoError(t, err)
		t.Fatalf("SSCAN of an expired key yielded %q", m)
	}
	rnd, err := c.SRandMemberN(ctx, k, 5)
	require.NoError(t, err)
	require.Empty(t, rnd)
	inter, err := c.SInter(ctx, k, other)
	require.NoError(t, err)
	require.Empty(t, inter)
	union, err := c.SUnion(ctx, k, other)
	require.NoError(t, err)
	require.Equal(t, []string{"b", "z"}, sorted(union))
	diff, err := c.SDiff(ctx, other, k)
	require.NoError(t, err)
	require.Equal(t, []string{"b", "z"}, sorted(diff))
	require.False(t, ok(c.SMove(ctx, k, other, "a")))
	n, err = c.SRem(ctx, k, "a", "b")
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, TTLMissing, ttl(k))
	require.False(t, ok(c.Expire(ctx, k, time.Minute)))
	require.False(t, ok(c.Persist(ctx, k)))

	// A write to the expired key starts a fresh key: the old members are purged.
	n, err = c.SAdd(ctx, k, "c", "a")
	require.NoError(t, err)
	require.EqualValues(t, 2, n, "the old a does not count as present")
	members, err = c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, members)
	card, err = c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, card)
	require.Equal(t, TTLPersistent, ttl(k))
	require.Len(t, scanTable(t, k), 3, "metadata + a + c, nothing of the old key")

	// Expire with a time already past deletes the key.
	require.True(t, ok(c.Expire(ctx, k, -time.Second)))
	require.Empty(t, scanTable(t, k))

	// DEL of an expired key answers 0 and reclaims its items.
	_, err = c.SAdd(ctx, k, "x")
	require.NoError(t, err)
	require.True(t, ok(c.Expire(ctx, k, time.Second)))
	clock.Add(time.Second)
	n, err = c.Del(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Empty(t, scanTable(t, k))

	// *STORE replaces the destination: its expiry goes too.
	require.True(t, ok(c.Expire(ctx, other, time.Minute)))
	_, err = c.SUnionStore(ctx, other, other, p+"missing")
	require.NoError(t, err)
	require.Equal(t, TTLPersistent, ttl(other))

	// An expired key of the other type does not make writes WRONGTYPE.
	z := p + "z"
	makeZSet(t, c, z, "m")
	require.True(t, ok(c.Expire(ctx, z, time.Second)))
	clock.Add(time.Second)
	n, err = c.SAdd(ctx, z, "s")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	typ, err = c.Type(ctx, z)
	require.NoError(t, err)
	require.Equal(t, "set", typ)
}

// Writers racing on an expired key: the purge happens once in effect, the
// old members never count, and the new count is exact.
func TestKeyExpiryConcurrentWriters(t *testing.T) {
	ctx, c, p, clock := setupClocked(t, func(o *Options) { o.DisableSmallSets = true }) // member items
	k := p + "k"
	old := numbered("old%03d", 150) // more than one purge transaction
	_, err := c.SAdd(ctx, k, old...)
	require.NoError(t, err)
	_, err = c.Expire(ctx, k, time.Second)
	require.NoError(t, err)
	clock.Add(time.Second)

	var added atomic.Int64
	runWorkers(8, func(w int) {
		for i := range 5 {
			n, err := c.SAdd(ctx, k, fmt.Sprintf("new%d-%d", w, i), old[w*5+i])
			require.NoError(t, err)
			added.Add(n)
		}
	})
	members, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	card, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 80, added.Load(), "every member counts as new: the old key is gone")
	require.Len(t, members, 80)
	require.EqualValues(t, 80, card)
	require.Len(t, scanTable(t, k), 81)
}

// Times beyond int64 milliseconds are ErrOutOfRange with nothing written
// (they used to wrap into the past and delete the key); the latest time
// int64 milliseconds hold is set, as Redis's PEXPIREAT sets it.
func TestExpireAtRange(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "k"
	_, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	for _, at := range []time.Time{time.Unix(1<<62, 0), time.Unix(-1<<62, 0), time.Unix(math.MaxInt64/1000, 808e6)} {
		ok, err := c.ExpireAt(ctx, k, at)
		require.ErrorIs(t, err, ErrOutOfRange, "%v", at)
		require.ErrorIs(t, err, ErrInvalidArgument)
		require.False(t, ok)
		_, err = c.ExpireAtWith(ctx, k, at, ExpireGT)
		require.ErrorIs(t, err, ErrOutOfRange)
		ms, err := c.PExpireTime(ctx, k)
		require.NoError(t, err)
		require.EqualValues(t, -1, ms, "nothing written")
	}
	ok, err := c.PExpireAt(ctx, k, time.UnixMilli(math.MaxInt64))
	require.NoError(t, err)
	require.True(t, ok)
	ms, err := c.PExpireTime(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, int64(math.MaxInt64), ms)
	s, err := c.ExpireTime(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, int64(math.MaxInt64/1000+1), s, "rounded as Redis's EXPIRETIME")
	ttl, err := c.TTL(ctx, k)
	require.NoError(t, err)
	require.Equal(t, time.Duration(math.MaxInt64), ttl, "beyond a Duration: the largest one")
	// A time far in the past deletes the key, as Redis's EXPIREAT does.
	ok, err = c.PExpireAt(ctx, k, time.UnixMilli(math.MinInt64))
	require.NoError(t, err)
	require.True(t, ok)
	n, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n)
	ms, err = c.PExpireTime(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, -2, ms)
}

// PERSIST of a key whose members all expired answers 0, as Redis's on a
// missing key, and leaves the key's expiry; a key with a member that has
// no expiry of its own is live, and PERSIST stays one UpdateItem there.
func TestPersistMemberExpiries(t *testing.T) {
	c, cnt, p, clock := newClockedClient(t)
	ctx := t.Context()
	gone, some, mixed, dest := p+"gone", p+"some", p+"mixed", p+"dest"
	for _, k := range []string{gone, some, dest} {
		_, err := c.SAddEx(ctx, k, time.Second, false, "a")
		require.NoError(t, err)
	}
	_, err := c.SAddEx(ctx, some, time.Hour, false, "b")
	require.NoError(t, err)
	_, err = c.SAddEx(ctx, mixed, time.Second, false, "a")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, mixed, "b")
	require.NoError(t, err)
	for _, k := range []string{gone, some, mixed, dest} {
		ok, err := c.Expire(ctx, k, time.Hour)
		require.NoError(t, err)
		require.True(t, ok, k)
	}
	clock.Add(2 * time.Second) // every "a" expires

	for _, k := range []string{gone, some, mixed} {
		cnt.reset()
		removed, err := c.Persist(ctx, k)
		require.NoError(t, err)
		require.Equal(t, k != gone, removed, "PERSIST %s", k)
		if k == mixed {
			require.EqualValues(t, 1, cnt.requests.Load(), "PERSIST of a key with a member without expiry: %s", cnt)
		}
	}
	ms, err := c.PTTL(ctx, gone)
	require.NoError(t, err)
	require.Equal(t, TTLMissing, ms, "a key whose members all expired is missing")
	// A STORE's new value has no expiry, as in Redis, also where its
	// destination's members had all expired.
	_, err = c.SUnionStore(ctx, dest, mixed)
	require.NoError(t, err)
	for _, k := range []string{some, mixed, dest} {
		ms, err := c.PTTL(ctx, k)
		require.NoError(t, err)
		require.Equal(t, TTLPersistent, ms, k)
	}
}
