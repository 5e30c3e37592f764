package redimo

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestExpiringSet(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	key := p + "online"
	e := c.ExpiringSet(key)
	members := func() []string {
		var out []string
		for m, err := range e.Members(ctx) {
			require.NoError(t, err)
			out = append(out, m)
		}
		return out
	}
	card := func() int64 {
		n, err := e.Card(ctx)
		require.NoError(t, err)
		return n
	}
	stored := func() int64 { // the key's exact metadata count (ZCARD)
		m, err := c.getMeta(ctx, key)
		require.NoError(t, err)
		return m.Card
	}

	n, err := e.Add(ctx, 10*time.Second, "a", "b", "a")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	n, err = e.Add(ctx, time.Minute, "c")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.EqualValues(t, 3, card())
	ok, err := e.IsMember(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)

	clock.Add(5 * time.Second)
	n, err = e.Add(ctx, 10*time.Second, "a") // re-adding extends: a now expires at +15s
	require.NoError(t, err)
	require.EqualValues(t, 0, n, "a live member re-added is not new")

	clock.Add(6 * time.Second) // +11s: b expired, a (extended) and c live
	ok, err = e.IsMember(ctx, "b")
	require.NoError(t, err)
	require.False(t, ok, "expired members are not members, even before deletion")
	require.EqualValues(t, 2, card())
	require.Equal(t, []string{"a", "c"}, members(), "soonest to expire first")
	left, ok, err := e.TTL(ctx, "c")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 49*time.Second, left)
	require.EqualValues(t, 3, stored(), "b is still stored")

	n, err = e.Add(ctx, 10*time.Second, "b")
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "an expired member added again is new")

	clock.Add(5 * time.Second) // +16s: a expired
	n, err = e.Rem(ctx, "a", "c", "zz")
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "only c was live")
	require.EqualValues(t, 1, stored(), "the write removed a too: only b is stored")
	require.Equal(t, []string{"b"}, members())

	clock.Add(time.Hour)
	require.EqualValues(t, 0, card())
	_, ok, err = e.RandMember(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	require.Empty(t, members())
	n, err = e.Sweep(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Empty(t, scanTable(t, key), "a swept set is deleted")

	_, err = e.Add(ctx, 0, "x")
	require.ErrorIs(t, err, ErrOutOfRange)
	_, err = c.SAdd(ctx, p+"plain", "x")
	require.NoError(t, err)
	_, err = c.ExpiringSet(p+"plain").Add(ctx, time.Second, "x")
	require.ErrorIs(t, err, ErrWrongType)
}

func TestExpiringSetConcurrent(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	e := c.ExpiringSet(p + "sessions")
	var added atomic.Int64
	runWorkers(8, func(w int) {
		for i := range 10 {
			n, err := e.Add(ctx, time.Minute, fmt.Sprint((w+i)%15), fmt.Sprint((w*3+i)%15))
			require.NoError(t, err)
			added.Add(n)
		}
	})
	n, err := e.Card(ctx)
	require.NoError(t, err)
	require.Equal(t, added.Load(), n, "each member counted new once")
	require.EqualValues(t, 15, n)

	m, ok, err := e.RandMember(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotEmpty(t, m)
}

// A key-level expiry on an expiring set hides all its members.
func TestExpiringSetKeyExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	e := c.ExpiringSet(p + "e")
	_, err := e.Add(ctx, time.Hour, "a")
	require.NoError(t, err)
	ok, err := c.Expire(ctx, p+"e", time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	clock.Add(time.Minute)
	live, err := e.IsMember(ctx, "a")
	require.NoError(t, err)
	require.False(t, live)
	n, err := e.Card(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}

// A TTL under a millisecond (the clock's resolution) is rounded up: the
// member Add counts as new is live, not already expired.
func TestExpiringSetSubMillisecondTTL(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	e := c.ExpiringSet(p + "s")
	n, err := e.Add(ctx, 500*time.Microsecond, "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	card, err := e.Card(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, card, "Add counted it new: it is live")
	left, ok, err := e.TTL(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, time.Millisecond, left)
	n, err = e.Add(ctx, 1500*time.Microsecond, "a")
	require.NoError(t, err)
	require.Zero(t, n)
	left, _, err = e.TTL(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, 2*time.Millisecond, left, "1.5 ms is 2 ms")
	clock.Add(2 * time.Millisecond)
	live, err := e.IsMember(ctx, "a")
	require.NoError(t, err)
	require.False(t, live)
}

// TestExpiringSetHugeTTL: promise (expiring.go:192): TTL "returns the time member has left"; Add
// takes any positive ttl, rounded up to whole milliseconds
// (expiring.go:65-68). Before the fix: TTL converts the milliseconds left with
// time.Duration(left) * time.Millisecond (expiring.go:210), which
// overflows for a ttl of math.MaxInt64 (9223372036855 ms after rounding):
// a live member reports a negative TTL.
func TestExpiringSetHugeTTL(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	e := c.ExpiringSet(p + "e")
	returns(t, int64(1))(e.Add(ctx, time.Duration(math.MaxInt64), "m"))
	d, ok, err := e.TTL(ctx, "m")
	require.NoError(t, err)
	require.True(t, ok)
	require.Positive(t, d, "TTL of a live member")
}
