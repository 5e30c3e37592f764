package redimo

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
)

// requireRanksInOrder: the ZRANK of each member of key is its place in
// ZRANGE 0 -1.
func requireRanksInOrder(t *testing.T, c *Client, key string) {
	t.Helper()
	ctx := context.Background()
	all, err := c.ZRange(ctx, key, 0, -1)
	require.NoError(t, err)
	for i, m := range all {
		r, ok, err := c.ZRank(ctx, key, m)
		require.NoError(t, err)
		require.True(t, ok, m)
		require.EqualValues(t, i, r, m)
	}
}

// checkRankItems checks the raw table against the count items' invariant:
// when the metadata item says ranked, the count items partition the index
// values (the first from the empty value, each ending where the next
// starts) and each holds exactly the number of members in its range.
// It returns the number of ranges (0: not ranked).
func checkRankItems(t *testing.T, c *Client, key string) int {
	t.Helper()
	ctx := context.Background()
	mt := rawGet(t, model.MetaKey(key))
	if _, ok := mt[model.AttrRanked]; !ok {
		return 0
	}
	m := model.DecodeMeta(mt)
	ranges, err := c.readRanges(ctx, key)
	require.NoError(t, err)
	require.NotEmpty(t, ranges)
	require.Empty(t, ranges[0].Lo, "the first range starts at the empty value")
	var ixs [][]byte
	in := c.scoreQuery(key, math.Inf(-1), math.Inf(1))
	in.ConsistentRead = aws.Bool(true)
	for it, err := range c.query(ctx, in, 0) {
		require.NoError(t, err)
		ixs = append(ixs, model.BytesAttr(it, model.AttrIX))
	}
	require.EqualValues(t, m.Card, len(ixs), "metadata count")
	var sum int64
	for i, r := range ranges {
		if i+1 < len(ranges) {
			require.Equal(t, ranges[i+1].Lo, r.Hi, "range %d ends where %d starts", i, i+1)
		} else {
			require.Nil(t, r.Hi, "the last range is open")
		}
		var n int64
		for _, ix := range ixs {
			if bytes.Compare(ix, r.Lo) >= 0 && (r.Hi == nil || bytes.Compare(ix, r.Hi) < 0) {
				n++
			}
		}
		require.Equal(t, n, r.N, "range %d [%x, %x) counts its members", i, r.Lo, r.Hi)
		sum += r.N
	}
	require.Equal(t, m.Card, sum)
	return len(ranges)
}

// rankedClient is a test client whose ranges split beyond max members and
// whose sorted sets get count items from min members.
// buildRanked adds n members m000, m001, ... to the sorted set k, member i
// with score i%mod (mod n: all distinct) in one ZAdd, which builds its count items,
// and returns how many there are, checked against a recount
// (checkRankItems).
func buildRanked(t *testing.T, c *Client, k string, n, mod int) int {
	t.Helper()
	ctx := context.Background()
	zs := make([]Z, n)
	for i := range zs {
		zs[i] = Z{Score: float64(i % mod), Member: fmt.Sprintf("m%03d", i)}
	}
	// Member items, which count items are for: not a small sorted set
	// (smallz.go); once they exist, c's writes keep them.
	small := c.opts.DisableSmallSortedSets
	c.opts.DisableSmallSortedSets = true
	_, err := c.ZAdd(ctx, k, zs...)
	c.opts.DisableSmallSortedSets = small
	require.NoError(t, err)
	_, _, err = c.ZRank(ctx, k, "m000") // reads (the ZAdd built the count items)
	require.NoError(t, err)
	return checkRankItems(t, c, k)
}

func rankedClient(t *testing.T, max, min int, optFns ...func(*Options)) (*Client, *counter, string) {
	c, cnt, p := newTestClient(t, optFns...)
	c.ranks.max, c.ranks.min = max, min
	c.opts.DisableSmallSortedSets = true // count items are for member items (smallz.go)
	return c, cnt, p
}

// TestRankIndexAgainstRedis builds count items on a 400-member sorted set
// with many tied scores (ranges of at most 8 members: ~50 of them, split
// inside runs of equal scores), then runs random writes of every kind on
// it and on redis-server, checking after each round every member's
// ZRANK/ZREVRANK (WITHSCORE) and ZRevRankAround against redis and the
// count items against the raw table.
func TestRankIndexAgainstRedis(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	c, cnt, p := rankedClient(t, 8, 40)
	ctx := context.Background()
	k := p + "board"
	rdb := zRedisKey(t, k)
	r := rand.New(rand.NewPCG(testenv.Seed(t, 13), 13))
	var zs []Z
	for i := range 400 {
		zs = append(zs, Z{Score: float64(i % 5), Member: fmt.Sprintf("m%03d", i)})
	}
	_, err := c.ZAdd(ctx, k, zs...)
	require.NoError(t, err)
	for _, z := range zs {
		require.NoError(t, rdb.ZAdd(ctx, k, redis.Z{Score: z.Score, Member: z.Member}).Err())
	}
	require.Positive(t, checkRankItems(t, c, k), "ranked by the write that reached the minimum")

	// One member in stride per round, and both ends: every 23rd in the
	// full suite, every 47th in the everyday one.
	stride := testenv.Budget(97, 23)
	compare := func(round int) {
		all, err := rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
		require.NoError(t, err)
		for i, z := range all {
			member := z.Member.(string)
			if i%stride != round%stride && i != 0 && i != len(all)-1 {
				continue
			}
			cnt.reset()
			got, ok, err := c.ZRankWithScore(ctx, k, member)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, RankScore{Rank: int64(i), Score: z.Score}, got, "round %d ZRANK %s", round, member)
			rev, ok, err := c.ZRevRank(ctx, k, member)
			require.NoError(t, err)
			require.True(t, ok)
			require.EqualValues(t, len(all)-1-i, rev, "round %d ZREVRANK %s", round, member)
		}
		// ZRANGE/ZREVRANGE by rank deep in the set start from the count
		// items (offsets past the bound of 8).
		for _, start := range []int64{0, 9, int64(len(all)) / 2, int64(len(all)) / 3, int64(len(all))*2/3 + 1, int64(len(all)) - 11, int64(len(all)) - 5} {
			for _, rev := range []bool{false, true} {
				var got []Z
				var want []redis.Z
				if rev {
					got, err = c.ZRevRangeWithScores(ctx, k, start, start+6)
					want, _ = rdb.ZRevRangeWithScores(ctx, k, start, start+6).Result()
				} else {
					got, err = c.ZRangeWithScores(ctx, k, start, start+6)
					want, _ = rdb.ZRangeWithScores(ctx, k, start, start+6).Result()
				}
				require.NoError(t, err)
				require.Len(t, got, len(want), "round %d start %d rev %v", round, start, rev)
				for i := range want {
					require.Equal(t, want[i].Member, got[i].Member, "round %d start %d rev %v", round, start, rev)
					require.Equal(t, want[i].Score, got[i].Score)
				}
			}
		}
		// ZCOUNT over ranges of many count ranges (wider than the 8 a
		// count reads first): whole ranges summed, the cut ones counted.
		for _, b := range [][2]string{{"-inf", "+inf"}, {"1", "3"}, {"(1", "(4"}, {"0.5", "2.5"}, {"2", "2"}, {"(2", "2"}, {"3", "+inf"}, {"-inf", "(0"}, {"4.5", "9"}} {
			got, err := c.ZCount(ctx, k, b[0], b[1])
			require.NoError(t, err)
			want, err := rdb.ZCount(ctx, k, b[0], b[1]).Result()
			require.NoError(t, err)
			require.Equal(t, want, got, "round %d ZCOUNT %s %s", round, b[0], b[1])
		}
		tail, err := c.ZRange(ctx, k, int64(len(all))-3, -1)
		require.NoError(t, err)
		wantTail, _ := rdb.ZRange(ctx, k, int64(len(all))-3, -1).Result()
		require.Equal(t, wantTail, tail)
		n := checkRankItems(t, c, k)
		require.Positive(t, n, "ranked")
		t.Logf("round %d: %d members, %d ranges", round, len(all), n)
	}
	compare(0)
	// The ranks above built the count items: ranges of at most 8 members
	// (built from 400/98 = 5, then split when they grow past 8).
	ranges, err := c.readRanges(ctx, k)
	require.NoError(t, err)
	for _, rg := range ranges {
		require.LessOrEqual(t, rg.N, int64(8))
	}
	require.GreaterOrEqual(t, len(ranges), 50)

	next := 400
	for round := 1; round <= testenv.Budget(1, 6); round++ {
		for range 30 {
			member := fmt.Sprintf("m%03d", r.IntN(next+20))
			switch op := r.IntN(7); op {
			case 0, 1: // ZADD, new or existing
				s := float64(r.IntN(6))
				_, err := c.ZAdd(ctx, k, Z{Score: s, Member: member})
				require.NoError(t, err)
				require.NoError(t, rdb.ZAdd(ctx, k, redis.Z{Score: s, Member: member}).Err())
			case 2: // ZINCRBY
				_, err := c.ZIncrBy(ctx, k, 1, member)
				require.NoError(t, err)
				require.NoError(t, rdb.ZIncrBy(ctx, k, 1, member).Err())
			case 3: // ZREM of members whose index value the writer does not know
				other := fmt.Sprintf("m%03d", r.IntN(next+20))
				got, err := c.ZRem(ctx, k, member, other)
				require.NoError(t, err)
				want, err := rdb.ZRem(ctx, k, member, other).Result()
				require.NoError(t, err)
				require.Equal(t, want, got)
			case 4: // ZADD XX: an update of unknown old value
				s := float64(r.IntN(6))
				_, err := c.ZAddArgs(ctx, k, ZAddArgs{XX: true, Members: []Z{{Score: s, Member: member}}})
				require.NoError(t, err)
				require.NoError(t, rdb.ZAddXX(ctx, k, redis.Z{Score: s, Member: member}).Err())
			case 5: // ZPOPMIN / ZPOPMAX 3: replies in pop order
				pop, rpop := c.ZPopMin, rdb.ZPopMin
				if r.IntN(2) == 0 {
					pop, rpop = c.ZPopMax, rdb.ZPopMax
				}
				got, err := pop(ctx, k, 3)
				require.NoError(t, err)
				want, err := rpop(ctx, k, 3).Result()
				require.NoError(t, err)
				require.Len(t, got, len(want))
				for i := range want {
					require.Equal(t, want[i].Member, got[i].Member)
				}
			case 6: // many new members at once: chunks of a ranked key
				var batch []Z
				var rbatch []redis.Z
				for range 50 + r.IntN(60) {
					z := Z{Score: float64(r.IntN(6)), Member: fmt.Sprintf("m%03d", next)}
					next++
					batch, rbatch = append(batch, z), append(rbatch, redis.Z{Score: z.Score, Member: z.Member})
				}
				_, err := c.ZAdd(ctx, k, batch...)
				require.NoError(t, err)
				require.NoError(t, rdb.ZAdd(ctx, k, rbatch...).Err())
			}
		}
		checkRankItems(t, c, k)
		compare(round)
	}
	// ZREMRANGEBYSCORE of a whole score: a chunk of deletions.
	got, err := c.ZRemRangeByScore(ctx, k, "2", "2")
	require.NoError(t, err)
	want, err := rdb.ZRemRangeByScore(ctx, k, "2", "2").Result()
	require.NoError(t, err)
	require.Equal(t, want, got)
	compare(7)
	got, err = c.ZRemRangeByRank(ctx, k, 100, 140)
	require.NoError(t, err)
	want, err = rdb.ZRemRangeByRank(ctx, k, 100, 140).Result()
	require.NoError(t, err)
	require.Equal(t, want, got)
	compare(8)
}

// TestRankIndexConcurrent: writers on two Clients (one combining, one
// not) change a ranked key at once; the count items stay exact.
func TestRankIndexConcurrent(t *testing.T) {
	a, _, p := rankedClient(t, 10, 40)
	b, _, _ := rankedClient(t, 10, 40, func(o *Options) { o.DisableWriteCombining = true })
	ctx := context.Background()
	k := p + "hot"
	require.Positive(t, buildRanked(t, a, k, 200, 3))
	runWorkers(8, func(g int) {
		c := a
		if g%2 == 1 {
			c = b
		}
		r := rand.New(rand.NewPCG(uint64(g), 7))
		for range 25 {
			m := fmt.Sprintf("m%03d", r.IntN(260))
			var err error
			switch r.IntN(4) {
			case 0:
				_, err = c.ZIncrBy(ctx, k, float64(r.IntN(3)), m)
			case 1:
				_, err = c.ZAdd(ctx, k, Z{Score: float64(r.IntN(3)), Member: m})
			case 2:
				_, err = c.ZRem(ctx, k, m)
			case 3:
				_, _, err = c.ZRank(ctx, k, m)
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	require.Positive(t, checkRankItems(t, a, k))
	checkStoredCounts(t, p)
}

// TestRankIndexFallback: a key below the build minimum, or one that
// cannot be built (an expiry), is counted; a key deleted and created again
// leaves count items behind that its next build replaces.
func TestRankIndexFallback(t *testing.T) {
	c, cnt, p := rankedClient(t, 8, 100)
	ctx := context.Background()
	small, k := p+"small", p+"k"
	zs := byIndex(numbered("m%03d", 150))
	_, err := c.ZAdd(ctx, small, zs[:99]...)
	require.NoError(t, err)
	rank, ok, err := c.ZRank(ctx, small, "m050")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 50, rank)
	require.Zero(t, checkRankItems(t, c, small), "too small: counted, not built")

	_, err = c.ZAdd(ctx, k, zs...)
	require.NoError(t, err)
	rank, _, err = c.ZRevRank(ctx, k, "m050")
	require.NoError(t, err)
	require.EqualValues(t, 99, rank)
	require.Positive(t, checkRankItems(t, c, k))
	cnt.reset()
	rank, _, err = c.ZRevRank(ctx, k, "m020")
	require.NoError(t, err)
	require.EqualValues(t, 129, rank)
	require.LessOrEqual(t, cnt.reads.Load(), int64(60), "count items and one range, not 129 members: %v", cnt)

	// Deleted and created again with other members: the old count items
	// are ignored, then replaced.
	_, err = c.Del(ctx, k)
	require.NoError(t, err)
	other := make([]Z, 120)
	for i := range other {
		other[i] = Z{Score: float64(-i), Member: fmt.Sprintf("o%03d", i)}
	}
	fresh, _, _ := rankedClient(t, 8, 100) // knows nothing of k
	_, err = fresh.ZAdd(ctx, k, other[:99]...)
	require.NoError(t, err)
	require.Zero(t, checkRankItems(t, c, k), "99 members: below the minimum")
	_, err = fresh.ZAdd(ctx, k, other[99:]...)
	require.NoError(t, err)
	require.Positive(t, checkRankItems(t, c, k), "built by the write that reached the minimum")
	rank, _, err = c.ZRank(ctx, k, "o000")
	require.NoError(t, err)
	require.EqualValues(t, 119, rank)
	require.Positive(t, checkRankItems(t, c, k))
	_, err = c.ZAdd(ctx, k, Z{Score: 0.5, Member: "new"}) // c believed k unranked after Del
	require.NoError(t, err)
	_, err = fresh.ZRem(ctx, k, "o003") // fresh believes it unranked
	require.NoError(t, err)
	checkRankItems(t, c, k)
	rank, _, err = fresh.ZRank(ctx, k, "new")
	require.NoError(t, err)
	require.EqualValues(t, 119, rank, "121 members, one removed: the new highest is last")
}

// A transaction (TxPipelined, EXEC) that writes a ranked key keeps its
// count items exact (adds, removes, score changes); one whose count items
// would not fit in 100 actions, or that makes the key a set, unranks it:
// ranks stay exact, counted, until the next write that adds a member
// builds them again. And a
// ranked key of long members sharing their first bytes (no bound can fall
// inside their run) keeps exact count items.
func TestRankIndexTransactionsAndLongMembers(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	c, _, p := rankedClient(t, 8, 20)
	ctx := context.Background()
	k := p + "z"
	var zs []Z
	shared := strings.Repeat("s", model.InlineMemberLen)
	for i := range 60 {
		m := fmt.Sprintf("m%03d", i)
		if i%3 == 0 { // a run of long members with one score and first 1015 bytes
			m = shared + m
		}
		zs = append(zs, Z{Score: float64(i % 2), Member: m})
	}
	_, err := c.ZAdd(ctx, k, zs...)
	require.NoError(t, err)
	want := func() []string { // ranks as Redis orders: score, then member bytes
		s := slices.Clone(zs)
		slices.SortFunc(s, func(a, b Z) int {
			if a.Score != b.Score {
				return cmp.Compare(a.Score, b.Score)
			}
			return strings.Compare(a.Member, b.Member)
		})
		return names(s)
	}
	check := func(step string) {
		t.Helper()
		order := want()
		for i, m := range order {
			if i%testenv.Budget(15, 1) != 0 && i != len(order)-1 {
				continue // every member in the full suite, one in 15 and the last everyday
			}
			r, ok, err := c.ZRank(ctx, k, m)
			require.NoError(t, err)
			require.True(t, ok)
			require.EqualValues(t, i, r, "%s: rank of %s", step, shortQ(m))
		}
		got, err := c.ZRangeWithScores(ctx, k, 0, -1)
		require.NoError(t, err)
		require.Equal(t, order, names(got), step)
	}
	check("built")
	require.Greater(t, checkRankItems(t, c, k), 1, "the key has count items")
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.ZAdd(ctx, k, Z{Score: 0.5, Member: "new"}, Z{Score: 1, Member: shared + "zz"}, Z{Score: -1, Member: "m002"})
		if err == nil {
			_, err = tx.ZRem(ctx, k, "m001")
		}
		return err
	})
	require.NoError(t, err)
	require.Greater(t, checkRankItems(t, c, k), 1, "the transaction kept the count items")
	zs = append(zs, Z{Score: 0.5, Member: "new"}, Z{Score: 1, Member: shared + "zz"})
	zs = slices.DeleteFunc(zs, func(z Z) bool { return z.Member == "m001" })
	for i := range zs {
		if zs[i].Member == "m002" {
			zs[i].Score = -1
		}
	}
	check("after a transaction")
	// Another client splits a range the transaction's Client knows: its
	// count-item condition fails and the transaction runs again.
	other, _, _ := rankedClient(t, 8, 20)
	_, err = other.ZAdd(ctx, k, Z{Score: 0.25, Member: "a"}, Z{Score: 0.25, Member: "b"}, Z{Score: 0.25, Member: "c"},
		Z{Score: 0.25, Member: "d"}, Z{Score: 0.25, Member: "e"}, Z{Score: 0.25, Member: "f"})
	require.NoError(t, err)
	for _, m := range []string{"a", "b", "c", "d", "e", "f"} {
		zs = append(zs, Z{Score: 0.25, Member: m})
	}
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.ZIncrBy(ctx, k, 0.125, "b")
		return err
	})
	require.NoError(t, err)
	for i := range zs {
		if zs[i].Member == "b" {
			zs[i].Score += 0.125
		}
	}
	require.Greater(t, checkRankItems(t, c, k), 1)
	check("after a split and a transaction")
	// 95 members among every range of 8: the count items do not fit.
	var many []Z
	for i := range 95 {
		many = append(many, Z{Score: float64(i % 2), Member: fmt.Sprintf("m%03da", i%60)})
		if i >= 60 {
			many[i].Member = shared + many[i].Member
		}
	}
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.ZAdd(ctx, k, many...)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 0, checkRankItems(t, c, k), "the transaction unranked the key")
	zs = append(zs, many...)
	check("after an unranking transaction")
	require.Zero(t, checkRankItems(t, c, k), "rank reads count, never build")
	_, err = c.ZAdd(ctx, k, Z{Score: 3, Member: "after"})
	require.NoError(t, err)
	zs = append(zs, Z{Score: 3, Member: "after"})
	require.Greater(t, checkRankItems(t, c, k), 1, "the next write that adds a member built count items again")
	check("after the write that built them again")
	checkStoredCounts(t, p)
}

// before(b) is the greatest index value below b: every value of at most
// model.MaxIX bytes is below b exactly when it is at most before(b).
func TestRankBefore(t *testing.T) {
	for _, tc := range []struct {
		b, below, notBelow []byte
	}{
		{[]byte{1, 2}, []byte{1, 1, 0xFF, 0xFF}, []byte{1, 2}},
		{[]byte{1, 0}, []byte{1}, []byte{1, 0}},
		{[]byte{5}, []byte{4, 0xFF}, []byte{5, 0}},
		{[]byte{0}, nil, []byte{0}},
	} {
		p, ok := model.Before(tc.b)
		if tc.below == nil {
			require.False(t, ok, "%x", tc.b)
			continue
		}
		require.True(t, ok)
		require.Less(t, bytes.Compare(p, tc.b), 0)
		require.LessOrEqual(t, bytes.Compare(tc.below, p), 0, "%x <= before(%x)", tc.below, tc.b)
		require.Greater(t, bytes.Compare(tc.notBelow, p), 0)
		require.LessOrEqual(t, len(p), model.MaxIX)
	}
	long := append([]byte{3}, bytes.Repeat([]byte{0xFF}, model.MaxIX-1)...)
	p, _ := model.Before([]byte{4})
	require.Equal(t, long, p, "the longest value below 4")
}

// Ranges merge when they shrink: removing most members of a ranked key
// (one at a time, in chunks, by pops) leaves few count items, exact.
func TestRankIndexMerges(t *testing.T) {
	c, _, p := rankedClient(t, 8, 20)
	ctx := context.Background()
	k := p + "z"
	var err error
	built := buildRanked(t, c, k, 240, 3)
	require.GreaterOrEqual(t, built, 30, "ranges of at most 8")
	// One at a time: every member but one in ten.
	for i := range 120 {
		if i%10 != 0 {
			_, err := c.ZRem(ctx, k, fmt.Sprintf("m%03d", i))
			require.NoError(t, err)
		}
	}
	// In chunks and pops.
	var chunk []string
	for i := 120; i < 240; i++ {
		if i%10 != 0 {
			chunk = append(chunk, fmt.Sprintf("m%03d", i))
		}
	}
	_, err = c.ZRem(ctx, k, chunk[:60]...)
	require.NoError(t, err)
	_, err = c.ZRem(ctx, k, chunk[60:]...)
	require.NoError(t, err)
	_, err = c.ZPopMin(ctx, k, 3)
	require.NoError(t, err)
	left := checkRankItems(t, c, k)
	card, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 21, card)
	t.Logf("%d ranges built, %d after removing all but %d members", built, left, card)
	ranges, err := c.readRanges(ctx, k)
	require.NoError(t, err)
	for i := range len(ranges) - 1 {
		require.Greater(t, ranges[i].N+ranges[i+1].N, int64(4), "ranges %d and %d (of at most 4 together) were merged", i, i+1)
	}
	require.LessOrEqual(t, left, 2*int(card)/5+1, "no two adjacent ranges mergeable: pairs hold at least 5")
	requireRanksInOrder(t, c, k)
	checkStoredCounts(t, p)
}

// ZLEXCOUNT on a ranked sorted set whose scores are all equal counts from
// the count items (ranges of at most 8, so most ranges are wide), as
// redis-server does; with unequal scores it counts as before.
func TestRankIndexLexCount(t *testing.T) {
	c, cnt, p := rankedClient(t, 8, 20)
	ctx := context.Background()
	k := p + "lex"
	rdb := zRedisKey(t, k)
	members := []string{"", "\x00", "a", "a\x00", "\xff", strings.Repeat("l", model.InlineMemberLen+5)}
	for i := range 150 {
		members = append(members, fmt.Sprintf("m%03d", i*7%150))
	}
	for _, m := range members {
		_, err := c.ZAdd(ctx, k, Z{Score: 2.5, Member: m})
		require.NoError(t, err)
		require.NoError(t, rdb.ZAdd(ctx, k, redis.Z{Score: 2.5, Member: m}).Err())
	}
	_, _, err := c.ZRank(ctx, k, "m000") // builds
	require.NoError(t, err)
	require.Greater(t, checkRankItems(t, c, k), 10)
	bounds := [][2]string{{"-", "+"}, {"[a", "+"}, {"(a", "[m100"}, {"[m010", "(m140"}, {"-", "(m075"}, {"[m075", "[m075"},
		{"(m075", "[m076"}, {"[", "(a"}, {"(", "+"}, {"[\x00", "[\x00"}, {"[l", "+"}, {"[m149", "+"}, {"[n", "+"}, {"-", "["}, {"[b", "(a"}}
	check := func(step string) {
		for _, b := range bounds {
			cnt.reset()
			got, err := c.ZLexCount(ctx, k, b[0], b[1])
			require.NoError(t, err)
			want, err := rdb.ZLexCount(ctx, k, b[0], b[1]).Result()
			require.NoError(t, err)
			require.Equal(t, want, got, "%s: ZLEXCOUNT %q %q", step, b[0], b[1])
			if b == [2]string{"-", "+"} {
				require.Less(t, cnt.reads.Load(), want-20, "counted from the count items: %v", cnt)
			}
		}
	}
	check("equal scores")
	// One member with another score (Redis's answer is then unspecified):
	// counted as before, in member order, as a Client that does not know
	// the key ranked counts.
	_, err = c.ZAdd(ctx, k, Z{Score: 3, Member: "m050"})
	require.NoError(t, err)
	fresh, _, _ := rankedClient(t, 8, 20)
	for _, b := range bounds {
		got, err := c.ZLexCount(ctx, k, b[0], b[1])
		require.NoError(t, err)
		want, err := fresh.ZLexCount(ctx, k, b[0], b[1])
		require.NoError(t, err)
		require.Equal(t, want, got, "one score apart: ZLEXCOUNT %q %q", b[0], b[1])
	}
}

// DEL of a ranked sorted set inside MULTI/EXEC deletes its count items,
// as DEL outside does (rankDrop).
func TestExecDelRankedDropsCountItems(t *testing.T) {
	c, _, p := rankedClient(t, 4, 8)
	ctx := context.Background()
	k := p + "z"
	require.Greater(t, buildRanked(t, c, k, 40, 40), 1)
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		n, err := tx.Del(ctx, k)
		require.EqualValues(t, 1, n)
		return err
	}))
	require.Empty(t, rawPartition(t, model.PkValue(k)), "member, metadata and count items of the deleted key")
}

// TestRankBuiltByTheWriteThatReachesTheMinimum: a sorted set gets its
// count items from the write that takes it to the build minimum, also
// when writers on two Clients (one combining, one not) cross it at once,
// adding and removing single members; afterwards every rank read (ZRANK,
// ZREVRANK, ZRANGE deep by rank, ZCOUNT, ZRANDMEMBER) sends no write. A
// key with member expiries stays unranked and its rank reads write
// nothing either (Redis has no such cost: its reads never write).
func TestRankBuiltByTheWriteThatReachesTheMinimum(t *testing.T) {
	t.Parallel() // isolated by its key prefix
	a, cnt, p := rankedClient(t, 8, 40)
	b, _, _ := rankedClient(t, 8, 40, func(o *Options) { o.DisableWriteCombining = true })
	ctx := context.Background()
	k := p + "z"
	rdb := zRedisKey(t, k)
	runWorkers(6, func(g int) {
		c := a
		if g%2 == 1 {
			c = b
		}
		for i := range 15 {
			m := fmt.Sprintf("w%d-%02d", g, i)
			if _, err := c.ZAdd(ctx, k, Z{Score: float64(i % 4), Member: m}); err != nil {
				t.Error(err)
				return
			}
			if i%5 == 4 { // and now and then one removed
				if _, err := c.ZRem(ctx, k, fmt.Sprintf("w%d-%02d", g, i-2)); err != nil {
					t.Error(err)
					return
				}
			}
		}
	})
	require.False(t, t.Failed())
	require.Greater(t, checkRankItems(t, a, k), 1, "72 members: ranked by a write")
	all, err := a.ZRangeWithScores(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Len(t, all, 72)
	for _, z := range all {
		require.NoError(t, rdb.ZAdd(ctx, k, redis.Z{Score: z.Score, Member: z.Member}).Err())
	}
	writes := func() int64 {
		cnt.mu.Lock()
		defer cnt.mu.Unlock()
		return cnt.byOp["TransactWriteItems"] + cnt.byOp["PutItem"] + cnt.byOp["UpdateItem"] + cnt.byOp["DeleteItem"] + cnt.byOp["BatchWriteItem"]
	}
	reads := func(c *Client, key string) {
		for _, m := range []string{"w0-00", "w3-14", "w5-08"} {
			want, err := rdb.ZRank(ctx, k, m).Result()
			require.NoError(t, err)
			got, ok, err := c.ZRank(ctx, key, m)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, got, "ZRANK %s", m)
			_, _, err = c.ZRevRank(ctx, key, m)
			require.NoError(t, err)
		}
		got, err := c.ZRange(ctx, key, 50, 55)
		require.NoError(t, err)
		want, err := rdb.ZRange(ctx, k, 50, 55).Result()
		require.NoError(t, err)
		require.Equal(t, want, got)
		_, err = c.ZCount(ctx, key, "1", "2")
		require.NoError(t, err)
		_, err = c.ZRandMember(ctx, key, 3)
		require.NoError(t, err)
	}
	cnt.reset()
	reads(a, k)
	require.Zero(t, writes(), "rank reads of a ranked key write nothing: %v", cnt.byOp)

	// A member with an expiry of its own unranks the key; its reads count
	// and still write nothing.
	_, err = a.ZExpire(ctx, k, time.Hour, ExpireAlways, "w1-00")
	require.NoError(t, err)
	require.Zero(t, checkRankItems(t, a, k))
	cnt.reset()
	reads(a, k)
	require.Zero(t, writes(), "rank reads of an unranked key write nothing: %v", cnt.byOp)
	checkStoredCounts(t, p)
}

// loadRaw writes the members zs of key and its metadata item straight
// into the table (BatchWriteItem, 25 items a request, 16 at once), as the
// transactions would have left them, without count items: loading
// 1,000,000 members through ZADD takes ~10 minutes on DynamoDB Local.
func loadRaw(b *testing.B, key string, n int, z func(i int) Z) {
	ctx := context.Background()
	const workers = 16
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var batch []types.WriteRequest
			flush := func() error {
				for len(batch) > 0 {
					out, err := testDB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{testTable: batch}})
					if err != nil {
						return err
					}
					batch = out.UnprocessedItems[testTable]
				}
				return nil
			}
			for i := w; i < n; i += workers {
				zz := z(i)
				it := model.ItemKey(key, model.MemberSK(model.TypeZSet, zz.Member))
				it[model.AttrIX] = model.Bin(model.ZsetIX(zz.Score, zz.Member))
				batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
				if len(batch) == 25 {
					if err := flush(); err != nil {
						errs <- err
						return
					}
				}
			}
			if err := flush(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	meta := model.MetaKey(key)
	ks, kh := model.KeyIndexValues(key)
	meta[model.AttrType], meta[model.AttrCard], meta[model.AttrVer], meta[model.AttrKS], meta[model.AttrKH] = model.Str(string(model.TypeZSet)), model.Num(int64(n)), model.Bin(model.VersionToken()), ks, kh
	if _, err := testDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(testTable), Item: meta}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRankMillion: ZRANK/ZREVRANK at the median and the last rank of
// a 1,000,000-member sorted set (REDIMO_RANK_MEMBERS to change), scores
// i%1000 ("ties") and all equal ("equal"), with count items: requests
// (those on the critical path: a BatchGetItem and the count items' Query
// in parallel, then a Query COUNT within one range), items read and
// capacity units; also ZRANGE at the middle rank and a ZCOUNT over most
// of the set. The members are loaded raw (loadRaw), then a ZADD of one
// member builds the count items (and a ZREM takes it out again).
//
//	REDIMO_LOCAL_DIR=... make bench BENCHFLAGS='-bench RankMillion -benchtime 3x -timeout 60m'
func BenchmarkRankMillion(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("REDIMO_RANK_MEMBERS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	for _, scores := range []string{"equal", "ties"} {
		c, cnt, _ := newTestClient(b)
		ctx := context.Background()
		// A key of 11 bytes, as a real leaderboard's: a count item holds
		// the key, so the count items' Query costs more with a longer one
		// (~0.024 read units per count item with this test's usual
		// 33-byte prefixed keys, ~0.019 with this one).
		key := "lb:" + randomHex(3) + ":" + scores[:1]
		start := time.Now()
		loadRaw(b, key, n, func(i int) Z {
			s := float64(i % 1000)
			if scores == "equal" {
				s = 7
			}
			return Z{Score: s, Member: fmt.Sprintf("player%07d", i)}
		})
		fmt.Printf("%s: %d members loaded raw in %v\n", scores, n, time.Since(start).Round(time.Second))
		// Ties ordered by member: with scores i%1000 the median member is
		// player(n/2-1000+... ) found by ZRANGE; all equal: by name.
		cnt.reset()
		start = time.Now()
		// Loaded raw, the key has no count items: the next write that adds
		// a member builds them (rank.go), as it would for a key loaded
		// before redimo kept count items on write.
		if _, err := c.ZAdd(ctx, key, Z{Score: -1, Member: "builder"}); err != nil {
			b.Fatal(err)
		}
		ranges, _ := c.readRanges(ctx, key)
		fmt.Printf("%s: build by the next ZADD: %v, %.0f capacity units, %v; %d ranges\n", scores, cnt, cnt.units(), time.Since(start).Round(time.Second), len(ranges))
		if _, err := c.ZRem(ctx, key, "builder"); err != nil {
			b.Fatal(err)
		}
		if len(ranges) == 0 {
			b.Fatal("not built")
		}
		mid, err := c.ZRange(ctx, key, int64(n/2), int64(n/2))
		if err != nil || len(mid) != 1 {
			b.Fatal(mid, err)
		}
		// n/2 starts a range (built every 500): n/2+250 is a range's
		// middle, the most a count within one range reads.
		midRange, err := c.ZRange(ctx, key, int64(n/2+250), int64(n/2+250))
		if err != nil || len(midRange) != 1 {
			b.Fatal(midRange, err)
		}
		last, err := c.ZRange(ctx, key, -1, -1)
		if err != nil || len(last) != 1 {
			b.Fatal(last, err)
		}
		for _, m := range []struct {
			name, member string
			rank         int64
		}{{"median", mid[0], int64(n / 2)}, {"mid-range", midRange[0], int64(n/2 + 250)}, {"last", last[0], int64(n - 1)}} {
			b.Run(fmt.Sprintf("%s/ZRank_%s", scores, m.name), func(b *testing.B) {
				report(b, cnt, func() {
					if r, ok, err := c.ZRank(ctx, key, m.member); err != nil || !ok || r != m.rank {
						b.Fatal(r, ok, err)
					}
				})
			})
			b.Run(fmt.Sprintf("%s/ZRevRank_%s", scores, m.name), func(b *testing.B) {
				report(b, cnt, func() {
					if r, ok, err := c.ZRevRank(ctx, key, m.member); err != nil || !ok || r != int64(n-1)-m.rank {
						b.Fatal(r, ok, err)
					}
				})
			})
		}
		b.Run(scores+"/ZRange_n/2_+9", func(b *testing.B) {
			report(b, cnt, func() {
				if zs, err := c.ZRangeWithScores(ctx, key, int64(n/2), int64(n/2)+9); err != nil || len(zs) != 10 {
					b.Fatal(len(zs), err)
				}
			})
		})
		b.Run(scores+"/ZCount_wide", func(b *testing.B) {
			lo, hi := "100", "(900"
			want := int64(n) * 8 / 10
			if scores == "equal" {
				lo, hi, want = "-inf", "+inf", int64(n)
			}
			report(b, cnt, func() {
				if got, err := c.ZCount(ctx, key, lo, hi); err != nil || got != want {
					b.Fatal(got, want, err)
				}
			})
		})
	}
}
