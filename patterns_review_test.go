package redimo

// Adversarial review of the patterns (RateLimiter, ShardedSet,
// ExpiringSet): each TestPatternsReview* test states the promise, what
// redimo does and where. Tests marked "passes" check a risky path found
// right.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

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

// TestPatternsReviewShardedStaleHandleAfterRecount found that a handle
// that had checked the shard count kept writing with it after another
// server "recounted" an emptied set to another count (recount, added the
// same day for FLUSHDB): members split between layouts. Fixed by removing
// recount: the record never changes, so another count is ErrShardCount
// even on an emptied set, and no handle can write with a stale count.
func TestPatternsReviewShardedStaleHandleAfterRecount(t *testing.T) {
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

// TestPatternsReviewShardedOtherCountOnEmptySet found Card and Pop
// failing with ErrShardCount where Add and IsMember of the same handle
// recounted. With recount removed, every command of a handle with another
// count fails alike, empty set or not.
func TestPatternsReviewShardedOtherCountOnEmptySet(t *testing.T) {
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

// TestPatternsReviewShardedMIsMemberExpiredShard: FAILS (wrong reply).
// Promise: MIsMember "reports, for each member, whether it is in the set",
// as IsMember (SISMEMBER) and Card do; a shard is a plain set key, which
// EXPIRE can expire (sharded.go:37: "SMEMBERS "visitors{3}" shows it").
// Actual: MIsMember reads the member items alone (sharded.go:227-241),
// never the shards' metadata items, so a member of an expired shard key
// is still reported: IsMember false, Card 0, MIsMember true.
func TestPatternsReviewShardedMIsMemberExpiredShard(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	s := c.ShardedSet(p+"s", 2)
	returns(t, int64(1))(s.Add(ctx, "x"))
	returns(t, true)(c.Expire(ctx, s.shard(s.shardOf("x")), time.Second))
	clock.Add(2 * time.Second)
	returns(t, false)(s.IsMember(ctx, "x"))
	returns(t, int64(0))(s.Card(ctx))
	returns(t, []bool{false})(s.MIsMember(ctx, "x"))
}

// TestPatternsReviewShardedBadMemberWritesFirst: FAILS (write before the
// typed error). Promise (brief; SIsMember's own order): bad input is a
// typed error before any write. Actual: IsMember runs check first, which
// records the shard count with an UpdateItem (sharded.go:208 then
// sharded.go:87), and only then SIsMember rejects the member
// (ErrMemberTooLong): the descriptor is written for a rejected command.
func TestPatternsReviewShardedBadMemberWritesFirst(t *testing.T) {
	ctx, c, _, p := setup(t)
	s := c.ShardedSet(p+"s", 4)
	_, err := s.IsMember(ctx, strings.Repeat("m", MaxMemberLen+1))
	require.ErrorIs(t, err, ErrMemberTooLong)
	require.Nil(t, rawGet(t, descriptorKey(s.key)), "no write for a rejected command")
}

// TestPatternsReviewShardedCardKeyTooLong: FAILS (wrong reply on bad
// input). Promise: a key DynamoDB cannot hold is ErrKeyTooLong (checkKey,
// internal/model/keys.go), as Add, IsMember and Members return for this handle
// (check validates the longest shard key, sharded.go:79). Actual: cards()
// validates the shard count only (sharded.go:266), so Card (and
// RandMember, Pop) of the same key answers 0 with no error.
func TestPatternsReviewShardedCardKeyTooLong(t *testing.T) {
	ctx, c, _, p := setup(t)
	s := c.ShardedSet(p+strings.Repeat("k", MaxKeyLen-len(p)-1), 4) // the key fits; its shard keys do not
	_, err := s.Add(ctx, "x")
	require.ErrorIs(t, err, ErrKeyTooLong)
	_, err = s.Card(ctx)
	require.ErrorIs(t, err, ErrKeyTooLong, "Card of the key Add rejects")
}

// TestPatternsReviewRateLimiterHugeWindowRetryAfter: FAILS (wrong reply,
// low severity). Promise (ratelimit.go:50): when denied, RetryAfter is
// "until the next slot frees": positive, at most the window. Actual: the
// window is rounded up to whole milliseconds (ratelimit.go:79-81) and
// RetryAfter is (oldest-cut) ms × 1e6 (ratelimit.go:136), which overflows
// int64 for the largest windows: a window of math.MaxInt64 denies with a
// negative RetryAfter. The limit itself holds.
func TestPatternsReviewRateLimiterHugeWindowRetryAfter(t *testing.T) {
	c, _, p, _ := newClockedClient(t)
	lim := c.RateLimiter(1, time.Duration(math.MaxInt64))
	allow := func() RateLimit {
		r, err := lim.Allow(context.Background(), p+"k")
		require.NoError(t, err)
		return r
	}
	require.True(t, allow().Allowed)
	r := allow()
	require.False(t, r.Allowed)
	require.Positive(t, r.RetryAfter, "denied: RetryAfter %v", r.RetryAfter)
}

// TestPatternsReviewExpiringHugeTTL: FAILS (wrong reply, low severity).
// Promise (expiring.go:192): TTL "returns the time member has left"; Add
// takes any positive ttl, rounded up to whole milliseconds
// (expiring.go:65-68). Actual: TTL converts the milliseconds left with
// time.Duration(left) * time.Millisecond (expiring.go:210), which
// overflows for a ttl of math.MaxInt64 (9223372036855 ms after rounding):
// a live member reports a negative TTL.
func TestPatternsReviewExpiringHugeTTL(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	e := c.ExpiringSet(p + "e")
	returns(t, int64(1))(e.Add(ctx, time.Duration(math.MaxInt64), "m"))
	d, ok, err := e.TTL(ctx, "m")
	require.NoError(t, err)
	require.True(t, ok)
	require.Positive(t, d, "TTL of a live member")
}

// TestPatternsReviewRateLimiterIsolation: passes. Checked: a limiter's
// slots are per database (WithDB), per key (a key over 2047 bytes is
// hashed: two long keys differing only in their tail stay apart), and
// apart from a Redis set of the same name.
func TestPatternsReviewRateLimiterIsolation(t *testing.T) {
	ctx, c, _, p := setup(t)
	c1, err := c.WithDB(1)
	require.NoError(t, err)
	long := p + strings.Repeat("L", 3000)
	for _, key := range []string{p + "otp{1}", long + "a", long + "b"} {
		for _, cl := range []*Client{c, c1} {
			lim := cl.RateLimiter(1, time.Hour)
			r, err := lim.Allow(ctx, key)
			require.NoError(t, err)
			require.True(t, r.Allowed, "first of key %.40q in db %d", key, cl.DB())
			r, err = lim.Allow(ctx, key)
			require.NoError(t, err)
			require.False(t, r.Allowed, "second of key %.40q in db %d", key, cl.DB())
		}
	}
	returns(t, int64(0))(c.SCard(ctx, p+"otp{1}"))
}

// TestPatternsReviewShardedLongBraceKeyExact: passes. Checked: a key
// over 2047 bytes ending in braces, its shards hashed, keeps exact
// counts: Add's replies sum to Card, every shard's stored count equals
// its member items, and Pop drains exactly the members, then reports
// empty.
func TestPatternsReviewShardedLongBraceKeyExact(t *testing.T) {
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

// TestPatternsReviewShardedRecountBeforeFirstWrite: the same stale-handle
// split without any emptying (a rolling deploy that changes the count):
// A records 4 with a read, B opened with 8 before A's first write. With
// recount removed, B fails and A's writes stay in one layout.
func TestPatternsReviewShardedRecountBeforeFirstWrite(t *testing.T) {
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

// TestPatternsReviewRateLimiterSkewRetryAfter: FAILS (wrong reply, low).
// Promise (ratelimit.go:50): RetryAfter is "until the next slot frees".
// With server A's clock an hour ahead of server B's, A's allowance holds
// its slot until B's clock reads A's time + window (ratelimit.go:103
// counts it used), but B's RetryAfter starts oldest at B's now
// (ratelimit.go:100 `oldest := now`), so a slot dated in the future
// reads as freeing a window from now: B is told to retry after 1 min and
// is denied again then.
func TestPatternsReviewRateLimiterSkewRetryAfter(t *testing.T) {
	ctx := context.Background()
	cA, _, p, clockA := newClockedClient(t)
	cB, _, _, _ := newClockedClient(t)
	clockA.Add(time.Hour)
	key := p + "k"
	r, err := cA.RateLimiter(1, time.Minute).Allow(ctx, key)
	require.NoError(t, err)
	require.True(t, r.Allowed)
	r, err = cB.RateLimiter(1, time.Minute).Allow(ctx, key)
	require.NoError(t, err)
	require.False(t, r.Allowed)
	require.Equal(t, time.Hour+time.Minute, r.RetryAfter, "B's slot frees at A's time + window, by B's clock")
}

// TestPatternsReviewShardedWithDB: passes. Checked: the shard-count
// record and the shards are per database, so one key may be sharded 4
// ways in database 0 and 8 in database 3, with independent counts and
// members.
func TestPatternsReviewShardedWithDB(t *testing.T) {
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
