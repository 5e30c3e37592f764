package redimo

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Commands inside TxPipelined answer as Redis's inside MULTI/EXEC (they
// see the transaction's earlier writes), and the writes land together,
// in one TransactWriteItems after the reads.
func TestTxPipelined(t *testing.T) {
	// The keys as member items: a small set is converted when EXEC reads
	// it, two requests more (smallset.go; TestSmallSetExec).
	ctx, c, cnt, p := setup(t, func(o *Options) { o.DisableSmallSets = true })
	s, z, d := p+"s", p+"z", p+"d"
	_, err := c.SAdd(ctx, s, "a", "b")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, d, "x")
	require.NoError(t, err)
	cnt.reset()

	var replies []any
	add := func(vs ...any) { replies = append(replies, vs...) }
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		n, err := tx.SAdd(ctx, s, "b", "c")
		add(n, err)
		n, err = tx.SCard(ctx, s)
		add(n, err)
		ok, err := tx.SMove(ctx, s, p+"dst", "a")
		add(ok, err)
		n, err = tx.ZAdd(ctx, z, Z{1, "m"}, Z{2, "n"})
		add(n, err)
		f, err := tx.ZIncrBy(ctx, z, 2.5, "m")
		add(f, err)
		zs, err := tx.ZPopMin(ctx, z)
		add(zs, err)
		n, err = tx.Del(ctx, d, p+"none")
		add(n, err)
		n, err = tx.SAdd(ctx, z, "wrong")
		add(n, err)
		n, err = tx.Exists(ctx, s, d, z, p+"dst")
		add(n, err)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []any{
		int64(1), nil, int64(3), nil, true, nil, int64(2), nil, 3.5, nil,
		[]Z{{2, "n"}}, nil, int64(1), nil, int64(0), ErrWrongType, int64(3), nil,
	}, replies)
	// One GetItem per key touched (5), a BatchGetItem for the members SADD
	// and SMOVE name on stored keys (2), a Query of the key DEL deletes,
	// and the one TransactWriteItems.
	require.Equal(t, map[string]int64{"GetItem": 5, "BatchGetItem": 2, "Query": 1, "TransactWriteItems": 1}, cnt.byOp, cnt.String())

	members, err := c.SMembers(ctx, s)
	require.NoError(t, err)
	require.Equal(t, []string{"b", "c"}, members)
	zs, err := c.ZRangeWithScores(ctx, z, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{3.5, "m"}}, zs)
	n, err := c.Exists(ctx, d)
	require.NoError(t, err)
	require.Zero(t, n)
}

// A transaction needing more than 100 actions is refused whole; one of
// exactly 100 commits.
func TestTxTooBig(t *testing.T) {
	ctx, c, _, p := setup(t)
	members := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint(i)
		}
		return out
	}
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.SAdd(ctx, p+"a", members(60)...)
		require.NoError(t, err)
		_, err = tx.SAdd(ctx, p+"b", members(39)...)
		require.NoError(t, err)
		return nil
	})
	require.ErrorIs(t, err, ErrTxTooBig, "60+39 members and 2 metadata items: 101")
	n, err := c.Exists(ctx, p+"a", p+"b")
	require.NoError(t, err)
	require.Zero(t, n, "nothing written")

	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.SAdd(ctx, p+"a", members(60)...)
		require.NoError(t, err)
		_, err = tx.SAdd(ctx, p+"b", members(38)...)
		return err
	})
	require.NoError(t, err, "100 actions fit")
	card, err := c.SCard(ctx, p+"b")
	require.NoError(t, err)
	require.Equal(t, int64(38), card)
}

// A transaction past DynamoDB's 4 MB (long members) is refused whole,
// with the reason, before anything is sent.
func TestTxTooBigBytes(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	long := func(i int) string { return fmt.Sprint(i) + strings.Repeat("x", 380_000) }
	cnt.reset()
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		for i := range 10 {
			if _, err := tx.SAdd(ctx, p+"s", long(i)); err != nil {
				return err
			}
		}
		return nil
	})
	require.ErrorIs(t, err, ErrTxTooBig)
	require.Contains(t, err.Error(), "bytes")
	require.Zero(t, cnt.byOp["TransactWriteItems"], cnt.String())
	n, err := c.Exists(ctx, p+"s")
	require.NoError(t, err)
	require.Zero(t, n, "nothing written")
}

// fn's error discards the transaction.
func TestTxPipelinedFnError(t *testing.T) {
	ctx, c, _, p := setup(t)
	boom := errors.New("boom")
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, _ = tx.SAdd(ctx, p+"s", "a")
		return boom
	})
	require.ErrorIs(t, err, boom)
	n, err := c.Exists(ctx, p+"s")
	require.NoError(t, err)
	require.Zero(t, n)
}

// A write by another client to a watched key after the watch check of
// TxPipelined, before its commit, fails the transaction: the check is a
// condition of the same TransactWriteItems.
func TestTxWatchedWriteBeforeCommit(t *testing.T) {
	c, _, p := newTestClient(t)
	ctx, other, _, _ := setup(t)
	k := p + "w"
	_, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	runs := 0
	err = c.Watch(ctx, func(tx *Tx) error {
		return tx.TxPipelined(ctx, func(p Pipeliner) error {
			runs++
			if _, err := p.SAdd(ctx, k+"other", "x"); err != nil {
				return err
			}
			_, err := other.SAdd(ctx, k, "b") // lands after the check, before the commit
			return err
		})
	}, k)
	require.ErrorIs(t, err, ErrTxFailed)
	require.Equal(t, 1, runs)
	n, err := c.Exists(ctx, k+"other")
	require.NoError(t, err)
	require.Zero(t, n, "nothing of the failed transaction written")

	// Expiry changes are changes too.
	err = c.Watch(ctx, func(tx *Tx) error {
		if _, err := other.Expire(ctx, k, time.Hour); err != nil {
			return err
		}
		return tx.TxPipelined(ctx, func(p Pipeliner) error { _, err := p.SCard(ctx, k); return err })
	}, k)
	require.ErrorIs(t, err, ErrTxFailed)
}

// A key the transaction read that another client writes before the commit
// makes the transaction run again on fresh reads: what it wrote is based
// on what is stored when it commits.
func TestTxRerunsOnConflict(t *testing.T) {
	c, _, p := newTestClient(t)
	ctx, other, _, _ := setup(t)
	src, dst := p+"src", p+"dst"
	_, err := c.SAdd(ctx, src, "a")
	require.NoError(t, err)
	runs := 0
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		runs++
		n, err := tx.SCard(ctx, src)
		if err != nil {
			return err
		}
		if runs == 1 {
			if _, err := other.SAdd(ctx, src, "b"); err != nil {
				return err
			}
		}
		_, err = tx.ZAdd(ctx, dst, Z{float64(n), "count"})
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 2, runs)
	score, _, err := c.ZScore(ctx, dst, "count")
	require.NoError(t, err)
	require.Equal(t, 2.0, score, "the count as of the commit")
}

// Bad arguments fail their command alone, before anything is read.
func TestTxBadArguments(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	cnt.reset()
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.SAdd(ctx, p+"s")
		require.ErrorIs(t, err, ErrInvalidArgument)
		_, err = tx.ZIncrBy(ctx, p+"z", math.NaN(), "m")
		require.ErrorIs(t, err, ErrNotFloat)
		_, err = tx.ExpireAtWith(ctx, p+"z", time.Now(), ExpireCondition(99))
		require.ErrorIs(t, err, ErrSyntax)
		return nil
	})
	require.NoError(t, err)
	require.Zero(t, cnt.requests.Load(), cnt.String())
}

// TestExecTimeFrozen: inside a transaction time stands still at the
// moment it started, as Redis freezes it during EXEC: with a clock that
// moves a second each time it is read, a key that expires 2.5 s after the
// start stays live for every command of the transaction, and PTTL answers
// the same each time; the next command outside sees it expired.
func TestExecTimeFrozen(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	tick := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	ctx, c, _, p := setup(t, func(o *Options) { o.Now = tick })
	k := p + "k"
	_, err := c.SAdd(ctx, k, "a", "b")
	require.NoError(t, err)
	var cards []int64
	var ttls []time.Duration
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		if _, err := tx.PExpire(ctx, k, 2500*time.Millisecond); err != nil {
			return err
		}
		for range 4 {
			n, err := tx.SCard(ctx, k)
			if err != nil {
				return err
			}
			d, err := tx.PTTL(ctx, k)
			if err != nil {
				return err
			}
			cards, ttls = append(cards, n), append(ttls, d)
		}
		return nil
	}))
	require.Equal(t, []int64{2, 2, 2, 2}, cards, "live for the whole transaction")
	require.Equal(t, []time.Duration{2500 * time.Millisecond, 2500 * time.Millisecond, 2500 * time.Millisecond, 2500 * time.Millisecond}, ttls)
	tick() // 2 s after the start of the transaction: still live
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	tick() // 3 s after
	n, err = c.SCard(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n, "expired 2.5 s after the transaction started")
}
