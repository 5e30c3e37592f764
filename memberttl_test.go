package redimo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// A member's expiry hides it from every read at once, and writes treat it
// as missing; the stored count and mn stay exact on the raw table.
func TestMemberExpirySet(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	_, err := c.SAdd(ctx, k, "a", "b", "c", "d")
	require.NoError(t, err)
	got, err := c.SExpire(ctx, k, 10*time.Second, ExpireAlways, "a", "b", "x")
	require.NoError(t, err)
	require.Equal(t, []int64{1, 1, -2}, got)
	got, err = c.SExpire(ctx, k, 20*time.Second, ExpireNX, "a", "c")
	require.NoError(t, err)
	require.Equal(t, []int64{0, 1}, got)
	got, err = c.SExpire(ctx, k, 5*time.Second, ExpireGT, "a", "d")
	require.NoError(t, err)
	require.Equal(t, []int64{0, 0}, got, "GT: earlier than 10 s; none counts as infinite")
	got, err = c.STTL(ctx, k, "a", "c", "d", "x")
	require.NoError(t, err)
	require.Equal(t, []int64{10, 20, -1, -2}, got)
	checkStoredCounts(t, k)

	clock.Add(10 * time.Second) // a and b expire
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	members, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []string{"c", "d"}, members)
	in, err := c.SMIsMember(ctx, k, "a", "c")
	require.NoError(t, err)
	require.Equal(t, []bool{false, true}, in)
	got, err = c.SExpire(ctx, k, time.Minute, ExpireAlways, "a")
	require.NoError(t, err)
	require.Equal(t, []int64{-2}, got, "an expired member is missing")
	removed, err := c.SRem(ctx, k, "b")
	require.NoError(t, err)
	require.Zero(t, removed, "SREM of an expired member removes nothing")
	added, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, added, "SADD of an expired member adds it")
	got, err = c.STTL(ctx, k, "a")
	require.NoError(t, err)
	require.Equal(t, []int64{-1}, got, "added again without an expiry")
	checkStoredCounts(t, k) // b was swept by SREM, a replaced by SADD
	n, err = c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)

	got, err = c.SPersist(ctx, k, "c", "d", "zz")
	require.NoError(t, err)
	require.Equal(t, []int64{1, -1, -2}, got)
	got, err = c.SExpire(ctx, k, 0, ExpireAlways, "d", "d")
	require.NoError(t, err)
	require.Equal(t, []int64{2, -2}, got, "a time not in the future deletes; the repeat finds it gone")
	checkStoredCounts(t, k)

	// SADDEX: new members with an expiry; KEEPTTL keeps what members have.
	added, err = c.SAddEx(ctx, k, 3*time.Second, false, "a", "e")
	require.NoError(t, err)
	require.EqualValues(t, 1, added)
	added, err = c.SAddEx(ctx, k, 9*time.Second, true, "a", "f")
	require.NoError(t, err)
	require.EqualValues(t, 1, added)
	got, err = c.SPTTL(ctx, k, "a", "e", "f", "c")
	require.NoError(t, err)
	require.Equal(t, []int64{3000, 3000, 9000, -1}, got)
	clock.Add(3 * time.Second)
	members, err = c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []string{"c", "f"}, members)
	ex, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 1, ex)
	clock.Add(9 * time.Second) // f expires: only c is left
	_, err = c.SRem(ctx, k, "c")
	require.NoError(t, err)
	keys, _, err := c.Scan(ctx, 0, k, 0)
	require.NoError(t, err)
	require.Empty(t, keys, "SCAN leaves out a key whose members all expired")
	ex, err = c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, ex)
	typ, err := c.Type(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "none", typ, "a key whose members all expired is missing")
	_, err = c.ZAdd(ctx, k, Z{Score: 1, Member: "z"})
	require.NoError(t, err, "a key whose members all expired takes the other type")
	checkStoredCounts(t, k)

	// *STORE replaces the destination: its members have no expiry, and
	// the expired ones stay invisible.
	src, dst := p+"src", p+"dst"
	_, err = c.SAdd(ctx, src, "a", "b")
	require.NoError(t, err)
	_, err = c.SAddEx(ctx, dst, time.Minute, false, "a", "c")
	require.NoError(t, err)
	_, err = c.SAddEx(ctx, dst, time.Second, false, "b", "d")
	require.NoError(t, err)
	clock.Add(time.Second) // b and d expire
	n, err = c.SUnionStore(ctx, dst, src)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	got, err = c.STTL(ctx, dst, "a", "b", "c", "d")
	require.NoError(t, err)
	require.Equal(t, []int64{-1, -1, -2, -2}, got)
	n, err = c.SCard(ctx, dst)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	checkStoredCounts(t, dst)
}

// Sorted sets: ranges, counts, ranks, scores and increments skip expired
// members; ZCOLLECT deletes them.
func TestMemberExpiryZSet(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	var zs []Z
	for i := range 20 {
		zs = append(zs, Z{Score: float64(i), Member: fmt.Sprintf("m%02d", i)})
	}
	_, err := c.ZAdd(ctx, k, zs...)
	require.NoError(t, err)
	odd := []string{}
	for i := 1; i < 20; i += 2 {
		odd = append(odd, fmt.Sprintf("m%02d", i))
	}
	got, err := c.ZExpire(ctx, k, time.Second, ExpireAlways, odd...)
	require.NoError(t, err)
	require.Equal(t, slices.Repeat([]int64{1}, 10), got)
	clock.Add(time.Second)
	n, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 10, n)
	rng, err := c.ZRange(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Len(t, rng, 10)
	for i, m := range rng {
		require.Equal(t, fmt.Sprintf("m%02d", 2*i), m)
	}
	rng, err = c.ZRange(ctx, k, -3, -1)
	require.NoError(t, err)
	require.Equal(t, []string{"m14", "m16", "m18"}, rng, "negative ranks count live members")
	cnt, err := c.ZCount(ctx, k, "5", "15")
	require.NoError(t, err)
	require.EqualValues(t, 5, cnt) // 6, 8, 10, 12, 14
	rank, ok, err := c.ZRank(ctx, k, "m10")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 5, rank)
	_, ok, err = c.ZScore(ctx, k, "m03")
	require.NoError(t, err)
	require.False(t, ok)
	score, err := c.ZIncrBy(ctx, k, 2, "m03")
	require.NoError(t, err)
	require.EqualValues(t, 2, score, "an expired member's increment starts from 0")
	checkStoredCounts(t, k)
	require.NoError(t, c.ZCollect(ctx, k))
	checkStoredCounts(t, k)
	var left int
	for _, item := range scanTable(t, k) {
		_ = item
		left++
	}
	require.Equal(t, 1+11, left, "metadata item and 11 live members: the expired ones are gone")
	popped, err := c.ZPopMin(ctx, k, 2)
	require.NoError(t, err)
	require.Equal(t, []Z{{Score: 0, Member: "m00"}, {Score: 2, Member: "m02"}}, popped)
}

// A random workload of set and sorted-set commands with member expiries on
// a fake clock, against a model of Redis 8.12's semantics (redis-server
// 7.0 has no member expiry): every reply and, at the end, the raw table.
func TestMemberExpiryModel(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	type entry struct {
		score float64
		exp   int64 // ms; 0: none
	}
	model := map[string]map[string]*entry{} // key → live and expired members
	now := func() int64 { return clock.Now().UnixMilli() }
	live := func(k string) map[string]*entry {
		out := map[string]*entry{}
		for m, e := range model[k] {
			if e.exp == 0 || e.exp > now() {
				out[m] = e
			}
		}
		return out
	}
	set := func(k, m string, e *entry) {
		if model[k] == nil {
			model[k] = map[string]*entry{}
		}
		model[k][m] = e
	}
	sortedLive := func(k string) []string {
		l := live(k)
		out := make([]string, 0, len(l))
		for m := range l {
			out = append(out, m)
		}
		sort.Slice(out, func(i, j int) bool {
			a, b := l[out[i]], l[out[j]]
			if a.score != b.score {
				return a.score < b.score
			}
			return out[i] < out[j]
		})
		return out
	}
	// perMember is the model's reply for each of ms in k: -2 missing, -1
	// no expiry, else what has returns (which may change the entry).
	var k string
	perMember := func(ms []string, has func(e *entry) int64) []int64 {
		out := make([]int64, len(ms))
		for i, m := range ms {
			switch e, ok := live(k)[m]; {
			case !ok:
				out[i] = -2
			case e.exp == 0:
				out[i] = -1
			default:
				out[i] = has(e)
			}
		}
		return out
	}
	r := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	member := func() string { return fmt.Sprintf("m%d", r.IntN(12)) }
	conds := []ExpireCondition{ExpireAlways, ExpireNX, ExpireXX, ExpireGT, ExpireLT}
	for step := range 400 {
		isZ := r.IntN(2) == 0
		k = p + "s"
		if isZ {
			k = p + "z"
		}
		ms := []string{member(), member(), member()}
		what := fmt.Sprintf("step %d on %s", step, k)
		switch op := r.IntN(9); op {
		case 0, 1: // add
			var n int64
			var err error
			if isZ {
				n, err = c.ZAdd(ctx, k, Z{Score: float64(r.IntN(5)), Member: ms[0]})
			} else {
				n, err = c.SAdd(ctx, k, ms[0])
			}
			require.NoError(t, err, what)
			_, had := live(k)[ms[0]]
			require.Equal(t, btoi(!had), int(n), what+" add")
			if e, ok := live(k)[ms[0]]; ok && isZ {
				e.score = float64(scoreOf(t, c, k, ms[0]))
			} else if !ok {
				sc := 0.0
				if isZ {
					sc = scoreOf(t, c, k, ms[0])
				}
				set(k, ms[0], &entry{score: sc})
			}
		case 2: // remove
			var n int64
			var err error
			if isZ {
				n, err = c.ZRem(ctx, k, ms[0], ms[1])
			} else {
				n, err = c.SRem(ctx, k, ms[0], ms[1])
			}
			require.NoError(t, err, what)
			want := 0
			for _, m := range dedupe(ms[:2]) {
				if _, ok := live(k)[m]; ok {
					want++
				}
				delete(model[k], m)
			}
			require.EqualValues(t, want, n, what+" remove")
		case 3, 4: // expire
			d := time.Duration(r.IntN(6)-1) * time.Second
			cond := conds[r.IntN(len(conds))]
			t0 := clock.Now().Add(d)
			forms := [][2]func() ([]int64, error){ // set, sorted set: the same expiry each way
				{func() ([]int64, error) { return c.SExpire(ctx, k, d, cond, ms...) }, func() ([]int64, error) { return c.ZExpire(ctx, k, d, cond, ms...) }},
				{func() ([]int64, error) { return c.SPExpire(ctx, k, d, cond, ms...) }, func() ([]int64, error) { return c.ZPExpire(ctx, k, d, cond, ms...) }},
				{func() ([]int64, error) { return c.SExpireAt(ctx, k, t0, cond, ms...) }, func() ([]int64, error) { return c.ZExpireAt(ctx, k, t0, cond, ms...) }},
				{func() ([]int64, error) { return c.SPExpireAt(ctx, k, t0, cond, ms...) }, func() ([]int64, error) { return c.ZPExpireAt(ctx, k, t0, cond, ms...) }},
			}
			got, err := forms[r.IntN(len(forms))][btoi(isZ)]()
			require.NoError(t, err, what)
			at := now() + d.Milliseconds()
			want := make([]int64, len(ms))
			for i, m := range ms {
				e, ok := live(k)[m]
				switch {
				case !ok:
					want[i] = -2
				case !cond.holds(e.exp, at):
					want[i] = 0
				case at <= now():
					want[i] = 2
					delete(model[k], m)
				default:
					want[i] = 1
					e.exp = at
				}
			}
			require.Equal(t, want, got, what+" expire %v %q", d, cond)
		case 5: // persist
			f := c.SPersist
			if isZ {
				f = c.ZPersist
			}
			got, err := f(ctx, k, ms...)
			require.NoError(t, err, what)
			require.Equal(t, perMember(ms, func(e *entry) int64 { e.exp = 0; return 1 }), got, what+" persist")
		case 6: // the clock moves
			clock.Add(time.Duration(r.IntN(1500)) * time.Millisecond)
		case 7: // TTLs, four ways
			type ttlFn = func(context.Context, string, ...string) ([]int64, error)
			forms := []struct {
				s, z ttlFn
				f    func(exp int64) int64
			}{
				{c.SPTTL, c.ZPTTL, func(exp int64) int64 { return exp - now() }},
				{c.STTL, c.ZTTL, func(exp int64) int64 { return (exp - now() + 999) / 1000 }},
				{c.SPExpireTime, c.ZPExpireTime, func(exp int64) int64 { return exp }},
				{c.SExpireTime, c.ZExpireTime, func(exp int64) int64 { return exp / 1000 }},
			}
			form := forms[r.IntN(len(forms))]
			f := form.s
			if isZ {
				f = form.z
			}
			got, err := f(ctx, k, ms...)
			require.NoError(t, err, what)
			require.Equal(t, perMember(ms, func(e *entry) int64 { return form.f(e.exp) }), got, what+" ttl")
		case 8:
			if isZ {
				require.NoError(t, c.ZCollect(ctx, k))
			} else {
				require.NoError(t, c.SCollect(ctx, k))
			}
		}
		// Every read agrees with the model's live members.
		wantMembers := nilIfEmpty(sortedLive(k))
		if isZ {
			n, err := c.ZCard(ctx, k)
			require.NoError(t, err, what)
			require.EqualValues(t, len(wantMembers), n, what+" ZCARD")
			got, err := c.ZRange(ctx, k, 0, -1)
			require.NoError(t, err, what)
			require.Equal(t, wantMembers, nilIfEmpty(got), what+" ZRANGE")
			if len(wantMembers) > 0 {
				m := wantMembers[r.IntN(len(wantMembers))]
				rank, ok, err := c.ZRank(ctx, k, m)
				require.NoError(t, err, what)
				require.True(t, ok, what)
				require.EqualValues(t, slices.Index(wantMembers, m), rank, what+" ZRANK")
			}
		} else {
			n, err := c.SCard(ctx, k)
			require.NoError(t, err, what)
			require.EqualValues(t, len(wantMembers), n, what+" SCARD")
			got, err := c.SMembers(ctx, k)
			require.NoError(t, err, what)
			sort.Strings(wantMembers)
			require.Equal(t, wantMembers, nilIfEmpty(got), what+" SMEMBERS")
			if len(wantMembers) > 0 {
				rm, ok, err := c.SRandMember(ctx, k)
				require.NoError(t, err, what)
				require.True(t, ok, what)
				require.Contains(t, wantMembers, rm, what+" SRANDMEMBER")
			}
		}
		ex, err := c.Exists(ctx, k)
		require.NoError(t, err, what)
		require.EqualValues(t, btoi(len(wantMembers) > 0), ex, what+" EXISTS")
	}
	checkStoredCounts(t, p)
}

func scoreOf(t *testing.T, c *Client, k, m string) float64 {
	s, ok, err := c.ZScore(context.Background(), k, m)
	require.NoError(t, err)
	require.True(t, ok)
	return s
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// SEXPIRE of 1,000 members: ⌈1000/99⌉ transactions.
func TestMemberExpiryTransactions(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "big"
	ms := make([]string, 1000)
	for i := range ms {
		ms[i] = fmt.Sprintf("member-%04d", i)
	}
	_, err := c.SAdd(ctx, k, ms...)
	require.NoError(t, err)
	cnt.reset()
	got, err := c.SExpire(ctx, k, time.Hour, ExpireAlways, ms...)
	require.NoError(t, err)
	require.Equal(t, slices.Repeat([]int64{1}, 1000), got)
	t.Logf("SEXPIRE of 1,000 members: %s", cnt)
	require.LessOrEqual(t, cnt.byOp["TransactWriteItems"], int64(11))
	checkStoredCounts(t, k)
}

// SCARD/ZCARD of a key this Client counted before, and that nobody wrote
// since, counts only the members that expired in between: 2 requests of
// one page, however many expired members wait to be deleted. A write by
// another Client, or a clock that went back, makes it count them all again.
func TestLiveCountSinceLastCount(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	c.opts.Now = clock.Now
	other := NewClient(testDB, func(o *Options) { o.TableName = testTable; o.Now = clock.Now })
	k := p + "s"
	ms := make([]string, 300)
	for i := range ms {
		ms[i] = fmt.Sprintf("m%03d", i)
	}
	_, err := c.SAdd(ctx, k, ms...)
	require.NoError(t, err)
	for i := range 30 { // 10 members expire every second from +1s to +30s
		_, err := c.SPExpire(ctx, k, time.Duration(i+1)*time.Second, ExpireAlways, ms[i*10:i*10+10]...)
		require.NoError(t, err)
	}
	want := func(k string, n int64, requests int64) {
		t.Helper()
		cnt.reset()
		got, err := c.SCard(ctx, k)
		require.NoError(t, err)
		require.Equal(t, n, got)
		if requests > 0 {
			require.EqualValues(t, requests, cnt.requests.Load(), "%s", cnt)
		}
	}
	want(k, 300, 0) // counts all (none expired yet) and notes the count
	for s := 1; s <= 12; s++ {
		clock.Add(time.Second)
		want(k, int64(300-10*s), 2)
	}
	clock.Add(500 * time.Millisecond)
	want(k, 180, 2) // nothing expired in the last half second
	// Another Client removes a live member and an expired one.
	_, err = other.SRem(ctx, k, ms[200], ms[0])
	require.NoError(t, err)
	want(k, 179, 0)
	clock.Add(time.Second)
	want(k, 169, 2)
	// The clock goes back: the members of (t-3s, t] are live again.
	clock.Add(-3 * time.Second)
	want(k, 199, 0)
	clock.Add(3 * time.Second)
	want(k, 169, 2)
	// Another Client gives a member an expiry in the past half second:
	// the count is taken again and holds it.
	_, err = other.SPExpireAt(ctx, k, clock.Now().Add(-time.Millisecond), ExpireAlways, ms[250])
	require.NoError(t, err)
	want(k, 168, 0)
	// A sorted set the same way.
	z := p + "z"
	for i := range 20 {
		_, err := c.ZAdd(ctx, z, Z{Score: float64(i), Member: ms[i]})
		require.NoError(t, err)
	}
	_, err = c.ZPExpire(ctx, z, 2*time.Second, ExpireAlways, ms[:5]...)
	require.NoError(t, err)
	n, err := c.ZCard(ctx, z)
	require.NoError(t, err)
	require.EqualValues(t, 20, n)
	clock.Add(2 * time.Second)
	cnt.reset()
	n, err = c.ZCard(ctx, z)
	require.NoError(t, err)
	require.EqualValues(t, 15, n)
	require.EqualValues(t, 2, cnt.requests.Load(), "%s", cnt)
	checkStoredCounts(t, k)
	checkStoredCounts(t, z)
}

// underFaults runs f as a subtest without faults and under each fault mode
// a member-expiry workload is tried with (lost responses, applied then
// 500, transaction conflicts on 15% of requests), each with a client and a
// key prefix of its own.
func underFaults(t *testing.T, f func(t *testing.T, ctx context.Context, c *Client, p string)) {
	for _, mode := range []faultMode{"", dropResponse, appliedThen5, conflicts} {
		t.Run("faults="+string(mode), func(t *testing.T) {
			needDB(t)
			var c *Client
			if mode == "" {
				c, _, _ = newTestClient(t)
			} else {
				c = faultyClient(t, &faulty{next: http.DefaultTransport, mode: mode, share: 0.15})
			}
			f(t, context.Background(), c, t.Name()+":"+randomHex(3)+":")
		})
	}
}

// Concurrent writers add, remove and expire members while the clock runs:
// the stored counts and mn stay exact, and no read ever returns a member
// after its expiry.
func TestMemberExpiryConcurrent(t *testing.T) {
	underFaults(t, func(t *testing.T, ctx context.Context, c *Client, p string) {
		keys := []string{p + "s", p + "z"}
		var (
			mu    sync.Mutex
			reads int
		)
		var wg sync.WaitGroup
		stop := time.Now().Add(3 * time.Second)
		for w := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 1))
				for time.Now().Before(stop) {
					k := keys[r.IntN(2)]
					m := fmt.Sprintf("m%d", r.IntN(10))
					var err error
					switch r.IntN(6) {
					case 0:
						if k == keys[0] {
							_, err = c.SAdd(ctx, k, m)
						} else {
							_, err = c.ZAdd(ctx, k, Z{Score: float64(r.IntN(3)), Member: m})
						}
					case 1:
						if k == keys[0] {
							_, err = c.SRem(ctx, k, m)
						} else {
							_, err = c.ZIncrBy(ctx, k, 1, m)
						}
					case 2, 3:
						if k == keys[0] {
							_, err = c.SPExpire(ctx, k, time.Duration(r.IntN(60))*time.Millisecond, ExpireAlways, m)
						} else {
							_, err = c.ZPExpire(ctx, k, time.Duration(r.IntN(60))*time.Millisecond, ExpireAlways, m)
						}
					case 4:
						if k == keys[0] {
							_, err = c.SAddEx(ctx, k, time.Duration(1+r.IntN(60))*time.Millisecond, false, m)
						} else {
							err = c.ZCollect(ctx, k)
						}
					case 5:
						// No member returned by a read has an expiry in the past.
						before := time.Now().UnixMilli()
						var items []item
						for it, err := range c.memberItems(ctx, k, map[bool]keyType{true: typeSet, false: typeZSet}[k == keys[0]], "") {
							require.NoError(t, err)
							items = append(items, it)
						}
						for _, it := range items {
							x := memberExp(it)
							require.True(t, x == 0 || x > before, "a member that expired before the read began was read")
						}
						mu.Lock()
						reads++
						mu.Unlock()
					}
					require.NoError(t, err)
				}
			}()
		}
		wg.Wait()
		require.Positive(t, reads)
		for _, k := range keys {
			checkStoredCounts(t, k)
			// SCARD/ZCARD equal what the members read show.
			time.Sleep(70 * time.Millisecond) // every expiry set has passed or not: stable
			var n int64
			var err error
			var members []string
			if k == keys[0] {
				n, err = c.SCard(ctx, k)
				require.NoError(t, err)
				members, err = c.SMembers(ctx, k)
			} else {
				n, err = c.ZCard(ctx, k)
				require.NoError(t, err)
				members, err = c.ZRange(ctx, k, 0, -1)
			}
			require.NoError(t, err)
			require.EqualValues(t, len(members), n, "key %q: count and members", k)
		}
	})
}

// A table made before member expiry: the commands that set one fail with
// ErrNoMemberExpiry, naming the migration; everything else works.
func TestMemberExpiryOldTable(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	name := "redimo_old_" + randomHex(4)
	c := NewClient(testDB, func(o *Options) { o.TableName = name })
	in := c.schema()
	in.LocalSecondaryIndexes = in.LocalSecondaryIndexes[:1]
	in.LocalSecondaryIndexes[0].Projection = &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
	in.AttributeDefinitions = slices.DeleteFunc(in.AttributeDefinitions, func(d types.AttributeDefinition) bool {
		return aws.ToString(d.AttributeName) == attrMemExp
	})
	_, err := testDB.CreateTable(ctx, in)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = testDB.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name}) })
	capsByTable.Delete(name) // as a fresh process would know it
	c = NewClient(testDB, func(o *Options) { o.TableName = name })
	require.NoError(t, c.CheckTable(ctx))
	_, err = c.SAdd(ctx, "k", "a", "b")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, "z", Z{Score: 1, Member: "a"})
	require.NoError(t, err)
	got, err := c.ZRangeByScore(ctx, "z", &ZRangeBy{Min: "-inf", Max: "+inf"})
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, got)
	_, err = c.SExpire(ctx, "k", time.Minute, ExpireAlways, "a")
	require.ErrorIs(t, err, ErrNoMemberExpiry)
	require.Contains(t, err.Error(), "create a new table")
	_, err = c.SAddEx(ctx, "k", time.Minute, false, "c")
	require.True(t, errors.Is(err, ErrNoMemberExpiry))
	n, err := c.SCard(ctx, "k")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
}

// SMOVE of a member with an expiry: the member leaves source (whose count
// and mn stay exact) and joins destination as SADD adds it, with no
// expiry; a member already in destination keeps its own.
func TestSMoveMemberExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	src, dst := p+"src", p+"dst"
	_, err := c.SAdd(ctx, src, "a", "b", "c")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, dst, "c")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, src, time.Minute, ExpireAlways, "a", "c")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, dst, time.Hour, ExpireAlways, "c")
	require.NoError(t, err)
	for _, m := range []string{"a", "c"} {
		moved, err := c.SMove(ctx, src, dst, m)
		require.NoError(t, err)
		require.True(t, moved, m)
	}
	ttl, err := c.SPExpireTime(ctx, dst, "a", "c")
	require.NoError(t, err)
	require.Equal(t, []int64{-1, clock.Now().Add(time.Hour).UnixMilli()}, ttl)
	n, err := c.SCard(ctx, src)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	// An expired member is not in source: SMOVE moves nothing.
	_, err = c.SExpire(ctx, src, time.Second, ExpireAlways, "b")
	require.NoError(t, err)
	clock.Add(time.Second)
	moved, err := c.SMove(ctx, src, dst, "b")
	require.NoError(t, err)
	require.False(t, moved)
	members, err := c.SMembers(ctx, dst)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a", "c"}, members)
	checkStoredCounts(t, src)
	checkStoredCounts(t, dst)
}

// EXEC (TxPipelined) keeps member expiries as the commands outside a
// transaction do: a new score keeps the member's expiry, a member removed
// and added again has none, and the metadata item's mn follows the
// members with an expiry that the transaction deletes.
func TestMemberExpiryExec(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	z, s := p+"z", p+"s"
	_, err := c.ZAdd(ctx, z, Z{1, "a"}, Z{2, "b"}, Z{3, "c"}, Z{4, "d"})
	require.NoError(t, err)
	_, err = c.SAdd(ctx, s, "x", "y", "v")
	require.NoError(t, err)
	_, err = c.ZExpire(ctx, z, time.Hour, ExpireAlways, "a", "b", "c")
	require.NoError(t, err)
	_, err = c.SExpire(ctx, s, time.Hour, ExpireAlways, "x", "y")
	require.NoError(t, err)
	at := clock.Now().Add(time.Hour).UnixMilli()
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		for _, step := range []func() error{
			func() error { _, err := tx.ZIncrBy(ctx, z, 5, "a"); return err },
			func() error { _, err := tx.ZRem(ctx, z, "b", "c"); return err },
			func() error { _, err := tx.ZAdd(ctx, z, Z{3, "c"}); return err },
			func() error { _, err := tx.SRem(ctx, s, "x", "v"); return err },
			func() error { _, err := tx.SAdd(ctx, s, "w"); return err },
		} {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	got, err := c.ZPExpireTime(ctx, z, "a", "b", "c", "d")
	require.NoError(t, err)
	require.Equal(t, []int64{at, -2, -1, -1}, got)
	score, _, err := c.ZScore(ctx, z, "a")
	require.NoError(t, err)
	require.Equal(t, 6.0, score)
	got, err = c.SPExpireTime(ctx, s, "x", "y", "v", "w")
	require.NoError(t, err)
	require.Equal(t, []int64{-2, at, -2, -1}, got)
	checkStoredCounts(t, z)
	checkStoredCounts(t, s)
	// The key deleted and made again in one transaction: no expiry left.
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		if _, err := tx.Del(ctx, s); err != nil {
			return err
		}
		_, err := tx.SAdd(ctx, s, "n")
		return err
	})
	require.NoError(t, err)
	got, err = c.SPExpireTime(ctx, s, "n", "y")
	require.NoError(t, err)
	require.Equal(t, []int64{-1, -2}, got)
	checkStoredCounts(t, s)
	clock.Add(2 * time.Hour)
	n, err := c.ZCard(ctx, z)
	require.NoError(t, err)
	require.EqualValues(t, 2, n, "a expired; c and d have no expiry")
}
