package redimo

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
)

// The same key names in databases 0, 1 and 15 are different keys: writes,
// reads, expiry, transactions, listing and FLUSHDB stay in their database;
// on the raw table every item of database n starts its partition key with
// byte n, and its key index entry has the two-byte shard n, s.
func TestDBRawItems(t *testing.T) {
	ctx, c0, _, p := setup(t)
	c1, err := c0.WithDB(1)
	require.NoError(t, err)
	c15, err := c0.WithDB(15)
	require.NoError(t, err)
	_, err = c0.WithDB(16)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Equal(t, []int{0, 1, 15}, []int{c0.DB(), c1.DB(), c15.DB()})

	s, z := p+"s", p+"z"
	for i, c := range []*Client{c0, c1, c15} {
		members := []string{"a", "b", "c"}[:i+1]
		_, err := c.SAdd(ctx, s, members...)
		require.NoError(t, err)
		_, err = c.ZAdd(ctx, z, Z{float64(i), "m"})
		require.NoError(t, err)
		_, err = c.ZIncrBy(ctx, z, 10, "m")
		require.NoError(t, err)
	}
	_, err = c1.Expire(ctx, s, time.Hour)
	require.NoError(t, err)
	err = c15.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.SRem(ctx, s, "a")
		if err == nil {
			_, err = tx.SMove(ctx, s, p+"moved", "b")
		}
		return err
	})
	require.NoError(t, err)

	for i, c := range []*Client{c0, c1, c15} {
		n, err := c.SCard(ctx, s)
		require.NoError(t, err)
		score, _, err := c.ZScore(ctx, z, "m")
		require.NoError(t, err)
		ttl, err := c.TTL(ctx, s)
		require.NoError(t, err)
		keys, err := c.Keys(ctx, p+"*")
		require.NoError(t, err)
		slices.Sort(keys)
		switch i {
		case 0:
			require.Equal(t, []any{int64(1), 10.0, TTLPersistent, []string{s, z}}, []any{n, score, ttl, keys})
		case 1:
			require.InDelta(t, time.Hour, ttl, float64(10*time.Second))
			require.Equal(t, []any{int64(2), 11.0, []string{s, z}}, []any{n, score, keys})
		case 2:
			require.Equal(t, []any{int64(1), 12.0, TTLPersistent, []string{p + "moved", s, z}}, []any{n, score, ttl, keys})
		}
	}
	n, err := c15.DBSize(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(3), n, "database 15 holds this test's keys alone")

	// The raw table: database n's items start with byte n.
	byDB := map[byte]int{}
	for _, it := range rawItemsOf(t, p) {
		pk := model.BytesAttr(it, model.AttrPK)
		if len(pk) <= len(p) || string(pk[1:1+len(p)]) != p {
			continue
		}
		byDB[pk[0]]++
		if ks := model.BytesAttr(it, model.AttrKS); ks != nil && pk[0] != 'k' {
			require.Equal(t, []byte{pk[0], model.ShardOf(model.KeyHash(string(pk[1:])))}, ks)
		}
	}
	// db 0: s (a small set: its metadata item alone, smallset.go), z (a
	// small sorted set: the same, smallz.go); db 1: s, z (small); db 15: s
	// (1 + meta: EXEC converted it), z (small), moved (1 + meta).
	require.Equal(t, map[byte]int{'k': 2, 1: 2, 15: 5}, byDB)

	require.NoError(t, c15.FlushDB(ctx))
	for i, c := range []*Client{c0, c1, c15} {
		keys, err := c.Keys(ctx, p+"*")
		require.NoError(t, err)
		require.Equal(t, i < 2, len(keys) == 2, "FLUSHDB of database 15 leaves 0 and 1: %d %v", i, keys)
	}
	_, err = c0.Del(ctx, s, z)
	require.NoError(t, err)
	_, err = c1.Del(ctx, s, z)
	require.NoError(t, err)
}

// A long key (over 2047 bytes: internal/model/keys.go) of one name in two databases is
// two keys, each listed by its own database's KEYS, and its raw items
// carry 0x10 | n.
func TestDBLongKeys(t *testing.T) {
	ctx, c0, _, p := setup(t)
	c3, err := c0.WithDB(3)
	require.NoError(t, err)
	long := p + strings.Repeat("L", 3000)
	_, err = c0.SAdd(ctx, long, "zero")
	require.NoError(t, err)
	_, err = c3.SAdd(ctx, long, "three", "more")
	require.NoError(t, err)
	for _, tc := range []struct {
		c    *Client
		card int64
	}{{c0, 1}, {c3, 2}} {
		n, err := tc.c.SCard(ctx, long)
		require.NoError(t, err)
		require.Equal(t, tc.card, n)
		keys, err := tc.c.Keys(ctx, p+"*")
		require.NoError(t, err)
		require.Equal(t, []string{long}, keys)
	}
	it := model.ItemKey(long, model.MetaSK)
	it[model.AttrPK] = model.Bin(append([]byte{0x10 | 3}, model.PkValue(long)[1:]...))
	require.Equal(t, long, string(model.BytesAttr(rawGet(t, it), model.AttrKey)), "database 3's metadata item of the long key, raw")
}

// A RateLimiter's slots and a ShardedSet's shard-count record belong to
// their database, as keys do: the same name in databases 0 and 1 is two
// limiters and two sharded sets (they were shared before), and their raw
// items carry each database's byte.
func TestDBLimiterAndShardedSet(t *testing.T) {
	ctx, c0, _, p := setup(t)
	c1, err := c0.WithDB(1)
	require.NoError(t, err)
	for _, c := range []*Client{c0, c1} {
		l := c.RateLimiter(1, time.Hour)
		got, err := l.Allow(ctx, p+"login")
		require.NoError(t, err)
		require.True(t, got.Allowed, "database %d's limiter is its own", c.DB())
		got, err = l.Allow(ctx, p+"login")
		require.NoError(t, err)
		require.False(t, got.Allowed)
	}
	// Shard counts of one name differ per database: each is recorded and
	// verified in its own.
	s0, s1 := c0.ShardedSet(p+"visitors", 2), c1.ShardedSet(p+"visitors", 4)
	_, err = s0.Add(ctx, "a", "b")
	require.NoError(t, err)
	_, err = s1.Add(ctx, "c")
	require.NoError(t, err)
	n0, err := c0.ShardedSet(p+"visitors", 2).Card(ctx)
	require.NoError(t, err)
	n1, err := c1.ShardedSet(p+"visitors", 4).Card(ctx)
	require.NoError(t, err)
	require.Equal(t, []int64{2, 1}, []int64{n0, n1})
	_, err = c1.ShardedSet(p+"visitors", 2).Card(ctx)
	require.ErrorIs(t, err, ErrShardCount, "database 1 recorded 4 shards")

	firsts := map[byte]bool{}
	for _, it := range rawItemsOf(t, p) {
		pk := model.BytesAttr(it, model.AttrPK)
		if len(pk) > len(p) && string(pk[1:1+len(p)]) == p && !strings.HasPrefix(string(pk[1+len(p):]), "visitors{") {
			firsts[pk[0]] = true
		}
	}
	require.Equal(t, map[byte]bool{model.NsLimiter: true, 0x20 | 1: true, model.NsSharded: true, 0x80 | 1: true}, firsts)
}

// COPY, RENAME, DEL and FLUSHDB in database 1 touch none
// of database 0's items of the same names.
func TestKeysDatabases(t *testing.T) {
	ctx, c0, _, p := setup(t)
	c1, err := c0.WithDB(1)
	require.NoError(t, err)
	a, b := p+"a", p+"b"
	for _, c := range []*Client{c0, c1} {
		returns(t, int64(2))(c.SAdd(ctx, a, "x", "y"))
		returns(t, int64(1))(c.ZAdd(ctx, b, Z{1, "m"}))
	}
	returns(t, true)(c1.Copy(ctx, a, b, true))
	require.NoError(t, c1.Rename(ctx, b, p+"c"))
	returns(t, int64(1))(c1.Del(ctx, a))
	returns(t, []string{"x", "y"})(c0.SMembers(ctx, a))
	returns(t, []string{"m"})(c0.ZRange(ctx, b, 0, -1))
	returns(t, int64(0))(c0.Exists(ctx, p+"c"))
	returns(t, []string{"x", "y"})(c1.SMembers(ctx, p+"c"))
	checkStoredCounts(t, p)
}
