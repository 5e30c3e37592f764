package redimo

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every kind of write to a watched key is seen by Changed, from this
// Client or another; reads and writes that change nothing are not.
func TestWatchSeesWrites(t *testing.T) {
	ctx, c, _, p := setup(t)
	other, _, _ := newTestClient(t)
	z, s, none := p+"z", p+"s", p+"none"
	_, err := c.ZAdd(ctx, z, Z{1, "a"}, Z{2, "b"})
	require.NoError(t, err)
	_, err = c.SAdd(ctx, s, "x")
	require.NoError(t, err)

	for _, tc := range []struct {
		name    string
		key     string
		write   func() error
		changed bool
	}{
		{"read", z, func() error { _, err := c.ZRange(ctx, z, 0, -1); return err }, false},
		{"ZADD same score", z, func() error { _, err := c.ZAdd(ctx, z, Z{1, "a"}); return err }, false},
		{"ZREM absent member", z, func() error { _, err := c.ZRem(ctx, z, "nope"); return err }, false},
		{"ZADD new score", z, func() error { _, err := c.ZAdd(ctx, z, Z{5, "a"}); return err }, true},
		{"ZADD from another Client", z, func() error { _, err := other.ZAdd(ctx, z, Z{3, "c"}); return err }, true},
		{"ZINCRBY", z, func() error { _, err := c.ZIncrBy(ctx, z, 1, "b"); return err }, true},
		{"SREM", s, func() error { _, err := c.SRem(ctx, s, "x"); return err }, true}, // deletes the key
		{"SADD creates", s, func() error { _, err := c.SAdd(ctx, s, "y"); return err }, true},
		{"EXPIRE", s, func() error { _, err := c.Expire(ctx, s, time.Hour); return err }, true},
		{"PERSIST", s, func() error { _, err := c.Persist(ctx, s); return err }, true},
		{"missing key stays missing", none, func() error { _, err := c.SRem(ctx, none, "a"); return err }, false},
		{"DEL", z, func() error { _, err := c.Del(ctx, z); return err }, true},
	} {
		w, err := c.WatchKeys(ctx, tc.key, p+"unrelated")
		require.NoError(t, err)
		changed, err := w.Changed(ctx)
		require.NoError(t, err)
		require.False(t, changed, tc.name)
		require.NoError(t, tc.write(), tc.name)
		changed, err = w.Changed(ctx)
		require.NoError(t, err)
		require.Equal(t, tc.changed, changed, tc.name)
	}
}

// The WATCH retry loop: TxPipelined fails with ErrTxFailed when a watched key
// changed between the watch and the write, and runs the writes otherwise.
func TestWatchExec(t *testing.T) {
	ctx, c, _, p := setup(t)
	other, _, _ := newTestClient(t)
	k := p + "balance"
	_, err := c.ZAdd(ctx, k, Z{10, "alice"})
	require.NoError(t, err)

	tries := 0
	for {
		tries++
		err := c.Watch(ctx, func(tx *Tx) error {
			score, _, err := tx.ZScore(ctx, k, "alice")
			if err != nil {
				return err
			}
			if tries == 1 { // a concurrent writer gets in first
				if _, err := other.ZIncrBy(ctx, k, 5, "alice"); err != nil {
					return err
				}
			}
			return tx.TxPipelined(ctx, func(p Pipeliner) error {
				_, err := p.ZAdd(ctx, k, Z{score * 2, "alice"})
				return err
			})
		}, k)
		if errors.Is(err, ErrTxFailed) {
			continue
		}
		require.NoError(t, err)
		break
	}
	require.Equal(t, 2, tries)
	score, _, err := c.ZScore(ctx, k, "alice")
	require.NoError(t, err)
	require.Equal(t, 30.0, score, "doubled after the concurrent +5, not before")
}
