package redimo

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// memberMovedBy returns a member whose shard differs between a handle of
// `from` shards and one of `to` shards.
func memberMovedBy(t *testing.T, c *Client, from, to int) string {
	t.Helper()
	a, b := c.ShardedSet("x", from), c.ShardedSet("x", to)
	for i := range 1000 {
		m := fmt.Sprintf("z%d", i)
		if a.shardOf(m) != b.shardOf(m) {
			return m
		}
	}
	t.Fatal("no member moves")
	return ""
}

// TestShardedSetStaleHandleAfterRecount found that a handle
// that had checked the shard count kept writing with it after another
// server "recounted" an emptied set to another count (recount, added the
// same day for FLUSHDB): members split between layouts. Fixed by removing
// recount: the record never changes, so another count is ErrShardCount
// even on an emptied set, and no handle can write with a stale count.
func TestShardedSetStaleHandleAfterRecount(t *testing.T) {
	ctx, cA, _, p := setup(t)
	cB, _, _ := newTestClient(t)
	key := p + "visitors"
	a := cA.ShardedSet(key, 4)
	returns(t, int64(1))(a.Add(ctx, "x"))
	returns(t, int64(1))(a.Rem(ctx, "x")) // the set is empty: every shard key missing
	b := cB.ShardedSet(key, 8)
	_, err := b.Add(ctx, "y")
	require.ErrorIs(t, err, ErrShardCount, "8 shards over a record of 4, the set empty")
	z := memberMovedBy(t, cA, 4, 8)
	returns(t, int64(1))(a.Add(ctx, z))
	returns(t, true)(cA.ShardedSet(key, 4).IsMember(ctx, z))
}

// TestShardedSetOtherCountOnEmptySet found Card and Pop
// failing with ErrShardCount where Add and IsMember of the same handle
// recounted. With recount removed, every command of a handle with another
// count fails alike, empty set or not.
func TestShardedSetOtherCountOnEmptySet(t *testing.T) {
	ctx, c, _, p := setup(t)
	key := p + "s"
	old := c.ShardedSet(key, 4)
	returns(t, int64(2))(old.Add(ctx, "x", "y"))
	returns(t, int64(2))(old.Rem(ctx, "x", "y"))

	s := c.ShardedSet(key, 8)
	_, err := s.Card(ctx)
	require.ErrorIs(t, err, ErrShardCount, "Card")
	_, _, err = s.Pop(ctx)
	require.ErrorIs(t, err, ErrShardCount, "Pop")
	_, err = s.IsMember(ctx, "x")
	require.ErrorIs(t, err, ErrShardCount, "IsMember")
	_, err = s.Add(ctx, "x")
	require.ErrorIs(t, err, ErrShardCount, "Add")
}

// TestShardedSetMIsMemberExpiredShard: promise: MIsMember "reports, for each member, whether it is in the set",
// as IsMember (SISMEMBER) and Card do; a shard is a plain set key, which
// EXPIRE can expire (sharded.go:37: "SMEMBERS "visitors{3}" shows it").
// Before the fix: MIsMember reads the member items alone (sharded.go:227-241),
// never the shards' metadata items, so a member of an expired shard key
// is still reported: IsMember false, Card 0, MIsMember true.
func TestShardedSetMIsMemberExpiredShard(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	s := c.ShardedSet(p+"s", 2)
	returns(t, int64(1))(s.Add(ctx, "x"))
	returns(t, true)(c.Expire(ctx, s.shard(s.shardOf("x")), time.Second))
	clock.Add(2 * time.Second)
	returns(t, false)(s.IsMember(ctx, "x"))
	returns(t, int64(0))(s.Card(ctx))
	returns(t, []bool{false})(s.MIsMember(ctx, "x"))
}

// TestShardedSetBadMemberWritesFirst: promise (brief; SIsMember's own order): bad input is a
// typed error before any write. Before the fix: IsMember runs check first, which
// records the shard count with an UpdateItem (sharded.go:208 then
// sharded.go:87), and only then SIsMember rejects the member
// (ErrMemberTooLong): the descriptor is written for a rejected command.
func TestShardedSetBadMemberWritesFirst(t *testing.T) {
	ctx, c, _, p := setup(t)
	s := c.ShardedSet(p+"s", 4)
	_, err := s.IsMember(ctx, strings.Repeat("m", MaxMemberLen+1))
	require.ErrorIs(t, err, ErrMemberTooLong)
	require.Nil(t, rawGet(t, descriptorKey(s.key)), "no write for a rejected command")
}

// TestShardedSetCardKeyTooLong: promise: a key DynamoDB cannot hold is ErrKeyTooLong (checkKey,
// internal/model/keys.go), as Add, IsMember and Members return for this handle
// (check validates the longest shard key, sharded.go:79). Before the fix: cards()
// validates the shard count only (sharded.go:266), so Card (and
// RandMember, Pop) of the same key answers 0 with no error.
func TestShardedSetCardKeyTooLong(t *testing.T) {
	ctx, c, _, p := setup(t)
	s := c.ShardedSet(p+strings.Repeat("k", MaxKeyLen-len(p)-1), 4) // the key fits; its shard keys do not
	_, err := s.Add(ctx, "x")
	require.ErrorIs(t, err, ErrKeyTooLong)
	_, err = s.Card(ctx)
	require.ErrorIs(t, err, ErrKeyTooLong, "Card of the key Add rejects")
}

// TestShardedSetLongBraceKeyExact: a key
// over 2047 bytes ending in braces, its shards hashed, keeps exact
// counts: Add's replies sum to Card, every shard's stored count equals
// its member items, and Pop drains exactly the members, then reports
// empty.
func TestShardedSetLongBraceKeyExact(t *testing.T) {
	ctx, c, _, p := setup(t)
	s := c.ShardedSet(p+strings.Repeat("B", 2100)+"{7}", 8)
	want := numbered("m%d", 40)
	var (
		added int64
		mu    sync.Mutex
	)
	runWorkers(8, func(w int) {
		n, err := s.Add(ctx, want[w*5:w*5+5]...)
		require.NoError(t, err)
		mu.Lock()
		added += n
		mu.Unlock()
	})
	require.EqualValues(t, 40, added)
	returns(t, int64(40))(s.Card(ctx))
	for i := range 8 {
		card, members := rawKey(t, s.shard(i))
		require.EqualValues(t, len(members), card, "shard %d", i)
	}
	var popped []string
	runWorkers(8, func(int) {
		for {
			m, ok, err := s.Pop(ctx)
			require.NoError(t, err)
			if !ok {
				return
			}
			mu.Lock()
			popped = append(popped, m)
			mu.Unlock()
		}
	})
	require.Equal(t, sorted(want), sorted(popped))
	returns(t, int64(0))(s.Card(ctx))
}

// TestShardedSetRecountBeforeFirstWrite: the same stale-handle
// split without any emptying (a rolling deploy that changes the count):
// A records 4 with a read, B opened with 8 before A's first write. With
// recount removed, B fails and A's writes stay in one layout.
func TestShardedSetRecountBeforeFirstWrite(t *testing.T) {
	ctx, cA, _, p := setup(t)
	cB, _, _ := newTestClient(t)
	key := p + "visitors"
	a, b := cA.ShardedSet(key, 4), cB.ShardedSet(key, 8)
	returns(t, false)(a.IsMember(ctx, "q")) // records 4
	_, err := b.Add(ctx, "y")
	require.ErrorIs(t, err, ErrShardCount)
	z := memberMovedBy(t, cA, 4, 8)
	returns(t, int64(1))(a.Add(ctx, z))
	returns(t, true)(a.IsMember(ctx, z))
}

// TestShardedSetWithDB: the shard-count
// record and the shards are per database, so one key may be sharded 4
// ways in database 0 and 8 in database 3, with independent counts and
// members.
func TestShardedSetWithDB(t *testing.T) {
	ctx, c, _, p := setup(t)
	c3, err := c.WithDB(3)
	require.NoError(t, err)
	key := p + "s{1}"
	s0, s3 := c.ShardedSet(key, 4), c3.ShardedSet(key, 8)
	returns(t, int64(3))(s0.Add(ctx, "a", "b", "c"))
	returns(t, int64(2))(s3.Add(ctx, "c", "d"))
	returns(t, int64(3))(s0.Card(ctx))
	returns(t, int64(2))(s3.Card(ctx))
	returns(t, []bool{true, false})(s0.MIsMember(ctx, "a", "d"))
	returns(t, []bool{false, true})(s3.MIsMember(ctx, "a", "d"))
}

// BenchmarkHotSetWriters: 32 concurrent writers add distinct members, one
// per SAdd, to one plain set and to a 16-shard sharded set. It reports
// writes per second, requests and cancelled transactions (conflicts with
// other writers) per 1,000 writes. DynamoDB Local serialises writes in one
// process and has no partition limits, so the throughput ratio here says
// little about real DynamoDB, where one partition takes ~1,000 WCU/s; the
// conflict counts show the contention on the single metadata item.
func BenchmarkHotSetWriters(b *testing.B) {
	const writers, perWriter = 32, 40
	ctx, c, cnt, p := setup(b)
	run := func(name string, add func(member string) error) {
		cnt.reset()
		var failed atomic.Int64
		start := time.Now()
		runWorkers(writers, func(w int) {
			for i := range perWriter {
				if err := add(fmt.Sprintf("w%02d-%04d", w, i)); err != nil {
					failed.Add(1)
				}
			}
		})
		elapsed := time.Since(start)
		if failed.Load() > 0 {
			b.Fatalf("%s: %d writes failed", name, failed.Load())
		}
		total := float64(writers * perWriter)
		b.ReportMetric(total/elapsed.Seconds(), name+"-writes/s")
		b.ReportMetric(float64(cnt.requests.Load())/total*1000, name+"-requests/1000writes")
		b.ReportMetric(float64(cnt.cancelled.Load())/total*1000, name+"-cancelled/1000writes")
		b.ReportMetric(float64(cnt.conflicts.Load())/total*1000, name+"-conflicts/1000writes")
	}
	for n := range b.N {
		plain := fmt.Sprintf("%splain%d", p, n)
		run("plain", func(m string) error { _, err := c.SAdd(ctx, plain, m); return err })
		sharded := c.ShardedSet(fmt.Sprintf("%ssharded%d", p, n), 16)
		run("sharded16", func(m string) error { _, err := sharded.Add(ctx, m); return err })
		cnt.reset()
		if card, err := sharded.Card(ctx); err != nil || card != writers*perWriter {
			b.Fatal(card, err)
		}
		b.ReportMetric(float64(cnt.requests.Load()), "sharded16-card-requests")
	}
}
