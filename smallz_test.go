package redimo

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
)

// smallZOf is the entries of key's small sorted set as stored, nil when
// it is not one.
func smallZOf(t *testing.T, key string) []model.ZEntry {
	return model.SmallZOf(rawGet(t, model.MetaKey(key)))
}

// TestSmallZRequestCounts: a small sorted set's writes are one UpdateItem
// and one write unit, with no member item and no index entry; its reads
// one GetItem when the Client knows it small (issue 34's goals).
func TestSmallZRequestCounts(t *testing.T) {
	t.Parallel() // isolated by its key prefix
	ctx, c, cnt, p := setup(t)
	k := p + "q"
	once := func(what string, f func() error, want map[string]int64, wcu float64) {
		t.Helper()
		cnt.reset()
		require.NoError(t, f(), what)
		require.Equal(t, want, cnt.byOp, "%s: %s", what, cnt)
		require.InDelta(t, wcu, cnt.units(), 0.01, "%s: capacity units", what)
	}
	write := map[string]int64{"UpdateItem": 1}
	get := map[string]int64{"GetItem": 1}

	// Creating or emptying the key writes its key-index entry too (by_key).
	once("ZADD creating the key", func() error { _, err := c.ZAdd(ctx, k, Z{1, "a"}, Z{2, "b"}); return err }, write, 2)
	once("ZADD of 1 new member", func() error {
		n, err := c.ZAdd(ctx, k, Z{3, "c"})
		require.EqualValues(t, 1, n)
		return err
	}, write, 1)
	require.Len(t, rawPartition(t, model.PkValue(k)), 1, "one item: no member item, no index entry")
	once("ZINCRBY of an existing member", func() error {
		s, err := c.ZIncrBy(ctx, k, 0.1, "a")
		require.Equal(t, 1.1, s)
		return err
	}, write, 1)
	once("ZINCRBY again: float64's sum, as Redis's", func() error {
		s, err := c.ZIncrBy(ctx, k, 0.2, "a")
		require.Equal(t, 1.1+0.2, s)
		return err
	}, write, 1)
	require.Len(t, rawPartition(t, model.PkValue(k)), 1, "one item: no member item, no index entry")
	once("ZADD GT CH", func() error {
		n, err := c.ZAddArgs(ctx, k, ZAddArgs{GT: true, Ch: true, Members: []Z{{5, "b"}, {0, "c"}}})
		require.EqualValues(t, 1, n)
		return err
	}, write, 1)
	once("ZREM", func() error {
		n, err := c.ZRem(ctx, k, "c", "nope")
		require.EqualValues(t, 1, n)
		return err
	}, write, 1)
	once("ZSCORE", func() error {
		s, ok, err := c.ZScore(ctx, k, "b")
		require.True(t, ok)
		require.Equal(t, 5.0, s)
		return err
	}, get, 1)
	once("ZRANK", func() error {
		r, ok, err := c.ZRank(ctx, k, "b")
		require.True(t, ok)
		require.EqualValues(t, 1, r)
		return err
	}, get, 1)
	once("ZRANGE", func() error {
		zs, err := c.ZRangeWithScores(ctx, k, 0, -1)
		require.Equal(t, []Z{{1.1 + 0.2, "a"}, {5, "b"}}, zs)
		return err
	}, get, 1)
	once("ZCARD", func() error {
		n, err := c.ZCard(ctx, k)
		require.EqualValues(t, 2, n)
		return err
	}, get, 1)
	once("ZCOUNT", func() error {
		n, err := c.ZCount(ctx, k, "(1", "+inf")
		require.EqualValues(t, 2, n)
		return err
	}, get, 1)
	once("ZPOPMAX", func() error {
		zs, err := c.ZPopMax(ctx, k)
		require.Equal(t, []Z{{5, "b"}}, zs)
		return err
	}, write, 1)
	once("ZADD", func() error { _, err := c.ZAdd(ctx, k, Z{7, "x"}, Z{8, "y"}); return err }, write, 1)
	once("ZMPOP", func() error {
		key, zs, err := c.ZMPop(ctx, PopMin, 2, k)
		require.Equal(t, k, key)
		require.Equal(t, []Z{{1.1 + 0.2, "a"}, {7, "x"}}, zs)
		return err
	}, write, 1)
	once("ZPOPMIN emptying the key", func() error {
		zs, err := c.ZPopMin(ctx, k, 5)
		require.Equal(t, []Z{{8, "y"}}, zs)
		return err
	}, write, 2)
	n, err := c.Exists(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n)

	// A Client that has not seen the key: its reads find the encoding
	// beside what they read; its first ZADD assumes the key missing and
	// plans again from the refusal.
	_, err = c.ZAdd(ctx, k, Z{1, "a"}, Z{2, "b"})
	require.NoError(t, err)
	fresh, fcnt, _ := newTestClient(t)
	for _, r := range []struct {
		what string
		f    func() error
		most int64
	}{
		{"ZSCORE", func() error { _, _, err := fresh.ZScore(ctx, k, "a"); return err }, 1},
		{"ZADD", func() error { _, err := fresh.ZAdd(ctx, k, Z{3, "c"}); return err }, 2},
		{"ZADD", func() error { _, err := fresh.ZAdd(ctx, k, Z{4, "d"}); return err }, 1},
	} {
		fcnt.reset()
		require.NoError(t, r.f())
		require.LessOrEqual(t, fcnt.requests.Load(), r.most, "a fresh Client's %s: %s", r.what, fcnt)
		t.Logf("a fresh Client's %s: %s", r.what, fcnt)
	}
	fresh2, fcnt2, _ := newTestClient(t)
	fcnt2.reset()
	zs, err := fresh2.ZRangeWithScores(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}}, zs)
	require.LessOrEqual(t, fcnt2.requests.Load(), int64(2), "a fresh Client's ZRANGE: the Query and the GetItem, in parallel: %s", fcnt2)
}

// TestSmallZConversion: a small sorted set that outgrows the threshold
// becomes member items with their index entries, in one transaction,
// keeping its version token (WATCH does not see the conversion), expiry
// and members; commands not taught the encoding (ZREMRANGEBYSCORE, ZMOVE,
// ZEXPIRE, MULTI/EXEC) convert it first and stay exact.
func TestSmallZConversion(t *testing.T) {
	t.Parallel() // isolated by its key prefix
	ctx, c, _, p := setup(t)
	k := p + "grow"
	_, err := c.ZAdd(ctx, k, Z{1, "a"}, Z{2, "b"})
	require.NoError(t, err)
	_, err = c.Expire(ctx, k, time.Hour)
	require.NoError(t, err)
	before := rawGet(t, model.MetaKey(k))
	require.NotNil(t, model.SmallZOf(before))
	var zs []Z
	for i := range 150 {
		zs = append(zs, Z{Score: float64(i % 13), Member: fmt.Sprintf("member-%03d", i)})
	}
	for _, z := range zs {
		_, err := c.ZAdd(ctx, k, z)
		require.NoError(t, err)
	}
	after := rawGet(t, model.MetaKey(k))
	require.Nil(t, model.SmallZOf(after), "converted")
	require.Len(t, rawPartition(t, model.PkValue(k)), 153, "the metadata item and 152 member items")
	ttl, err := c.TTL(ctx, k)
	require.NoError(t, err)
	require.Greater(t, ttl, 59*time.Minute, "the expiry stays")
	n, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 152, n)
	enc, _, err := c.ObjectEncoding(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "skiplist", enc)
	checkStoredCounts(t, p)

	// Commands with no small path: each converts, then runs.
	others := []struct {
		name string
		run  func(k string) error
		want []Z
	}{
		{"ZREMRANGEBYSCORE", func(k string) error {
			n, err := c.ZRemRangeByScore(ctx, k, "2", "3")
			require.EqualValues(t, 2, n)
			return err
		}, []Z{{1, "a"}, {4, "d"}}},
		{"ZMOVE", func(k string) error {
			zs, err := c.ZMove(ctx, k, k+":dst", ZMoveArgs{ByScore: true, Min: "2", Max: "2"})
			require.Equal(t, []Z{{2, "b"}}, zs)
			return err
		}, []Z{{1, "a"}, {3, "c"}, {4, "d"}}},
		{"ZEXPIRE", func(k string) error {
			_, err := c.ZExpire(ctx, k, time.Hour, ExpireAlways, "a")
			return err
		}, []Z{{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}}},
		{"MULTI/EXEC", func(k string) error {
			return c.TxPipelined(ctx, func(tx Pipeliner) error {
				_, err := tx.ZIncrBy(ctx, k, 1, "a")
				return err
			})
		}, []Z{{2, "a"}, {2, "b"}, {3, "c"}, {4, "d"}}},
	}
	for _, o := range others {
		k := p + o.name
		_, err := c.ZAdd(ctx, k, Z{1, "a"}, Z{2, "b"}, Z{3, "c"}, Z{4, "d"})
		require.NoError(t, err)
		require.NotNil(t, smallZOf(t, k))
		require.NoError(t, o.run(k), o.name)
		got, err := c.ZRangeWithScores(ctx, k, 0, -1)
		require.NoError(t, err)
		require.Equal(t, o.want, got, o.name)
		fresh, _, _ := newTestClient(t)
		got, err = fresh.ZRangeWithScores(ctx, k, 0, -1)
		require.NoError(t, err)
		require.Equal(t, o.want, got, o.name+", read by another Client")
	}
	checkStoredCounts(t, p)
}

// TestSmallZAgainstRedis runs random commands on small sorted sets
// through two Clients (each writing from what it last saw: the other's
// writes make it refused and plan again) and compares every reply with
// redis-server's, then the final states.
func TestSmallZAgainstRedis(t *testing.T) {
	t.Parallel() // isolated by its key prefix
	ctx, c, rdb, p := setupRedis(t)
	d, _, _ := newTestClient(t)
	r := rand.New(rand.NewPCG(testenv.Seed(t, 34), 34))
	keys := []string{p + "k1", p + "k2"}
	members := []string{"a", "b", "c", "d", "e", "f", "", "long-ish member name"}
	scores := []float64{0, 1, 1, 2, -3.5, 0.1, 0.2, math.Inf(1), math.Inf(-1)}
	for i := range testenv.Budget(300, 2000) {
		cl := []*Client{c, d}[r.IntN(2)]
		k := keys[r.IntN(len(keys))]
		m := members[r.IntN(len(members))]
		s := scores[r.IntN(len(scores))]
		what := fmt.Sprintf("step %d", i)
		switch r.IntN(12) {
		case 0, 1, 2:
			args, zadd := randomZAdd(r, k, func() Z { return Z{scores[r.IntN(len(scores))], members[r.IntN(len(members))]} })
			cmd := anys(zadd...)
			got, err := cl.ZAddArgs(ctx, k, args)
			want, werr := rdb.Do(ctx, cmd...).Int64()
			require.Equal(t, werr == nil, err == nil, "%s %v: %v / %v", what, cmd, err, werr)
			require.Equal(t, want, got, "%s %v", what, cmd)
		case 3, 4:
			got, err := cl.ZIncrBy(ctx, k, s, m)
			want, werr := rdb.ZIncrBy(ctx, k, s, m).Result()
			require.Equal(t, werr == nil, err == nil, "%s ZINCRBY %s %v %q: %v / %v", what, k, s, m, err, werr)
			if err == nil {
				require.Equal(t, want, got, "%s ZINCRBY %s %v %q", what, k, s, m)
			}
		case 5:
			m2 := members[r.IntN(len(members))]
			got, err := cl.ZRem(ctx, k, m, m2)
			require.NoError(t, err)
			require.Equal(t, rdb.ZRem(ctx, k, m, m2).Val(), got, "%s ZREM %q %q", what, m, m2)
		case 6:
			n := int64(r.IntN(3))
			var got []Z
			var want []redis.Z
			var err error
			if r.IntN(2) == 0 {
				got, err = cl.ZPopMin(ctx, k, n)
				want = rdb.ZPopMin(ctx, k, n).Val()
			} else {
				got, err = cl.ZPopMax(ctx, k, n)
				want = rdb.ZPopMax(ctx, k, n).Val()
			}
			require.NoError(t, err)
			require.Equal(t, len(want), len(got), what)
			for j := range got {
				require.Equal(t, Z{Score: want[j].Score, Member: want[j].Member.(string)}, got[j], what)
			}
		case 7:
			start := int64(r.IntN(3)) - 1
			got, err := cl.ZRangeWithScores(ctx, k, start, -1)
			require.NoError(t, err)
			want := rdb.ZRangeWithScores(ctx, k, start, -1).Val()
			require.Len(t, got, len(want), what)
			for j := range got {
				require.Equal(t, Z{Score: want[j].Score, Member: want[j].Member.(string)}, got[j], what)
			}
		case 8:
			lo, hi := []string{"-inf", "(0", "1", "(1"}[r.IntN(4)], []string{"+inf", "2", "(2"}[r.IntN(3)]
			got, err := cl.ZCount(ctx, k, lo, hi)
			require.NoError(t, err)
			require.Equal(t, rdb.ZCount(ctx, k, lo, hi).Val(), got, "%s ZCOUNT %s %s", what, lo, hi)
			zs, err := cl.ZRevRangeByScoreWithScores(ctx, k, &ZRangeBy{Min: lo, Max: hi})
			require.NoError(t, err)
			want := rdb.ZRevRangeByScoreWithScores(ctx, k, &redis.ZRangeBy{Min: lo, Max: hi}).Val()
			require.Len(t, zs, len(want), what)
		case 9:
			rank, ok, err := cl.ZRevRank(ctx, k, m)
			require.NoError(t, err)
			want, werr := rdb.ZRevRank(ctx, k, m).Result()
			require.Equal(t, werr == nil, ok, what)
			require.Equal(t, want, rank, what)
			sc, ok, err := cl.ZScore(ctx, k, m)
			require.NoError(t, err)
			wsc, werr := rdb.ZScore(ctx, k, m).Result()
			require.Equal(t, werr == nil, ok, what)
			require.Equal(t, wsc, sc, what)
			n, err := cl.ZCard(ctx, k)
			require.NoError(t, err)
			require.Equal(t, rdb.ZCard(ctx, k).Val(), n, what)
		case 10:
			var got []Z
			for z, err := range cl.ZScan(ctx, k, "") {
				require.NoError(t, err)
				got = append(got, z)
			}
			want := rdb.ZCard(ctx, k).Val()
			require.Len(t, got, int(want), what)
			enc, _, err := cl.ObjectEncoding(ctx, k)
			require.NoError(t, err)
			if want > 0 {
				require.Equal(t, rdb.ObjectEncoding(ctx, k).Val(), enc, what)
			}
		case 11:
			if r.IntN(4) == 0 {
				_, err := cl.Del(ctx, k)
				require.NoError(t, err)
				rdb.Del(ctx, k)
			}
		}
		requireSameZSet(t, ctx, []*Client{c, d}[r.IntN(2)], rdb, k, what)
	}
	for _, k := range keys {
		requireSameZSet(t, ctx, c, rdb, k)
		if e := smallZOf(t, k); e != nil {
			require.True(t, model.SmallZFit(k, e))
		}
	}
	checkStoredCounts(t, p)
}

// TestSmallZResend: a small sorted set's write whose response was lost,
// resent after another Client deleted the key, purged it, flushed the
// database, converted it, re-scored the member or wrote the key 120
// times, applies once and replies as its one application did (its write
// token, in its writer lane: smallset.go).
func TestSmallZResend(t *testing.T) {
	needDB(t)
	t.Parallel()
	ctx := context.Background()
	type scenario struct {
		name    string
		setup   []Z
		op      string // "zadd" (m 1), "zincrby" (m by 5), "zrem" (m), "zpopmin"
		reply   float64
		db      int
		between func(t *testing.T, c *Client, k string)
		want    []Z // nil: missing
	}
	writes := func(c *Client, k string, n int) error {
		for i := range n {
			var err error
			if m := fmt.Sprint("x", i/2%7); i%2 == 0 {
				_, err = c.ZAdd(ctx, k, Z{float64(i), m})
			} else {
				_, err = c.ZRem(ctx, k, m)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	del := func(t *testing.T, c *Client, k string) {
		n, err := c.Del(ctx, k)
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "the lost write applied")
	}
	var big []Z
	for i := range 120 {
		big = append(big, Z{float64(i), fmt.Sprintf("big%03d", i)})
	}
	scenarios := []scenario{
		{name: "DEL", op: "zadd", reply: 1, between: del},
		{name: "DEL then ZADD", op: "zadd", reply: 1, between: func(t *testing.T, c *Client, k string) {
			del(t, c, k)
			_, err := c.ZAdd(ctx, k, Z{2, "b"})
			require.NoError(t, err)
		}, want: []Z{{2, "b"}}},
		{name: "120 writes", op: "zadd", reply: 1, between: func(t *testing.T, c *Client, k string) {
			require.NoError(t, writes(c, k, 120))
		}, want: []Z{{1, "m"}}},
		{name: "re-scored", op: "zincrby", reply: 5, between: func(t *testing.T, c *Client, k string) {
			s, err := c.ZIncrBy(ctx, k, 10, "m")
			require.NoError(t, err)
			require.Equal(t, 15.0, s, "the lost write applied")
		}, want: []Z{{15, "m"}}},
		{name: "conversion", op: "zadd", reply: 1, between: func(t *testing.T, c *Client, k string) {
			_, err := c.ZAdd(ctx, k, big...)
			require.NoError(t, err)
			require.Nil(t, smallZOf(t, k))
		}, want: append([]Z{big[0], big[1], {1, "m"}}, big[2:]...)},
		{name: "purge", op: "zadd", reply: 1, between: func(t *testing.T, c *Client, k string) {
			_, err := c.PExpire(ctx, k, time.Millisecond)
			require.NoError(t, err)
			time.Sleep(5 * time.Millisecond)
			n, err := c.Del(ctx, k) // purges it: expired, it is not deleted
			require.NoError(t, err)
			require.Zero(t, n)
		}},
		{name: "FLUSHDB", op: "zadd", reply: 1, db: 13, between: func(t *testing.T, c *Client, k string) {
			require.NoError(t, c.FlushDB(ctx))
		}},
		{name: "ZREM: re-added", op: "zrem", reply: 1, setup: []Z{{1, "a"}, {1, "m"}}, between: func(t *testing.T, c *Client, k string) {
			n, err := c.ZAdd(ctx, k, Z{2, "m"})
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "the lost ZREM applied")
		}, want: []Z{{1, "a"}, {2, "m"}}},
		{name: "ZPOPMIN emptying: re-created", op: "zpopmin", reply: 1, setup: []Z{{1, "m"}}, between: func(t *testing.T, c *Client, k string) {
			n, err := c.ZAdd(ctx, k, Z{3, "m"})
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "the lost ZPOPMIN applied")
		}, want: []Z{{3, "m"}}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			k := t.Name() + ":" + randomHex(3)
			h, c, clean := resendRig(t, k, sc.db)
			if len(sc.setup) > 0 {
				_, err := clean.ZAdd(ctx, k, sc.setup...)
				require.NoError(t, err)
			}
			var (
				reply float64
				err   error
			)
			h.run(t, func() {
				var n int64
				switch sc.op {
				case "zadd":
					n, err = c.ZAdd(ctx, k, Z{1, "m"})
					reply = float64(n)
				case "zincrby":
					reply, err = c.ZIncrBy(ctx, k, 5, "m")
				case "zrem":
					n, err = c.ZRem(ctx, k, "m")
					reply = float64(n)
				case "zpopmin":
					var zs []Z
					zs, err = c.ZPopMin(ctx, k)
					reply = float64(len(zs))
					if len(zs) == 1 && zs[0] != (Z{1, "m"}) {
						err = fmt.Errorf("popped %v", zs[0])
					}
				}
			}, func() { sc.between(t, clean, k) })
			require.NoError(t, err)
			require.Equal(t, sc.reply, reply, "the reply of the write's one application")
			require.GreaterOrEqual(t, h.n.Load(), int32(2), "the write was resent")
			got, err := clean.ZRangeWithScores(ctx, k, 0, -1)
			require.NoError(t, err)
			if len(got) == 0 {
				got = nil
			}
			require.Equal(t, sc.want, got, "the state")
			card, err := clean.ZCard(ctx, k)
			require.NoError(t, err)
			require.EqualValues(t, len(sc.want), card)
		})
	}
}

// TestSmallZWaiters: ten blocked BZPOPMINs on a key that becomes a small
// sorted set, from the waiters' Client and from another: every waiter
// gets a member, first come first served, from one pop of ten (one
// UpdateItem; the ZADD from the same Client is one more).
func TestSmallZWaiters(t *testing.T) {
	needDB(t)
	for _, same := range []bool{true, false} {
		t.Run(map[bool]string{true: "same Client", false: "another Client"}[same], func(t *testing.T) {
			c, cnt, _ := newTestClient(t)
			producer := c
			if !same {
				producer, _, _ = newTestClient(t)
			}
			k := t.Name() + ":" + randomHex(3)
			wait := startPops(t, c, 10, 30*time.Second, k)
			zs := byIndex(numbered("job%d", 10))
			cnt.reset()
			_, err := producer.ZAdd(context.Background(), k, zs...)
			require.NoError(t, err)
			res := wait()
			for i, r := range res {
				require.NoError(t, r.err)
				require.True(t, r.ok, "waiter %d timed out", i)
				require.Equal(t, ZWithKey{Z: zs[i], Key: k}, r.z, "waiter %d (first come, first served)", i)
			}
			cnt.mu.Lock()
			ops := maps.Clone(cnt.byOp)
			cnt.mu.Unlock()
			t.Logf("the waiters' Client from the ZADD on: %v", ops)
			require.LessOrEqual(t, ops["UpdateItem"], int64(btoi(same)+2), "one pop for the ten (and at most one refused attempt)")
			require.Zero(t, ops["TransactWriteItems"], "a small sorted set: no transaction")
			n, err := c.Exists(context.Background(), k)
			require.NoError(t, err)
			require.Zero(t, n, "emptied")
		})
	}
}

// TestSmallZWatch: WATCH sees a small sorted set's writes (each stores a
// new version token) and not its conversion, which changes no member.
func TestSmallZWatch(t *testing.T) {
	ctx, c, _, p := setup(t)
	other, _, _ := newTestClient(t)
	k := p + "w"
	_, err := c.ZAdd(ctx, k, Z{1, "a"})
	require.NoError(t, err)
	incr := func(w *Tx) error {
		return w.TxPipelined(ctx, func(tx Pipeliner) error {
			_, err := tx.ZIncrBy(ctx, k, 1, "a")
			return err
		})
	}
	// Another Client's write between WATCH and EXEC: the EXEC fails.
	err = c.Watch(ctx, func(w *Tx) error {
		_, err := other.ZIncrBy(ctx, k, 10, "a")
		require.NoError(t, err)
		return incr(w)
	}, k)
	require.ErrorIs(t, err, ErrTxFailed)
	// A conversion between WATCH and EXEC (other's ZADD of members that do
	// not fit): the members other added change the key, and WATCH sees
	// that; the conversion alone is not a change.
	var big []Z
	for i := range 120 {
		big = append(big, Z{float64(i), fmt.Sprintf("big%03d", i)})
	}
	err = c.Watch(ctx, func(w *Tx) error {
		_, err := other.ZAdd(ctx, k, big...)
		require.NoError(t, err)
		return incr(w)
	}, k)
	require.ErrorIs(t, err, ErrTxFailed)
	// Nothing between: it commits.
	require.NoError(t, c.Watch(ctx, incr, k))
	s, _, err := c.ZScore(ctx, k, "a")
	require.NoError(t, err)
	require.Equal(t, 12.0, s)
}

// TestSmallZCancelledAtEveryStep: a small sorted set's write whose
// caller's context ends at any request (the write in flight included)
// applied once or not at all, and once when it replied. Run with the
// context cancelled at request 1, 2, ... until the command completes
// before the cancel, from a Client that wrote the key last and from one
// that has not seen it. (Pops: TestPopsCancelledAtEveryStep, whose
// sources are small sorted sets.)
func TestSmallZCancelledAtEveryStep(t *testing.T) {
	needDB(t)
	t.Parallel()
	ctx := context.Background()
	for _, seen := range []bool{true, false} {
		for _, cmd := range []string{"ZINCRBY", "ZADD", "ZREM"} {
			t.Run(fmt.Sprintf("%s/seen=%v", cmd, seen), func(t *testing.T) {
				h := &cancelAt{next: http.DefaultTransport}
				clean := cleanClient(t)
				for step := 1; ; step++ {
					require.Less(t, step, 20, "the command never completed before its cancel")
					c := faultyClient(t, h)
					k := fmt.Sprintf("%s:%d:%s", t.Name(), step, randomHex(3))
					writer := clean
					if seen {
						writer = c
					}
					_, err := writer.ZAdd(ctx, k, Z{1, "a"}, Z{2, "m"})
					require.NoError(t, err)
					cctx, cancel := context.WithCancel(ctx)
					h.arm(step, cancel)
					var applied bool
					switch cmd {
					case "ZINCRBY":
						var s float64
						s, err = c.ZIncrBy(cctx, k, 5, "m")
						applied = err == nil
						if applied {
							require.Equal(t, 7.0, s)
						}
					case "ZADD":
						var n int64
						n, err = c.ZAdd(cctx, k, Z{3, "new"})
						applied = err == nil
						if applied {
							require.EqualValues(t, 1, n)
						}
					case "ZREM":
						var n int64
						n, err = c.ZRem(cctx, k, "m")
						applied = err == nil
						if applied {
							require.EqualValues(t, 1, n)
						}
					}
					h.step.Store(0)
					cancel()
					reached := h.n.Load() >= int32(step)
					got, rerr := clean.ZRangeWithScores(ctx, k, 0, -1)
					require.NoError(t, rerr)
					after := map[string][]Z{
						"ZINCRBY": {{1, "a"}, {7, "m"}}, "ZADD": {{1, "a"}, {2, "m"}, {3, "new"}}, "ZREM": {{1, "a"}},
					}[cmd]
					if applied {
						require.Equal(t, after, got, "step %d: applied once", step)
					} else {
						// Cancelled: applied once or not at all, as Redis's
						// command whose connection dropped (only pops, which
						// return what they remove, go on to their answer).
						require.Contains(t, [][]Z{{{1, "a"}, {2, "m"}}, after}, got, "step %d: %v", step, err)
					}
					if !reached {
						require.NoError(t, err)
						return
					}
				}
			})
		}
	}
}

// TestSmallZKeptItem: what a Client kept of a key from its last write is
// a hint, never an answer: another Client's DEL and re-creation, as
// another type or as a sorted set again, is what the next write meets.
func TestSmallZKeptItem(t *testing.T) {
	ctx, c, _, p := setup(t)
	other, _, _ := newTestClient(t)
	k := p + "k"
	_, err := other.SAdd(ctx, k, "x")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, k, Z{1, "a"})
	require.ErrorIs(t, err, ErrWrongType, "a set")
	_, err = other.Del(ctx, k)
	require.NoError(t, err)
	_, err = other.ZAdd(ctx, k, Z{1, "a"})
	require.NoError(t, err)
	n, err := c.ZAdd(ctx, k, Z{2, "b"})
	require.NoError(t, err, "a sorted set again")
	require.EqualValues(t, 1, n)
	_, err = other.Del(ctx, k)
	require.NoError(t, err)
	_, err = other.SAdd(ctx, k, "x")
	require.NoError(t, err)
	_, err = c.ZIncrBy(ctx, k, 1, "b")
	require.ErrorIs(t, err, ErrWrongType, "a set again, though c kept its sorted set")
	_, err = other.Del(ctx, k)
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, k, Z{1, "b"})
	require.NoError(t, err)
	_, err = other.Del(ctx, k)
	require.NoError(t, err)
	n, err = c.ZRem(ctx, k, "b")
	require.NoError(t, err)
	require.Zero(t, n, "missing, though c kept its sorted set")
	_, err = c.ZAdd(ctx, k, Z{1, "b"})
	require.NoError(t, err)
	_, err = other.ZAdd(ctx, k, Z{5, "b"})
	require.NoError(t, err)
	n, err = c.ZAddArgs(ctx, k, ZAddArgs{GT: true, Ch: true, Members: []Z{{3, "b"}}})
	require.NoError(t, err)
	require.Zero(t, n, "GT against the score as it is (5), not as c kept it (1)")
	zs, err := c.ZPopMin(ctx, k)
	require.NoError(t, err)
	require.Equal(t, []Z{{5, "b"}}, zs)
}

// TestKeyGate: smallZ's gate gives a key's turns in arrival order, one
// at a time; a waiter whose context ends leaves without a turn; other keys
// do not wait; nothing stays behind once every holder has left.
func TestKeyGate(t *testing.T) {
	var g keyGate
	ctx := context.Background()
	waiting := func(n int) func() bool { // holders and waiters of "k"
		return func() bool {
			g.mu.Lock()
			defer g.mu.Unlock()
			return g.held["k"] != nil && g.held["k"].refs == n
		}
	}
	leave, err := g.enter(ctx, "k")
	require.NoError(t, err)

	cctx, cancel := context.WithCancel(ctx)
	gone := make(chan error)
	go func() {
		_, err := g.enter(cctx, "k")
		gone <- err
	}()
	require.Eventually(t, waiting(2), 5*time.Second, time.Millisecond)
	cancel()
	require.ErrorIs(t, <-gone, context.Canceled)
	require.True(t, waiting(1)(), "the cancelled waiter left")

	other, err := g.enter(ctx, "other")
	require.NoError(t, err, "another key does not wait")
	other()

	turns := make(chan int, 3)
	for i := range 3 {
		go func() {
			l, err := g.enter(ctx, "k")
			if err == nil {
				turns <- i
				l()
			}
		}()
		require.Eventually(t, waiting(i+2), 5*time.Second, time.Millisecond, "waiter %d queued", i)
	}
	leave()
	for want := range 3 {
		require.Equal(t, want, <-turns, "turns in arrival order")
	}
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.held) == 0
	}, 5*time.Second, time.Millisecond, "nothing left behind")
}
