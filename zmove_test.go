package redimo

// ZMOVE, BZMOVE and ZMOVEMEMBER (Redis 8.12). The reference redis-server
// (7.0) lacks them: TestZMoveDocumented checks the replies redis.io
// documents, TestZMoveAgainstRedis runs random moves on redimo and, on
// redis-server, the same moves made of Redis 7.0 commands (the members
// selected with ZRANGE/ZSCORE, then ZREM and ZADD), comparing every reply
// and both keys after each step.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
)

func TestZMoveDocumented(t *testing.T) {
	ctx, c, _, p := setup(t)
	src, dst, s, none := p+"src", p+"dst", p+"set", p+"none"
	_, err := c.ZAdd(ctx, src, Z{1, "a"}, Z{2, "b"}, Z{3, "c"}, Z{4, "d"}, Z{5, "e"})
	require.NoError(t, err)
	_, err = c.SAdd(ctx, s, "x")
	require.NoError(t, err)

	// MIN without COUNT: one member, the lowest.
	zs, err := c.ZMove(ctx, src, dst, ZMoveArgs{Order: PopMin})
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "a"}}, zs)
	// MAX COUNT 2: the highest first.
	zs, err = c.ZMove(ctx, src, dst, ZMoveArgs{Order: PopMax, Count: 2})
	require.NoError(t, err)
	require.Equal(t, []Z{{5, "e"}, {4, "d"}}, zs)
	got, err := c.ZRangeWithScores(ctx, dst, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "a"}, {4, "d"}, {5, "e"}}, got, "destination created with the scores")

	// A moved member replaces the destination's score; the others stay.
	_, err = c.ZAdd(ctx, src, Z{10, "a"})
	require.NoError(t, err)
	zs, err = c.ZMove(ctx, src, dst, ZMoveArgs{ByScore: true, Min: "(9", Max: "+inf"})
	require.NoError(t, err)
	require.Equal(t, []Z{{10, "a"}}, zs)
	got, err = c.ZRangeWithScores(ctx, dst, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{4, "d"}, {5, "e"}, {10, "a"}}, got)

	// BYSCORE without COUNT moves the whole range, lowest first; an empty
	// range is null.
	zs, err = c.ZMove(ctx, src, dst, ZMoveArgs{ByScore: true, Min: "100", Max: "200"})
	require.NoError(t, err)
	require.Empty(t, zs)
	zs, err = c.ZMove(ctx, src, dst, ZMoveArgs{ByScore: true, Min: "-inf", Max: "+inf"})
	require.NoError(t, err)
	require.Equal(t, []Z{{2, "b"}, {3, "c"}}, zs)
	n, err := c.Exists(ctx, src)
	require.NoError(t, err)
	require.Zero(t, n, "the source goes with its last member")

	// Null: a missing source (whatever the destination), the same key.
	zs, err = c.ZMove(ctx, none, s, ZMoveArgs{Order: PopMin})
	require.NoError(t, err)
	require.Empty(t, zs)
	zs, err = c.ZMove(ctx, dst, dst, ZMoveArgs{Order: PopMax, Count: 10})
	require.NoError(t, err)
	require.Empty(t, zs)
	zs, err = c.ZMoveMember(ctx, dst, dst, ZMoveMemberArgs{Members: []string{"a"}})
	require.NoError(t, err)
	require.Empty(t, zs)
	zs, err = c.BZMove(ctx, time.Hour, dst, dst, ZMoveArgs{Order: PopMin})
	require.NoError(t, err, "the same key: null at once, no wait")
	require.Empty(t, zs)
	zs, err = c.BZMove(ctx, time.Hour, none, none, ZMoveArgs{Order: PopMin})
	require.NoError(t, err, "the same missing key: null at once, no wait")
	require.Empty(t, zs)
	_, err = c.ZMove(ctx, s, s, ZMoveArgs{Order: PopMin})
	require.ErrorIs(t, err, ErrWrongType, "the same key of another type")

	// ZMOVEMEMBER: request order, duplicates once, missing members skipped.
	zs, err = c.ZMoveMember(ctx, dst, src, ZMoveMemberArgs{Members: []string{"e", "nope", "a", "e"}})
	require.NoError(t, err)
	require.Equal(t, []Z{{5, "e"}, {10, "a"}}, zs)
	zs, err = c.ZMoveMember(ctx, dst, src, ZMoveMemberArgs{Members: []string{"nope"}})
	require.NoError(t, err)
	require.Empty(t, zs, "nothing moved: null")
	// NX: members already in destination stay; XX: the absent ones do.
	_, err = c.ZAdd(ctx, dst, Z{7, "a"}, Z{8, "f"})
	require.NoError(t, err) // dst: b 2, c 3, d 4, a 7, f 8; src: e 5, a 10
	zs, err = c.ZMoveMember(ctx, src, dst, ZMoveMemberArgs{NX: true, Members: []string{"a", "e"}})
	require.NoError(t, err)
	require.Equal(t, []Z{{5, "e"}}, zs)
	zs, err = c.ZMoveMember(ctx, dst, src, ZMoveMemberArgs{XX: true, Members: []string{"f", "a", "d"}})
	require.NoError(t, err)
	require.Equal(t, []Z{{7, "a"}}, zs, "a is in src: it moves with dst's score")
	got, err = c.ZRangeWithScores(ctx, src, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{7, "a"}}, got)
	got, err = c.ZRangeWithScores(ctx, dst, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{2, "b"}, {3, "c"}, {4, "d"}, {5, "e"}, {8, "f"}}, got)

	// Key expiries: both kept; a destination created by the move has none.
	require.NoError(t, ignore(c.Expire(ctx, src, time.Hour)))
	require.NoError(t, ignore(c.Expire(ctx, dst, 2*time.Hour)))
	_, err = c.ZAdd(ctx, src, Z{1, "z"})
	require.NoError(t, err)
	_, err = c.ZMove(ctx, src, dst, ZMoveArgs{Order: PopMin})
	require.NoError(t, err)
	ttl, err := c.TTL(ctx, src)
	require.NoError(t, err)
	require.InDelta(t, time.Hour.Seconds(), ttl.Seconds(), 60)
	ttl, err = c.TTL(ctx, dst)
	require.NoError(t, err)
	require.InDelta(t, 2*time.Hour.Seconds(), ttl.Seconds(), 60)
	zs, err = c.ZMove(ctx, src, p+"new", ZMoveArgs{Order: PopMin})
	require.NoError(t, err)
	require.Equal(t, []Z{{7, "a"}}, zs)
	ttl, err = c.TTL(ctx, p+"new")
	require.NoError(t, err)
	require.Equal(t, time.Duration(-1), ttl, "a destination the move created has no expiry")

	// WRONGTYPE when the source exists and either key is another type,
	// before anything is written.
	_, err = c.ZMove(ctx, p+"new", s, ZMoveArgs{Order: PopMin})
	require.ErrorIs(t, err, ErrWrongType)
	_, err = c.ZMoveMember(ctx, s, dst, ZMoveMemberArgs{Members: []string{"x"}})
	require.ErrorIs(t, err, ErrWrongType)
	got, err = c.ZRangeWithScores(ctx, p+"new", 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{7, "a"}}, got)
}

func ignore[T any](_ T, err error) error { return err }

// TestZMoveChunks: up to 49 members move in one TransactWriteItems; more in
// successive transactions of up to 49, each atomic, all moved in order.
func TestZMoveChunks(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	src, dst := p+"src", p+"dst"
	zs := make([]Z, 120)
	for i := range zs {
		zs[i] = Z{float64(i), fmt.Sprintf("m%03d", i)}
	}
	_, err := c.ZAdd(ctx, src, zs...)
	require.NoError(t, err)

	cnt.reset()
	got, err := c.ZMove(ctx, src, dst, ZMoveArgs{Order: PopMin, Count: 49})
	require.NoError(t, err)
	require.Equal(t, zs[:49], got)
	require.EqualValues(t, 1, cnt.byOp["TransactWriteItems"], "49 members: one transaction (%s)", cnt)

	cnt.reset()
	got, err = c.ZMove(ctx, src, dst, ZMoveArgs{ByScore: true, Min: "-inf", Max: "+inf"})
	require.NoError(t, err)
	require.Equal(t, zs[49:], got)
	require.EqualValues(t, 2, cnt.byOp["TransactWriteItems"], "71 members: two transactions (%s)", cnt)
	n, err := c.Exists(ctx, src)
	require.NoError(t, err)
	require.Zero(t, n)

	names := members(zs)
	slices.Reverse(names)
	cnt.reset()
	got, err = c.ZMoveMember(ctx, dst, src, ZMoveMemberArgs{Members: names[:60]})
	require.NoError(t, err)
	want := slices.Clone(zs[60:])
	slices.Reverse(want)
	require.Equal(t, want, got, "request order")
	require.EqualValues(t, 2, cnt.byOp["TransactWriteItems"], "60 members: two transactions (%s)", cnt)
	a, err := c.ZCard(ctx, src)
	require.NoError(t, err)
	b, err := c.ZCard(ctx, dst)
	require.NoError(t, err)
	require.EqualValues(t, 60, a)
	require.EqualValues(t, 60, b)
}

// TestZMoveLongMembers: members over 1015 bytes (longmember.go) move, and
// replace the same long member in the destination.
func TestZMoveLongMembers(t *testing.T) {
	ctx, c, _, p := setup(t)
	src, dst := p+"src", p+"dst"
	long1 := strings.Repeat("a", 3000) + "1"
	long2 := strings.Repeat("b", 3000)
	_, err := c.ZAdd(ctx, src, Z{1, long1}, Z{2, long2}, Z{3, "short"})
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, dst, Z{9, long1})
	require.NoError(t, err)
	zs, err := c.ZMove(ctx, src, dst, ZMoveArgs{Order: PopMin})
	require.NoError(t, err)
	require.Equal(t, []Z{{1, long1}}, zs)
	zs, err = c.ZMoveMember(ctx, src, dst, ZMoveMemberArgs{Members: []string{"short", long2}})
	require.NoError(t, err)
	require.Equal(t, []Z{{3, "short"}, {2, long2}}, zs)
	got, err := c.ZRangeWithScores(ctx, dst, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{1, long1}, {2, long2}, {3, "short"}}, got)
	n, err := c.Exists(ctx, src)
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestZMoveMemberExpiry: a moved member keeps its expiry, replacing the
// destination's; an expired member is missing; the counts of members with
// an expiry (mn) stay exact.
func TestZMoveMemberExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	src, dst := p+"src", p+"dst"
	_, err := c.ZAdd(ctx, src, Z{1, "a"}, Z{2, "b"}, Z{3, "c"}, Z{4, "d"})
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, dst, Z{9, "c"}, Z{10, "x"})
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, src, 10*time.Second, ExpireAlways, "a", "d")
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, dst, 20*time.Second, ExpireAlways, "c")
	require.NoError(t, err)

	zs, err := c.ZMove(ctx, src, dst, ZMoveArgs{Order: PopMin, Count: 3})
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "a"}, {2, "b"}, {3, "c"}}, zs)
	ttls, err := c.ZPTTL(ctx, dst, "a", "b", "c", "x")
	require.NoError(t, err)
	require.Equal(t, []int64{10000, MemberNoExpiry, MemberNoExpiry, MemberNoExpiry}, ttls,
		"a keeps its expiry; c takes the source's (none)")
	requireMemberTTLCount(t, src, 1)
	requireMemberTTLCount(t, dst, 1)

	// d expires: it is missing to the moves.
	clock.Add(11 * time.Second)
	zs, err = c.ZMoveMember(ctx, src, dst, ZMoveMemberArgs{Members: []string{"d"}})
	require.NoError(t, err)
	require.Empty(t, zs)
	zs, err = c.ZMove(ctx, src, dst, ZMoveArgs{Order: PopMin})
	require.NoError(t, err)
	require.Empty(t, zs, "the source's only member expired: the source is missing")
	n, err := c.ZCard(ctx, dst)
	require.NoError(t, err)
	require.EqualValues(t, 3, n, "a expired in dst too: b, c, x")

	// Moving onto an expired member of the destination replaces it.
	_, err = c.ZAdd(ctx, src, Z{5, "a"})
	require.NoError(t, err)
	zs, err = c.ZMoveMember(ctx, src, dst, ZMoveMemberArgs{NX: true, Members: []string{"a"}})
	require.NoError(t, err)
	require.Equal(t, []Z{{5, "a"}}, zs, "an expired member is absent: NX moves it")
	n, err = c.ZCard(ctx, dst)
	require.NoError(t, err)
	require.EqualValues(t, 4, n)
	requireMemberTTLCount(t, dst, 0)
}

// requireMemberTTLCount checks key's metadata item's count of members with
// an expiry (mn) against its member items.
func requireMemberTTLCount(t *testing.T, key string, want int64) {
	t.Helper()
	var withExp int64
	for _, it := range rawPartition(t, model.PkValue(key)) {
		if _, _, ok := model.MemberOf(it); ok && model.MemberExp(it) != 0 {
			withExp++
		}
	}
	require.Equal(t, want, withExp, "members of %s with an expiry", key)
	require.Equal(t, want, model.DecodeMeta(rawGet(t, model.MetaKey(key))).TTLs, "mn of %s", key)
}

// TestBZMove: it waits for the source, moves as soon as a member arrives,
// times out with null, and does not wait inside a transaction.
func TestBZMove(t *testing.T) {
	ctx, c, _, p := setup(t)
	src, dst := p+"src", p+"dst"
	start := time.Now()
	zs, err := c.BZMove(ctx, 200*time.Millisecond, src, dst, ZMoveArgs{Order: PopMin})
	require.NoError(t, err)
	require.Empty(t, zs)
	require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)

	done := make(chan []Z, 1)
	go func() {
		zs, err := c.BZMove(ctx, 10*time.Second, src, dst, ZMoveArgs{Order: PopMax, Count: 5})
		require.NoError(t, err)
		done <- zs
	}()
	time.Sleep(100 * time.Millisecond)
	_, err = c.ZAdd(ctx, dst, Z{1, "d"}) // the destination does not wake it
	require.NoError(t, err)
	select {
	case zs := <-done:
		t.Fatalf("woken by a write to the destination: %v", zs)
	case <-time.After(200 * time.Millisecond):
	}
	_, err = c.ZAdd(ctx, src, Z{1, "a"}, Z{2, "b"})
	require.NoError(t, err)
	select {
	case zs := <-done:
		require.Equal(t, []Z{{2, "b"}, {1, "a"}}, zs, "up to COUNT, without waiting for more")
	case <-time.After(5 * time.Second):
		t.Fatal("BZMOVE not woken by the ZADD")
	}
	got, err := c.ZRangeWithScores(ctx, dst, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "a"}, {1, "d"}, {2, "b"}}, got)

	// A destination of another type: WRONGTYPE once there are members to
	// move (not while the source is missing), nothing moved.
	s := p + "set"
	_, err = c.SAdd(ctx, s, "x")
	require.NoError(t, err)
	errs := make(chan error, 1)
	go func() {
		_, err := c.BZMove(ctx, 10*time.Second, p+"src2", s, ZMoveArgs{Order: PopMin})
		errs <- err
	}()
	time.Sleep(100 * time.Millisecond)
	_, err = c.ZAdd(ctx, p+"src2", Z{1, "a"})
	require.NoError(t, err)
	select {
	case err := <-errs:
		require.ErrorIs(t, err, ErrWrongType)
	case <-time.After(5 * time.Second):
		t.Fatal("BZMOVE not woken by the ZADD")
	}
	n, err := c.ZCard(ctx, p+"src2")
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "nothing moved")

	// Inside a transaction: no wait.
	start = time.Now()
	var moved []Z
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		var err error
		moved, err = tx.BZMove(ctx, time.Hour, src, dst, ZMoveArgs{Order: PopMin})
		return err
	}))
	require.Empty(t, moved)
	require.Less(t, time.Since(start), 10*time.Second)
}

// TestZMoveInTransaction: inside TxPipelined the moves see the
// transaction's earlier writes and the later commands see theirs.
func TestZMoveInTransaction(t *testing.T) {
	ctx, c, _, p := setup(t)
	src, dst := p+"src", p+"dst"
	_, err := c.ZAdd(ctx, dst, Z{9, "b"})
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, dst, time.Hour, ExpireAlways, "b")
	require.NoError(t, err)
	var moved, moved2, moved3 []Z
	var inDst []Z
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		if _, err := tx.ZAdd(ctx, src, Z{1, "a"}, Z{2, "b"}, Z{3, "c"}); err != nil {
			return err
		}
		var err error
		if moved, err = tx.ZMove(ctx, src, dst, ZMoveArgs{Order: PopMin, Count: 2}); err != nil {
			return err
		}
		if moved2, err = tx.ZMoveMember(ctx, src, dst, ZMoveMemberArgs{XX: true, Members: []string{"c"}}); err != nil {
			return err
		}
		if moved3, err = tx.BZMove(ctx, 0, src, dst, ZMoveArgs{Order: PopMax}); err != nil {
			return err
		}
		inDst, err = tx.ZRangeWithScores(ctx, dst, 0, -1)
		return err
	}))
	require.Equal(t, []Z{{1, "a"}, {2, "b"}}, moved)
	require.Empty(t, moved2, "XX: c is not in dst")
	require.Equal(t, []Z{{3, "c"}}, moved3)
	require.Equal(t, []Z{{1, "a"}, {2, "b"}, {3, "c"}}, inDst)
	got, err := c.ZRangeWithScores(ctx, dst, 0, -1)
	require.NoError(t, err)
	require.Equal(t, inDst, got)
	n, err := c.Exists(ctx, src)
	require.NoError(t, err)
	require.Zero(t, n)
	ttls, err := c.ZTTL(ctx, dst, "b")
	require.NoError(t, err)
	require.Equal(t, []int64{MemberNoExpiry}, ttls, "b took src's b, without an expiry")
	requireMemberTTLCount(t, dst, 0)
}

// randomMove makes one move of a random kind (ZMOVE MIN, MAX or BYSCORE,
// ZMOVEMEMBER with or without NX, BZMOVE) between the sorted sets a and
// b of members m000..., in a direction it draws; toB says which.
func randomMove(ctx context.Context, c *Client, r *rand.Rand, a, b string, n int) (zs []Z, toB bool, err error) {
	toB = r.IntN(2) == 0
	from, to := a, b
	if !toB {
		from, to = b, a
	}
	switch r.IntN(5) {
	case 0:
		zs, err = c.ZMove(ctx, from, to, ZMoveArgs{Order: PopMin, Count: int64(1 + r.IntN(3))})
	case 1:
		zs, err = c.ZMove(ctx, from, to, ZMoveArgs{Order: PopMax, Count: int64(1 + r.IntN(5))})
	case 2:
		lo := r.IntN(n)
		zs, err = c.ZMove(ctx, from, to, ZMoveArgs{ByScore: true, Min: strconv.Itoa(lo), Max: strconv.Itoa(lo + 4)})
	case 3:
		ms := []string{fmt.Sprintf("m%03d", r.IntN(n)), fmt.Sprintf("m%03d", r.IntN(n))}
		zs, err = c.ZMoveMember(ctx, from, to, ZMoveMemberArgs{NX: r.IntN(2) == 0, Members: ms})
	case 4:
		zs, err = c.BZMove(ctx, 20*time.Millisecond, from, to, ZMoveArgs{Order: PopMin, Count: int64(1 + r.IntN(2))})
	}
	return zs, toB, err
}

// TestZMoveConcurrent: movers in both directions between two ranked
// sorted sets (count items: rank.go, built by the write that takes a key
// to 8 members here), with ZRANKs reading them. Every member ends in exactly one key with its score, the counts
// are exact, and each member's moves reported by the replies account for
// where it is.
func TestZMoveConcurrent(t *testing.T) {
	t.Parallel() // its own key prefix, nothing timed
	c, _, p := rankedClient(t, 4, 8)
	ctx := context.Background()
	a, b := p+"a", p+"b"
	const n = 40
	buildRanked(t, c, a, n, n)
	want := map[string]float64{}
	for i := range n {
		want[fmt.Sprintf("m%03d", i)] = float64(i)
	}
	rounds := testenv.Budget(12, 100)
	var mu sync.Mutex
	net := map[string]int{} // moves a→b minus b→a, by member
	note := func(zs []Z, toB bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, z := range zs {
			if want[z.Member] != z.Score {
				t.Errorf("%s moved with the score %v, not %v", z.Member, z.Score, want[z.Member])
			}
			if toB {
				net[z.Member]++
			} else {
				net[z.Member]--
			}
		}
	}
	seed := testenv.Seed(t, 7)
	runWorkers(6, func(w int) {
		r := rand.New(rand.NewPCG(seed, uint64(w)))
		for range rounds {
			zs, toB, err := randomMove(ctx, c, r, a, b, n)
			if err != nil {
				t.Errorf("worker %d: %v", w, err)
				return
			}
			note(zs, toB)
			if r.IntN(4) == 0 {
				to := map[bool]string{true: b, false: a}[toB]
				if _, _, err := c.ZRank(ctx, to, fmt.Sprintf("m%03d", r.IntN(n))); err != nil {
					t.Errorf("worker %d: ZRANK: %v", w, err)
				}
			}
		}
	})
	inA, err := c.ZRangeWithScores(ctx, a, 0, -1)
	require.NoError(t, err)
	inB, err := c.ZRangeWithScores(ctx, b, 0, -1)
	require.NoError(t, err)
	require.Len(t, append(slices.Clone(inA), inB...), n, "no member lost or duplicated")
	seen := map[string]bool{}
	for _, z := range inA {
		seen[z.Member] = true
		require.Equal(t, want[z.Member], z.Score)
		require.Zero(t, net[z.Member], "%s is in a: its moves cancel out", z.Member)
	}
	for _, z := range inB {
		require.False(t, seen[z.Member], "%s in both keys", z.Member)
		require.Equal(t, want[z.Member], z.Score)
		require.Equal(t, 1, net[z.Member], "%s is in b: one move more to b", z.Member)
	}
	ca, err := c.ZCard(ctx, a)
	require.NoError(t, err)
	cb, err := c.ZCard(ctx, b)
	require.NoError(t, err)
	require.EqualValues(t, n, ca+cb, "exact counts")
	checkRankItems(t, c, a)
	checkRankItems(t, c, b)
}

// TestZMoveAgainstRedis runs random ZADD, ZMOVE, ZMOVEMEMBER, EXPIRE and
// SADD on a few keys, on redimo and on redis-server, where each move is
// made of Redis 7.0 commands (zmoveModel), and compares every reply and
// every key (members, scores, type, whether it has an expiry) after
// each step.
func TestZMoveAgainstRedis(t *testing.T) {
	t.Parallel() // its own key prefixes on both sides, nothing timed
	ctx, c, _, p := setup(t)
	rdb := zRedis(t)
	rp := "zmove-oracle:" + randomHex(4) + ":"
	keys := []string{"k0", "k1", "k2", "s"}
	t.Cleanup(func() {
		for _, k := range keys {
			rdb.Del(context.Background(), rp+k)
		}
	})
	seed := testenv.Seed(t, 11)
	r := rand.New(rand.NewPCG(seed, 0))
	member := func() string { return "m" + strconv.Itoa(r.IntN(8)) }
	bound := func() string {
		b := strconv.Itoa(r.IntN(6))
		switch r.IntN(5) {
		case 0:
			return "(" + b
		case 1:
			return "-inf"
		case 2:
			return "+inf"
		}
		return b
	}
	steps := testenv.Budget(50, 1000)
	for step := range steps {
		src, dst := keys[r.IntN(3)], keys[r.IntN(3)]
		if r.IntN(10) == 0 {
			src = "s"
		} else if r.IntN(10) == 0 {
			dst = "s"
		}
		var what string
		var got, want []Z
		var gerr, werr error
		switch k := r.IntN(10); {
		case k < 3:
			zs := make([]Z, 1+r.IntN(4))
			args := []any{"ZADD", rp + src}
			for i := range zs {
				zs[i] = Z{float64(r.IntN(5)), member()}
				args = append(args, zs[i].Score, zs[i].Member)
			}
			what = fmt.Sprintf("ZADD %s %v", src, zs)
			_, gerr = c.ZAdd(ctx, p+src, zs...)
			werr = rdb.Do(ctx, args...).Err()
		case k < 6:
			args := ZMoveArgs{Order: PopMin}
			switch r.IntN(3) {
			case 1:
				args.Order = PopMax
			case 2:
				args = ZMoveArgs{ByScore: true, Min: bound(), Max: bound()}
			}
			if r.IntN(2) == 0 {
				args.Count = int64(1 + r.IntN(4))
			}
			what = fmt.Sprintf("ZMOVE %s %s %+v", src, dst, args)
			got, gerr = c.ZMove(ctx, p+src, p+dst, args)
			want, werr = zmoveModel(ctx, rdb, rp+src, rp+dst, args, nil)
		case k < 8:
			args := ZMoveMemberArgs{NX: r.IntN(3) == 0}
			args.XX = !args.NX && r.IntN(2) == 0
			for range 1 + r.IntN(4) {
				args.Members = append(args.Members, member())
			}
			what = fmt.Sprintf("ZMOVEMEMBER %s %s %+v", src, dst, args)
			got, gerr = c.ZMoveMember(ctx, p+src, p+dst, args)
			want, werr = zmoveModel(ctx, rdb, rp+src, rp+dst, ZMoveArgs{}, &args)
		case k < 9:
			what = "EXPIRE " + src
			_, gerr = c.Expire(ctx, p+src, time.Hour)
			werr = rdb.Expire(ctx, rp+src, time.Hour).Err()
		default:
			what = "SADD s"
			_, gerr = c.SAdd(ctx, p+"s", member())
			werr = rdb.SAdd(ctx, rp+"s", member()).Err()
		}
		require.Equal(t, errText(werr), errText(gerr), "step %d: %s", step, what)
		require.Equal(t, want, got, "step %d: %s", step, what)
		for _, k := range keys {
			require.Equal(t, redisState(t, rdb, rp+k), redimoState(t, c, p+k), "step %d: %s: key %s", step, what, k)
		}
	}
}

func errText(err error) string {
	switch {
	case err == nil:
		return ""
	case strings.Contains(err.Error(), "WRONGTYPE"):
		return "WRONGTYPE"
	}
	return err.Error()
}

// zmoveModel is ZMOVE (mm nil) or ZMOVEMEMBER on redis-server made of
// Redis 7.0 commands, as redis.io describes them: null for the same key
// or a missing source; WRONGTYPE when the source exists and either key is
// another type; else the members selected (ZRANGE ... WITHSCORES, or
// ZSCORE of each named member, with NX/XX checked by ZSCORE on the
// destination), removed with ZREM and added with ZADD.
func zmoveModel(ctx context.Context, rdb *redis.Client, src, dst string, args ZMoveArgs, mm *ZMoveMemberArgs) ([]Z, error) {
	st := rdb.Type(ctx, src).Val()
	switch {
	case st == "none":
		return nil, nil
	case st != "zset":
		return nil, fmt.Errorf("WRONGTYPE")
	case src == dst:
		return nil, nil
	}
	if dt := rdb.Type(ctx, dst).Val(); dt != "none" && dt != "zset" {
		return nil, fmt.Errorf("WRONGTYPE")
	}
	var sel []Z
	if mm != nil {
		seen := map[string]bool{}
		for _, m := range mm.Members {
			if seen[m] {
				continue
			}
			seen[m] = true
			score, err := rdb.ZScore(ctx, src, m).Result()
			if err != nil {
				continue // not in src
			}
			inDst := rdb.ZScore(ctx, dst, m).Err() == nil
			if mm.NX && inDst || mm.XX && !inDst {
				continue
			}
			sel = append(sel, Z{score, m})
		}
	} else {
		count := args.Count
		var zs []redis.Z
		switch {
		case args.ByScore:
			if count == 0 {
				count = -1
			}
			zs = rdb.ZRangeByScoreWithScores(ctx, src, &redis.ZRangeBy{Min: args.Min, Max: args.Max, Count: count}).Val()
		case args.Order == PopMax:
			zs = rdb.ZRevRangeWithScores(ctx, src, 0, max(count, 1)-1).Val()
		default:
			zs = rdb.ZRangeWithScores(ctx, src, 0, max(count, 1)-1).Val()
		}
		for _, z := range zs {
			sel = append(sel, Z{z.Score, z.Member.(string)})
		}
	}
	if len(sel) == 0 {
		return nil, nil
	}
	for _, z := range sel {
		rdb.ZRem(ctx, src, z.Member)
		rdb.ZAdd(ctx, dst, redis.Z{Score: z.Score, Member: z.Member})
	}
	return sel, nil
}

// keyState is what TestZMoveAgainstRedis compares of a key.
type keyState struct {
	Type    string
	Members []Z
	Expires bool
}

func redisState(t *testing.T, rdb *redis.Client, k string) keyState {
	ctx := context.Background()
	s := keyState{Type: rdb.Type(ctx, k).Val(), Expires: rdb.TTL(ctx, k).Val() > 0}
	if s.Type == "zset" {
		for _, z := range rdb.ZRangeWithScores(ctx, k, 0, -1).Val() {
			s.Members = append(s.Members, Z{z.Score, z.Member.(string)})
		}
	}
	return s
}

func redimoState(t *testing.T, c *Client, k string) keyState {
	ctx := context.Background()
	typ, err := c.Type(ctx, k)
	require.NoError(t, err)
	ttl, err := c.TTL(ctx, k)
	require.NoError(t, err)
	s := keyState{Type: typ, Expires: ttl > 0}
	if typ == "zset" {
		s.Members, err = c.ZRangeWithScores(ctx, k, 0, -1)
		require.NoError(t, err)
	}
	return s
}

// TestZMoveFaults runs movers between two ranked sorted sets through a
// transport that loses responses after DynamoDB applied them, answers
// 500s, throttles or reports conflicts (faults_test.go): every member must
// end where the replies put it, never lost, never in both keys, with exact
// counts. The negative control (a resent transaction with a fresh
// idempotency token) must break that model.
func TestZMoveFaults(t *testing.T) {
	needDB(t)
	faultMatrix(t, []faultMode{dropResponse, appliedThen5, serverError, throttling, conflicts}, zmoveFaultWorkload, nil)
}

// zmoveFaultWorkload runs 4 movers through c between the sorted sets a
// (30 members, ranked) and b, and returns how the final state, read
// through clean, differs from the replies: each member is in b exactly
// when the replies moved it to b once more than back, with its score;
// the counts equal the members; the count items are exact.
func zmoveFaultWorkload(t *testing.T, c, clean *Client, p string) []string {
	ctx := context.Background()
	c.ranks.max, c.ranks.min = 4, 8
	clean.ranks.max, clean.ranks.min = 4, 8
	a, b := p+"a", p+"b"
	const n = 30
	buildRanked(t, clean, a, n, n)
	var mu sync.Mutex
	var violations []string
	net := map[string]int{}
	rounds := testenv.Budget(12, 40)
	seed := testenv.Seed(t, 5)
	runWorkers(4, func(w int) {
		r := rand.New(rand.NewPCG(seed, uint64(w)))
		for range rounds {
			zs, toB, err := randomMove(ctx, c, r, a, b, n)
			mu.Lock()
			if err != nil {
				violations = append(violations, fmt.Sprintf("worker %d: %v", w, err))
			}
			for _, z := range zs {
				if toB {
					net[z.Member]++
				} else {
					net[z.Member]--
				}
			}
			mu.Unlock()
		}
	})
	inA, err := clean.ZRangeWithScores(ctx, a, 0, -1)
	require.NoError(t, err)
	inB, err := clean.ZRangeWithScores(ctx, b, 0, -1)
	require.NoError(t, err)
	where := map[string]int{}
	for _, z := range inA {
		where[z.Member]--
	}
	for _, z := range inB {
		where[z.Member] += 2
	}
	for i := range n {
		m := fmt.Sprintf("m%03d", i)
		switch {
		case where[m] == 0:
			violations = append(violations, m+" lost")
		case where[m] == 1:
			violations = append(violations, m+" in both keys")
		case where[m] == -1 && net[m] != 0:
			violations = append(violations, fmt.Sprintf("%s in a after %+d moves to b", m, net[m]))
		case where[m] == 2 && net[m] != 1:
			violations = append(violations, fmt.Sprintf("%s in b after %+d moves to b", m, net[m]))
		}
	}
	for _, z := range append(inA, inB...) {
		if want := float64(z.Member[1]-'0')*100 + float64(z.Member[2]-'0')*10 + float64(z.Member[3]-'0'); z.Score != want {
			violations = append(violations, fmt.Sprintf("%s scores %v, not %v", z.Member, z.Score, want))
		}
	}
	for _, k := range []string{a, b} {
		n, err := clean.ZCard(ctx, k)
		require.NoError(t, err)
		zs, err := clean.ZRangeWithScores(ctx, k, 0, -1)
		require.NoError(t, err)
		if int(n) != len(zs) {
			violations = append(violations, fmt.Sprintf("ZCARD %s = %d, %d members", k, n, len(zs)))
		}
		checkRankItems(t, clean, k)
	}
	return violations
}

// BenchmarkZMove measures the requests and items read of a move between
// two sorted sets of 100 members each (moves alternate direction, so
// both stay full), against the baseline a client without ZMOVE runs: a
// ZPOPMIN then a ZADD of what it popped (two commands, not atomic: a
// crash between them loses the members).
func BenchmarkZMove(b *testing.B) {
	ctx, c, cnt, p := setup(b)
	fill := func(key string) {
		zs := make([]Z, 100)
		for i := range zs {
			zs[i] = Z{Score: float64(i), Member: fmt.Sprintf("%s-%03d", key[len(p):], i)} // "name:rand:a-007"
		}
		if _, err := c.ZAdd(ctx, key, zs...); err != nil {
			b.Fatal(err)
		}
	}
	// keys makes two fresh sorted sets for a run of a sub-benchmark and
	// returns the first and a function giving both as (from, to), the
	// direction alternating.
	keys := func(name string) (string, func() (string, string)) {
		name += ":" + randomHex(3)
		a, z := p+name+":a", p+name+":b"
		fill(a)
		fill(z)
		i := 0
		return a, func() (string, string) {
			if i++; i%2 == 0 {
				return z, a
			}
			return a, z
		}
	}
	txPerOp := func(b *testing.B) {
		cnt.mu.Lock()
		tx := cnt.byOp["TransactWriteItems"]
		cnt.mu.Unlock()
		b.ReportMetric(float64(tx)/float64(b.N), "transactions/op")
	}
	for _, count := range []int64{1, 10, 49} {
		b.Run(fmt.Sprintf("ZMove/count=%d", count), func(b *testing.B) {
			_, next := keys(fmt.Sprintf("zmove%d", count))
			report(b, cnt, func() {
				from, to := next()
				if zs, err := c.ZMove(ctx, from, to, ZMoveArgs{Order: PopMin, Count: count}); err != nil || int64(len(zs)) != count {
					b.Fatal(len(zs), err)
				}
			})
			txPerOp(b)
		})
		b.Run(fmt.Sprintf("baseline-ZPopMin+ZAdd/count=%d", count), func(b *testing.B) {
			_, next := keys(fmt.Sprintf("pop%d", count))
			report(b, cnt, func() {
				from, to := next()
				zs, err := c.ZPopMin(ctx, from, count)
				if err != nil || int64(len(zs)) != count {
					b.Fatal(len(zs), err)
				}
				if _, err := c.ZAdd(ctx, to, zs...); err != nil {
					b.Fatal(err)
				}
			})
			txPerOp(b)
		})
	}
	b.Run("ZMoveMember/1", func(b *testing.B) {
		src, next := keys("member")
		report(b, cnt, func() {
			from, to := next()
			m := src[len(p):] + "-050"
			if zs, err := c.ZMoveMember(ctx, from, to, ZMoveMemberArgs{Members: []string{m}}); err != nil || len(zs) != 1 {
				b.Fatal(len(zs), err)
			}
		})
		txPerOp(b)
	})
}
