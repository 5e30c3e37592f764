package redimo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// TestSAddExArgs: Redis 8.12's SADDEX options one by one, with the expiry
// each member ends with (on a fake clock, so exact), and the stored
// counts (n, mn) kept exact.
func TestSAddExArgs(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	add := func(a SAddExArgs, members ...string) bool {
		t.Helper()
		a.Members = members
		ok, err := c.SAddExArgs(ctx, k, a)
		require.NoError(t, err)
		return ok
	}
	require.True(t, add(SAddExArgs{TTL: 100 * time.Second}, "a", "b"))
	returns(t, []int64{100_000, 100_000})(c.SPTTL(ctx, k, "a", "b"))
	require.True(t, add(SAddExArgs{KeepTTL: true}, "a", "c"))
	returns(t, []int64{100_000, -1})(c.SPTTL(ctx, k, "a", "c"))
	require.False(t, add(SAddExArgs{Mode: SAddExMNX, TTL: 5 * time.Second}, "a", "d"), "a exists")
	returns(t, []int64{100_000, -2})(c.SPTTL(ctx, k, "a", "d"))
	require.True(t, add(SAddExArgs{Mode: SAddExMNX, TTL: 5 * time.Second}, "d", "e", "d"))
	returns(t, []int64{5000, 5000})(c.SPTTL(ctx, k, "d", "e"))
	require.False(t, add(SAddExArgs{Mode: SAddExMXX, TTL: time.Second}, "a", "zz"))
	require.False(t, add(SAddExArgs{Mode: SAddExMXX, KeepTTL: true}, "zz"))
	returns(t, []int64{100_000, -2})(c.SPTTL(ctx, k, "a", "zz"))
	// MXX: a with an expiry, c without one, both get the new one.
	require.True(t, add(SAddExArgs{Mode: SAddExMXX, ExpireAt: clock.Now().Add(time.Hour)}, "a", "c"))
	returns(t, []int64{3_600_000, 3_600_000})(c.SPTTL(ctx, k, "a", "c"))
	require.True(t, add(SAddExArgs{Mode: SAddExMXX, KeepTTL: true}, "a", "c", "d"))
	returns(t, []int64{3_600_000, 3_600_000, 5000})(c.SPTTL(ctx, k, "a", "c", "d"))
	require.True(t, add(SAddExArgs{Mode: SAddExMXX}, "a", "b"), "no option: the expiries go")
	returns(t, []int64{-1, -1})(c.SPTTL(ctx, k, "a", "b"))
	require.True(t, add(SAddExArgs{}, "c", "f"), "no option: c loses its expiry, f has none")
	returns(t, []int64{-1, -1})(c.SPTTL(ctx, k, "c", "f"))
	checkStoredCounts(t, k)
	returns(t, int64(6))(c.SCard(ctx, k))

	// An expired member is a missing one to MNX and MXX.
	clock.Add(6 * time.Second) // d and e expire
	require.False(t, add(SAddExArgs{Mode: SAddExMXX, KeepTTL: true}, "a", "d"))
	require.False(t, add(SAddExArgs{Mode: SAddExMXX, TTL: time.Minute}, "e"))
	require.False(t, add(SAddExArgs{Mode: SAddExMXX, ExpireAt: time.Unix(1, 0)}, "a", "e"))
	returns(t, int64(4))(c.SCard(ctx, k))
	require.True(t, add(SAddExArgs{Mode: SAddExMNX, ExpireAt: time.Unix(1, 0)}, "d", "zz"), "MNX in the past: only checks")
	require.True(t, add(SAddExArgs{Mode: SAddExMNX}, "d", "zz"))
	returns(t, []int64{-1, -1, -2})(c.SPTTL(ctx, k, "d", "zz", "e"))
	checkStoredCounts(t, k)

	// A time not after now deletes the members named and adds none.
	require.True(t, add(SAddExArgs{ExpireAt: clock.Now()}, "a", "new"))
	require.True(t, add(SAddExArgs{Mode: SAddExMXX, ExpireAt: clock.Now()}, "b", "c"))
	members, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []string{"d", "f", "zz"}, members)
	require.True(t, add(SAddExArgs{ExpireAt: time.Unix(1, 0)}, "d", "f", "zz"))
	returns(t, int64(0))(c.Exists(ctx, k))
	checkStoredCounts(t, k)
	require.True(t, add(SAddExArgs{ExpireAt: time.Unix(1, 0)}, "a"))
	returns(t, int64(0))(c.Exists(ctx, k))

	// Long members (stored as a prefix plus the whole member): MXX checks
	// that the item holds this member, MNX that it holds none.
	long := strings.Repeat("L", 2000)
	require.True(t, add(SAddExArgs{Mode: SAddExMNX}, long+"1"))
	require.False(t, add(SAddExArgs{Mode: SAddExMXX, KeepTTL: true}, long+"1", long+"2"))
	require.True(t, add(SAddExArgs{Mode: SAddExMXX, KeepTTL: true}, long+"1"))
	require.True(t, add(SAddExArgs{Mode: SAddExMNX, ExpireAt: time.Unix(1, 0)}, long+"3"))
	require.False(t, add(SAddExArgs{Mode: SAddExMNX, ExpireAt: time.Unix(1, 0)}, long+"1"))
	checkStoredCounts(t, k)
}

// TestSAddExArgsBadInput: rejected options name the argument, and no
// request is made.
func TestSAddExArgsBadInput(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	for _, a := range []struct {
		args SAddExArgs
		want error
	}{
		{SAddExArgs{Members: []string{"a"}, TTL: -time.Second}, ErrOutOfRange},
		{SAddExArgs{Members: []string{"a"}, TTL: time.Second, KeepTTL: true}, ErrSyntax},
		{SAddExArgs{Members: []string{"a"}, ExpireAt: time.Now(), KeepTTL: true}, ErrSyntax},
		{SAddExArgs{Members: []string{"a"}, TTL: time.Second, ExpireAt: time.Now()}, ErrSyntax},
		{SAddExArgs{Members: []string{"a"}, Mode: "NX"}, ErrSyntax},
		{SAddExArgs{}, ErrSyntax},
	} {
		_, err := c.SAddExArgs(ctx, p+"s", a.args)
		require.ErrorIs(t, err, a.want, "%+v", a.args)
		require.ErrorIs(t, err, ErrInvalidArgument)
	}
	require.Zero(t, cnt.requests.Load(), "no request: %s", cnt)
}

// TestSAddExArgsBeyondOneTransaction: MNX and MXX are atomic only within
// one TransactWriteItems, so a call that needs more (100 distinct
// members, or more than 4 MB of long members) is refused before any
// write; without MNX/MXX it goes in transactions of 99, as SAdd.
func TestSAddExArgsBeyondOneTransaction(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "s"
	for _, mode := range []SAddExCondition{SAddExMNX, SAddExMXX} {
		_, err := c.SAddExArgs(ctx, k, SAddExArgs{Mode: mode, Members: numbered("m%d", 100)})
		require.ErrorIs(t, err, ErrTxTooBig, mode)
		big := make([]string, 12) // 12 × 390 KB: over 4 MB
		for i := range big {
			big[i] = fmt.Sprint(i) + strings.Repeat("b", 390_000)
		}
		_, err = c.SAddExArgs(ctx, k, SAddExArgs{Mode: mode, Members: big})
		require.ErrorIs(t, err, ErrTxTooBig, mode)
	}
	require.Zero(t, cnt.requests.Load(), "nothing sent: %s", cnt)
	returns(t, int64(0))(c.Exists(ctx, k))

	// 99 distinct members (one named twice) fit: one transaction.
	ok, err := c.SAddExArgs(ctx, k, SAddExArgs{Mode: SAddExMNX, Members: append(numbered("m%d", 99), "m0")})
	require.NoError(t, err)
	require.True(t, ok)
	returns(t, int64(99))(c.SCard(ctx, k))
	ok, err = c.SAddExArgs(ctx, k, SAddExArgs{Members: numbered("m%d", 150)})
	require.NoError(t, err)
	require.True(t, ok)
	returns(t, int64(150))(c.SCard(ctx, k))
	checkStoredCounts(t, k)
}

// TestSAddExArgsConcurrentMNX: concurrent SADDEX MNX calls on
// overlapping pairs of members. Each adds both of its members or
// neither, so the set is exactly the union of the pairs of the calls that
// reported true, and those pairs are disjoint.
func TestSAddExArgsConcurrentMNX(t *testing.T) {
	t.Parallel()
	ctx, c, _, p := setup(t)
	rounds, n := testenv.Budget(3, 10), testenv.Budget(8, 16)
	for r := range rounds {
		k := fmt.Sprintf("%ss%d", p, r)
		won := make([]bool, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pair := []string{fmt.Sprint(i), fmt.Sprint((i + 1) % n)}
				ok, err := c.SAddExArgs(ctx, k, SAddExArgs{Mode: SAddExMNX, TTL: time.Hour, Members: pair})
				if err != nil && !errors.Is(err, ErrContention) {
					t.Error(err)
				}
				won[i] = ok
			}()
		}
		wg.Wait()
		var want []string
		for i, ok := range won {
			if ok {
				want = append(want, fmt.Sprint(i), fmt.Sprint((i+1)%n))
			}
		}
		slices.Sort(want)
		require.Equal(t, len(want), len(slices.Compact(slices.Clone(want))), "round %d: pairs overlap: %v", r, want)
		got, err := c.SMembers(ctx, k)
		require.NoError(t, err)
		slices.Sort(got)
		require.Equal(t, want, got, "round %d", r)
		require.NotEmpty(t, got, "round %d: one call at least wins", r)
		checkStoredCounts(t, k)
	}
}

// TestSAddExArgsInTx: inside MULTI (TxPipelined) SADDEX answers seeing
// the transaction's earlier writes, MNX and MXX included.
func TestSAddExArgsInTx(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	k := p + "s"
	var oks []bool
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		for _, a := range []SAddExArgs{
			{TTL: time.Minute, Members: []string{"a", "b"}},
			{Mode: SAddExMNX, Members: []string{"b", "c"}},
			{Mode: SAddExMXX, KeepTTL: true, Members: []string{"a", "b"}},
			{Mode: SAddExMXX, Members: []string{"b", "c"}},
			{Mode: SAddExMXX, Members: []string{"b"}},
			{Mode: SAddExMNX, ExpireAt: time.Unix(1, 0), Members: []string{"c"}},
			{ExpireAt: time.Unix(1, 0), Members: []string{"a"}},
		} {
			ok, err := tx.SAddExArgs(ctx, k, a)
			if err != nil {
				return err
			}
			oks = append(oks, ok)
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, true, false, true, true, true}, oks)
	returns(t, []string{"b"})(c.SMembers(ctx, k))
	returns(t, []int64{-1})(c.SPTTL(ctx, k, "b"))
	checkStoredCounts(t, k)
}
