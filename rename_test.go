package redimo

import (
	"fmt"
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
