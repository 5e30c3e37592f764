package redimo

// Member expiry (memberttl.go), and below TestMemberExpiryAllExpiredKey
// the keys whose members all expired. Where a comment says what Redis
// 8.12 answers and what redimo answered, the test caught that bug (on
// commit 909af23; fixed since).

import (
	"context"
	"errors"
	"fmt"
	"iter"
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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
)

// picks checks a random pick or pop: no error, n members, each in live.
func picks(t *testing.T, live []string, n int) func([]string, error) {
	return func(got []string, err error) {
		t.Helper()
		require.NoError(t, err)
		require.Len(t, got, n)
		require.Subset(t, live, got)
	}
}

// writers runs work in 6 goroutines, each with a random source of its
// own (seeds w and the test's seed: fixed in the full suite, the run's in
// the everyday one), for 3 s (1 s everyday) or until work returns false.
func writers(t *testing.T, fixed uint64, work func(r *rand.Rand) bool) {
	seed := testenv.Seed(t, fixed)
	var wg sync.WaitGroup
	stop := time.Now().Add(testenv.Budget(time.Second, 3*time.Second))
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), seed))
			for time.Now().Before(stop) && work(r) {
			}
		}()
	}
	wg.Wait()
}

// countsMatchMembers: SCARD of each of sets and ZCARD of each of zsets
// equal the members SMEMBERS and ZRANGE 0 -1 read.
func countsMatchMembers(t *testing.T, ctx context.Context, c *Client, sets, zsets []string) {
	t.Helper()
	for _, k := range append(slices.Clone(sets), zsets...) {
		card, read := c.SCard, func() ([]string, error) { return c.SMembers(ctx, k) }
		if slices.Contains(zsets, k) {
			card, read = c.ZCard, func() ([]string, error) { return c.ZRange(ctx, k, 0, -1) }
		}
		n, err := card(ctx, k)
		require.NoError(t, err)
		members, err := read()
		require.NoError(t, err)
		require.EqualValues(t, len(members), n, "key %q: count and members", k)
	}
}

// A member's expiry hides it from every read at once, and writes treat it
// as missing; the stored count and mn stay exact on the raw table.
func TestMemberExpirySet(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	require.NoError(t, errOf(c.SAdd(ctx, k, "a", "b", "c", "d")))
	returns(t, []int64{1, 1, -2})(c.SExpire(ctx, k, 10*time.Second, ExpireAlways, "a", "b", "x"))
	returns(t, []int64{0, 1})(c.SExpire(ctx, k, 20*time.Second, ExpireNX, "a", "c"))
	returns(t, []int64{0, 0})(c.SExpire(ctx, k, 5*time.Second, ExpireGT, "a", "d")) // GT: earlier than 10 s; none counts as infinite
	returns(t, []int64{10, 20, -1, -2})(c.STTL(ctx, k, "a", "c", "d", "x"))
	checkStoredCounts(t, k)

	clock.Add(10 * time.Second) // a and b expire
	returns(t, int64(2))(c.SCard(ctx, k))
	members, err := c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []string{"c", "d"}, members)
	in, err := c.SMIsMember(ctx, k, "a", "c")
	require.NoError(t, err)
	require.Equal(t, []bool{false, true}, in)
	returns(t, []int64{-2})(c.SExpire(ctx, k, time.Minute, ExpireAlways, "a")) // an expired member is missing
	returns(t, int64(0))(c.SRem(ctx, k, "b"))                                  // SREM of an expired member removes nothing
	added, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, added, "SADD of an expired member adds it")
	returns(t, []int64{-1})(c.STTL(ctx, k, "a")) // added again without an expiry
	checkStoredCounts(t, k)                      // b was swept by SREM, a replaced by SADD
	returns(t, int64(3))(c.SCard(ctx, k))

	returns(t, []int64{1, -1, -2})(c.SPersist(ctx, k, "c", "d", "zz"))
	returns(t, []int64{2, -2})(c.SExpire(ctx, k, 0, ExpireAlways, "d", "d")) // a time not in the future deletes; the repeat finds it gone
	checkStoredCounts(t, k)

	// SADDEX: new members with an expiry; KEEPTTL keeps what members have.
	returns(t, int64(1))(c.SAddEx(ctx, k, 3*time.Second, false, "a", "e"))
	returns(t, int64(1))(c.SAddEx(ctx, k, 9*time.Second, true, "a", "f"))
	returns(t, []int64{3000, 3000, 9000, -1})(c.SPTTL(ctx, k, "a", "e", "f", "c"))
	clock.Add(3 * time.Second)
	members, err = c.SMembers(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []string{"c", "f"}, members)
	returns(t, int64(1))(c.Exists(ctx, k))
	clock.Add(9 * time.Second) // f expires: only c is left
	require.NoError(t, errOf(c.SRem(ctx, k, "c")))
	keys, _, err := c.Scan(ctx, 0, k, 0)
	require.NoError(t, err)
	require.Empty(t, keys, "SCAN leaves out a key whose members all expired")
	returns(t, int64(0))(c.Exists(ctx, k))
	returns(t, "none")(c.Type(ctx, k)) // a key whose members all expired is missing
	_, err = c.ZAdd(ctx, k, Z{Score: 1, Member: "z"})
	require.NoError(t, err, "a key whose members all expired takes the other type")
	checkStoredCounts(t, k)

	// *STORE replaces the destination: its members have no expiry, and
	// the expired ones stay invisible.
	src, dst := p+"src", p+"dst"
	require.NoError(t, errOf(c.SAdd(ctx, src, "a", "b")))
	require.NoError(t, errOf(c.SAddEx(ctx, dst, time.Minute, false, "a", "c")))
	require.NoError(t, errOf(c.SAddEx(ctx, dst, time.Second, false, "b", "d")))
	clock.Add(time.Second) // b and d expire
	returns(t, int64(2))(c.SUnionStore(ctx, dst, src))
	returns(t, []int64{-1, -1, -2, -2})(c.STTL(ctx, dst, "a", "b", "c", "d"))
	returns(t, int64(2))(c.SCard(ctx, dst))
	checkStoredCounts(t, dst)
}

// Sorted sets: ranges, counts, ranks, scores and increments skip expired
// members; ZCOLLECT deletes them.
func TestMemberExpiryZSet(t *testing.T) {
	ctx, c, k, clock := setupClocked(t) // the prefix is the key
	returns(t, int64(20))(c.ZAdd(ctx, k, byIndex(numbered("m%02d", 20))...))
	odd := []string{}
	for i := 1; i < 20; i += 2 {
		odd = append(odd, fmt.Sprintf("m%02d", i))
	}
	returns(t, slices.Repeat([]int64{1}, 10))(c.ZExpire(ctx, k, time.Second, ExpireAlways, odd...))
	clock.Add(time.Second)
	returns(t, int64(10))(c.ZCard(ctx, k))
	rng, err := c.ZRange(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Len(t, rng, 10)
	for i, m := range rng {
		require.Equal(t, fmt.Sprintf("m%02d", 2*i), m)
	}
	returns(t, []string{"m14", "m16", "m18"})(c.ZRange(ctx, k, -3, -1)) // negative ranks count live members
	cnt, err := c.ZCount(ctx, k, "5", "15")
	require.NoError(t, err)
	require.EqualValues(t, 5, cnt) // 6, 8, 10, 12, 14
	returns(t, []any{int64(5), true})(both(c.ZRank(ctx, k, "m10")))
	returns(t, false)(found(c.ZScore(ctx, k, "m03")))
	returns(t, float64(2))(c.ZIncrBy(ctx, k, 2, "m03")) // an expired member's increment starts from 0
	checkStoredCounts(t, k)
	require.NoError(t, c.ZCollect(ctx, k))
	checkStoredCounts(t, k)
	var left int
	for _, item := range scanTable(t, k) {
		_ = item
		left++
	}
	require.Equal(t, 1+11, left, "metadata item and 11 live members: the expired ones are gone")
	returns(t, []Z{{Score: 0, Member: "m00"}, {Score: 2, Member: "m02"}})(c.ZPopMin(ctx, k, 2))
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
	ref := map[string]map[string]*entry{} // key → live and expired members
	now := func() int64 { return clock.Now().UnixMilli() }
	live := func(k string) map[string]*entry {
		out := map[string]*entry{}
		for m, e := range ref[k] {
			if e.exp == 0 || e.exp > now() {
				out[m] = e
			}
		}
		return out
	}
	set := func(k, m string, e *entry) {
		if ref[k] == nil {
			ref[k] = map[string]*entry{}
		}
		ref[k][m] = e
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
	r := rand.New(rand.NewPCG(7, testenv.Seed(t, 7)))
	member := func() string { return fmt.Sprintf("m%d", r.IntN(12)) }
	conds := []ExpireCondition{ExpireAlways, ExpireNX, ExpireXX, ExpireGT, ExpireLT}
	for step := range testenv.Budget(150, 400) {
		isZ := r.IntN(2) == 0
		k = p + "s"
		if isZ {
			k = p + "z"
		}
		ms := []string{member(), member(), member()}
		what := fmt.Sprintf("step %d on %s", step, k)
		switch op := r.IntN(10); op {
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
			for _, m := range model.Dedupe(ms[:2]) {
				if _, ok := live(k)[m]; ok {
					want++
				}
				delete(ref[k], m)
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
					delete(ref[k], m)
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
		case 9: // Redis 8.12's SADDEX, on the set
			if isZ {
				break
			}
			args := SAddExArgs{Mode: []SAddExCondition{SAddExAlways, SAddExMNX, SAddExMXX}[r.IntN(3)], Members: ms}
			d := time.Duration(r.IntN(7)-1) * time.Second
			at := int64(0) // the expiry the members named get; -1: keep
			switch r.IntN(4) {
			case 0:
				args.TTL = max(d, time.Second)
				at = now() + args.TTL.Milliseconds()
			case 1:
				args.ExpireAt = clock.Now().Add(d)
				at = now() + d.Milliseconds()
			case 2:
				args.KeepTTL, at = true, -1
			}
			got, err := c.SAddExArgs(ctx, k, args)
			require.NoError(t, err, what)
			found := 0
			for _, m := range model.Dedupe(ms) {
				if _, ok := live(k)[m]; ok {
					found++
				}
			}
			want := args.Mode == SAddExAlways || args.Mode == SAddExMNX && found == 0 || args.Mode == SAddExMXX && found == len(model.Dedupe(ms))
			require.Equal(t, want, got, what+" SADDEX %+v", args)
			for _, m := range model.Dedupe(ms) {
				e, ok := live(k)[m]
				switch {
				case !want:
				case at > 0 && at <= now(): // a time not in the future deletes
					delete(ref[k], m)
				case ok && at >= 0:
					e.exp = at
				case !ok:
					set(k, m, &entry{exp: max(at, 0)})
				}
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
	require.NoError(t, errOf(c.SAdd(ctx, k, ms...)))
	cnt.reset()
	returns(t, slices.Repeat([]int64{1}, 1000))(c.SExpire(ctx, k, time.Hour, ExpireAlways, ms...))
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
	require.NoError(t, errOf(c.SAdd(ctx, k, ms...)))
	for i := range 30 { // 10 members expire every second from +1s to +30s
		require.NoError(t, errOf(c.SPExpire(ctx, k, time.Duration(i+1)*time.Second, ExpireAlways, ms[i*10:i*10+10]...)))
	}
	want := func(k string, n int64, requests int64) {
		t.Helper()
		cnt.reset()
		returns(t, n)(c.SCard(ctx, k))
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
	require.NoError(t, errOf(other.SRem(ctx, k, ms[200], ms[0])))
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
	require.NoError(t, errOf(other.SPExpireAt(ctx, k, clock.Now().Add(-time.Millisecond), ExpireAlways, ms[250])))
	want(k, 168, 0)
	// A sorted set the same way.
	z := p + "z"
	for i := range 20 {
		require.NoError(t, errOf(c.ZAdd(ctx, z, Z{Score: float64(i), Member: ms[i]})))
	}
	require.NoError(t, errOf(c.ZPExpire(ctx, z, 2*time.Second, ExpireAlways, ms[:5]...)))
	returns(t, int64(20))(c.ZCard(ctx, z))
	clock.Add(2 * time.Second)
	cnt.reset()
	returns(t, int64(15))(c.ZCard(ctx, z))
	require.EqualValues(t, 2, cnt.requests.Load(), "%s", cnt)
	checkStoredCounts(t, k)
	checkStoredCounts(t, z)
}

// underFaults runs f as a subtest without faults and under each fault mode
// a member-expiry workload is tried with (lost responses, applied then
// 500, transaction conflicts on 15% of requests; one of them, chosen by
// the seed, in the everyday suite), each with a client and a key prefix of
// its own.
func underFaults(t *testing.T, f func(t *testing.T, ctx context.Context, c *Client, p string)) {
	for _, mode := range append([]faultMode{""}, faultModes(t, dropResponse, appliedThen5, conflicts)...) {
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
		writers(t, 1, func(r *rand.Rand) bool {
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
				var items []model.Item
				for it, err := range c.view().memberItems(ctx, k, map[bool]model.KeyType{true: model.TypeSet, false: model.TypeZSet}[k == keys[0]], "") {
					if !assert.NoError(t, err) {
						return false
					}
					items = append(items, it)
				}
				for _, it := range items {
					x := model.MemberExp(it)
					assert.True(t, x == 0 || x > before, "a member that expired before the read began was read")
				}
				mu.Lock()
				reads++
				mu.Unlock()
			}
			return assert.NoError(t, err) // in a worker: require would stop the wrong goroutine
		})
		require.Positive(t, reads)
		checkStoredCounts(t, p)
		time.Sleep(70 * time.Millisecond) // every expiry set has passed or not: stable
		countsMatchMembers(t, ctx, c, keys[:1], keys[1:])
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
		return aws.ToString(d.AttributeName) == model.AttrMemExp
	})
	require.NoError(t, errOf(testDB.CreateTable(ctx, in)))
	t.Cleanup(func() { _, _ = testDB.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name}) })
	capsByTable.Delete(name) // as a fresh process would know it
	c = NewClient(testDB, func(o *Options) { o.TableName = name })
	require.NoError(t, c.CheckTable(ctx))
	require.NoError(t, errOf(c.SAdd(ctx, "k", "a", "b")))
	require.NoError(t, errOf(c.ZAdd(ctx, "z", Z{Score: 1, Member: "a"})))
	returns(t, []string{"a"})(c.ZRangeByScore(ctx, "z", &ZRangeBy{Min: "-inf", Max: "+inf"}))
	_, err := c.SExpire(ctx, "k", time.Minute, ExpireAlways, "a")
	require.ErrorIs(t, err, ErrNoMemberExpiry)
	require.Contains(t, err.Error(), "create a new table")
	_, err = c.SAddEx(ctx, "k", time.Minute, false, "c")
	require.True(t, errors.Is(err, ErrNoMemberExpiry))
	returns(t, int64(2))(c.SCard(ctx, "k"))
}

// SMOVE of a member with an expiry: the member leaves source (whose count
// and mn stay exact) and joins destination as SADD adds it, with no
// expiry; a member already in destination keeps its own.
func TestSMoveMemberExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	src, dst := p+"src", p+"dst"
	require.NoError(t, errOf(c.SAdd(ctx, src, "a", "b", "c")))
	require.NoError(t, errOf(c.SAdd(ctx, dst, "c")))
	require.NoError(t, errOf(c.SExpire(ctx, src, time.Minute, ExpireAlways, "a", "c")))
	require.NoError(t, errOf(c.SExpire(ctx, dst, time.Hour, ExpireAlways, "c")))
	for _, m := range []string{"a", "c"} {
		moved, err := c.SMove(ctx, src, dst, m)
		require.NoError(t, err)
		require.True(t, moved, m)
	}
	returns(t, []int64{-1, clock.Now().Add(time.Hour).UnixMilli()})(c.SPExpireTime(ctx, dst, "a", "c"))
	returns(t, int64(1))(c.SCard(ctx, src))
	// An expired member is not in source: SMOVE moves nothing.
	require.NoError(t, errOf(c.SExpire(ctx, src, time.Second, ExpireAlways, "b")))
	clock.Add(time.Second)
	returns(t, false)(c.SMove(ctx, src, dst, "b"))
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
	require.NoError(t, errOf(c.ZAdd(ctx, z, Z{1, "a"}, Z{2, "b"}, Z{3, "c"}, Z{4, "d"})))
	require.NoError(t, errOf(c.SAdd(ctx, s, "x", "y", "v")))
	require.NoError(t, errOf(c.ZExpire(ctx, z, time.Hour, ExpireAlways, "a", "b", "c")))
	require.NoError(t, errOf(c.SExpire(ctx, s, time.Hour, ExpireAlways, "x", "y")))
	at := clock.Now().Add(time.Hour).UnixMilli()
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
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
	returns(t, []int64{at, -2, -1, -1})(c.ZPExpireTime(ctx, z, "a", "b", "c", "d"))
	score, _, err := c.ZScore(ctx, z, "a")
	require.NoError(t, err)
	require.Equal(t, 6.0, score)
	returns(t, []int64{-2, at, -2, -1})(c.SPExpireTime(ctx, s, "x", "y", "v", "w"))
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
	returns(t, []int64{-1, -2})(c.SPExpireTime(ctx, s, "n", "y"))
	checkStoredCounts(t, s)
	clock.Add(2 * time.Hour)
	returns(t, int64(2))(c.ZCard(ctx, z)) // a expired; c and d have no expiry
}

// MULTI/EXEC acts as the direct commands on members
// with an expiry: SREM of one replies 1, ZINCRBY and ZREM of some, and
// the stored counts stay exact (mn included); ZADD of a new score keeps
// the member's expiry (ZTTL 60, as outside MULTI). Redis 8.12 does so;
// redimo's EXEC once left mn counting deleted members and its ZADD
// dropped the expiry (ZTTL -1).
func TestMemberExpiryExecAsDirect(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	s, z, direct, viaExec := p+"s", p+"z", p+"direct", p+"exec"
	returns(t, int64(2))(c.SAdd(ctx, s, "a", "b"))
	returns(t, []int64{1})(c.SExpire(ctx, s, time.Minute, ExpireAlways, "a"))
	returns(t, int64(3))(c.ZAdd(ctx, z, Z{Score: 1, Member: "a"}, Z{Score: 2, Member: "b"}, Z{Score: 3, Member: "c"}))
	returns(t, []int64{1, 1})(c.ZExpire(ctx, z, time.Minute, ExpireAlways, "a", "b"))
	for _, k := range []string{direct, viaExec} {
		returns(t, int64(2))(c.ZAdd(ctx, k, Z{Score: 1, Member: "a"}, Z{Score: 2, Member: "b"}))
		returns(t, []int64{1})(c.ZExpire(ctx, k, time.Minute, ExpireAlways, "a"))
	}
	returns(t, int64(0))(c.ZAdd(ctx, direct, Z{Score: 5, Member: "a"}))
	var removed int64
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		var err error
		if removed, err = tx.SRem(ctx, s, "a"); err != nil {
			return err
		}
		if _, err = tx.ZIncrBy(ctx, z, 1, "a"); err != nil {
			return err
		}
		if _, err = tx.ZRem(ctx, z, "b"); err != nil {
			return err
		}
		_, err = tx.ZAdd(ctx, viaExec, Z{Score: 5, Member: "a"})
		return err
	}))
	require.EqualValues(t, 1, removed)
	want, err := c.ZTTL(ctx, direct, "a")
	require.NoError(t, err)
	got, err := c.ZTTL(ctx, viaExec, "a")
	require.NoError(t, err)
	require.Equal(t, want, got, "ZTTL after ZADD of a new score: direct vs inside MULTI/EXEC")
	checkStoredCounts(t, p)
}

// Reads of sorted-set members through many paths, with a third of the
// members expired and not yet deleted.
func TestMemberExpiryZReadsSkipExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	require.NoError(t, errOf(c.ZAdd(ctx, k, byIndex(numbered("m%02d", 12))...)))
	require.NoError(t, errOf(c.ZExpire(ctx, k, time.Second, ExpireAlways, "m00", "m03", "m06", "m09")))
	clock.Add(time.Second) // expiry == now: expired
	// ZRANK/ZREVRANK (and WITHSCORE) of an expired member not yet
	// deleted: Redis nil, as ZSCORE; redimo answered its old rank and score
	// (rankProbe took the member item without checking its expiry).
	returns(t, false)(found(c.ZScore(ctx, k, "m03")))
	rk, ok, err := c.ZRank(ctx, k, "m03")
	require.NoError(t, err)
	require.False(t, ok, "ZRANK of an expired member: nil (got rank %d)", rk)
	rk, ok, err = c.ZRevRank(ctx, k, "m03")
	require.NoError(t, err)
	require.False(t, ok, "ZREVRANK of an expired member: nil (got rank %d)", rk)
	rs, ok, err := c.ZRankWithScore(ctx, k, "m03")
	require.NoError(t, err)
	require.False(t, ok, "ZRANK WITHSCORE of an expired member: nil (got %+v)", rs)
	live := []string{"m01", "m02", "m04", "m05", "m07", "m08", "m10", "m11"}
	rev := append([]string(nil), live...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}

	returns(t, int64(8))(c.ZCard(ctx, k))
	returns(t, live)(c.ZRange(ctx, k, 0, -1))
	returns(t, live[2:5])(c.ZRange(ctx, k, 2, 4))
	returns(t, rev[:3])(c.ZRevRange(ctx, k, 0, 2))
	returns(t, live[1:4])(c.ZRangeByScore(ctx, k, &ZRangeBy{Min: "-inf", Max: "+inf", Offset: 1, Count: 3}))
	returns(t, []string{"m07", "m05"})(c.ZRevRangeByScore(ctx, k, &ZRangeBy{Min: "0", Max: "9", Offset: 1, Count: 2}))
	require.NoError(t, errOf(c.ZAdd(ctx, p+"lex", Z{Member: "a"}, Z{Member: "b"}, Z{Member: "c"}, Z{Member: "d"}, Z{Member: "e"})))
	require.NoError(t, errOf(c.ZExpire(ctx, p+"lex", time.Second, ExpireAlways, "b", "d")))
	clock.Add(time.Second)
	returns(t, []string{"c", "e"})(c.ZRangeByLex(ctx, p+"lex", &ZRangeBy{Min: "-", Max: "+", Offset: 1, Count: 2}))
	returns(t, []string{"e", "c"})(c.ZRevRangeByLex(ctx, p+"lex", &ZRangeBy{Min: "-", Max: "+", Offset: 0, Count: 2}))
	returns(t, int64(2))(c.ZLexCount(ctx, p+"lex", "[a", "[d"))
	returns(t, int64(4))(c.ZCount(ctx, k, "0", "6"))
	returns(t, []any{int64(3), true})(both(c.ZRank(ctx, k, "m05")))
	returns(t, []any{int64(4), true})(both(c.ZRevRank(ctx, k, "m05")))
	sc, oks, err := c.ZMScore(ctx, k, "m00", "m01", "m03")
	require.NoError(t, err)
	require.Equal(t, []bool{false, true, false}, oks)
	require.Equal(t, 1.0, sc[1])
	for cnt, n := range map[int]int{-20: 20, 20: 8, 3: 3, -3: 3} {
		picks(t, live, n)(c.ZRandMember(ctx, k, cnt))
	}
	scanned, err := collected(c.ZScan(ctx, k, ""))
	require.NoError(t, err)
	require.ElementsMatch(t, live, names(scanned))
	u, err := c.ZUnionWithScores(ctx, ZStore{Keys: []string{k}, Weights: []float64{2}})
	require.NoError(t, err)
	require.Len(t, u, 8)
	returns(t, int64(3))(c.ZInterCard(ctx, 3, k, k))
	returns(t, int64(8))(c.ZInterCard(ctx, 0, k, k))
	returns(t, int64(8))(c.ZRangeStore(ctx, p+"rs", ZRangeArgs{Key: k, Start: "0", Stop: "-1"}))
	returns(t, int64(11))(c.ZUnionStore(ctx, p+"us", &ZStore{Keys: []string{k, p + "lex"}, Weights: []float64{1, 2}}))
	checkStoredCounts(t, p)

	// Pops: count greater than the live members.
	returns(t, []Z{{1, "m01"}, {2, "m02"}, {4, "m04"}})(c.ZPopMin(ctx, k, 3))
	popped, err := c.ZPopMax(ctx, k, 100)
	require.NoError(t, err)
	require.Len(t, popped, 5)
	require.Equal(t, "m11", popped[0].Member)
	returns(t, int64(0))(c.ZCard(ctx, k))
	returns(t, int64(0))(c.Exists(ctx, k))
	checkStoredCounts(t, p)
}

// ZREMRANGEBYRANK/BYSCORE/BYLEX across expired members count only live ones.
func TestMemberExpiryZRemRangeAcrossExpired(t *testing.T) {
	ctx, c, k, clock := setupClocked(t) // the prefix is the key
	returns(t, int64(10))(c.ZAdd(ctx, k, byIndex(numbered("m%d", 10))...))
	returns(t, []int64{1, 1, 1, 1})(c.ZExpire(ctx, k, time.Second, ExpireAlways, "m0", "m2", "m5", "m9"))
	clock.Add(time.Second)
	// live: m1 m3 m4 m6 m7 m8
	n, err := c.ZRemRangeByRank(ctx, k, 0, 1) // m1 m3
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	n, err = c.ZRemRangeByScore(ctx, k, "4", "5") // m4
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = c.ZRemRangeByRank(ctx, k, -1, -1) // m8
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	returns(t, []string{"m6", "m7"})(c.ZRange(ctx, k, 0, -1))
	returns(t, int64(2))(c.ZCard(ctx, k))
	checkStoredCounts(t, k)
}

// Writes meeting expired sorted-set members treat them as missing.
func TestMemberExpiryZWritesOnExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	require.NoError(t, errOf(c.ZAdd(ctx, k, Z{5, "a"}, Z{5, "b"}, Z{5, "c"}, Z{5, "d"}, Z{5, "live"})))
	require.NoError(t, errOf(c.ZExpire(ctx, k, time.Second, ExpireAlways, "a", "b", "c", "d")))
	clock.Add(time.Second)
	// GT without XX adds a missing member (Redis: GT/LT only restrict updates).
	returns(t, int64(1))(c.ZAddArgs(ctx, k, ZAddArgs{GT: true, Members: []Z{{1, "a"}}})) // ZADD GT of an expired member adds it
	returns(t, []any{float64(1.0), true})(both(c.ZScore(ctx, k, "a")))
	returns(t, int64(0))(c.ZAddArgs(ctx, k, ZAddArgs{XX: true, Ch: true, Members: []Z{{9, "b"}}})) // ZADD XX ignores an expired member
	returns(t, false)(found(c.ZScore(ctx, k, "b")))
	returns(t, 2.0)(c.ZIncrBy(ctx, k, 2, "c")) // ZINCRBY starts from 0
	returns(t, int64(1))(c.ZAddArgs(ctx, k, ZAddArgs{NX: true, Members: []Z{{7, "d"}}}))
	returns(t, int64(4))(c.ZCard(ctx, k))
	returns(t, []int64{-1, -2, -1, -1, -1})(c.ZTTL(ctx, k, "a", "b", "c", "d", "live"))
	checkStoredCounts(t, k)
}

// Expiry replies: == now deletes (2), past EXPIREAT (2), GT/LT with no
// expiry (GT: none is infinite, never greater → 0; LT: sets → 1), NX/XX.
func TestMemberExpiryReplies(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	require.NoError(t, errOf(c.SAdd(ctx, k, "a", "b", "c", "d", "e")))
	now := clock.Now()
	returns(t, []int64{2})(c.SPExpireAt(ctx, k, now, ExpireAlways, "a")) // expiry == now deletes
	returns(t, []int64{2, -2})(c.SPExpireAt(ctx, k, now.Add(-time.Hour), ExpireAlways, "b", "zz"))
	returns(t, []int64{0})(c.SExpire(ctx, k, time.Minute, ExpireGT, "c"))
	returns(t, []int64{1})(c.SExpire(ctx, k, time.Minute, ExpireLT, "c"))
	returns(t, []int64{0})(c.SExpire(ctx, k, time.Minute, ExpireXX, "d"))
	returns(t, []int64{1})(c.SExpire(ctx, k, 2*time.Minute, ExpireXX, "c"))
	returns(t, []int64{0})(c.SExpire(ctx, k, time.Minute, ExpireGT, "c"))
	got, err := c.SPExpireAt(ctx, k, now.Add(-time.Hour), ExpireGT, "c") // condition fails first
	require.NoError(t, err)
	require.Equal(t, []int64{0}, got)
	returns(t, []int64{2})(c.SPExpireAt(ctx, k, now.Add(-time.Hour), ExpireLT, "c"))
	returns(t, []int64{-2, -1, -1})(c.SExpireTime(ctx, k, "c", "d", "e"))
	returns(t, int64(2))(c.SCard(ctx, k))
	checkStoredCounts(t, k)
	// SADDEX KEEPTTL on an existing member without expiry keeps none.
	returns(t, int64(0))(c.SAddEx(ctx, k, time.Minute, true, "d"))
	returns(t, []int64{-1})(c.STTL(ctx, k, "d"))
	checkStoredCounts(t, k)
}

// Sets: random picks, pops, scans, algebra *STORE onto a key with member
// expiries, DEL then re-create.
func TestMemberExpirySetPathsSkipExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	all := numbered("m%02d", 20)
	require.NoError(t, errOf(c.SAdd(ctx, k, all...)))
	require.NoError(t, errOf(c.SExpire(ctx, k, time.Second, ExpireAlways, all[:17]...)))
	clock.Add(time.Second)
	live := all[17:]
	for cnt, n := range map[int64]int{-10: 10, 10: 3, 2: 2} {
		picks(t, live, n)(c.SRandMemberN(ctx, k, cnt))
	}
	scanned, err := collected(c.SScan(ctx, k, ""))
	require.NoError(t, err)
	require.ElementsMatch(t, live, scanned)

	other := p + "o"
	require.NoError(t, errOf(c.SAdd(ctx, other, "m00", "m18", "m19", "x")))
	returns(t, int64(1))(c.SInterCard(ctx, 1, k, other))
	returns(t, int64(5))(c.SUnionCard(ctx, 0, k, other))
	returns(t, int64(2))(c.SDiffCard(ctx, 0, other, k))

	// SINTERSTORE onto a key with live and expired member expiries.
	dst := p + "dst"
	require.NoError(t, errOf(c.SAddEx(ctx, dst, time.Minute, false, "m18", "y")))
	require.NoError(t, errOf(c.SAddEx(ctx, dst, time.Second, false, "m19", "z")))
	clock.Add(time.Second)
	returns(t, int64(2))(c.SInterStore(ctx, dst, k, other))
	returns(t, []int64{-1, -1, -2, -2})(c.STTL(ctx, dst, "m18", "m19", "y", "z"))
	checkStoredCounts(t, p)

	popped, err := c.SPopN(ctx, k, 10)
	require.NoError(t, err)
	sort.Strings(popped)
	require.Equal(t, live, popped)
	returns(t, int64(0))(c.Exists(ctx, k))
	checkStoredCounts(t, p)

	// DEL of a key with member expiries, then re-create: no stale expiry.
	require.NoError(t, errOf(c.SAddEx(ctx, k, time.Minute, false, "a", "b")))
	require.NoError(t, errOf(c.Del(ctx, k)))
	require.NoError(t, errOf(c.SAdd(ctx, k, "a")))
	returns(t, []int64{-1})(c.STTL(ctx, k, "a"))
	checkStoredCounts(t, p)
}

// COPY with member expiries: the copy keeps live expiries, not expired
// members; a key expiry together with member expiries.
func TestMemberExpiryCopyAndKeyExpiry(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	src, dst := p+"src", p+"dst"
	returns(t, int64(3))(c.SAdd(ctx, src, "a", "b", "c"))
	returns(t, []int64{1})(c.SExpire(ctx, src, 10*time.Second, ExpireAlways, "a"))
	require.NoError(t, errOf(c.SExpire(ctx, src, time.Second, ExpireAlways, "b")))
	clock.Add(time.Second)
	returns(t, true)(c.Copy(ctx, src, dst, false))
	returns(t, []int64{9000, -2, -1})(c.SPTTL(ctx, dst, "a", "b", "c"))
	returns(t, int64(2))(c.SCard(ctx, dst))
	checkStoredCounts(t, p)

	returns(t, true)(c.Expire(ctx, dst, 5*time.Second))
	clock.Add(5 * time.Second)
	returns(t, int64(0))(c.Exists(ctx, dst))
	returns(t, int64(1))(c.SAdd(ctx, dst, "a"))
	returns(t, []int64{-1})(c.STTL(ctx, dst, "a"))
	returns(t, int64(1))(c.SCard(ctx, dst))
	checkStoredCounts(t, p)

	err := c.Rename(ctx, src, p+"ren")
	require.NoError(t, err)
	returns(t, []int64{4000, -2, -1})(c.SPTTL(ctx, p+"ren", "a", "b", "c"))
	checkStoredCounts(t, p)
}

// A ranked sorted set (count items built by a rank read) that then gets a
// member expiry: ranks, counts and ranges skip the expired member.
func TestMemberExpiryRankedKey(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	c.ranks.min = 20
	c.ranks.max = 8
	k := p + "z"
	require.NoError(t, errOf(c.ZAdd(ctx, k, byIndex(numbered("m%02d", 40))...)))
	rk, ok, err := c.ZRank(ctx, k, "m30") // builds the count items
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 30, rk)
	require.NoError(t, errOf(c.ZExpire(ctx, k, time.Second, ExpireAlways, "m01", "m02", "m03")))
	clock.Add(time.Second)
	returns(t, []any{int64(27), true})(both(c.ZRank(ctx, k, "m30")))
	returns(t, []any{int64(36), true})(both(c.ZRevRank(ctx, k, "m00")))
	returns(t, []string{"m04", "m05"})(c.ZRange(ctx, k, 1, 2))
	returns(t, int64(8))(c.ZCount(ctx, k, "0", "10"))
	returns(t, int64(2))(c.ZRemRangeByRank(ctx, k, 0, 1))
	returns(t, []string{"m05"})(c.ZRange(ctx, k, 0, 0))
	checkStoredCounts(t, k)
}

// Long members (> 1015 bytes) with an expiry.
func TestMemberExpiryLongMembers(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	long1 := string(make([]byte, 1100)) + "1"
	long2 := string(make([]byte, 1100)) + "2"
	require.NoError(t, errOf(c.SAdd(ctx, k, long1, long2, "short")))
	returns(t, []int64{1})(c.SExpire(ctx, k, time.Second, ExpireAlways, long1))
	clock.Add(time.Second)
	returns(t, []bool{false, true})(c.SMIsMember(ctx, k, long1, long2))
	returns(t, int64(2))(c.SCard(ctx, k))
	returns(t, int64(1))(c.SAdd(ctx, k, long1))
	checkStoredCounts(t, k)
	returns(t, int64(1))(c.SRem(ctx, k, long2))
	checkStoredCounts(t, k)
}

// Writes that delete or rewrite live members that carry an expiry keep
// the stored count and mn exact: pops, range removals, SMOVE, *STORE onto
// a destination that is also a source, ZINCRBY.
func TestMemberExpiryWritesOnLiveExpiringMembers(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	z := p + "z"
	names := numbered("m%d", 10)
	require.NoError(t, errOf(c.ZAdd(ctx, z, byIndex(names)...)))
	require.NoError(t, errOf(c.ZExpire(ctx, z, time.Minute, ExpireAlways, names[:8]...)))
	require.NoError(t, errOf(c.ZExpire(ctx, z, time.Second, ExpireAlways, "m8")))
	clock.Add(time.Second) // m8 expired; m0..m7 live with expiry; m9 none
	returns(t, []Z{{0, "m0"}, {1, "m1"}})(c.ZPopMin(ctx, z, 2))
	checkStoredCounts(t, z)
	returns(t, []Z{{9, "m9"}, {7, "m7"}})(c.ZPopMax(ctx, z, 2))
	checkStoredCounts(t, z)
	returns(t, int64(2))(c.ZRemRangeByScore(ctx, z, "2", "3"))
	checkStoredCounts(t, z)
	returns(t, 14.0)(c.ZIncrBy(ctx, z, 10, "m4"))
	returns(t, []int64{59})(c.ZTTL(ctx, z, "m4")) // ZINCRBY keeps the member's expiry
	checkStoredCounts(t, z)
	// ZUNIONSTORE onto z itself with WEIGHTS: members lose their expiry.
	other := p + "o"
	require.NoError(t, errOf(c.ZAdd(ctx, other, Z{100, "m5"}, Z{1, "x"})))
	n, err := c.ZUnionStore(ctx, z, &ZStore{Keys: []string{z, other}, Weights: []float64{2, 1}})
	require.NoError(t, err)
	require.EqualValues(t, 4, n) // m4 m5 m6 x
	returns(t, []int64{-1, -1, -1, -2, -1})(c.ZTTL(ctx, z, "m4", "m5", "m6", "m8", "x"))
	sc, _, err := c.ZScore(ctx, z, "m5")
	require.NoError(t, err)
	require.Equal(t, 110.0, sc)
	checkStoredCounts(t, p)

	// Sets: SPOP, SMOVE, SINTERSTORE onto a source with expiries.
	s := p + "s"
	require.NoError(t, errOf(c.SAddEx(ctx, s, time.Minute, false, "a", "b", "c", "d")))
	require.NoError(t, errOf(c.SAddEx(ctx, s, time.Second, false, "e")))
	clock.Add(time.Second)
	one, ok, err := c.SPop(ctx, s)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotEqual(t, "e", one)
	checkStoredCounts(t, p)
	left, err := c.SMembers(ctx, s)
	require.NoError(t, err)
	require.Len(t, left, 3)
	returns(t, true)(c.SMove(ctx, s, p+"s2", left[0]))
	checkStoredCounts(t, p)
	require.NoError(t, errOf(c.SAdd(ctx, p+"s3", left[1], left[2], "zz")))
	returns(t, int64(2))(c.SInterStore(ctx, s, s, p+"s3"))
	returns(t, []int64{-1, -1, -2})(c.STTL(ctx, s, left[1], left[2], "e"))
	checkStoredCounts(t, p)
	// *STORE with an empty result onto a key with only expired members.
	require.NoError(t, errOf(c.SAddEx(ctx, p+"gone", time.Second, false, "q")))
	clock.Add(time.Second)
	returns(t, int64(0))(c.SDiffStore(ctx, p+"gone", p+"s3", p+"s3"))
	checkStoredCounts(t, p)
	returns(t, int64(0))(c.Exists(ctx, p+"gone"))
}

// SCARD's validated count (seenCounts) across writes by another client,
// clock moves, SCOLLECT, a key expiry, DEL and re-create.
func TestMemberExpiryLiveCountCache(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	c2, _, _, _ := newClockedClient(t, func(o *Options) { o.Now = clock.Now })
	k := p + "s"
	require.NoError(t, errOf(c.SAdd(ctx, k, "a", "b", "c", "d", "e", "f")))
	require.NoError(t, errOf(c.SExpire(ctx, k, time.Second, ExpireAlways, "a")))
	require.NoError(t, errOf(c.SExpire(ctx, k, 2*time.Second, ExpireAlways, "b")))
	require.NoError(t, errOf(c.SExpire(ctx, k, 3*time.Second, ExpireAlways, "c")))
	card := func(want int64) {
		t.Helper()
		for _, cl := range []*Client{c, c2} {
			returns(t, int64(want))(cl.SCard(ctx, k))
		}
	}
	card(6)
	clock.Add(time.Second)
	card(5)
	clock.Add(time.Second)
	card(4)
	require.NoError(t, errOf(c2.SAddEx(ctx, k, time.Second, false, "g")))
	card(5)
	require.NoError(t, c2.SCollect(ctx, k))
	card(5)
	clock.Add(time.Second) // c, g expire
	card(3)
	require.NoError(t, errOf(c2.SRem(ctx, k, "d")))
	card(2)
	require.NoError(t, errOf(c2.Del(ctx, k)))
	card(0)
	require.NoError(t, errOf(c2.SAddEx(ctx, k, time.Second, false, "x", "y")))
	card(2)
	clock.Add(500 * time.Millisecond)
	card(2)
	require.NoError(t, errOf(c2.Expire(ctx, k, 100*time.Millisecond)))
	clock.Add(100 * time.Millisecond)
	card(0)
	require.NoError(t, errOf(c2.ZAdd(ctx, k, Z{1, "z"})))
	returns(t, int64(1))(c.ZCard(ctx, k))
	_, err := c.SCard(ctx, k)
	require.ErrorIs(t, err, ErrWrongType)
	checkStoredCounts(t, k)
}

// Concurrent writers with a wider mix than TestMemberExpiryConcurrent
// (SPERSIST/ZPERSIST, SREM/ZREM/pops/range removals of members with an
// expiry, SMOVE, *STORE onto a key with expiries, DEL, ZADD GT, SADDEX
// KEEPTTL, expiries in the past), with and without faults: stored counts
// and mn exact, counts equal to the members read.
func TestMemberExpiryConcurrentWide(t *testing.T) {
	underFaults(t, func(t *testing.T, ctx context.Context, c *Client, p string) {
		sets := []string{p + "s1", p + "s2"}
		zsets := []string{p + "z1", p + "z2"}
		errs := make(chan error, 100)
		writers(t, 7, func(r *rand.Rand) bool {
			s, z := sets[r.IntN(2)], zsets[r.IntN(2)]
			m := fmt.Sprintf("m%d", r.IntN(8))
			d := time.Duration(r.IntN(80)-10) * time.Millisecond
			var err error
			switch r.IntN(16) {
			case 0:
				_, err = c.SAdd(ctx, s, m, "x"+m)
			case 1:
				_, err = c.SRem(ctx, s, m)
			case 2:
				_, err = c.SPExpire(ctx, s, max(d, 0), []ExpireCondition{ExpireAlways, ExpireNX, ExpireXX, ExpireGT, ExpireLT}[r.IntN(5)], m, "x"+m)
			case 3:
				_, err = c.SPersist(ctx, s, m)
			case 4:
				_, err = c.SAddEx(ctx, s, time.Duration(1+r.IntN(60))*time.Millisecond, r.IntN(2) == 0, m)
			case 5:
				_, err = c.SMove(ctx, sets[0], sets[1], m)
			case 6:
				_, err = c.SPopN(ctx, s, 2)
			case 7:
				_, err = c.SUnionStore(ctx, s, sets[0], sets[1])
			case 8:
				_, err = c.ZAddArgs(ctx, z, ZAddArgs{GT: r.IntN(2) == 0, Members: []Z{{float64(r.IntN(5)), m}}})
			case 9:
				_, err = c.ZRem(ctx, z, m)
			case 10:
				_, err = c.ZPExpire(ctx, z, max(d, 0), ExpireAlways, m)
			case 11:
				_, err = c.ZPersist(ctx, z, m)
			case 12:
				_, err = c.ZPopMin(ctx, z, 2)
			case 13:
				_, err = c.ZRemRangeByScore(ctx, z, "1", "2")
			case 14:
				_, err = c.ZIncrBy(ctx, z, 1, m)
			case 15:
				if r.IntN(4) == 0 {
					_, err = c.Del(ctx, s, z)
				} else {
					_, err = c.ZInterStore(ctx, z, &ZStore{Keys: []string{zsets[0], zsets[1]}, Aggregate: "MAX"})
				}
			}
			if err != nil && !errors.Is(err, ErrContention) {
				select {
				case errs <- fmt.Errorf("op on %s/%s: %w", s, z, err):
				default:
				}
				return false
			}
			return true
		})
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		checkStoredCounts(t, p)
		time.Sleep(100 * time.Millisecond)
		countsMatchMembers(t, ctx, c, sets, zsets)
		for _, k := range zsets {
			require.NoError(t, c.ZCollect(ctx, k))
		}
		for _, k := range sets {
			require.NoError(t, c.SCollect(ctx, k))
		}
		checkStoredCounts(t, p)
	})
}

// A ShardedSet's shards are plain set keys ("Shard i is the
// plain set key Key+"{i}""), so their members can carry an expiry
// (SEXPIRE visitors{3} ...). The promise (an expired member is invisible
// to every command, never counted): Card 1, MIsMember [false true];
// redimo answered Card 2 (it summed the stored counts, not the live ones)
// and MIsMember [true true] (member items taken without their expiry).
func TestMemberExpiryShardedSet(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	ss := c.ShardedSet(p+"v", 2)
	// two members in different shards
	a, b := "", ""
	for i := 0; a == "" || b == ""; i++ {
		m := fmt.Sprintf("m%d", i)
		switch ss.shardOf(m) {
		case 0:
			if a == "" {
				a = m
			}
		case 1:
			if b == "" {
				b = m
			}
		}
	}
	require.NoError(t, errOf(ss.Add(ctx, a, b)))
	returns(t, []int64{1})(c.SExpire(ctx, ss.shard(0), time.Second, ExpireAlways, a))
	clock.Add(time.Second)
	returns(t, int64(0))(c.SCard(ctx, ss.shard(0))) // the shard key itself counts the member out
	in, err := ss.MIsMember(ctx, a, b)
	require.NoError(t, err)
	n, err := ss.Card(ctx)
	require.NoError(t, err)
	members, err := collected(ss.Members(ctx))
	require.NoError(t, err)
	type view struct {
		Card      int64
		MIsMember []bool
		Members   []string
	}
	require.Equal(t, view{1, []bool{false, true}, []string{b}}, view{n, in, members},
		"ShardedSet reads of a shard member that expired")
}

// slowReadDB moves a fake clock on by step during every BatchGetItem: a
// read that takes step.
type slowReadDB struct {
	DynamoDBAPI
	clock *fakeClock
	step  time.Duration
}

func (s *slowReadDB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	out, err := s.DynamoDBAPI.BatchGetItem(ctx, in, o...)
	s.clock.Add(s.step)
	return out, err
}

// SPEXPIRE k 10 MEMBERS 1 a (a
// positive relative time): Redis sets the expiry and replies 1; it never
// replies 2 (deleted) to a time that is not in the past when the command
// runs. redimo computed the expiry before its read of the member and
// decided after it, with a later now: when the read took longer than d
// (here 20 ms for a 10 ms expiry) it replied 2 and deleted the member
// (through the server too, which computes the time before the call).
func TestMemberExpiryRelativeSlowRead(t *testing.T) {
	needDB(t)
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	db := &slowReadDB{DynamoDBAPI: testDB, clock: clock}
	c := NewClient(db, func(o *Options) { o.TableName = testTable; o.Now = clock.Now })
	ctx := context.Background()
	k := t.Name() + ":" + randomHex(3) + ":s"
	require.NoError(t, errOf(c.SAdd(ctx, k, "a")))
	db.step = 20 * time.Millisecond
	returns(t, []int64{1})(c.SPExpire(ctx, k, 10*time.Millisecond, ExpireAlways, "a")) // a positive relative expiry is set, not a deletion
}

// Random picks and pops on a set where most members expired (300 stored,
// 10 live); ZRANGESTORE onto its own source; SMOVE into a destination
// whose copy of the member expired.
func TestMemberExpiryMostlyExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k, z := p+"s", p+"z"
	all := numbered("m%03d", 300)
	require.NoError(t, errOf(c.SAdd(ctx, k, all...)))
	require.NoError(t, errOf(c.ZAdd(ctx, z, byIndex(all)...)))
	require.NoError(t, errOf(c.SExpire(ctx, k, time.Second, ExpireAlways, all[:290]...)))
	require.NoError(t, errOf(c.ZExpire(ctx, z, time.Second, ExpireAlways, all[5:295]...)))
	clock.Add(time.Second)
	liveS := all[290:]
	liveZ := append(append([]string(nil), all[:5]...), all[295:]...)
	picks(t, liveS, 5)(c.SRandMemberN(ctx, k, 5))
	picks(t, liveZ, 7)(c.ZRandMember(ctx, z, 7))
	picks(t, liveZ, 30)(c.ZRandMember(ctx, z, -30))
	picks(t, liveS, 4)(c.SPopN(ctx, k, 4))
	returns(t, int64(6))(c.SCard(ctx, k))
	checkStoredCounts(t, p)

	// ZRANGESTORE z z 0 -1: the live members, none with an expiry.
	require.NoError(t, errOf(c.ZExpire(ctx, z, time.Hour, ExpireAlways, all[0])))
	returns(t, int64(10))(c.ZRangeStore(ctx, z, ZRangeArgs{Key: z, Start: "0", Stop: "-1"}))
	returns(t, []int64{-1, -1, -2})(c.ZTTL(ctx, z, all[0], all[1], all[100]))
	checkStoredCounts(t, p)

	// SMOVE into a destination whose copy of the member expired.
	src, dst := p+"src", p+"dst"
	require.NoError(t, errOf(c.SAdd(ctx, src, "a")))
	require.NoError(t, errOf(c.SAddEx(ctx, dst, time.Second, false, "a", "b")))
	require.NoError(t, errOf(c.SAdd(ctx, dst, "c")))
	clock.Add(time.Second)
	returns(t, true)(c.SMove(ctx, src, dst, "a"))
	returns(t, []string{"a", "c"})(c.SMembers(ctx, dst))
	returns(t, int64(2))(c.SCard(ctx, dst))
	returns(t, []int64{-1})(c.STTL(ctx, dst, "a"))
	checkStoredCounts(t, p)
}

// MULTI/EXEC on keys with expired members: reads inside the transaction
// skip them, a key whose members all expired is missing (another type
// may be written to it), and the stored counts stay exact.
func TestMemberExpiryExecReadsExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	s, z := p+"s", p+"z"
	returns(t, int64(1))(c.ZAdd(ctx, z, Z{1, "a"}))
	returns(t, []int64{1})(c.ZExpire(ctx, z, time.Second, ExpireAlways, "a"))
	returns(t, int64(3))(c.SAdd(ctx, s, "a", "b", "c"))
	returns(t, []int64{1, 1})(c.SExpire(ctx, s, time.Second, ExpireAlways, "a", "b"))
	clock.Add(time.Second)
	var (
		card          int64
		in            []bool
		members       []string
		added, zadded int64
		typ           string
	)
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		var err error
		if card, err = tx.SCard(ctx, s); err != nil {
			return err
		}
		if in, err = tx.SMIsMember(ctx, s, "a", "c"); err != nil {
			return err
		}
		if members, err = tx.SMembers(ctx, s); err != nil {
			return err
		}
		if added, err = tx.SAdd(ctx, s, "a"); err != nil {
			return err
		}
		if typ, err = tx.Type(ctx, z); err != nil {
			return err
		}
		zadded, err = tx.SAdd(ctx, z, "x") // z is missing: becomes a set
		return err
	})
	require.NoError(t, err)
	require.EqualValues(t, 1, card)
	require.Equal(t, []bool{false, true}, in)
	require.Equal(t, []string{"c"}, members)
	require.EqualValues(t, 1, added)
	require.Equal(t, "none", typ)
	require.EqualValues(t, 1, zadded)
	returns(t, int64(2))(c.SCard(ctx, s))
	checkStoredCounts(t, p)
}

// A second client that saw the key ranked (its belief) reads ranks and
// deep rank ranges after the first gave members an expiry (which unranks
// the key): expired members are skipped.
func TestMemberExpiryRankedBeliefOtherClient(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	c2, _, _, _ := newClockedClient(t, func(o *Options) { o.Now = clock.Now })
	for _, cl := range []*Client{c, c2} {
		cl.ranks.min, cl.ranks.max = 20, 8
	}
	k := p + "z"
	require.NoError(t, errOf(c.ZAdd(ctx, k, byIndex(numbered("m%02d", 60))...)))
	for _, cl := range []*Client{c, c2} {
		returns(t, []any{int64(50), true})(both(cl.ZRank(ctx, k, "m50")))
		returns(t, []string{"m40", "m41"})(cl.ZRange(ctx, k, 40, 41))
		returns(t, int64(40))(cl.ZCount(ctx, k, "10", "49"))
	}
	require.NoError(t, errOf(c.ZExpire(ctx, k, time.Second, ExpireAlways, "m01", "m02", "m03", "m04", "m05")))
	clock.Add(time.Second)
	returns(t, []any{int64(45), true})(both(c2.ZRank(ctx, k, "m50")))
	returns(t, []string{"m45", "m46"})(c2.ZRange(ctx, k, 40, 41))
	returns(t, []string{"m00"})(c2.ZRevRange(ctx, k, 54, -1))
	returns(t, int64(45))(c2.ZCount(ctx, k, "0", "49"))
	zr, err := c2.ZRandMember(ctx, k, -200)
	require.NoError(t, err)
	for _, m := range zr {
		require.NotContains(t, []string{"m01", "m02", "m03", "m04", "m05"}, m)
	}
	n, err := c2.ZRemRangeByRank(ctx, k, 0, 1) // m00 m06
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	returns(t, []string{"m07"})(c2.ZRange(ctx, k, 0, 0))
	checkStoredCounts(t, k)
}

// ZADD ... INCR on expired members: XX → nil; GT/NX → starts from 0.
func TestMemberExpiryZAddIncrOnExpired(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "z"
	require.NoError(t, errOf(c.ZAdd(ctx, k, Z{5, "a"}, Z{5, "b"}, Z{5, "c"}, Z{9, "live"})))
	require.NoError(t, errOf(c.ZExpire(ctx, k, time.Second, ExpireAlways, "a", "b", "c")))
	clock.Add(time.Second)
	returns(t, false)(found(c.ZAddArgsIncr(ctx, k, ZAddArgs{XX: true, Members: []Z{{2, "a"}}}))) // ZADD XX INCR of an expired member: nil
	f, ok, err := c.ZAddArgsIncr(ctx, k, ZAddArgs{GT: true, Members: []Z{{-3, "b"}}})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, -3.0, f, "ZADD GT INCR of an expired member starts from 0")
	f, ok, err = c.ZAddArgsIncr(ctx, k, ZAddArgs{NX: true, Members: []Z{{4, "c"}}})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 4.0, f)
	returns(t, int64(3))(c.ZCard(ctx, k))
	checkStoredCounts(t, k)
}

// Replies of the member-expiry commands stay exact when DynamoDB applies
// a transaction and its answer is lost (or is a 500): NX sets (1, not 0
// from a re-run), PERSIST removes (1), a time in the past deletes (2, not
// -2), SADDEX adds (1).
func TestMemberExpiryRepliesUnderFaults(t *testing.T) {
	for _, mode := range faultModes(t, dropResponse, appliedThen5, serverError, conflicts) {
		t.Run(string(mode), func(t *testing.T) {
			needDB(t)
			c := faultyClient(t, &faulty{next: http.DefaultTransport, mode: mode, share: 0.4})
			ctx := context.Background()
			p := t.Name() + ":" + randomHex(3) + ":"
			for i := range 15 {
				k := fmt.Sprintf("%sk%d", p, i)
				require.NoError(t, errOf(c.SAdd(ctx, k, "a", "b", "c")))
				returns(t, []int64{1, 1})(c.SExpire(ctx, k, time.Hour, ExpireNX, "a", "b")) // SEXPIRE NX
				returns(t, []int64{1})(c.SPersist(ctx, k, "a"))                             // SPERSIST
				returns(t, []int64{2})(c.SExpire(ctx, k, 0, ExpireAlways, "b"))             // SEXPIRE 0
				returns(t, int64(1))(c.SAddEx(ctx, k, time.Hour, false, "d", "a"))          // SADDEX
				returns(t, []int64{-2})(c.ZExpire(ctx, k+"z", time.Hour, ExpireAlways, "x"))
			}
			checkStoredCounts(t, p)
		})
	}
}

// SAddEx with a time to live under a
// millisecond (d > 0 passes its check): redimo stored the member with
// expiry = now (d.Milliseconds() is 0), replying 1 (added) for a member
// already expired and invisible. Expected: refuse it as d <= 0 is refused
// (ErrOutOfRange), or round up to 1 ms so that the member exists.
func TestMemberExpirySAddExSubMillisecond(t *testing.T) {
	ctx, c, p, _ := setupClocked(t)
	k := p + "s"
	n, err := c.SAddEx(ctx, k, 500*time.Microsecond, false, "a")
	if err != nil {
		require.ErrorIs(t, err, ErrOutOfRange) // refusing it is fine too
		return
	}
	in, err := c.SIsMember(ctx, k, "a")
	require.NoError(t, err)
	require.Equal(t, []any{int64(1), true}, []any{n, in}, "SADDEX 0.5 ms: reply 1, yet the member is already gone")
}

// Sorted-set algebra with a plain set source (score 1) whose members
// partly expired; ZDIFF/ZINTER/ZUNION skip them, with WEIGHTS and stores.
func TestMemberExpiryZAlgebraWithSetSource(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	z, s := p+"z", p+"s"
	require.NoError(t, errOf(c.ZAdd(ctx, z, Z{1, "a"}, Z{2, "b"}, Z{3, "c"})))
	require.NoError(t, errOf(c.SAdd(ctx, s, "a", "b", "c", "d")))
	require.NoError(t, errOf(c.SExpire(ctx, s, time.Second, ExpireAlways, "b", "d")))
	require.NoError(t, errOf(c.ZExpire(ctx, z, time.Second, ExpireAlways, "c")))
	clock.Add(time.Second)
	returns(t, []Z{{11, "a"}})(c.ZInterWithScores(ctx, &ZStore{Keys: []string{z, s}, Weights: []float64{10, 1}}))
	returns(t, []Z{{1, "c"}, {2, "a"}, {2, "b"}})(c.ZUnionWithScores(ctx, ZStore{Keys: []string{z, s}}))
	returns(t, []Z{{1, "c"}})(c.ZDiffWithScores(ctx, s, z))
	returns(t, int64(1))(c.ZInterCard(ctx, 0, z, s))
	returns(t, int64(1))(c.ZDiffStore(ctx, p+"d", s, z))
	returns(t, int64(1))(c.ZInterStore(ctx, z, &ZStore{Keys: []string{z, s}}))
	checkStoredCounts(t, p)
}

// A key whose members all expired is a missing key to every command:
// Redis 8.12 answers as on a missing key (the reply each row wants); a
// row's comment says what redimo answered before the fixes that followed
// commit 909af23 (WRONGTYPE, mostly).
//
// allExpiredKeys are the keys of one row of TestMemberExpiryAllExpiredKey:
// s a set and z a sorted set whose members a and b all expired (missing
// keys for Redis), live a set {a}, zlive a sorted set {a: 1}, q a set {q},
// dst and the pattern sz (s and z) nothing else.
type allExpiredKeys struct{ s, z, live, zlive, q, dst, sz string }

// TestMemberExpiryAllExpiredKey runs each row on keys of its own (a write
// sweeps the key, which would hide the read paths from later rows), on a
// table of its own (the rows of KEYS and SCAN read every key).
func TestMemberExpiryAllExpiredKey(t *testing.T) {
	ctx, c, p, clock := setupClocked(t, ownTable(t))
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute) // a pop that loops fails, not hangs
	defer cancel()
	makeKeys := func(t *testing.T, row string) allExpiredKeys {
		n := p + row + ":"
		k := allExpiredKeys{n + "s", n + "z", n + "live", n + "zlive", n + "q", n + "dst", n + "[sz]"}
		returns(t, int64(2))(c.SAddEx(ctx, k.s, time.Second, false, "a", "b"))
		returns(t, int64(2))(c.ZAdd(ctx, k.z, Z{1, "a"}, Z{2, "b"}))
		returns(t, []int64{1, 1})(c.ZExpire(ctx, k.z, time.Second, ExpireAlways, "a", "b"))
		clock.Add(2 * time.Second)
		returns(t, int64(1))(c.SAdd(ctx, k.live, "a"))
		returns(t, int64(1))(c.ZAdd(ctx, k.zlive, Z{1, "a"}))
		returns(t, int64(1))(c.SAdd(ctx, k.q, "q"))
		return k
	}
	scanType := func(pattern, typ string) (all []string, err error) {
		for cursor := uint64(0); ; {
			got, next, err := c.ScanType(ctx, cursor, pattern, 1000, typ)
			all = append(all, got...)
			if err != nil || next == 0 {
				return all, err
			}
			cursor = next
		}
	}
	type row = func(k allExpiredKeys) (any, error)
	rows := []struct {
		name string
		do   row
		want any
	}{
		// SISMEMBER/SMISMEMBER/STTL on a sorted set: 0, [0], [-2];
		// redimo WRONGTYPE (probe checked the type without settle).
		{"TYPE z", func(k allExpiredKeys) (any, error) { return c.Type(ctx, k.z) }, "none"},
		{"SISMEMBER z a", func(k allExpiredKeys) (any, error) { return c.SIsMember(ctx, k.z, "a") }, false},
		{"SMISMEMBER z a b", func(k allExpiredKeys) (any, error) { return c.SMIsMember(ctx, k.z, "a", "b") }, []bool{false, false}},
		{"STTL z a", func(k allExpiredKeys) (any, error) { return c.STTL(ctx, k.z, "a") }, []int64{-2}},
		// ZSCORE/ZMSCORE/ZTTL on a set: nil, [nil], [-2]; redimo
		// WRONGTYPE.
		{"ZSCORE s a", func(k allExpiredKeys) (any, error) { _, ok, err := c.ZScore(ctx, k.s, "a"); return ok, err }, false},
		{"ZMSCORE s a", func(k allExpiredKeys) (any, error) { _, oks, err := c.ZMScore(ctx, k.s, "a"); return oks, err }, []bool{false}},
		{"ZTTL s a", func(k allExpiredKeys) (any, error) { return c.ZTTL(ctx, k.s, "a") }, []int64{-2}},
		// ZRANK on a set: nil; redimo WRONGTYPE.
		{"ZRANK s a", func(k allExpiredKeys) (any, error) { _, ok, err := c.ZRank(ctx, k.s, "a"); return ok, err }, false},
		// Set algebra with a sorted set source (its expired a is
		// in live): SUNION and SDIFF give live's members, SINTERCARD 0;
		// redimo WRONGTYPE.
		{"SUNION live z", func(k allExpiredKeys) (any, error) { return c.SUnion(ctx, k.live, k.z) }, []string{"a"}},
		{"SDIFF live z", func(k allExpiredKeys) (any, error) { return c.SDiff(ctx, k.live, k.z) }, []string{"a"}},
		{"SINTERCARD 0 live z", func(k allExpiredKeys) (any, error) { return c.SInterCard(ctx, 0, k.live, k.z) }, int64(0)},
		// COPY from it: 0, q untouched; redimo 1 and q deleted.
		{"COPY s q REPLACE; SMEMBERS q", func(k allExpiredKeys) (any, error) {
			return then(c.Copy(ctx, k.s, k.q, true))(c.SMembers(ctx, k.q))
		}, []any{false, []string{"q"}}},
		// COPY onto it (no REPLACE): 1, copied; redimo 0.
		{"COPY live z; SMEMBERS z", func(k allExpiredKeys) (any, error) {
			return then(c.Copy(ctx, k.live, k.z, false))(c.SMembers(ctx, k.z))
		}, []any{true, []string{"a"}}},
		// RENAME of it: "ERR no such key", q untouched; redimo OK
		// and q deleted.
		{"RENAME s q; SMEMBERS q", func(k allExpiredKeys) (any, error) {
			return then(errors.Is(c.Rename(ctx, k.s, k.q), ErrNoSuchKey), nil)(c.SMembers(ctx, k.q))
		}, []any{true, []string{"q"}}},
		// RENAMENX onto it: 1, renamed; redimo 0.
		{"RENAMENX live s; SMEMBERS s", func(k allExpiredKeys) (any, error) {
			return then(c.RenameNX(ctx, k.live, k.s))(c.SMembers(ctx, k.s))
		}, []any{true, []string{"a"}}},
		// OBJECT ENCODING: nil ("ERR no such key"); redimo
		// "hashtable".
		{"EXISTS s", func(k allExpiredKeys) (any, error) { return c.Exists(ctx, k.s) }, int64(0)},
		{"OBJECT ENCODING s", func(k allExpiredKeys) (any, error) {
			enc, ok, err := c.ObjectEncoding(ctx, k.s)
			return then(ok, err)(enc, nil)
		}, []any{false, ""}},
		// Key expiry commands: TTL -2, PEXPIRETIME -2, PERSIST 0,
		// EXPIRE 0; redimo -1, -1, 0 and 1 (writing an expiry onto the
		// missing key).
		{"TTL s", func(k allExpiredKeys) (any, error) { return c.TTL(ctx, k.s) }, time.Duration(-2)},
		{"PEXPIRETIME s", func(k allExpiredKeys) (any, error) { return c.PExpireTime(ctx, k.s) }, int64(-2)},
		{"PERSIST s", func(k allExpiredKeys) (any, error) { return c.Persist(ctx, k.s) }, false},
		{"EXPIRE s 3600", func(k allExpiredKeys) (any, error) { return c.Expire(ctx, k.s, time.Hour) }, false},
		// ZMPOP and the blocking pops on it: nil (after the
		// timeout), or the next key's members; redimo ErrContention (the
		// loop "another client emptied the key: look again" ran until
		// MaxAttempts), and WRONGTYPE for BZPOPMAX on a set.
		{"ZMPOP MIN 2 z", func(k allExpiredKeys) (any, error) {
			key, zs, err := c.ZMPop(ctx, PopMin, 2, k.z)
			return then(key, err)(zs, nil)
		}, []any{"", nil}},
		{"ZMPOP MIN 2 z zlive", func(k allExpiredKeys) (any, error) {
			key, zs, err := c.ZMPop(ctx, PopMin, 2, k.z, k.zlive)
			return then(key == k.zlive, err)(zs, nil)
		}, []any{true, []Z{{1, "a"}}}},
		{"BZPOPMIN 0.3 z", func(k allExpiredKeys) (any, error) {
			return both(c.BZPopMin(ctx, 300*time.Millisecond, k.z))
		}, []any{ZWithKey{}, false}},
		{"BZMPOP 0.3 MAX 1 z", func(k allExpiredKeys) (any, error) {
			key, zs, err := c.BZMPop(ctx, 300*time.Millisecond, PopMax, 1, k.z)
			return then(key, err)(zs, nil)
		}, []any{"", nil}},
		{"BZPOPMAX 0.3 s zlive", func(k allExpiredKeys) (any, error) {
			got, ok, err := c.BZPopMax(ctx, 300*time.Millisecond, k.s, k.zlive)
			return []any{got.Z, got.Key == k.zlive, ok}, err
		}, []any{Z{1, "a"}, true, true}},
		// Key listings leave it out.
		{"KEYS s z", func(k allExpiredKeys) (any, error) { return c.Keys(ctx, k.sz) }, nil},
		{"SCAN MATCH s z TYPE set", func(k allExpiredKeys) (any, error) { return scanType(k.sz, "set") }, nil},
		{"SCAN MATCH s z TYPE zset", func(k allExpiredKeys) (any, error) { return scanType(k.sz, "zset") }, nil},
		{"TOUCH s z", func(k allExpiredKeys) (any, error) { return c.Touch(ctx, k.s, k.z) }, int64(0)},

		// Commands of its own type.
		{"SCARD s", func(k allExpiredKeys) (any, error) { return c.SCard(ctx, k.s) }, int64(0)},
		{"ZCARD z", func(k allExpiredKeys) (any, error) { return c.ZCard(ctx, k.z) }, int64(0)},
		{"SPOP s 3", func(k allExpiredKeys) (any, error) { return c.SPopN(ctx, k.s, 3) }, nil},
		{"SRANDMEMBER s -3", func(k allExpiredKeys) (any, error) { return c.SRandMemberN(ctx, k.s, -3) }, nil},
		{"ZPOPMIN z 3", func(k allExpiredKeys) (any, error) { return c.ZPopMin(ctx, k.z, 3) }, nil},
		{"ZRANDMEMBER z -3", func(k allExpiredKeys) (any, error) { return c.ZRandMember(ctx, k.z, -3) }, nil},
		{"ZRANGE z -2 -1", func(k allExpiredKeys) (any, error) { return c.ZRange(ctx, k.z, -2, -1) }, nil},
		{"ZCOUNT z -inf +inf", func(k allExpiredKeys) (any, error) { return c.ZCount(ctx, k.z, "-inf", "+inf") }, int64(0)},
		{"SMOVE s live a", func(k allExpiredKeys) (any, error) { return c.SMove(ctx, k.s, k.live, "a") }, false},
		{"SINTERSTORE dst s live", func(k allExpiredKeys) (any, error) { return c.SInterStore(ctx, k.dst, k.s, k.live) }, int64(0)},
		{"SUNIONCARD 0 s live", func(k allExpiredKeys) (any, error) { return c.SUnionCard(ctx, 0, k.s, k.live) }, int64(1)},
		{"ZUNIONSTORE dst z live", func(k allExpiredKeys) (any, error) {
			return c.ZUnionStore(ctx, k.dst, &ZStore{Keys: []string{k.z, k.live}})
		}, int64(1)},
		{"ZREMRANGEBYRANK z 0 -1", func(k allExpiredKeys) (any, error) { return c.ZRemRangeByRank(ctx, k.z, 0, -1) }, int64(0)},
		{"DEL s z", func(k allExpiredKeys) (any, error) { return c.Del(ctx, k.s, k.z) }, int64(0)},
		{"SADD s a; SMEMBERS s", func(k allExpiredKeys) (any, error) {
			return then(c.SAdd(ctx, k.s, "a"))(c.SMembers(ctx, k.s))
		}, []any{int64(1), []string{"a"}}},

		// // Commands of the other type: Redis answers as on a missing key,
		// Redimo answered WRONGTYPE. Rows whose reply the review did not
		// Check (it required no error only) want the missing-key reply.
		{"ZCARD s", func(k allExpiredKeys) (any, error) { return c.ZCard(ctx, k.s) }, int64(0)},
		{"SCARD z", func(k allExpiredKeys) (any, error) { return c.SCard(ctx, k.z) }, int64(0)},
		{"ZRANGE s 0 -1", func(k allExpiredKeys) (any, error) { return c.ZRange(ctx, k.s, 0, -1) }, nil},
		{"ZRANGEBYSCORE s -inf +inf", func(k allExpiredKeys) (any, error) {
			return c.ZRangeByScore(ctx, k.s, &ZRangeBy{Min: "-inf", Max: "+inf"})
		}, nil},
		{"ZRANGEBYLEX s - +", func(k allExpiredKeys) (any, error) { return c.ZRangeByLex(ctx, k.s, &ZRangeBy{Min: "-", Max: "+"}) }, nil},
		{"ZCOUNT s -inf +inf", func(k allExpiredKeys) (any, error) { return c.ZCount(ctx, k.s, "-inf", "+inf") }, int64(0)},
		{"ZLEXCOUNT s - +", func(k allExpiredKeys) (any, error) { return c.ZLexCount(ctx, k.s, "-", "+") }, int64(0)},
		{"ZRANDMEMBER s -3", func(k allExpiredKeys) (any, error) { return c.ZRandMember(ctx, k.s, -3) }, nil},
		{"ZPOPMIN s 2", func(k allExpiredKeys) (any, error) { return c.ZPopMin(ctx, k.s, 2) }, nil},
		{"ZREMRANGEBYRANK s 0 -1", func(k allExpiredKeys) (any, error) { return c.ZRemRangeByRank(ctx, k.s, 0, -1) }, int64(0)},
		{"ZREM s a", func(k allExpiredKeys) (any, error) { return c.ZRem(ctx, k.s, "a") }, int64(0)},
		{"ZSCAN s", func(k allExpiredKeys) (any, error) { return collected(c.ZScan(ctx, k.s, "")) }, nil},
		{"ZEXPIRE s 60 a", func(k allExpiredKeys) (any, error) { return c.ZExpire(ctx, k.s, time.Minute, ExpireAlways, "a") }, []int64{-2}},
		{"ZPERSIST s a", func(k allExpiredKeys) (any, error) { return c.ZPersist(ctx, k.s, "a") }, []int64{-2}},
		{"SMEMBERS z", func(k allExpiredKeys) (any, error) { return c.SMembers(ctx, k.z) }, nil},
		{"SRANDMEMBER z -3", func(k allExpiredKeys) (any, error) { return c.SRandMemberN(ctx, k.z, -3) }, nil},
		{"SPOP z 2", func(k allExpiredKeys) (any, error) { return c.SPopN(ctx, k.z, 2) }, nil},
		{"SREM z a", func(k allExpiredKeys) (any, error) { return c.SRem(ctx, k.z, "a") }, int64(0)},
		{"SSCAN z", func(k allExpiredKeys) (any, error) { return collected(c.SScan(ctx, k.z, "")) }, nil},
		{"SEXPIRE z 60 a", func(k allExpiredKeys) (any, error) { return c.SExpire(ctx, k.z, time.Minute, ExpireAlways, "a") }, []int64{-2}},
		{"SMOVE z live a", func(k allExpiredKeys) (any, error) { return c.SMove(ctx, k.z, k.live, "a") }, false},
		{"SMOVE live z a; SMEMBERS z", func(k allExpiredKeys) (any, error) {
			return then(c.SMove(ctx, k.live, k.z, "a"))(c.SMembers(ctx, k.z))
		}, []any{true, []string{"a"}}},
		{"SINTERCARD 0 live z", func(k allExpiredKeys) (any, error) { return c.SInterCard(ctx, 0, k.live, k.z) }, int64(0)},
		{"SUNIONSTORE dst live z", func(k allExpiredKeys) (any, error) { return c.SUnionStore(ctx, k.dst, k.live, k.z) }, int64(1)},
		{"ZUNION zlive s", func(k allExpiredKeys) (any, error) { return c.ZUnion(ctx, ZStore{Keys: []string{k.zlive, k.s}}) }, []string{"a"}},
		{"ZINTERCARD 0 zlive s", func(k allExpiredKeys) (any, error) { return c.ZInterCard(ctx, 0, k.zlive, k.s) }, int64(0)},
		{"ZDIFF zlive s", func(k allExpiredKeys) (any, error) { return c.ZDiff(ctx, k.zlive, k.s) }, []string{"a"}},
		{"ZRANGESTORE dst s 0 -1", func(k allExpiredKeys) (any, error) {
			return c.ZRangeStore(ctx, k.dst, ZRangeArgs{Key: k.s, Start: "0", Stop: "-1"})
		}, int64(0)},
		{"ZMPOP MIN 1 s zlive", func(k allExpiredKeys) (any, error) {
			key, zs, err := c.ZMPop(ctx, PopMin, 1, k.s, k.zlive)
			return then(key == k.zlive, err)(zs, nil)
		}, []any{true, []Z{{1, "a"}}}},
	}
	for i, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.do(makeKeys(t, fmt.Sprint(i)))
			require.NoError(t, err, "%s on a key whose members all expired: as on a missing key", tc.name)
			require.Equal(t, emptyAsNil(tc.want), emptyAsNil(got))
		})
	}
	checkStoredCounts(t, p)
}

// Then pairs a reply with the one of a command run after it:
// Then(c.Copy(...))(c.SMembers(...)) is []any{copied, members} and the
// First error. (Go runs the calls left to right.)
func then[T any](v T, err error) func(w any, err2 error) (any, error) {
	return func(w any, err2 error) (any, error) {
		return []any{v, w}, errors.Join(err, err2)
	}
}

// Both is the two results of a command as one reply: []any{v, w}.
func both[T, U any](v T, w U, err error) ([]any, error) { return []any{v, w}, err }

// Collected is what seq yields up to its first error.
func collected[T any](seq iter.Seq2[T, error]) (out []T, err error) {
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

// EmptyAsNil makes empty slices nil (also inside []any): [] and nil
// Compare equal.
func emptyAsNil(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = emptyAsNil(x[i])
		}
		return out
	case []string:
		if len(x) == 0 {
			return nil
		}
	case []Z:
		if len(x) == 0 {
			return nil
		}
	}
	return v
}

// ErrOf is the error of a command's reply.
func errOf[T any](_ T, err error) error { return err }

// Found is whether a command found what it looked for (its ok).
func found[T any](_ T, ok bool, err error) (bool, error) { return ok, err }

// BenchmarkSCardMemberExpiry: a 100,000-member set, 50,000 of whose
// members expire at random times within one minute (500 groups of 100,
// each its own time). Through that minute, with no write (sweep-free),
// SCARD is checked against the exact number of live members at 61
// moments, and its requests and read units are counted, and those of a
// new Client's first SCARD at the end. Then the
// transactions of SEXPIRE of 1,000 members and of SCOLLECT of the expired
// ones are counted.
//
//	make bench BENCHFLAGS='-bench SCardMemberExpiry -benchtime 1x'
func BenchmarkSCardMemberExpiry(b *testing.B) {
	for range b.N {
		c, cnt, p, clock := newClockedClient(b)
		ctx := context.Background()
		k := p + "visitors"
		const size, expiring, group = 100_000, 50_000, 100
		members := make([]string, size)
		for i := range members {
			members[i] = fmt.Sprintf("visitor-%06d", i)
		}
		for i := 0; i < size; i += 5_000 {
			if _, err := c.SAdd(ctx, k, members[i:i+5_000]...); err != nil {
				b.Fatal(err)
			}
		}
		start := clock.Now()
		r := rand.New(rand.NewPCG(1, 2))
		perm := r.Perm(size)[:expiring]
		var exps []int64
		for i := 0; i < expiring; i += group {
			at := start.Add(time.Duration(1+r.IntN(59_999)) * time.Millisecond)
			ms := make([]string, group)
			for j := range ms {
				ms[j] = members[perm[i+j]]
			}
			cnt.reset()
			got, err := c.SPExpireAt(ctx, k, at, ExpireAlways, ms...)
			if err != nil {
				b.Fatal(err)
			}
			for _, g := range got {
				if g != MemberExpirySet {
					b.Fatalf("SPEXPIREAT reply %d", g)
				}
			}
			for range group {
				exps = append(exps, at.UnixMilli())
			}
		}
		sort.Slice(exps, func(i, j int) bool { return exps[i] < exps[j] })
		var maxReq int64
		var sumReq int64
		var sumRCU, maxRCU float64
		for s := 0; s <= 60; s++ {
			now := clock.Now().UnixMilli()
			expired := sort.Search(len(exps), func(i int) bool { return exps[i] > now })
			cnt.reset()
			n, err := c.SCard(ctx, k)
			if err != nil {
				b.Fatal(err)
			}
			if n != int64(size-expired) {
				b.Fatalf("at +%ds SCARD = %d, want %d", s, n, size-expired)
			}
			req, rcu := cnt.requests.Load(), cnt.units()
			sumReq += req
			sumRCU += rcu
			maxReq, maxRCU = max(maxReq, req), max(maxRCU, rcu)
			clock.Add(time.Second)
		}
		b.ReportMetric(float64(sumReq)/61, "requests/SCARD")
		b.ReportMetric(float64(maxReq), "max-requests/SCARD")
		b.ReportMetric(sumRCU/61, "RCU/SCARD")
		b.ReportMetric(maxRCU, "max-RCU/SCARD")
		// A Client that never counted the key (another app server) counts
		// every expired member once.
		fresh := &counter{db: testDB}
		fc := NewClient(fresh, func(o *Options) { o.TableName = testTable; o.Now = clock.Now })
		if n, err := fc.SCard(ctx, k); err != nil || n != size-expiring {
			b.Fatalf("a new Client's SCARD: %d, %v", n, err)
		}
		b.ReportMetric(float64(fresh.requests.Load()), "requests/SCARD-new-client")
		b.ReportMetric(fresh.units(), "RCU/SCARD-new-client")
		cnt.reset()
		got, err := c.SExpire(ctx, k, time.Hour, ExpireAlways, members[:1000]...)
		if err != nil || len(got) != 1000 {
			b.Fatal(err)
		}
		b.ReportMetric(float64(cnt.byOp["TransactWriteItems"]), "tx/SEXPIRE-1000")
		cnt.reset()
		if err := c.SCollect(ctx, k); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(cnt.byOp["TransactWriteItems"]), "tx/SCOLLECT")
		cnt.reset()
		n, err := c.SCard(ctx, k)
		if err != nil || n != size-expiring {
			b.Fatalf("after SCOLLECT: SCARD %d, %v", n, err)
		}
		b.ReportMetric(float64(cnt.requests.Load()), "requests/SCARD-after-collect")
	}
}
