package redimo

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShardedSetConcurrentAdd(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	s := c.ShardedSet(p+"visitors", 16)

	// 32 goroutines add overlapping visitors; Add's "new" answers sum to the
	// number of distinct visitors, and so does Card.
	var newVisitors atomic.Int64
	runWorkers(32, func(w int) {
		for i := range 20 {
			n, err := s.Add(ctx, fmt.Sprintf("u%d", (w*7+i)%300), fmt.Sprintf("u%d", (w*13+i*3)%300))
			require.NoError(t, err)
			newVisitors.Add(n)
		}
	})
	distinct := map[string]bool{}
	for w := range 32 {
		for i := range 20 {
			distinct[fmt.Sprintf("u%d", (w*7+i)%300)] = true
			distinct[fmt.Sprintf("u%d", (w*13+i*3)%300)] = true
		}
	}
	cnt.reset()
	card, err := s.Card(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, cnt.requests.Load(), "Card of a 16-shard set is one request: %s", cnt)
	require.EqualValues(t, len(distinct), card)
	require.EqualValues(t, len(distinct), newVisitors.Load())

	var members []string
	for m, err := range s.Members(ctx) {
		require.NoError(t, err)
		members = append(members, m)
	}
	require.Len(t, members, len(distinct))
	for _, m := range members {
		require.True(t, distinct[m], m)
	}
	// Members really are spread over the shards.
	used := 0
	for i := range 16 {
		n, err := c.SCard(ctx, s.shard(i))
		require.NoError(t, err)
		if n > 0 {
			used++
		}
	}
	require.Equal(t, 16, used)
}

func TestShardedSetCommands(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	a, b := c.ShardedSet(p+"a", 4), c.ShardedSet(p+"b", 4)
	_, err := a.Add(ctx, "x", "y", "z", "w")
	require.NoError(t, err)
	_, err = b.Add(ctx, "y", "z", "q")
	require.NoError(t, err)

	cnt.reset()
	ok, err := a.IsMember(ctx, "x")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 1, cnt.requests.Load())
	flags, err := a.MIsMember(ctx, "x", "q", "w")
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, true}, flags)

	inter, err := a.Inter(ctx, b)
	require.NoError(t, err)
	require.Equal(t, []string{"y", "z"}, sorted(inter))
	union, err := a.Union(ctx, b)
	require.NoError(t, err)
	require.Equal(t, []string{"q", "w", "x", "y", "z"}, sorted(union))
	diff, err := a.Diff(ctx, b)
	require.NoError(t, err)
	require.Equal(t, []string{"w", "x"}, sorted(diff))

	m, ok, err := a.RandMember(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.Contains(t, []string{"w", "x", "y", "z"}, m)

	n, err := a.Rem(ctx, "x", "nope")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	var popped []string
	for {
		m, ok, err := a.Pop(ctx)
		require.NoError(t, err)
		if !ok {
			break
		}
		popped = append(popped, m)
	}
	require.Equal(t, []string{"w", "y", "z"}, sorted(popped))
	card, err := a.Card(ctx)
	require.NoError(t, err)
	require.Zero(t, card)

	// Another shard count on the same key fails, for writes, reads and Card.
	wrong := c.ShardedSet(p+"b", 8)
	_, err = wrong.Add(ctx, "y")
	require.ErrorIs(t, err, ErrShardCount)
	_, err = wrong.Card(ctx)
	require.ErrorIs(t, err, ErrShardCount)
	_, err = wrong.IsMember(ctx, "y")
	require.ErrorIs(t, err, ErrShardCount)
	_, err = a.Inter(ctx, c.ShardedSet(p+"c", 8))
	require.ErrorIs(t, err, ErrShardCount)
	_, err = c.ShardedSet(p+"d", 0).Add(ctx, "x")
	require.ErrorIs(t, err, ErrOutOfRange)
}
