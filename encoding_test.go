package redimo

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestObjectEncoding: Redis 7.2's encoding rules (redis.conf and
// t_set.c/t_zset.c: intset for integers as string2ll reads them within
// set-max-intset-entries, listpack within the listpack entries and value,
// else hashtable or skiplist), on the cases redis-server 7.0.15 cannot
// check (it has no listpack sets; internal/server's
// TestDifferentialEncoding compares the others with it), and redimo's
// stated difference: the answer follows the key as it is now.
func TestObjectEncoding(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	enc := func(key string, lim EncodingLimits) string {
		t.Helper()
		e, ok, err := c.ObjectEncodingWith(ctx, p+key, lim)
		require.NoError(t, err)
		if !ok {
			return "(none)"
		}
		return e
	}
	def := DefaultEncodingLimits()
	with := func(f func(*EncodingLimits)) EncodingLimits { l := def; f(&l); return l }
	sadd := func(key string, members ...string) {
		t.Helper()
		_, err := c.SAdd(ctx, p+key, members...)
		require.NoError(t, err)
	}
	zadd := func(key string, members ...string) {
		t.Helper()
		for i, m := range members {
			_, err := c.ZAdd(ctx, p+key, Z{Score: float64(i), Member: m})
			require.NoError(t, err)
		}
	}

	sadd("ints", "1", "-2", "9223372036854775807", "0")
	require.Equal(t, "intset", enc("ints", def))
	require.Equal(t, "listpack", enc("ints", with(func(l *EncodingLimits) { l.SetMaxIntsetEntries = 3 })))
	require.Equal(t, "hashtable", enc("ints", with(func(l *EncodingLimits) { l.SetMaxIntsetEntries, l.SetMaxListpackEntries = 3, 3 })))
	require.Equal(t, "intset", enc("ints", with(func(l *EncodingLimits) { l.SetMaxListpackValue = 1 })), "intsets have no value limit")
	for _, notInt := range []string{"012", "+1", "-0", " 1", "9223372036854775808", "1.0", "a"} {
		sadd("m:"+notInt, "1", notInt)
		require.Equal(t, "listpack", enc("m:"+notInt, def), "%q is no integer to Redis", notInt)
	}
	sadd("words", "a", "b", strings.Repeat("v", 64))
	require.Equal(t, "listpack", enc("words", def))
	sadd("words", strings.Repeat("v", 65))
	require.Equal(t, "hashtable", enc("words", def))
	require.Equal(t, "listpack", enc("words", with(func(l *EncodingLimits) { l.SetMaxListpackValue = 65 })))
	sadd("many", numbered("m%d", 129)...)
	require.Equal(t, "hashtable", enc("many", def))
	require.Equal(t, "hashtable", enc("many", with(func(l *EncodingLimits) { l.SetMaxListpackEntries = 129 })), "member items (smallset.go)")
	sadd("manyints", numbered("%d", 513)...)
	require.Equal(t, "hashtable", enc("manyints", def))
	require.Equal(t, "hashtable", enc("manyints", with(func(l *EncodingLimits) { l.SetMaxIntsetEntries = 513 })), "member items")
	sadd("fewints", numbered("%d", 99)[:50]...) // at most 64 members a write to a small set
	sadd("fewints", numbered("%d", 99)[50:]...)
	require.Equal(t, "intset", enc("fewints", def))
	require.Equal(t, "hashtable", enc("fewints", with(func(l *EncodingLimits) { l.SetMaxIntsetEntries, l.SetMaxListpackEntries = 98, 98 })))
	long := strings.Repeat("L", 3000)
	sadd("long", long+"1")
	require.Equal(t, "hashtable", enc("long", with(func(l *EncodingLimits) { l.SetMaxListpackValue = 3001 })), "member items")
	require.Equal(t, "hashtable", enc("long", def))

	zadd("z", "a", "b", strings.Repeat("v", 64))
	require.Equal(t, "listpack", enc("z", def))
	require.Equal(t, "skiplist", enc("z", with(func(l *EncodingLimits) { l.ZSetMaxListpackEntries = 2 })))
	require.Equal(t, "skiplist", enc("z", with(func(l *EncodingLimits) { l.ZSetMaxListpackValue = 63 })))
	zadd("zints", "1", "2")
	require.Equal(t, "listpack", enc("zints", def), "no intset for sorted sets")
	require.Equal(t, "(none)", enc("nope", def))

	// As Redis, a set of member items stays one when it shrinks
	// (smallset.go); emptied, it starts small again.
	_, err := c.SRem(ctx, p+"many", numbered("m%d", 129)[1:]...)
	require.NoError(t, err)
	require.Equal(t, "hashtable", enc("many", def))
	_, err = c.SRem(ctx, p+"many", "m0")
	require.NoError(t, err)
	sadd("many", "m0")
	require.Equal(t, "listpack", enc("many", def))

	// Member expiries: expired members are not counted or looked at.
	sadd("exp", numbered("m%d", 128)...)
	_, err = c.SAddEx(ctx, p+"exp", time.Second, false, strings.Repeat("x", 100), "extra")
	require.NoError(t, err)
	require.Equal(t, "hashtable", enc("exp", def))
	clock.Add(2 * time.Second)
	require.Equal(t, "hashtable", enc("exp", def), "member items")
	_, err = c.SAddEx(ctx, p+"allexp", time.Second, false, "1")
	require.NoError(t, err)
	clock.Add(2 * time.Second)
	require.Equal(t, "(none)", enc("allexp", def))

	// Inside a transaction, after its writes.
	var got []string
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		for _, step := range []func() error{
			func() error { _, err := tx.SAdd(ctx, p+"tx", "1", "2"); return err },
			func() error { e, _, err := tx.ObjectEncoding(ctx, p+"tx"); got = append(got, e); return err },
			func() error { _, err := tx.SAdd(ctx, p+"tx", "x"); return err },
			func() error { e, _, err := tx.ObjectEncoding(ctx, p+"tx"); got = append(got, e); return err },
			func() error {
				e, _, err := tx.ObjectEncodingWith(ctx, p+"tx", with(func(l *EncodingLimits) { l.SetMaxListpackEntries = 2 }))
				got = append(got, e)
				return err
			},
		} {
			if err := step(); err != nil {
				return fmt.Errorf("step %d: %w", len(got), err)
			}
		}
		return nil
	}))
	require.Equal(t, []string{"intset", "listpack", "hashtable"}, got)
}
