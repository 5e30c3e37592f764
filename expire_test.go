package redimo

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"

	"github.com/stretchr/testify/require"
)

func TestKeyExpiry(t *testing.T) {
	// Member items, whose purge this checks (small sets: TestSmallSetExpiry).
	ctx, c, p, clock := setupClocked(t, func(o *Options) { o.DisableSmallSets = true })
	k, other := p+"k", p+"other"
	_, err := c.SAdd(ctx, k, "a", "b")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, other, "b", "z")
	require.NoError(t, err)

	ttl := func(key string) time.Duration {
		d, err := c.TTL(ctx, key)
		require.NoError(t, err)
		return d
	}
	ok := func(b bool, err error) bool {
		require.NoError(t, err)
		return b
	}
	require.Equal(t, TTLPersistent, ttl(k))
	require.Equal(t, TTLMissing, ttl(p+"missing"))
	require.False(t, ok(c.Expire(ctx, p+"missing", time.Second)))

	require.True(t, ok(c.Expire(ctx, k, 10*time.Second)))
	require.Equal(t, 10*time.Second, ttl(k))
	clock.Add(1400 * time.Millisecond)
	require.Equal(t, 9*time.Second, ttl(k), "TTL rounds to the second")
	pttl, err := c.PTTL(ctx, k)
	require.NoError(t, err)
	require.Equal(t, 8600*time.Millisecond, pttl)

	require.False(t, ok(c.ExpireWith(ctx, k, 20*time.Second, ExpireNX)))
	require.True(t, ok(c.ExpireWith(ctx, k, 20*time.Second, ExpireXX)))
	require.False(t, ok(c.ExpireWith(ctx, k, 5*time.Second, ExpireGT)))
	require.True(t, ok(c.ExpireWith(ctx, k, 5*time.Second, ExpireLT)))
	require.True(t, ok(c.ExpireWith(ctx, k, 30*time.Second, ExpireGT)))
	require.Equal(t, 30*time.Second, ttl(k))
	require.False(t, ok(c.ExpireWith(ctx, other, time.Second, ExpireXX)), "XX needs an expiry")
	require.False(t, ok(c.ExpireWith(ctx, other, time.Second, ExpireGT)), "no expiry counts as infinite for GT")
	_, err = c.ExpireWith(ctx, k, time.Second, ExpireCondition(99))
	require.ErrorIs(t, err, ErrSyntax)

	require.True(t, ok(c.Persist(ctx, k)))
	require.False(t, ok(c.Persist(ctx, k)))
	require.Equal(t, TTLPersistent, ttl(k))

	// Expired: every command sees a missing key.
	require.True(t, ok(c.PExpireAt(ctx, k, clock.Now().Add(10*time.Second))))
	clock.Add(10 * time.Second)
	n, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n)
	typ, err := c.Type(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "none", typ)
	card, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.Zero(t, card)
	require.False(t, ok(c.SIsMember(ctx, k, "a")))
	flags, err := c.SMIsMember(ctx, k, "a", "b")
	require.NoError(t, err)
	require.Equal(t, []bool{false, false}, flags)
	members, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Empty(t, members)
	for m, err := range c.SScan(ctx, k, "a*") {
		require.NoError(t, err)
		t.Fatalf("SSCAN of an expired key yielded %q", m)
	}
	rnd, err := c.SRandMemberN(ctx, k, 5)
	require.NoError(t, err)
	require.Empty(t, rnd)
	inter, err := c.SInter(ctx, k, other)
	require.NoError(t, err)
	require.Empty(t, inter)
	union, err := c.SUnion(ctx, k, other)
	require.NoError(t, err)
	require.Equal(t, []string{"b", "z"}, sorted(union))
	diff, err := c.SDiff(ctx, other, k)
	require.NoError(t, err)
	require.Equal(t, []string{"b", "z"}, sorted(diff))
	require.False(t, ok(c.SMove(ctx, k, other, "a")))
	n, err = c.SRem(ctx, k, "a", "b")
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, TTLMissing, ttl(k))
	require.False(t, ok(c.Expire(ctx, k, time.Minute)))
	require.False(t, ok(c.Persist(ctx, k)))

	// A write to the expired key starts a fresh key: the old members are purged.
	n, err = c.SAdd(ctx, k, "c", "a")
	require.NoError(t, err)
	require.EqualValues(t, 2, n, "the old a does not count as present")
	members, err = c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, members)
	card, err = c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, card)
	require.Equal(t, TTLPersistent, ttl(k))
	require.Len(t, scanTable(t, k), 3, "metadata + a + c, nothing of the old key")

	// Expire with a time already past deletes the key.
	require.True(t, ok(c.Expire(ctx, k, -time.Second)))
	require.Empty(t, scanTable(t, k))

	// DEL of an expired key answers 0 and reclaims its items.
	_, err = c.SAdd(ctx, k, "x")
	require.NoError(t, err)
	require.True(t, ok(c.Expire(ctx, k, time.Second)))
	clock.Add(time.Second)
	n, err = c.Del(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Empty(t, scanTable(t, k))

	// *STORE replaces the destination: its expiry goes too.
	require.True(t, ok(c.Expire(ctx, other, time.Minute)))
	_, err = c.SUnionStore(ctx, other, other, p+"missing")
	require.NoError(t, err)
	require.Equal(t, TTLPersistent, ttl(other))

	// An expired key of the other type does not make writes WRONGTYPE.
	z := p + "z"
	makeZSet(t, c, z, "m")
	require.True(t, ok(c.Expire(ctx, z, time.Second)))
	clock.Add(time.Second)
	n, err = c.SAdd(ctx, z, "s")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	typ, err = c.Type(ctx, z)
	require.NoError(t, err)
	require.Equal(t, "set", typ)
}

// Writers racing on an expired key: the purge happens once in effect, the
// old members never count, and the new count is exact.
func TestKeyExpiryConcurrentWriters(t *testing.T) {
	ctx, c, p, clock := setupClocked(t, func(o *Options) { o.DisableSmallSets = true }) // member items
	k := p + "k"
	old := numbered("old%03d", 150) // more than one purge transaction
	_, err := c.SAdd(ctx, k, old...)
	require.NoError(t, err)
	_, err = c.Expire(ctx, k, time.Second)
	require.NoError(t, err)
	clock.Add(time.Second)

	var added atomic.Int64
	runWorkers(8, func(w int) {
		for i := range 5 {
			n, err := c.SAdd(ctx, k, fmt.Sprintf("new%d-%d", w, i), old[w*5+i])
			require.NoError(t, err)
			added.Add(n)
		}
	})
	members, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	card, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 80, added.Load(), "every member counts as new: the old key is gone")
	require.Len(t, members, 80)
	require.EqualValues(t, 80, card)
	require.Len(t, scanTable(t, k), 81)
}

// Times beyond int64 milliseconds are ErrOutOfRange with nothing written
// (they used to wrap into the past and delete the key); the latest time
// int64 milliseconds hold is set, as Redis's PEXPIREAT sets it.
func TestExpireAtRange(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + "k"
	_, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	for _, at := range []time.Time{time.Unix(1<<62, 0), time.Unix(-1<<62, 0), time.Unix(math.MaxInt64/1000, 808e6)} {
		ok, err := c.ExpireAt(ctx, k, at)
		require.ErrorIs(t, err, ErrOutOfRange, "%v", at)
		require.ErrorIs(t, err, ErrInvalidArgument)
		require.False(t, ok)
		_, err = c.ExpireAtWith(ctx, k, at, ExpireGT)
		require.ErrorIs(t, err, ErrOutOfRange)
		ms, err := c.PExpireTime(ctx, k)
		require.NoError(t, err)
		require.EqualValues(t, -1, ms, "nothing written")
	}
	ok, err := c.PExpireAt(ctx, k, time.UnixMilli(math.MaxInt64))
	require.NoError(t, err)
	require.True(t, ok)
	ms, err := c.PExpireTime(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, int64(math.MaxInt64), ms)
	s, err := c.ExpireTime(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, int64(math.MaxInt64/1000+1), s, "rounded as Redis's EXPIRETIME")
	ttl, err := c.TTL(ctx, k)
	require.NoError(t, err)
	require.Equal(t, time.Duration(math.MaxInt64), ttl, "beyond a Duration: the largest one")
	// A time far in the past deletes the key, as Redis's EXPIREAT does.
	ok, err = c.PExpireAt(ctx, k, time.UnixMilli(math.MinInt64))
	require.NoError(t, err)
	require.True(t, ok)
	n, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n)
	ms, err = c.PExpireTime(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, -2, ms)
}

// PERSIST of a key whose members all expired answers 0, as Redis's on a
// missing key, and leaves the key's expiry; a key with a member that has
// no expiry of its own is live, and PERSIST stays one UpdateItem there.
func TestPersistMemberExpiries(t *testing.T) {
	c, cnt, p, clock := newClockedClient(t)
	ctx := t.Context()
	gone, some, mixed, dest := p+"gone", p+"some", p+"mixed", p+"dest"
	for _, k := range []string{gone, some, dest} {
		_, err := c.SAddEx(ctx, k, time.Second, false, "a")
		require.NoError(t, err)
	}
	_, err := c.SAddEx(ctx, some, time.Hour, false, "b")
	require.NoError(t, err)
	_, err = c.SAddEx(ctx, mixed, time.Second, false, "a")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, mixed, "b")
	require.NoError(t, err)
	for _, k := range []string{gone, some, mixed, dest} {
		ok, err := c.Expire(ctx, k, time.Hour)
		require.NoError(t, err)
		require.True(t, ok, k)
	}
	clock.Add(2 * time.Second) // every "a" expires

	for _, k := range []string{gone, some, mixed} {
		cnt.reset()
		removed, err := c.Persist(ctx, k)
		require.NoError(t, err)
		require.Equal(t, k != gone, removed, "PERSIST %s", k)
		if k == mixed {
			require.EqualValues(t, 1, cnt.requests.Load(), "PERSIST of a key with a member without expiry: %s", cnt)
		}
	}
	ms, err := c.PTTL(ctx, gone)
	require.NoError(t, err)
	require.Equal(t, TTLMissing, ms, "a key whose members all expired is missing")
	// A STORE's new value has no expiry, as in Redis, also where its
	// destination's members had all expired.
	_, err = c.SUnionStore(ctx, dest, mixed)
	require.NoError(t, err)
	for _, k := range []string{some, mixed, dest} {
		ms, err := c.PTTL(ctx, k)
		require.NoError(t, err)
		require.Equal(t, TTLPersistent, ms, k)
	}
}

// Writes racing a key's expiry and its purge: the stored count must equal
// the member items after any interleaving, and no member of an expired key
// may be visible again.
//
// checkStoredCounts reads the raw table and fails when a key under prefix
// has a stored count that differs from its member items, members without a
// metadata item, or a member item whose index value does not match its
// type and member (a local secondary index entry is the item's own ix).
func checkStoredCounts(t testing.TB, prefix string) {
	t.Helper()
	type stored struct {
		meta           *model.Meta
		members, withX int64 // member items; those with an expiry (mx)
	}
	keys := map[string]*stored{}
	for _, it := range rawItemsOf(t, prefix) {
		key := string(model.BytesAttr(it, model.AttrPK)[1:])
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		s := keys[key]
		if s == nil {
			s = &stored{}
			keys[key] = s
		}
		if sk := model.BytesAttr(it, model.AttrSK); len(sk) > 0 && sk[0] == model.RankPrefix {
			continue // a count item (rank.go): checkRankItems checks those
		}
		member, typ, ok := model.MemberOf(it)
		if !ok {
			m := model.DecodeMeta(it)
			s.meta = &m
			// A small set's members are in its metadata item (smallset.go),
			// with their byte count.
			s.members += int64(len(m.Small))
			// So are a small sorted set's (smallz.go), in order, distinct.
			s.members += int64(len(m.SmallZ))
			distinct := map[string]bool{}
			for _, e := range m.SmallZ {
				distinct[e.Member] = true
			}
			if !slices.IsSortedFunc(m.SmallZ, model.CompareZ) || len(distinct) != len(m.SmallZ) {
				t.Errorf("%q: small sorted set out of order: %v", key, m.SmallZ)
			}
			if m.SmallZ != nil && m.Small != nil {
				t.Errorf("%q: both small encodings", key)
			}
			if sb, _ := it[model.AttrSmallLen].(*types.AttributeValueMemberN); m.Small != nil && (sb == nil || sb.Value != strconv.Itoa(model.SmallBytes(m.Small))) {
				t.Errorf("%q: small set of %d bytes, sb %v", key, model.SmallBytes(m.Small), sb)
			}
			continue
		}
		s.members++
		if model.MemberExp(it) != 0 {
			s.withX++
		}
		ix := model.BytesAttr(it, model.AttrIX)
		switch typ {
		case model.TypeSet:
			require.Nil(t, ix, "set member %q of %q: no index value (internal/model/keys.go)", member, key)
		case model.TypeZSet:
			inline := member[:min(len(member), model.InlineMemberLen)]
			require.True(t, len(ix) == 9+len(inline) && ix[8] == 0 && string(ix[9:]) == inline,
				"sorted-set member %s of %q: index value %x", shortQ(member), key, ix[:min(len(ix), 40)])
		}
		sk := model.BytesAttr(it, model.AttrSK)
		require.Equal(t, string(model.MemberSK(typ, member)), string(sk), "member %s of %q: sort key", shortQ(member), key)
		_, hasM := it[model.AttrMem]
		require.Equal(t, model.IsLongSK(sk), hasM, "member %s of %q: m exactly on long members", shortQ(member), key)
	}
	var bad []string
	for key, s := range keys {
		switch {
		case s.meta == nil && s.members > 0:
			bad = append(bad, fmt.Sprintf("%q: %d member items, no metadata item", key, s.members))
		case s.meta != nil && s.meta.Card != s.members:
			bad = append(bad, fmt.Sprintf("%q: stored count %d, %d member items (expiry %d)", key, s.meta.Card, s.members, s.meta.Exp))
		case s.meta != nil && s.meta.TTLs != s.withX:
			bad = append(bad, fmt.Sprintf("%q: stored mn %d, %d member items with an expiry", key, s.meta.TTLs, s.withX))
		}
	}
	sort.Strings(bad)
	require.Empty(t, bad, "stored counts differ from the member items")
}

// holdingDB holds the first TransactWriteItems that writes hold (a member
// sort key) until a transaction deleting the key's metadata item (the
// purge's last step) is sent; it then lets the held one through, waits for
// its answer and only then sends the delete. That is the late write of
// issue 9: built before the expiry, arriving after the purge listed the
// members.
type holdingDB struct {
	DynamoDBAPI
	hold     []byte // sort key whose transaction is held
	held     chan struct{}
	release  chan struct{}
	landed   chan struct{}
	heldOnce sync.Once
	metaOnce sync.Once
}

func (h *holdingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	touches := func(sk []byte, deleteOnly bool) bool {
		for _, a := range in.TransactItems {
			var key model.Item
			switch {
			case a.Delete != nil:
				key = a.Delete.Key
			case deleteOnly:
				continue
			case a.Put != nil:
				key = a.Put.Item
			case a.Update != nil:
				key = a.Update.Key
			}
			if key != nil && bytes.Equal(model.BytesAttr(key, model.AttrSK), sk) {
				return true
			}
		}
		return false
	}
	if touches(h.hold, false) {
		first := false
		h.heldOnce.Do(func() { first = true })
		if first {
			close(h.held)
			<-h.release
			defer close(h.landed)
		}
	} else if touches(model.MetaSK, true) {
		h.metaOnce.Do(func() {
			close(h.release)
			<-h.landed
		})
	}
	return h.DynamoDBAPI.TransactWriteItems(ctx, in, opts...)
}

// The interleaving of issue 9: SADD k a b c; PEXPIRE k 200 ms; a SADD k
// late built before the expiry whose transaction arrives after the purge
// listed the members, just before the purge deletes the metadata item;
// then SADD k new. Before the fix: SMEMBERS = {late, new}, SCARD = 1.
func TestPurgeRaceLateWrite(t *testing.T) {
	for _, typ := range []model.KeyType{model.TypeSet, model.TypeZSet} {
		t.Run(string(typ), func(t *testing.T) {
			plain, _, p, clock := newClockedClient(t)
			h := &holdingDB{DynamoDBAPI: plain.st.DB, hold: model.MemberSK(typ, "late"),
				held: make(chan struct{}), release: make(chan struct{}), landed: make(chan struct{})}
			// Two clients, as two app servers: the late write's and the
			// others' (one client would queue the others' writes behind
			// its own held transaction on the key).
			// Member items: a small set's SADD, and a small sorted set's
			// ZADD, is one UpdateItem whose condition includes the key's
			// expiry (smallset.go, smallz.go).
			opts := func(o *Options) {
				o.TableName, o.Now, o.DisableSmallSets, o.DisableSmallSortedSets = testTable, clock.Now, true, true
			}
			late, c := NewClient(h, opts), NewClient(h, opts)
			ctx := context.Background()
			k := p + "k"
			addWith := func(c *Client, members ...string) int64 {
				n, err := addAll(ctx, c, k, typ == model.TypeZSet, members...)
				require.NoError(t, err)
				return n
			}
			add := func(members ...string) int64 { return addWith(c, members...) }
			require.EqualValues(t, 3, add("a", "b", "c"))
			ok, err := c.PExpire(ctx, k, 200*time.Millisecond)
			require.NoError(t, err)
			require.True(t, ok)

			lateAdded := make(chan int64, 1)
			go func() { lateAdded <- addWith(late, "late") }()
			<-h.held // built and sent at the old clock: the key is live
			clock.Add(300 * time.Millisecond)
			require.EqualValues(t, 1, add("new"))
			require.EqualValues(t, 1, <-lateAdded)

			checkStoredCounts(t, k)
			members, err := c.allMembers(ctx, k, typ)
			require.NoError(t, err)
			sort.Strings(members)
			card, err := c.card(ctx, k, typ)
			require.NoError(t, err)
			require.EqualValues(t, len(members), card, "count %d, members %q", card, members)
			require.NotContains(t, members, "a", "a member of the expired key is visible again")
		})
	}
}

// allMembers is SMEMBERS or ZRANGE 0 -1.
func (c *Client) allMembers(ctx context.Context, key string, typ model.KeyType) ([]string, error) {
	if typ == model.TypeSet {
		return c.SMembers(ctx, key)
	}
	return c.ZRange(ctx, key, 0, -1)
}

// card is SCARD or ZCARD.
func (c *Client) card(ctx context.Context, key string, typ model.KeyType) (int64, error) {
	if typ == model.TypeSet {
		return c.SCard(ctx, key)
	}
	return c.ZCard(ctx, key)
}

// Writers racing short PEXPIREs, with lost responses, 500s and transaction
// conflicts injected: after every round the raw table holds exact counts,
// and no member of an expired key is ever read back.
func TestExpiryRaceUnderFaults(t *testing.T) {
	needDB(t)
	rounds := testenv.Budget(2, 6)
	for _, mode := range faultModes(t, dropResponse, appliedThen5, conflicts, slow) {
		t.Run(string(mode), func(t *testing.T) {
			f := &faulty{next: http.DefaultTransport, mode: mode, share: 0.15}
			c := faultyClient(t, f)
			ctx := context.Background()
			p := t.Name() + ":" + randomHex(3) + ":"
			for round := range rounds {
				keys := []string{p + fmt.Sprint(round, "s"), p + fmt.Sprint(round, "z")}
				var stop atomic.Bool
				// epoch counts the expiries set; a member written in an
				// epoch must never be read back after the key expired.
				wait := startWorkers(8, func(w int) {
					for i := 0; !stop.Load(); i++ {
						m := fmt.Sprintf("w%d-%d", w, i%12)
						var err error
						switch rand.IntN(5) {
						case 0, 1:
							_, err = c.SAdd(ctx, keys[0], m, m+"x")
						case 2:
							_, err = c.SRem(ctx, keys[0], m)
						case 3:
							_, err = c.ZAdd(ctx, keys[1], Z{Score: float64(i), Member: m})
						case 4:
							_, err = c.ZIncrBy(ctx, keys[1], 1, m)
						}
						require.NoError(t, err)
					}
				})
				for range 6 {
					time.Sleep(time.Duration(5+rand.IntN(20)) * time.Millisecond)
					for _, k := range keys {
						_, err := c.PExpire(ctx, k, time.Duration(1+rand.IntN(30))*time.Millisecond)
						require.NoError(t, err)
					}
				}
				time.Sleep(40 * time.Millisecond)
				stop.Store(true)
				wait()
				checkStoredCounts(t, keys[0])
				checkStoredCounts(t, keys[1])
				for _, k := range keys {
					// The key's members, as reads see them, match its count.
					typ := model.TypeSet
					if strings.HasSuffix(k, "z") {
						typ = model.TypeZSet
					}
					m, err := c.getMeta(ctx, k)
					require.NoError(t, err)
					members, err := c.allMembers(ctx, k, typ)
					require.NoError(t, err)
					require.EqualValues(t, m.Card, len(members), "key %q", k)
				}
			}
			t.Logf("injected (%s): %s", mode, f.summary())
		})
	}
}
