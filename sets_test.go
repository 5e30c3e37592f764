package redimo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
)

// makeZSet writes a sorted-set key through the transaction writer, so set
// tests can meet a key of the other type.
// addOrRemove is SADD (add) or SREM of ms on key, its reply as the change
// of SCARD: added members count up, removed ones down.
func addOrRemove(ctx context.Context, c *Client, key string, add bool, ms ...string) (int64, error) {
	if add {
		return c.SAdd(ctx, key, ms...)
	}
	n, err := c.SRem(ctx, key, ms...)
	return -n, err
}

func makeZSet(t *testing.T, c *Client, key string, members ...string) {
	t.Helper()
	var ws []*model.Write
	for i, m := range members {
		ws = append(ws, c.putMember(key, model.TypeZSet, m, model.ZsetIX(float64(i), m)))
	}
	_, err := c.transactChunks(context.Background(), key, model.TypeZSet, ws)
	require.NoError(t, err)
}

func sorted(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestSAddSRemBasics(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "s"

	n, err := c.SAdd(ctx, k, "a", "b", "a", "", "héllo", "\xff\xfe")
	require.NoError(t, err)
	require.EqualValues(t, 5, n, "duplicates inside one call count once")

	n, err = c.SAdd(ctx, k, "a", "c")
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "existing members are not counted")

	card, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 6, card)

	members, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []string{"", "a", "b", "c", "héllo", "\xff\xfe"}, members, "byte order, binary-safe")

	for _, m := range []string{"", "héllo", "\xff\xfe", "a"} {
		ok, err := c.SIsMember(ctx, k, m)
		require.NoError(t, err)
		require.True(t, ok, "%q", m)
	}
	ok, err := c.SIsMember(ctx, k, "\xff")
	require.NoError(t, err)
	require.False(t, ok, "a different invalid-UTF-8 member must not collide")

	flags, err := c.SMIsMember(ctx, k, "a", "zz", "", "a")
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, true, true}, flags)

	n, err = c.SRem(ctx, k, "a", "zz", "a", "")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	card, err = c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 4, card)

	n, err = c.SRem(ctx, p+"missing", "a")
	require.NoError(t, err)
	require.EqualValues(t, 0, n)
}

func requireGone(t *testing.T, c *Client, key string) {
	t.Helper()
	ctx := context.Background()
	n, err := c.Exists(ctx, key)
	require.NoError(t, err)
	require.EqualValues(t, 0, n)
	typ, err := c.Type(ctx, key)
	require.NoError(t, err)
	require.Equal(t, "none", typ)
	card, err := c.SCard(ctx, key)
	require.NoError(t, err)
	require.EqualValues(t, 0, card)
	requireNoItems(t, key)
}

// requireNoItems: no item of key is left in the table, but the empty
// metadata item an SREM or SPOP that emptied a small set leaves (its write
// tokens alone: no type, no count, no key-index entry; smallset.go), which
// the raw reads skip (dataItems).
func requireNoItems(t *testing.T, key string) {
	t.Helper()
	left := scanTable(t, key)
	if it, err := testDB.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &testTable, Key: model.MetaKey(key)}); err == nil && it.Item != nil {
		_, typed := it.Item[model.AttrType]
		_, indexed := it.Item[model.AttrKS]
		require.False(t, typed || indexed, "the empty metadata item keeps no type and no key-index entry")
		require.Contains(t, it.Item, model.AttrWriteTok)
	}
	require.Empty(t, left, "no item of the key is left in the table")
}

func TestEmptiedSetIsDeleted(t *testing.T) {
	ctx, c, _, p := setup(t)

	t.Run("SRem", func(t *testing.T) {
		k := p + "srem"
		_, err := c.SAdd(ctx, k, "a", "b")
		require.NoError(t, err)
		n, err := c.SRem(ctx, k, "a", "b", "c")
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
		requireGone(t, c, k)
	})
	t.Run("SPop", func(t *testing.T) {
		k := p + "spop"
		_, err := c.SAdd(ctx, k, "a", "b", "c")
		require.NoError(t, err)
		got, err := c.SPopN(ctx, k, 10)
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b", "c"}, sorted(got))
		requireGone(t, c, k)
		_, ok, err := c.SPop(ctx, k)
		require.NoError(t, err)
		require.False(t, ok)
	})
	t.Run("SMove", func(t *testing.T) {
		src, dst := p+"move-src", p+"move-dst"
		_, err := c.SAdd(ctx, src, "a")
		require.NoError(t, err)
		ok, err := c.SMove(ctx, src, dst, "a")
		require.NoError(t, err)
		require.True(t, ok)
		requireGone(t, c, src)
		members, err := c.SMembers(ctx, dst)
		require.NoError(t, err)
		require.Equal(t, []string{"a"}, members)
	})
	t.Run("Del", func(t *testing.T) {
		k := p + "del"
		_, err := c.SAdd(ctx, k, "a", "b")
		require.NoError(t, err)
		n, err := c.Del(ctx, k, k, p+"nothing")
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		requireGone(t, c, k)
	})
}

func TestSMove(t *testing.T) {
	ctx, c, _, p := setup(t)
	src, dst, z := p+"src", p+"dst", p+"z"
	_, err := c.SAdd(ctx, src, "a", "b", "c")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, dst, "b")
	require.NoError(t, err)
	makeZSet(t, c, z, "x")

	ok, err := c.SMove(ctx, src, dst, "b")
	require.NoError(t, err)
	require.True(t, ok, "moved although already in destination")
	ok, err = c.SMove(ctx, src, dst, "nope")
	require.NoError(t, err)
	require.False(t, ok)
	ok, err = c.SMove(ctx, src, src, "a")
	require.NoError(t, err)
	require.True(t, ok, "same key: reports membership")

	got, _ := c.SMembers(ctx, src)
	require.Equal(t, []string{"a", "c"}, got)
	got, _ = c.SMembers(ctx, dst)
	require.Equal(t, []string{"b"}, got)
	card, _ := c.SCard(ctx, dst)
	require.EqualValues(t, 1, card)

	_, err = c.SMove(ctx, src, z, "a")
	require.ErrorIs(t, err, ErrWrongType)
	_, err = c.SMove(ctx, z, src, "x")
	require.ErrorIs(t, err, ErrWrongType)
	ok, err = c.SMove(ctx, p+"missing", z, "a")
	require.NoError(t, err, "a missing source answers 0 before the destination's type is checked")
	require.False(t, ok)
	got, _ = c.SMembers(ctx, src)
	require.Equal(t, []string{"a", "c"}, got, "nothing written by the failed moves")
}

func TestSAddChunking(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "big"
	members := numbered("m%04d", 1000)
	cnt.reset()
	n, err := c.SAdd(ctx, k, members...)
	require.NoError(t, err)
	require.EqualValues(t, 1000, n)
	require.EqualValues(t, 11, cnt.requests.Load(), cnt.String())

	card, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 1000, card)
	got, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, members, got)

	n, err = c.SAdd(ctx, k, append(members[500:], "new1", "new2")...)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	n, err = c.SRem(ctx, k, members[:700]...)
	require.NoError(t, err)
	require.EqualValues(t, 700, n)
	card, _ = c.SCard(ctx, k)
	require.EqualValues(t, 302, card)
}

func TestSetWrongType(t *testing.T) {
	ctx, c, _, p := setup(t)
	z, s := p+"z", p+"s"
	makeZSet(t, c, z, "a", "b")
	_, err := c.SAdd(ctx, s, "a")
	require.NoError(t, err)
	before := scanTable(t, p)

	calls := map[string]func() error{
		"SADD":        func() error { _, err := c.SAdd(ctx, z, "c"); return err },
		"SREM":        func() error { _, err := c.SRem(ctx, z, "a"); return err },
		"SCARD":       func() error { _, err := c.SCard(ctx, z); return err },
		"SISMEMBER":   func() error { _, err := c.SIsMember(ctx, z, "a"); return err },
		"SMISMEMBER":  func() error { _, err := c.SMIsMember(ctx, z, "a"); return err },
		"SMEMBERS":    func() error { _, err := c.SMembers(ctx, z); return err },
		"SSCAN":       func() error { _, err := c.SMembers(ctx, z); return err },
		"SSCANprefix": func() error { return firstErr(c.SScan(ctx, z, "a*")) },
		"SRANDMEMBER": func() error { _, err := c.SRandMemberN(ctx, z, 2); return err },
		"SRAND0":      func() error { _, err := c.SRandMemberN(ctx, z, 0); return err },
		"SPOP":        func() error { _, err := c.SPopN(ctx, z, 1); return err },
		"SINTER":      func() error { _, err := c.SInter(ctx, s, z); return err },
		"SINTERmiss":  func() error { _, err := c.SInter(ctx, p+"missing", z); return err },
		"SINTERCARD":  func() error { _, err := c.SInterCard(ctx, 0, s, z); return err },
		"SUNION":      func() error { _, err := c.SUnion(ctx, s, z); return err },
		"SDIFF":       func() error { _, err := c.SDiff(ctx, s, z); return err },
		"SDIFFSTORE":  func() error { _, err := c.SDiffStore(ctx, p+"d", s, z); return err },
	}
	for name, call := range calls {
		require.ErrorIs(t, call(), ErrWrongType, name)
	}
	require.Equal(t, before, scanTable(t, p), "nothing was written")
}

func firstErr[T any](seq func(func(T, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestSetAlgebra(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	a, b, d, none := p+"a", p+"b", p+"d", p+"none"
	_, err := c.SAdd(ctx, a, "1", "2", "3", "4")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, b, "3", "4", "5")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, d, "4")
	require.NoError(t, err)

	cases := []struct {
		name string
		got  func() ([]string, error)
		want []string
	}{
		{"inter", func() ([]string, error) { return c.SInter(ctx, a, b) }, []string{"3", "4"}},
		{"inter3", func() ([]string, error) { return c.SInter(ctx, a, b, d) }, []string{"4"}},
		{"inter same key", func() ([]string, error) { return c.SInter(ctx, a, a) }, []string{"1", "2", "3", "4"}},
		{"inter missing", func() ([]string, error) { return c.SInter(ctx, a, none) }, nil},
		{"union", func() ([]string, error) { return c.SUnion(ctx, a, b, none) }, []string{"1", "2", "3", "4", "5"}},
		{"union missing", func() ([]string, error) { return c.SUnion(ctx, none) }, nil},
		{"diff", func() ([]string, error) { return c.SDiff(ctx, a, b) }, []string{"1", "2"}},
		{"diff missing other", func() ([]string, error) { return c.SDiff(ctx, a, none, d) }, []string{"1", "2", "3"}},
		{"diff missing first", func() ([]string, error) { return c.SDiff(ctx, none, a) }, nil},
		{"diff self", func() ([]string, error) { return c.SDiff(ctx, a, a) }, nil},
	}
	for _, tc := range cases {
		got, err := tc.got()
		require.NoError(t, err, tc.name)
		require.Equal(t, sorted(tc.want), sorted(got), tc.name)
	}

	returns(t, int64(2))(c.SInterCard(ctx, 0, a, b))
	returns(t, int64(1))(c.SInterCard(ctx, 1, a, b))
	_, err = c.SInterCard(ctx, -1, a, b)
	require.ErrorIs(t, err, ErrOutOfRange)

	// *STORE overwrites a destination of the other type, and deletes it on an empty result.
	z := p + "z"
	makeZSet(t, c, z, "x", "y")
	returns(t, int64(5))(c.SUnionStore(ctx, z, a, b))
	typ, _ := c.Type(ctx, z)
	require.Equal(t, "set", typ)
	got, _ := c.SMembers(ctx, z)
	require.Equal(t, []string{"1", "2", "3", "4", "5"}, got)
	card, _ := c.SCard(ctx, z)
	require.EqualValues(t, 5, card)

	returns(t, int64(1))(c.SInterStore(ctx, z, a, d))
	got, _ = c.SMembers(ctx, z)
	require.Equal(t, []string{"4"}, got)
	card, _ = c.SCard(ctx, z)
	require.EqualValues(t, 1, card)

	returns(t, int64(0))(c.SDiffStore(ctx, z, d, a))
	requireGone(t, c, z)

	// Store onto one of its sources.
	returns(t, int64(3))(c.SDiffStore(ctx, a, a, d))
	got, _ = c.SMembers(ctx, a)
	require.Equal(t, []string{"1", "2", "3"}, got)

	// SInter of a small set with a big one probes, it does not read the big one.
	big, small := p+"big", p+"small"
	var bigMembers, smallMembers []string
	for i := range 2000 {
		bigMembers = append(bigMembers, fmt.Sprint(i))
	}
	for i := range 100 {
		smallMembers = append(smallMembers, fmt.Sprint(i*30))
	}
	_, err = c.SAdd(ctx, big, bigMembers...)
	require.NoError(t, err)
	_, err = c.SAdd(ctx, small, smallMembers...)
	require.NoError(t, err)
	cnt.reset()
	got, err = c.SInter(ctx, big, small)
	require.NoError(t, err)
	require.Len(t, got, 67)
	require.LessOrEqual(t, cnt.reads.Load(), int64(300), cnt.String())
}

func TestSRandMemberAndSPop(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "r"
	all := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	_, err := c.SAdd(ctx, k, all...)
	require.NoError(t, err)

	seen := map[string]int{}
	for range 300 {
		m, ok, err := c.SRandMember(ctx, k)
		require.NoError(t, err)
		require.True(t, ok)
		seen[m]++
	}
	require.Len(t, seen, len(all), "every member is picked over many draws: %v", seen)

	got, err := c.SRandMemberN(ctx, k, 4)
	require.NoError(t, err)
	require.Len(t, got, 4)
	require.Len(t, model.Dedupe(got), 4, "distinct for count > 0")
	got, err = c.SRandMemberN(ctx, k, 50)
	require.NoError(t, err)
	require.Equal(t, all, sorted(got))
	got, err = c.SRandMemberN(ctx, k, -25)
	require.NoError(t, err)
	require.Len(t, got, 25)
	for _, m := range got {
		require.Contains(t, all, m)
	}
	got, err = c.SRandMemberN(ctx, k, 0)
	require.NoError(t, err)
	require.Empty(t, got)
	got, err = c.SRandMemberN(ctx, p+"missing", 3)
	require.NoError(t, err)
	require.Empty(t, got)

	popped := map[string]int{}
	for range 60 {
		_, err := c.SAdd(ctx, k, all...)
		require.NoError(t, err)
		m, ok, err := c.SPop(ctx, k)
		require.NoError(t, err)
		require.True(t, ok)
		popped[m]++
		card, _ := c.SCard(ctx, k)
		require.EqualValues(t, 9, card)
	}
	require.GreaterOrEqual(t, len(popped), 8, "pops are random: %v", popped)
	_, err = c.SPopN(ctx, k, -1)
	require.ErrorIs(t, err, ErrOutOfRange)
	_, err = c.SRandMemberN(ctx, k, math.MinInt64)
	require.ErrorIs(t, err, ErrOutOfRange, "a reply that cannot be built in memory is refused, not attempted")
}

func TestSScan(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "scan"
	_, err := c.SAdd(ctx, k, "user:1", "user:2", "user:10", "admin:1", "u*", "[x]")
	require.NoError(t, err)
	// In the order of the members' sort keys (their hashes: internal/model/keys.go);
	// compared sorted below.
	collect := func(match string) []string {
		var out []string
		for m, err := range c.SScan(ctx, k, match) {
			require.NoError(t, err)
			out = append(out, m)
		}
		require.True(t, slices.IsSortedFunc(out, func(a, b string) int {
			return bytes.Compare(model.MemberSK(model.TypeSet, a), model.MemberSK(model.TypeSet, b))
		}), "in sort-key order: %q", out)
		return sorted(out)
	}
	require.Equal(t, []string{"user:1", "user:10", "user:2"}, collect("user:*"))
	require.Equal(t, []string{"user:1", "user:2"}, collect("user:?"))
	require.Equal(t, []string{"admin:1", "user:1"}, collect("*:1"))
	require.Equal(t, []string{"u*"}, collect(`u\*`))
	require.Equal(t, []string{"[x]"}, collect(`\[*`))
	require.Empty(t, collect(strings.Repeat("u", MaxMemberLen+1)+"*"), "a literal prefix longer than any member matches nothing")
	require.Len(t, collect(""), 6)
	require.Len(t, collect("*"), 6)

	// Stopping early stops reading.
	n := 0
	for range c.SScan(ctx, k, "") {
		n++
		break
	}
	require.Equal(t, 1, n)
}

func TestSetBadInput(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	long := strings.Repeat("x", MaxMemberLen+1)
	longKey := strings.Repeat("k", MaxKeyLen+1)
	cnt.reset()
	_, err := c.SAdd(ctx, p+"k", "ok", long)
	require.ErrorIs(t, err, ErrMemberTooLong)
	require.ErrorIs(t, err, ErrInvalidArgument)
	var ae *ArgError
	require.True(t, errors.As(err, &ae))
	require.Equal(t, "member", ae.Arg)
	_, err = c.SAdd(ctx, longKey, "a")
	require.ErrorIs(t, err, ErrKeyTooLong)
	_, err = c.SAdd(ctx, p+"k")
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = c.SInter(ctx)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.EqualValues(t, 0, cnt.requests.Load(), "rejected before any request")
	require.Empty(t, scanTable(t, p))

	// The longest member and key fit, and the empty key works.
	n, err := c.SAdd(ctx, strings.Repeat("k", MaxKeyLen), strings.Repeat("x", MaxMemberLen))
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.SAdd(ctx, "", "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "the empty key is a key, as in Redis")
	members, err := c.SMembers(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, members)
	n, err = c.Del(ctx, "", strings.Repeat("k", MaxKeyLen))
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
}

// 16 goroutines add and remove overlapping members of one key for a few
// seconds. Single-member calls give a per-member model (each member's net
// count of reported adds minus removes must be 0 or 1 and match
// membership); multi-member calls check the totals.
func TestSetConcurrency(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "hot"
	const workers = 16
	var (
		mu    sync.Mutex
		net   = map[string]int64{}
		total int64
	)
	deadline := time.Now().Add(3 * time.Second)
	runWorkers(workers, func(w int) {
		r := rand.New(rand.NewPCG(uint64(w), 42))
		for time.Now().Before(deadline) {
			if w%2 == 0 { // single member: exact per-member accounting
				m := fmt.Sprintf("single-%d", r.IntN(8))
				n, err := addOrRemove(ctx, c, k, r.IntN(2) == 0, m)
				require.NoError(t, err)
				mu.Lock()
				net[m] += n
				total += n
				mu.Unlock()
				continue
			}
			ms := make([]string, 1+r.IntN(5))
			for i := range ms {
				ms[i] = fmt.Sprintf("multi-%d", r.IntN(12))
			}
			n, err := addOrRemove(ctx, c, k, r.IntN(2) == 0, ms...)
			require.NoError(t, err)
			mu.Lock()
			total += n
			mu.Unlock()
		}
	})

	members, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	card, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, len(members), card, "SCard equals len(SMembers)")
	require.Equal(t, total, card, "sum of SAdd returns minus SRem returns equals SCard")
	for i := range 8 {
		m := fmt.Sprintf("single-%d", i)
		require.Contains(t, []int64{0, 1}, net[m], m)
		require.Equal(t, net[m] == 1, slices.Contains(members, m), m)
	}
	t.Logf("%d members at the end, %d net adds", card, total)
}

// Picks are close to uniform in a set bigger than the sampling window: no
// member is favoured by the random gaps of the index. (Picking the first
// member after a random point, members after wide gaps come up several
// times as often as average.)
func TestSRandMemberUniformity(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx, c, _, p := setup(t)
	k := p + "u"
	members := numbered("m%03d", testenv.Budget(50, 100)) // more than the 33 of a window
	_, err := c.SAdd(ctx, k, members...)
	require.NoError(t, err)
	draws := 20 * len(members) // P(a member never picked) < 50 × (49/50)^1000 ≈ 1e-7
	seen := map[string]int{}
	for range draws {
		m, ok, err := c.SRandMember(ctx, k)
		require.NoError(t, err)
		require.True(t, ok)
		seen[m]++
	}
	require.Len(t, seen, len(members), "every member is picked")
	for m, n := range seen {
		require.Less(t, n, 3*draws/len(members), "%s picked %d times of %d (expected %d)", m, n, draws, draws/len(members))
	}
}

// TestSetCardCommands checks SUNIONCARD and SDIFFCARD (Redis 8.10) on
// known sets and the requests their shortcuts save: the random comparison
// with a model is in the differential test.
func TestSetCardCommands(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	a, b, big, none, z := p+"a", p+"b", p+"big", p+"none", p+"z"
	_, err := c.SAdd(ctx, a, "1", "2", "3")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, b, "3", "4")
	require.NoError(t, err)
	var bigMembers []string
	for i := range 250 {
		bigMembers = append(bigMembers, strconv.Itoa(i))
	}
	_, err = c.SAdd(ctx, big, bigMembers...)
	require.NoError(t, err)
	makeZSet(t, c, z, "x")

	cases := []struct {
		name     string
		call     func() (int64, error)
		want     int64
		requests int64 // 0: not checked
	}{
		{"union", func() (int64, error) { return c.SUnionCard(ctx, 0, a, b, none) }, 4, 0},
		{"union limit", func() (int64, error) { return c.SUnionCard(ctx, 4, a, b) }, 4, 0},
		{"union limit above", func() (int64, error) { return c.SUnionCard(ctx, 100, a, b) }, 4, 0},
		{"union one key is SCARD", func() (int64, error) { return c.SUnionCard(ctx, 0, a, a) }, 3, 1},
		{"union one key, limit", func() (int64, error) { return c.SUnionCard(ctx, 2, a) }, 2, 1},
		{"union one existing set", func() (int64, error) { return c.SUnionCard(ctx, 0, none, a, none) }, 3, 1},
		{"union missing", func() (int64, error) { return c.SUnionCard(ctx, 0, none) }, 0, 1},
		{"union limit below the largest set", func() (int64, error) { return c.SUnionCard(ctx, 3, a, b, big) }, 3, 1},
		{"union with the big set", func() (int64, error) { return c.SUnionCard(ctx, 0, a, big, b) }, 250, 0},
		{"diff", func() (int64, error) { return c.SDiffCard(ctx, 0, a, b, none) }, 2, 0},
		{"diff limit", func() (int64, error) { return c.SDiffCard(ctx, 1, a, b) }, 1, 0},
		{"diff limit above", func() (int64, error) { return c.SDiffCard(ctx, 10, a, b) }, 2, 0},
		{"diff no other set", func() (int64, error) { return c.SDiffCard(ctx, 2, a, none) }, 2, 1},
		{"diff missing first", func() (int64, error) { return c.SDiffCard(ctx, 0, none, a) }, 0, 1},
		{"diff self", func() (int64, error) { return c.SDiffCard(ctx, 0, a, b, a) }, 0, 1},
		{"diff probing the big set, nothing left", func() (int64, error) { return c.SDiffCard(ctx, 2, a, big) }, 0, 0},
		{"diff of the big set", func() (int64, error) { return c.SDiffCard(ctx, 0, big, a, b) }, 246, 0},
		{"diff of the big set, limit", func() (int64, error) { return c.SDiffCard(ctx, 240, big, a, b) }, 240, 0},
		{"diff of the big set, limit above", func() (int64, error) { return c.SDiffCard(ctx, 247, big, a, b) }, 246, 0},
	}
	for _, tc := range cases {
		cnt.reset()
		n, err := tc.call()
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, n, tc.name)
		if tc.requests > 0 {
			require.Equal(t, tc.requests, cnt.requests.Load(), "%s: %s", tc.name, cnt)
		}
	}

	// Stopping at LIMIT: the big set against a bigger set is probed for
	// one batch of 100 candidates only (one BatchGetItem of the metadata,
	// one Query page of the first set, one probe), where the count without
	// LIMIT probes all 250 (3 BatchGetItems or more).
	other := p + "other"
	_, err = c.SAdd(ctx, other, bigMembers[100:]...)
	require.NoError(t, err)
	var extra []string
	for i := range 150 {
		extra = append(extra, "x"+strconv.Itoa(i))
	}
	_, err = c.SAdd(ctx, other, extra...)
	require.NoError(t, err)
	for _, limit := range []int64{1, 0} {
		cnt.reset()
		n, err := c.SDiffCard(ctx, limit, big, other)
		require.NoError(t, err)
		cnt.mu.Lock()
		batches := cnt.byOp["BatchGetItem"]
		cnt.mu.Unlock()
		if limit == 1 {
			require.EqualValues(t, 1, n)
			require.EqualValues(t, 2, batches, cnt.String())
		} else {
			require.EqualValues(t, 100, n)
			require.GreaterOrEqual(t, batches, int64(4), cnt.String())
		}
	}

	for _, call := range []func() (int64, error){
		func() (int64, error) { return c.SUnionCard(ctx, 0, a, z) },
		func() (int64, error) { return c.SUnionCard(ctx, 1, z) },
		func() (int64, error) { return c.SDiffCard(ctx, 0, none, z) },
	} {
		_, err := call()
		require.ErrorIs(t, err, ErrWrongType)
	}
}

// TestSetCardModel compares SUNIONCARD and SDIFFCARD with a model (a plain
// Go computation over the same random sets): keys missing, of the wrong
// type, or sets of 1 to 250 members over a shared universe (so batches of
// 100 candidates, probes of the larger sets and whole reads of the smaller
// ones all happen), with LIMITs around those sizes.
func TestSetCardModel(t *testing.T) {
	ctx, c, _, p := setup(t)
	r := rand.New(rand.NewPCG(15, 8))
	for round := range 12 {
		keys := make([]string, 4)
		sets := map[string]map[string]bool{}
		wrong := map[string]bool{}
		for i := range keys {
			keys[i] = fmt.Sprintf("%sr%d:k%d", p, round, i)
			switch x := r.IntN(10); {
			case x == 0:
				// missing
			case x == 1:
				wrong[keys[i]] = true
				makeZSet(t, c, keys[i], "m1")
			default:
				size, universe := []int{1, 3, 10, 150, 250}[r.IntN(5)], 300
				if r.IntN(2) == 0 {
					universe = 20
				}
				set := map[string]bool{}
				for len(set) < min(size, universe) {
					set["m"+strconv.Itoa(r.IntN(universe))] = true
				}
				sets[keys[i]] = set
				_, err := c.SAdd(ctx, keys[i], slices.Collect(maps.Keys(set))...)
				require.NoError(t, err)
			}
		}
		for range 40 {
			ks := make([]string, 1+r.IntN(4))
			for i := range ks {
				ks[i] = keys[r.IntN(len(keys))]
			}
			limit := []int64{0, 0, 1, 2, 5, 99, 100, 101, 1000, -1}[r.IntN(10)]
			union := r.IntN(2) == 0
			var got int64
			var err error
			if union {
				got, err = c.SUnionCard(ctx, limit, ks...)
			} else {
				got, err = c.SDiffCard(ctx, limit, ks...)
			}
			what := fmt.Sprintf("round %d: union %v, limit %d, keys %v", round, union, limit, ks)
			if limit < 0 {
				require.ErrorIs(t, err, ErrOutOfRange, what)
				continue
			}
			if slices.ContainsFunc(ks, func(k string) bool { return wrong[k] }) {
				require.ErrorIs(t, err, ErrWrongType, what)
				continue
			}
			require.NoError(t, err, what)
			want := map[string]bool{}
			if union {
				for _, k := range ks {
					maps.Copy(want, sets[k])
				}
			} else {
				maps.Copy(want, sets[ks[0]])
				for _, k := range ks[1:] {
					for m := range sets[k] {
						delete(want, m)
					}
				}
			}
			n := int64(len(want))
			if limit > 0 {
				n = min(n, limit)
			}
			require.Equal(t, n, got, what)
		}
	}
}

// TestSetWritesNoIndexEntry: no write of set members adds, changes or
// removes a by_ix entry (internal/model/keys.go, "Set members"), counted from the items
// each write changed (indexAudit, below), and no set
// member item holds ix.
func TestSetWritesNoIndexEntry(t *testing.T) {
	needDB(t)
	audit := newIndexAudit(testDB)
	audit.tableIndexAttrs = []string{model.AttrIX}
	// Member items (a small set writes no member item, smallset.go).
	c := NewClient(audit, func(o *Options) { o.TableName = testTable; o.DisableSmallSets = true })
	ctx, p := context.Background(), "TestSetWritesNoIndexEntry:"+randomHex(3)+":"
	a, b, d := p+"a", p+"b", p+"d"
	long := strings.Repeat("L", model.InlineMemberLen+10)
	steps := []func() error{
		func() error { _, err := c.SAdd(ctx, a, "x", "y", "z", long); return err },
		func() error { _, err := c.SAdd(ctx, b, "y", "w"); return err },
		func() error { _, err := c.SMove(ctx, a, b, "x"); return err },
		func() error { _, err := c.SInterStore(ctx, d, a, b); return err },
		func() error { _, err := c.SUnionStore(ctx, d, a, b); return err },
		func() error { _, err := c.Copy(ctx, a, p+"copy", false); return err },
		func() error { return c.Rename(ctx, p+"copy", p+"renamed") },
		func() error {
			return c.TxPipelined(ctx, func(tx Pipeliner) error {
				_, err := tx.SAdd(ctx, a, "tx")
				if err == nil {
					_, err = tx.SRem(ctx, b, "w")
				}
				return err
			})
		},
		func() error { _, err := c.SPopN(ctx, a, 2); return err },
		func() error { _, err := c.SRem(ctx, b, "x", "y"); return err },
		func() error { _, err := c.Del(ctx, d); return err },
	}
	for i, step := range steps {
		require.NoError(t, step(), "step %d", i)
		wcu, lsi, _, actions := audit.take()
		require.Positive(t, actions, "step %d wrote", i)
		require.Zero(t, lsi, "step %d: no index entry (%v WCU)", i, wcu)
	}
	items := rawItemsOf(t, p)
	require.NotEmpty(t, items)
	for _, it := range items {
		if _, typ, ok := model.MemberOf(it); ok {
			require.Equal(t, model.TypeSet, typ)
			require.NotContains(t, it, model.AttrIX, "set member %x", model.BytesAttr(it, model.AttrSK))
		}
	}
	// The same audit sees a sorted set's index entry: the test can fail
	// (a sorted set of member items: a small one has no index entry).
	c.opts.DisableSmallSortedSets = true
	_, err := c.ZAdd(ctx, p+"z", Z{Score: 1, Member: "m"})
	require.NoError(t, err)
	_, lsi, _, _ := audit.take()
	require.Equal(t, 1, lsi, "a sorted-set member's by_ix entry")
}

// Benchmarks of the SET family against DynamoDB Local. Each reports
// DynamoDB requests (and items read) per operation, and times the
// straightforward approach in the same run (the baseline: one PutItem per
// member, a Query COUNT for the cardinality, loading every set for an
// intersection) so that redimo's wall time is a ratio, not an absolute.
//
//	make bench BENCHFLAGS='-bench BenchmarkS -benchtime 1x'

func benchMembers(prefix string, n int) []string {
	return numbered(prefix+"%06d", n)
}

// fill adds members to the set at key, stopping the benchmark on an
// error, and starts the benchmark's timer again.
func fill(b *testing.B, ctx context.Context, c *Client, key string, members ...string) {
	b.Helper()
	if _, err := c.SAdd(ctx, key, members...); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
}

// baselinePutAll writes members as plain items, one PutItem each, 8 at a
// time (what a hand-written client would do).
func baselinePutAll(b *testing.B, cnt *counter, key string, members []string) {
	ctx := context.Background()
	sem := make(chan struct{}, 8)
	errs := make(chan error, len(members))
	for _, m := range members {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			cnt.requests.Add(1)
			it := model.ItemKey(key, model.MemberSK(model.TypeSet, m))
			_, err := testDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable, Item: it})
			errs <- err
		}()
	}
	for range members {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}

// baselineLoad reads a whole set with a plain paginated Query.
func baselineLoad(b *testing.B, c *Client, key string) map[string]bool {
	out := map[string]bool{}
	for it, err := range c.view().memberItems(context.Background(), key, model.TypeSet, "") {
		if err != nil {
			b.Fatal(err)
		}
		m, _, _ := model.MemberOf(it)
		out[m] = true
	}
	return out
}

// compare runs redimo's operation and the baseline's, once each per b.N,
// and reports requests, items read and the wall-time ratio.
func compare(b *testing.B, cnt *counter, redimo, baseline func()) {
	var rt, bt time.Duration
	var rReq, bReq, rReads, bReads int64
	var rUnits float64
	for range b.N {
		cnt.reset()
		start := time.Now()
		redimo()
		rt += time.Since(start)
		rReq, rReads = rReq+cnt.requests.Load(), rReads+cnt.reads.Load()
		rUnits += cnt.units()

		cnt.reset()
		start = time.Now()
		baseline()
		bt += time.Since(start)
		bReq, bReads = bReq+cnt.requests.Load(), bReads+cnt.reads.Load()
	}
	n := float64(b.N)
	b.ReportMetric(float64(rReq)/n, "requests/op")
	b.ReportMetric(float64(rReads)/n, "items-read/op")
	b.ReportMetric(rUnits/n, "capacity-units/op")
	b.ReportMetric(float64(bReq)/n, "baseline-requests/op")
	b.ReportMetric(float64(bReads)/n, "baseline-items-read/op")
	b.ReportMetric(float64(rt.Microseconds())/n/1000, "ms/op")
	b.ReportMetric(float64(bt.Microseconds())/n/1000, "baseline-ms/op")
	b.ReportMetric(float64(rt)/float64(bt), "time-ratio")
}

func BenchmarkSAdd1000(b *testing.B) {
	c, cnt, p := newTestClient(b)
	members := benchMembers("m", 1000)
	round := 0
	compare(b, cnt, func() {
		round++
		n, err := c.SAdd(context.Background(), fmt.Sprintf("%sredimo%d", p, round), members...)
		if err != nil || n != 1000 {
			b.Fatal(n, err)
		}
	}, func() {
		baselinePutAll(b, cnt, fmt.Sprintf("%sbaseline%d", p, round), members)
	})
}

func BenchmarkSCard10000(b *testing.B) {
	ctx, c, cnt, p := setup(b)
	key := p + "big"
	fill(b, ctx, c, key, benchMembers("m", 10000)...)
	compare(b, cnt, func() {
		n, err := c.SCard(ctx, key)
		if err != nil || n != 10000 {
			b.Fatal(n, err)
		}
	}, func() {
		n, err := c.queryCount(ctx, &dynamodb.QueryInput{
			KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :s)"),
			ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK},
			ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":s": model.Bin([]byte{'s'})},
		})
		if err != nil || n != 10000 {
			b.Fatal(n, err)
		}
	})
}

func BenchmarkSInter100x10000(b *testing.B) {
	ctx, c, cnt, p := setup(b)
	big, small := p+"big", p+"small"
	fill(b, ctx, c, big, benchMembers("m", 10000)...)
	var sm []string
	for i := range 100 {
		sm = append(sm, fmt.Sprintf("m%06d", i*150)) // 67 of them are in big
	}
	if _, err := c.SAdd(ctx, small, sm...); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	compare(b, cnt, func() {
		got, err := c.SInter(ctx, big, small)
		if err != nil || len(got) != 67 {
			b.Fatal(len(got), err)
		}
	}, func() {
		a, bb := baselineLoad(b, c, big), baselineLoad(b, c, small)
		n := 0
		for m := range bb {
			if a[m] {
				n++
			}
		}
		if n != 67 {
			b.Fatal(n)
		}
	})
}

func BenchmarkSIsMember(b *testing.B) {
	ctx, c, cnt, p := setup(b)
	key := p + "s"
	fill(b, ctx, c, key, benchMembers("m", 100)...)
	compare(b, cnt, func() {
		ok, err := c.SIsMember(ctx, key, "m000042")
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}, func() {
		cnt.requests.Add(1)
		out, err := testDB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &testTable, Key: model.ItemKey(key, model.MemberSK(model.TypeSet, "m000042"))})
		if err != nil || out.Item == nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkSetCosts: what single SET commands cost in DynamoDB, counted
// from the items they change, on DynamoDB Local.
//
// DynamoDB Local reports one item's units for a whole transaction and no
// index writes, so the write figures are counted here instead, as
// DynamoDB documents its prices: an audit wrapper (indexAudit) reads each
// item a TransactWriteItems or UpdateItem touches before and after it
// (reads that are not counted), and charges every action 2 write units
// per KB of the larger of the two (1 outside a transaction), plus, per
// secondary-index entry the change writes, the same again: a local index
// entry (by_ix, by_exp) is written when the item gains or loses the
// index's sort-key attribute (1) or changes it (2: a delete and a put),
// and the key index (by_key, global) when the item's ks/kh or the
// attributes it projects change. Requests, read units and the write units
// DynamoDB Local reported (local-reported-WCU) are what the Client's
// Options.Metrics reports.
//
//	make bench BENCHFLAGS='-bench BenchmarkSetCosts -benchtime 20x'

// indexAudit is a DynamoDBAPI that counts, from the items, the write
// units and index entries of the writes it passes on (see the file
// comment).
type indexAudit struct {
	DynamoDBAPI
	mu              sync.Mutex
	wcu             float64 // at DynamoDB's documented prices, index writes included
	lsi, gsi        int     // local and global index entries written
	transactWrites  int     // actions of committed TransactWriteItems
	tableIndexAttrs []string
}

func newIndexAudit(db DynamoDBAPI) *indexAudit {
	return &indexAudit{DynamoDBAPI: db, tableIndexAttrs: []string{model.AttrIX, model.AttrMemExp}}
}

func (a *indexAudit) take() (wcu float64, lsi, gsi, actions int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	wcu, lsi, gsi, actions = a.wcu, a.lsi, a.gsi, a.transactWrites
	a.wcu, a.lsi, a.gsi, a.transactWrites = 0, 0, 0, 0
	return
}

// read returns the item at key as stored (nil when none), uncounted.
func (a *indexAudit) read(ctx context.Context, table *string, key model.Item) model.Item {
	out, err := a.DynamoDBAPI.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil
	}
	return out.Item
}

// charge adds what changing before into after cost, as one action of a
// transaction (tx) or a single write.
func (a *indexAudit) charge(before, after model.Item, tx bool) {
	size := max(model.ItemSize(before), model.ItemSize(after))
	units := math.Ceil(float64(max(size, 1)) / 1024)
	lsi := 0
	for _, attr := range a.tableIndexAttrs {
		lsi += auditEntryWrites(before, after, []string{attr}, nil)
	}
	gsi := auditEntryWrites(before, after, []string{model.AttrKS, model.AttrKH}, []string{model.AttrType, model.AttrExp, model.AttrMemTTL})
	per := 1.0
	if tx {
		per = 2
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.wcu += per * (units + float64(lsi+gsi))
	a.lsi += lsi
	a.gsi += gsi
	if tx {
		a.transactWrites++
	}
}

// auditEntryWrites is how many writes an index with the key attributes keys
// and the model.Projected attributes proj takes when before becomes after: 1
// for an entry added or removed, 2 for one whose key changes, 1 for one
// whose model.Projected attributes change, 0 otherwise.
func auditEntryWrites(before, after model.Item, keys, proj []string) int {
	in := func(it model.Item) bool {
		for _, k := range keys {
			if it[k] == nil {
				return false
			}
		}
		return it != nil
	}
	same := func(names []string) bool {
		for _, k := range names {
			if !avEqual(before[k], after[k]) {
				return false
			}
		}
		return true
	}
	switch b, a := in(before), in(after); {
	case b != a:
		return 1
	case !b:
		return 0
	case !same(keys):
		return 2
	case !same(proj):
		return 1
	}
	return 0
}

func avEqual(x, y types.AttributeValue) bool {
	switch xv := x.(type) {
	case nil:
		return y == nil
	case *types.AttributeValueMemberB:
		yv, ok := y.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(xv.Value, yv.Value)
	case *types.AttributeValueMemberS:
		yv, ok := y.(*types.AttributeValueMemberS)
		return ok && xv.Value == yv.Value
	case *types.AttributeValueMemberN:
		yv, ok := y.(*types.AttributeValueMemberN)
		return ok && xv.Value == yv.Value
	}
	return false
}

func (a *indexAudit) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	type target struct {
		table *string
		key   model.Item
	}
	targets := make([]target, len(in.TransactItems))
	before := make([]model.Item, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		switch {
		case ti.Put != nil:
			targets[i] = target{ti.Put.TableName, model.Item{model.AttrPK: ti.Put.Item[model.AttrPK], model.AttrSK: ti.Put.Item[model.AttrSK]}}
		case ti.Update != nil:
			targets[i] = target{ti.Update.TableName, ti.Update.Key}
		case ti.Delete != nil:
			targets[i] = target{ti.Delete.TableName, ti.Delete.Key}
		case ti.ConditionCheck != nil:
			targets[i] = target{ti.ConditionCheck.TableName, ti.ConditionCheck.Key}
		}
		before[i] = a.read(ctx, targets[i].table, targets[i].key)
	}
	out, err := a.DynamoDBAPI.TransactWriteItems(ctx, in, opts...)
	if err != nil {
		return out, err
	}
	for i, t := range targets {
		after := before[i]
		if in.TransactItems[i].ConditionCheck == nil {
			after = a.read(ctx, t.table, t.key)
		}
		a.charge(before[i], after, true)
	}
	return out, nil
}

func (a *indexAudit) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	before := a.read(ctx, in.TableName, in.Key)
	out, err := a.DynamoDBAPI.UpdateItem(ctx, in, opts...)
	if err == nil {
		a.charge(before, a.read(ctx, in.TableName, in.Key), false)
	}
	return out, err
}

// costTally sums what Options.Metrics reports.
type costTally struct {
	mu            sync.Mutex
	requests      int
	rcu, reported float64
}

func (t *costTally) add(_ context.Context, r Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	t.rcu += r.ReadUnits
	t.reported += r.WriteUnits
}

func (t *costTally) take() (requests int, rcu, reported float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	requests, rcu, reported = t.requests, t.rcu, t.reported
	t.requests, t.rcu, t.reported = 0, 0, 0
	return
}

func BenchmarkSetCosts(b *testing.B) {
	needDB(b)
	audit := newIndexAudit(testDB)
	tally := &costTally{}
	c := NewClient(audit, func(o *Options) { o.TableName = testTable; o.Metrics = tally.add })
	ctx := context.Background()
	p := "SetCosts:" + randomHex(3) + ":"
	const size = 10_000
	key := p + "s"
	if _, err := c.SAdd(ctx, key, benchMembers("member", size)...); err != nil {
		b.Fatal(err)
	}
	type figures struct {
		requests, lsi, gsi, actions int
		rcu, wcu, reported          float64
	}
	var fresh int
	newMembers := func(n int) []string {
		fresh++
		return numbered(fmt.Sprintf("new%05d-", fresh)+"%03d", n)
	}
	cmds := []struct {
		name string
		run  func() error
	}{
		{"SADD-1-new", func() error { _, err := c.SAdd(ctx, key, newMembers(1)...); return err }},
		{"SADD-100-new", func() error { _, err := c.SAdd(ctx, key, newMembers(100)...); return err }},
		{"SADD-1-existing", func() error { _, err := c.SAdd(ctx, key, "member000007"); return err }},
		{"SADD-1-newkey", func() error { _, err := c.SAdd(ctx, p+"k"+randomHex(4), "a"); return err }},
		{"SREM-1", func() error {
			ms := newMembers(1)
			if _, err := c.SAdd(ctx, key, ms...); err != nil {
				return err
			}
			tally.take()
			audit.take()
			_, err := c.SRem(ctx, key, ms...)
			return err
		}},
		{"SISMEMBER", func() error { _, err := c.SIsMember(ctx, key, "member000042"); return err }},
		{"SRANDMEMBER", func() error { _, _, err := c.SRandMember(ctx, key); return err }},
		{"SRANDMEMBER-10", func() error { _, err := c.SRandMemberN(ctx, key, 10); return err }},
		{"SPOP", func() error { _, _, err := c.SPop(ctx, key); return err }},
	}
	for _, cmd := range cmds {
		var sum figures
		for range b.N {
			tally.take()
			audit.take()
			if err := cmd.run(); err != nil {
				b.Fatal(cmd.name, err)
			}
			req, rcu, reported := tally.take()
			wcu, lsi, gsi, actions := audit.take()
			sum.requests += req
			sum.rcu += rcu
			sum.reported += reported
			sum.wcu += wcu
			sum.lsi += lsi
			sum.gsi += gsi
			sum.actions += actions
		}
		n := float64(b.N)
		b.ReportMetric(float64(sum.requests)/n, cmd.name+"-requests")
		b.ReportMetric(sum.rcu/n, cmd.name+"-RCU")
		b.ReportMetric(sum.wcu/n, cmd.name+"-WCU")
		b.ReportMetric(sum.reported/n, cmd.name+"-local-reported-WCU")
		b.ReportMetric(float64(sum.lsi)/n, cmd.name+"-local-index-entries")
		b.ReportMetric(float64(sum.gsi)/n, cmd.name+"-key-index-entries")
		b.ReportMetric(float64(sum.actions)/n, cmd.name+"-tx-actions")
	}
}
