package redimo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"

	"github.com/stretchr/testify/require"
)

// Commands inside TxPipelined answer as Redis's inside MULTI/EXEC (they
// see the transaction's earlier writes), and the writes land together,
// in one TransactWriteItems after the reads.
func TestTxPipelined(t *testing.T) {
	// The keys as member items: a small set is converted when EXEC reads
	// it, two requests more (smallset.go; TestSmallSetExec).
	ctx, c, cnt, p := setup(t, func(o *Options) { o.DisableSmallSets = true })
	s, z, d := p+"s", p+"z", p+"d"
	_, err := c.SAdd(ctx, s, "a", "b")
	require.NoError(t, err)
	_, err = c.SAdd(ctx, d, "x")
	require.NoError(t, err)
	cnt.reset()

	var replies []any
	add := func(vs ...any) { replies = append(replies, vs...) }
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		n, err := tx.SAdd(ctx, s, "b", "c")
		add(n, err)
		n, err = tx.SCard(ctx, s)
		add(n, err)
		ok, err := tx.SMove(ctx, s, p+"dst", "a")
		add(ok, err)
		n, err = tx.ZAdd(ctx, z, Z{1, "m"}, Z{2, "n"})
		add(n, err)
		f, err := tx.ZIncrBy(ctx, z, 2.5, "m")
		add(f, err)
		zs, err := tx.ZPopMin(ctx, z)
		add(zs, err)
		n, err = tx.Del(ctx, d, p+"none")
		add(n, err)
		n, err = tx.SAdd(ctx, z, "wrong")
		add(n, err)
		n, err = tx.Exists(ctx, s, d, z, p+"dst")
		add(n, err)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []any{
		int64(1), nil, int64(3), nil, true, nil, int64(2), nil, 3.5, nil,
		[]Z{{2, "n"}}, nil, int64(1), nil, int64(0), ErrWrongType, int64(3), nil,
	}, replies)
	// One GetItem per key touched (5), a BatchGetItem for the members SADD
	// and SMOVE name on stored keys (2), a Query of the key DEL deletes,
	// and the one TransactWriteItems.
	require.Equal(t, map[string]int64{"GetItem": 5, "BatchGetItem": 2, "Query": 1, "TransactWriteItems": 1}, cnt.byOp, cnt.String())

	members, err := c.SMembers(ctx, s)
	require.NoError(t, err)
	require.Equal(t, []string{"b", "c"}, members)
	zs, err := c.ZRangeWithScores(ctx, z, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{3.5, "m"}}, zs)
	n, err := c.Exists(ctx, d)
	require.NoError(t, err)
	require.Zero(t, n)
}

// A transaction needing more than 100 actions is refused whole; one of
// exactly 100 commits.
func TestTxTooBig(t *testing.T) {
	ctx, c, _, p := setup(t)
	members := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint(i)
		}
		return out
	}
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.SAdd(ctx, p+"a", members(60)...)
		require.NoError(t, err)
		_, err = tx.SAdd(ctx, p+"b", members(39)...)
		require.NoError(t, err)
		return nil
	})
	require.ErrorIs(t, err, ErrTxTooBig, "60+39 members and 2 metadata items: 101")
	n, err := c.Exists(ctx, p+"a", p+"b")
	require.NoError(t, err)
	require.Zero(t, n, "nothing written")

	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.SAdd(ctx, p+"a", members(60)...)
		require.NoError(t, err)
		_, err = tx.SAdd(ctx, p+"b", members(38)...)
		return err
	})
	require.NoError(t, err, "100 actions fit")
	card, err := c.SCard(ctx, p+"b")
	require.NoError(t, err)
	require.Equal(t, int64(38), card)
}

// A transaction past DynamoDB's 4 MB (long members) is refused whole,
// with the reason, before anything is sent.
func TestTxTooBigBytes(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	long := func(i int) string { return fmt.Sprint(i) + strings.Repeat("x", 380_000) }
	cnt.reset()
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		for i := range 10 {
			if _, err := tx.SAdd(ctx, p+"s", long(i)); err != nil {
				return err
			}
		}
		return nil
	})
	require.ErrorIs(t, err, ErrTxTooBig)
	require.Contains(t, err.Error(), "bytes")
	require.Zero(t, cnt.byOp["TransactWriteItems"], cnt.String())
	n, err := c.Exists(ctx, p+"s")
	require.NoError(t, err)
	require.Zero(t, n, "nothing written")
}

// fn's error discards the transaction.
func TestTxPipelinedFnError(t *testing.T) {
	ctx, c, _, p := setup(t)
	boom := errors.New("boom")
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, _ = tx.SAdd(ctx, p+"s", "a")
		return boom
	})
	require.ErrorIs(t, err, boom)
	n, err := c.Exists(ctx, p+"s")
	require.NoError(t, err)
	require.Zero(t, n)
}

// A write by another client to a watched key after the watch check of
// TxPipelined, before its commit, fails the transaction: the check is a
// condition of the same TransactWriteItems.
func TestTxWatchedWriteBeforeCommit(t *testing.T) {
	c, _, p := newTestClient(t)
	ctx, other, _, _ := setup(t)
	k := p + "w"
	_, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	runs := 0
	err = c.Watch(ctx, func(tx *Tx) error {
		return tx.TxPipelined(ctx, func(p Pipeliner) error {
			runs++
			if _, err := p.SAdd(ctx, k+"other", "x"); err != nil {
				return err
			}
			_, err := other.SAdd(ctx, k, "b") // lands after the check, before the commit
			return err
		})
	}, k)
	require.ErrorIs(t, err, ErrTxFailed)
	require.Equal(t, 1, runs)
	n, err := c.Exists(ctx, k+"other")
	require.NoError(t, err)
	require.Zero(t, n, "nothing of the failed transaction written")

	// Expiry changes are changes too.
	err = c.Watch(ctx, func(tx *Tx) error {
		if _, err := other.Expire(ctx, k, time.Hour); err != nil {
			return err
		}
		return tx.TxPipelined(ctx, func(p Pipeliner) error { _, err := p.SCard(ctx, k); return err })
	}, k)
	require.ErrorIs(t, err, ErrTxFailed)
}

// A key the transaction read that another client writes before the commit
// makes the transaction run again on fresh reads: what it wrote is based
// on what is stored when it commits.
func TestTxRerunsOnConflict(t *testing.T) {
	c, _, p := newTestClient(t)
	ctx, other, _, _ := setup(t)
	src, dst := p+"src", p+"dst"
	_, err := c.SAdd(ctx, src, "a")
	require.NoError(t, err)
	runs := 0
	err = c.TxPipelined(ctx, func(tx Pipeliner) error {
		runs++
		n, err := tx.SCard(ctx, src)
		if err != nil {
			return err
		}
		if runs == 1 {
			if _, err := other.SAdd(ctx, src, "b"); err != nil {
				return err
			}
		}
		_, err = tx.ZAdd(ctx, dst, Z{float64(n), "count"})
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 2, runs)
	score, _, err := c.ZScore(ctx, dst, "count")
	require.NoError(t, err)
	require.Equal(t, 2.0, score, "the count as of the commit")
}

// Bad arguments fail their command alone, before anything is read.
func TestTxBadArguments(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	cnt.reset()
	err := c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.SAdd(ctx, p+"s")
		require.ErrorIs(t, err, ErrInvalidArgument)
		_, err = tx.ZIncrBy(ctx, p+"z", math.NaN(), "m")
		require.ErrorIs(t, err, ErrNotFloat)
		_, err = tx.ExpireAtWith(ctx, p+"z", time.Now(), ExpireCondition(99))
		require.ErrorIs(t, err, ErrSyntax)
		return nil
	})
	require.NoError(t, err)
	require.Zero(t, cnt.requests.Load(), cnt.String())
}

// TestExecTimeFrozen: inside a transaction time stands still at the
// moment it started, as Redis freezes it during EXEC: with a clock that
// moves a second each time it is read, a key that expires 2.5 s after the
// start stays live for every command of the transaction, and PTTL answers
// the same each time; the next command outside sees it expired.
func TestExecTimeFrozen(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	tick := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	ctx, c, _, p := setup(t, func(o *Options) { o.Now = tick })
	k := p + "k"
	_, err := c.SAdd(ctx, k, "a", "b")
	require.NoError(t, err)
	var cards []int64
	var ttls []time.Duration
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		if _, err := tx.PExpire(ctx, k, 2500*time.Millisecond); err != nil {
			return err
		}
		for range 4 {
			n, err := tx.SCard(ctx, k)
			if err != nil {
				return err
			}
			d, err := tx.PTTL(ctx, k)
			if err != nil {
				return err
			}
			cards, ttls = append(cards, n), append(ttls, d)
		}
		return nil
	}))
	require.Equal(t, []int64{2, 2, 2, 2}, cards, "live for the whole transaction")
	require.Equal(t, []time.Duration{2500 * time.Millisecond, 2500 * time.Millisecond, 2500 * time.Millisecond, 2500 * time.Millisecond}, ttls)
	tick() // 2 s after the start of the transaction: still live
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	tick() // 3 s after
	n, err = c.SCard(ctx, k)
	require.NoError(t, err)
	require.Zero(t, n, "expired 2.5 s after the transaction started")
}

// The MULTI/EXEC engine (exec.go) against the commands: each test below
// compares a command inside TxPipelined with the same command outside a
// transaction (the Client method) and/or with redis-server inside
// MULTI/EXEC. Where a comment says what Redis answers and what redimo
// did, the test caught that bug.
//
// xop is one command of a differential transaction: r queues it on a
// go-redis transaction and returns its reply (read after EXEC), d runs it
// on a redimo Pipeliner and returns its reply, both formatted alike.
type xop struct {
	name string
	r    func(ctx context.Context, tx redis.Pipeliner) func() string
	d    func(ctx context.Context, tx Pipeliner) string
}

func xerr(err error) string {
	if err != nil {
		return " ERR"
	}
	return ""
}

func xfmt[T any](v T, err error) string { return fmt.Sprint(v) + xerr(err) }

// xttl formats a TTL reply to the minute: the two sides set and read
// their expiries at different moments (an hour less 0.6 s is 59m59s on
// one side, 1h0m0s on the other); -1 and -2 stay as they are.
func xttl(d time.Duration, err error) string {
	if d > 0 {
		d = d.Round(time.Minute)
	}
	return xfmt(d, err)
}

// later formats a go-redis reply by f once EXEC has run.
func later[T any](c interface{ Result() (T, error) }, f func(T, error) string) func() string {
	return func() string { return f(c.Result()) }
}

func xzs(zs []Z, err error) string {
	parts := make([]string, len(zs))
	for i, z := range zs {
		parts[i] = fmt.Sprintf("%s:%g", z.Member, z.Score)
	}
	return "[" + strings.Join(parts, " ") + "]" + xerr(err)
}

func rzs(zs []redis.Z, err error) string {
	out := make([]Z, len(zs))
	for i, z := range zs {
		out[i] = Z{Score: z.Score, Member: fmt.Sprint(z.Member)}
	}
	return xzs(out, err)
}

func rint(c *redis.IntCmd) func() string {
	return func() string { return xfmt(c.Result()) }
}

func rbool(c *redis.BoolCmd) func() string {
	return func() string { return xfmt(c.Result()) }
}

func rstrs(c *redis.StringSliceCmd) func() string {
	return func() string {
		v, err := c.Result()
		if v == nil {
			v = []string{}
		}
		return xfmt(v, err)
	}
}

func rzsl(c *redis.ZSliceCmd) func() string {
	return func() string { return rzs(c.Result()) }
}

// rincr is a ZADD INCR / ZINCRBY / ZSCORE reply: the score, or "nil"
// (redis.Nil); dincr is the same for redimo's.
func rincr(c *redis.FloatCmd) func() string {
	return func() string {
		v, err := c.Result()
		if errors.Is(err, redis.Nil) {
			return "nil"
		}
		return xfmt(v, err)
	}
}

func dincr(f float64, ok bool, err error) string {
	if err == nil && !ok {
		return "nil"
	}
	return xfmt(f, err)
}

func dstrs(v []string, err error) string {
	if v == nil {
		v = []string{}
	}
	return xfmt(v, err)
}

// diffTx runs ops in one MULTI/EXEC on redis-server and in one
// TxPipelined on c, and returns both lists of replies.
func diffTx(t *testing.T, ctx context.Context, rdb *redis.Client, c *Client, ops []xop) (want, got []string) {
	t.Helper()
	var reads []func() string
	_, err := rdb.TxPipelined(ctx, func(tx redis.Pipeliner) error {
		for _, o := range ops {
			reads = append(reads, o.r(ctx, tx))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		var re redis.Error
		require.ErrorAs(t, err, &re) // a command's own error, as for redimo
	}
	for i, read := range reads {
		want = append(want, ops[i].name+" = "+read())
	}
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		got = got[:0]
		for _, o := range ops {
			got = append(got, o.name+" = "+o.d(ctx, tx))
		}
		return nil
	}))
	return want, got
}

func zargs(nx, xx, gt, lt, ch bool, zs ...Z) (redis.ZAddArgs, ZAddArgs) {
	rz := make([]redis.Z, len(zs))
	for i, z := range zs {
		rz[i] = redis.Z{Score: z.Score, Member: z.Member}
	}
	return redis.ZAddArgs{NX: nx, XX: xx, GT: gt, LT: lt, Ch: ch, Members: rz},
		ZAddArgs{NX: nx, XX: xx, GT: gt, LT: lt, Ch: ch, Members: zs}
}

func xzadd(name, k string, nx, xx, gt, lt, ch bool, zs ...Z) xop {
	ra, da := zargs(nx, xx, gt, lt, ch, zs...)
	return xop{name,
		func(ctx context.Context, tx redis.Pipeliner) func() string { return rint(tx.ZAddArgs(ctx, k, ra)) },
		func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.ZAddArgs(ctx, k, da)) }}
}

func xzincr(name, k string, nx, xx, gt, lt bool, z Z) xop {
	ra, da := zargs(nx, xx, gt, lt, false, z)
	return xop{name,
		func(ctx context.Context, tx redis.Pipeliner) func() string { return rincr(tx.ZAddArgsIncr(ctx, k, ra)) },
		func(ctx context.Context, tx Pipeliner) string { return dincr(tx.ZAddArgsIncr(ctx, k, da)) }}
}

func xzrange(name string, z ZRangeArgs) xop {
	rz := redis.ZRangeArgs{Key: z.Key, Start: z.Start, Stop: z.Stop, ByScore: z.ByScore, ByLex: z.ByLex, Rev: z.Rev, Offset: z.Offset, Count: z.Count}
	return xop{name,
		func(ctx context.Context, tx redis.Pipeliner) func() string { return rstrs(tx.ZRangeArgs(ctx, rz)) },
		func(ctx context.Context, tx Pipeliner) string { return dstrs(tx.ZRangeArgs(ctx, z)) }}
}

func xzall(name, k string) xop {
	return xop{name,
		func(ctx context.Context, tx redis.Pipeliner) func() string {
			return rzsl(tx.ZRangeWithScores(ctx, k, 0, -1))
		},
		func(ctx context.Context, tx Pipeliner) string {
			return xzs(tx.ZRangeArgsWithScores(ctx, ZRangeArgs{Key: k, Start: "0", Stop: "-1"}))
		}}
}

// xcmd is a command with an integer reply, given as its words: sent as
// they are to redis-server (Do), and run on the Pipeliner by pint.
func xcmd(cmd, key string, args ...string) xop {
	words := append([]string{cmd, key}, args...)
	return xop{strings.Join(words, " "),
		func(ctx context.Context, tx redis.Pipeliner) func() string {
			c := tx.Do(ctx, model.MapSlice(words, func(w string) any { return w })...)
			return func() string { return xfmt(c.Int64()) }
		},
		func(ctx context.Context, tx Pipeliner) string { return xfmt(pint(ctx, tx, words)) }}
}

// pint runs the command words on tx (for xcmd).
func pint(ctx context.Context, tx Pipeliner, words []string) (int64, error) {
	k, args := words[1], words[2:]
	num := func(i int) (v float64) {
		if _, err := fmt.Sscan(args[i], &v); err != nil {
			panic(err)
		}
		return v
	}
	cmds := map[string]func() (int64, error){
		"SADD":             func() (int64, error) { return tx.SAdd(ctx, k, args...) },
		"SREM":             func() (int64, error) { return tx.SRem(ctx, k, args...) },
		"SCARD":            func() (int64, error) { return tx.SCard(ctx, k) },
		"ZADD":             func() (int64, error) { return tx.ZAdd(ctx, k, Z{num(0), args[1]}) },
		"ZREM":             func() (int64, error) { return tx.ZRem(ctx, k, args...) },
		"ZCARD":            func() (int64, error) { return tx.ZCard(ctx, k) },
		"ZCOUNT":           func() (int64, error) { return tx.ZCount(ctx, k, args[0], args[1]) },
		"ZLEXCOUNT":        func() (int64, error) { return tx.ZLexCount(ctx, k, args[0], args[1]) },
		"ZREMRANGEBYSCORE": func() (int64, error) { return tx.ZRemRangeByScore(ctx, k, args[0], args[1]) },
		"ZREMRANGEBYLEX":   func() (int64, error) { return tx.ZRemRangeByLex(ctx, k, args[0], args[1]) },
		"ZREMRANGEBYRANK":  func() (int64, error) { return tx.ZRemRangeByRank(ctx, k, int64(num(0)), int64(num(1))) },
		"DEL":              func() (int64, error) { return tx.Del(ctx, words[1:]...) },
		"SINTERSTORE":      func() (int64, error) { return tx.SInterStore(ctx, k, args...) },
		"SUNIONSTORE":      func() (int64, error) { return tx.SUnionStore(ctx, k, args...) },
		"SDIFFSTORE":       func() (int64, error) { return tx.SDiffStore(ctx, k, args...) },
		"ZUNIONSTORE":      func() (int64, error) { return tx.ZUnionStore(ctx, k, &ZStore{Keys: args[1:]}) },
		"ZINTERSTORE":      func() (int64, error) { return tx.ZInterStore(ctx, k, &ZStore{Keys: args[1:]}) },
		"ZDIFFSTORE":       func() (int64, error) { return tx.ZDiffStore(ctx, k, args[1:]...) },
		"ZRANGESTORE": func() (int64, error) {
			return tx.ZRangeStore(ctx, k, ZRangeArgs{Key: args[0], Start: args[1], Stop: args[2]})
		},
		"SINTERCARD": func() (int64, error) { return tx.SInterCard(ctx, 0, args...) },
		"ZINTERCARD": func() (int64, error) { return tx.ZInterCard(ctx, 0, args...) },
		"EXISTS":     func() (int64, error) { return tx.Exists(ctx, words[1:]...) },
	}
	return cmds[words[0]]()
}

// redisKeys is redis-server with the keys deleted, now and after the test.
func redisKeys(t *testing.T, keys ...string) *redis.Client {
	rdb := zRedis(t)
	redisDel(t, rdb, keys...)
	t.Cleanup(func() { redisDel(t, rdb, keys...) })
	return rdb
}

// sameKeys requires the same TYPE and members (or members and scores) of
// the keys p+k on redis-server and through c, outside a transaction.
func sameKeys(t *testing.T, ctx context.Context, rdb *redis.Client, c *Client, p string, keys []string, where string) {
	t.Helper()
	for _, k := range keys {
		typ, err := rdb.Type(ctx, p+k).Result()
		require.NoError(t, err)
		dtyp, err := c.Type(ctx, p+k)
		require.NoError(t, err)
		require.Equal(t, typ, dtyp, "%s: TYPE %s", where, k)
		switch typ {
		case "set":
			rm, err := rdb.SMembers(ctx, p+k).Result()
			require.NoError(t, err)
			dm, err := c.SMembers(ctx, p+k)
			require.NoError(t, err)
			require.ElementsMatch(t, rm, dm, "%s: %s", where, k)
		case "zset":
			rz, err := rdb.ZRangeWithScores(ctx, p+k, 0, -1).Result()
			require.NoError(t, err)
			require.Equal(t, rzs(rz, nil), xzs(c.ZRangeWithScores(ctx, p+k, 0, -1)), "%s: %s", where, k)
		}
	}
}

// inOrder runs steps until one fails.
func inOrder(steps ...func() error) error {
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// watchAdd runs WATCH watched; before(); MULTI; SADD k m; EXEC on c.
func watchAdd(ctx context.Context, c *Client, watched string, before func(), k, m string) error {
	return c.Watch(ctx, func(tx *Tx) error {
		if before != nil {
			before()
		}
		return tx.TxPipelined(ctx, func(p Pipeliner) error {
			_, err := p.SAdd(ctx, k, m)
			return err
		})
	}, watched)
}

// runDiff runs the ops made by ops (given the key prefix) in one MULTI/EXEC
// on redis-server and in one TxPipelined on a fresh client, requires the
// same replies, then the same end state of the keys named (as reads
// outside a transaction: TYPE, then the members).
func runDiff(t *testing.T, ops func(p string) []xop, keys ...string) (*Client, string) {
	t.Helper()
	ctx, c, _, p := setup(t)
	rdb := redisKeys(t, model.MapSlice(keys, func(k string) string { return p + k })...)
	want, got := diffTx(t, ctx, rdb, c, ops(p))
	require.Equal(t, want, got)
	sameKeys(t, ctx, rdb, c, p, keys, "end state")
	checkStoredCounts(t, p)
	return c, p
}

// ZRANGEBYSCORE with a LIMIT whose offset is
// negative, or whose count is 0, answers an empty array in Redis, inside
// MULTI/EXEC as outside, and so does Client.ZRangeArgs. Inside
// TxPipelined redimo answered every member in range (its LIMIT loop
// skipped nothing for a negative offset and took Count > 0 as the only
// limit): LIMIT -1 5 answered [a b c], LIMIT 1 0 [b c]. ZREVRANGEBYLEX
// with the same LIMIT went through the same loop.
func TestExecZRangeLimitEdges(t *testing.T) {
	ranges := func(p string) []ZRangeArgs {
		k := p + "z"
		return []ZRangeArgs{
			{Key: k, Start: "-inf", Stop: "+inf", ByScore: true, Offset: -1, Count: 5},
			{Key: k, Start: "-inf", Stop: "+inf", ByScore: true, Offset: 1, Count: 0},
			{Key: k, Start: "+", Stop: "-", ByLex: true, Rev: true, Offset: -2, Count: 1},
		}
	}
	ctx, c, _, p := setup(t)
	_, err := c.ZAdd(ctx, p+"z", Z{1, "a"}, Z{2, "b"}, Z{3, "c"})
	require.NoError(t, err)
	var outside []string
	for _, z := range ranges(p) {
		outside = append(outside, dstrs(c.ZRangeArgs(ctx, z)))
	}
	require.Equal(t, []string{"[]", "[]", "[]"}, outside, "Client.ZRangeArgs, outside a transaction")

	rdb := redisKeys(t, p+"z")
	require.NoError(t, rdb.ZAdd(ctx, p+"z", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 3, Member: "c"}).Err())
	var ops []xop
	for i, z := range ranges(p) {
		ops = append(ops, xzrange(fmt.Sprint("range ", i), z))
	}
	want, got := diffTx(t, ctx, rdb, c, ops)
	require.Equal(t, []string{"range 0 = []", "range 1 = []", "range 2 = []"}, want, "redis-server")
	require.Equal(t, want, got, "TxPipelined")
}

// Sets in one transaction as Redis answers them: SADD
// then SREM then SCARD on one key, SMOVE onto itself and onto a key of the
// wrong type (WRONGTYPE before looking at the member), DEL then SADD (the
// key's expiry goes with DEL), SPOP of everything then EXISTS/TYPE, and
// a sorted set made where a set was deleted.
func TestExecSetSequence(t *testing.T) {
	runDiff(t, func(p string) []xop {
		s, d, z := p+"s", p+"d", p+"z"
		return []xop{
			xcmd("SADD", s, "a", "b", "c", "a"),
			xcmd("SREM", s, "a", "x", "a"),
			xcmd("SCARD", s),
			xzadd("ZADD z", z, false, false, false, false, false, Z{1, "m"}),
			xop{"SMOVE s s", func(ctx context.Context, tx redis.Pipeliner) func() string { return rbool(tx.SMove(ctx, s, s, "b")) },
				func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.SMove(ctx, s, s, "b")) }},
			xop{"SMOVE s z (wrong type)", func(ctx context.Context, tx redis.Pipeliner) func() string { return rbool(tx.SMove(ctx, s, z, "nope")) },
				func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.SMove(ctx, s, z, "nope")) }},
			xop{"SMOVE s d", func(ctx context.Context, tx redis.Pipeliner) func() string { return rbool(tx.SMove(ctx, s, d, "b")) },
				func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.SMove(ctx, s, d, "b")) }},
			xop{"EXPIRE d", func(ctx context.Context, tx redis.Pipeliner) func() string {
				return rbool(tx.Expire(ctx, d, time.Hour))
			},
				func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.Expire(ctx, d, time.Hour)) }},
			xcmd("DEL", d, d),
			xcmd("SADD", d, "b"),
			xop{"PEXPIRETIME d", func(ctx context.Context, tx redis.Pipeliner) func() string {
				cmd := tx.Do(ctx, "pexpiretime", d)
				return func() string { return xfmt(cmd.Int64()) }
			}, func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.PExpireTime(ctx, d)) }},
			xop{"SPOP s 5", func(ctx context.Context, tx redis.Pipeliner) func() string { return rstrs(tx.SPopN(ctx, s, 5)) },
				func(ctx context.Context, tx Pipeliner) string { return dstrs(tx.SPopN(ctx, s, 5)) }},
			xcmd("EXISTS", s, d, s),
			xcmd("DEL", z),
			xcmd("SADD", z, "m"),
			xzadd("ZADD s (was a set, now missing)", s, false, false, false, false, false, Z{2, "c"}),
		}
	}, "s", "d", "z")
}

// A key longer than model.InlineKeyLen
// (2047 bytes) keeps its whole self in its metadata item's kk, which KEYS
// and SCAN read to name it. SADD outside a transaction writes kk; the
// same SADD inside TxPipelined created the metadata item without it:
// KEYS answered [] where Redis (and the Client's SADD) answer [key].
func TestExecLongKeyCreatedInExec(t *testing.T) {
	ctx, c, _, p := setup(t, ownTable(t)) // KEYS below
	outside := p + "out" + strings.Repeat("k", model.InlineKeyLen+10)
	inside := p + "in" + strings.Repeat("k", model.InlineKeyLen+10)
	_, err := c.SAdd(ctx, outside, "a")
	require.NoError(t, err)
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.SAdd(ctx, inside, "a")
		return err
	}))
	n, err := c.Exists(ctx, inside)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	got, err := c.Keys(ctx, p+"*")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{shortQ(outside), shortQ(inside)}, model.MapSlice(got, shortQ), "KEYS %s*", p)
}

// WATCH a set whose members all expired
// (SADDEX 1 s, 2 s ago): for Redis (and every Client command) the key is
// missing when watched and still missing at EXEC, nobody wrote it, so
// EXEC commits (as in Redis 7.0 for a key already expired when watched).
// WatchKeys read the metadata item, whose stored count still included
// the expired members; EXEC's touchWatched then read it through use,
// which swept the expired members first and so deleted the key: the
// version changed and EXEC failed with ErrTxFailed, a write of its own
// making reported as another client's. The same for a key with one live
// member and one expired (second case).
func TestExecWatchAllExpiredMembers(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	k := p + "s"
	_, err := c.SAddEx(ctx, k, time.Second, false, "a", "b")
	require.NoError(t, err)
	clock.Add(2 * time.Second) // a and b expire: a missing key for Redis
	require.NoError(t, watchAdd(ctx, c, k, nil, k, "x"), "EXEC after WATCH of a key missing throughout")

	// The same with one member expired and one live: the key is {live}
	// when watched and at EXEC.
	k2 := p + "s2"
	_, err = c.SAdd(ctx, k2, "live")
	require.NoError(t, err)
	_, err = c.SAddEx(ctx, k2, time.Second, false, "gone")
	require.NoError(t, err)
	clock.Add(2 * time.Second)
	require.NoError(t, watchAdd(ctx, c, k2, nil, k2, "x"), "EXEC after WATCH of a key unchanged throughout")
}

// WATCH semantics: a key whose expiry passes between
// WATCH and EXEC aborts EXEC (Redis 7.0 too: isWatchedKeyExpired, checked
// here on redis-server), a write by another client aborts it, and a
// watched key only read by the transaction commits when untouched.
func TestExecWatchExpiryAndWrites(t *testing.T) {
	ctx, c, p, clock := setupClocked(t)
	rk := p + "redis"
	rdb := redisKeys(t, rk, rk+"other")
	require.NoError(t, rdb.SAdd(ctx, rk, "a").Err())
	require.NoError(t, rdb.PExpire(ctx, rk, 100*time.Millisecond).Err())
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		time.Sleep(200 * time.Millisecond)
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.SAdd(ctx, rk+"other", "x")
			return nil
		})
		return err
	}, rk)
	require.ErrorIs(t, err, redis.TxFailedErr, "redis-server: a watched key that expired aborts EXEC")

	k, o := p+"k", p+"o"
	_, err = c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	_, err = c.Expire(ctx, k, time.Second)
	require.NoError(t, err)
	err = watchAdd(ctx, c, k, func() { clock.Add(2 * time.Second) }, o, "x")
	require.ErrorIs(t, err, ErrTxFailed, "key expired between WATCH and EXEC")

	_, err = c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	other, _, _ := newTestClient(t, func(o *Options) { o.TableName = c.opts.TableName; o.Now = clock.Now })
	err = watchAdd(ctx, c, k, func() { require.NoError(t, errOf(other.SAdd(ctx, k, "b"))) }, o, "y")
	require.ErrorIs(t, err, ErrTxFailed, "another client wrote the watched key")

	err = c.Watch(ctx, func(tx *Tx) error {
		return tx.TxPipelined(ctx, func(p Pipeliner) error {
			if _, err := p.SCard(ctx, k); err != nil {
				return err
			}
			_, err := p.SAdd(ctx, o, "z")
			return err
		})
	}, k)
	require.NoError(t, err)
	got, err := c.SMembers(ctx, o)
	require.NoError(t, err)
	require.Equal(t, []string{"z"}, got, "nothing of the aborted transactions landed")
}

// Member expiries across DEL then SADD, SMOVE and
// ZREM then ZADD inside one transaction, against the same commands run
// one by one outside a transaction: a member deleted and added again has
// no expiry, a moved member joins its destination without one, a
// re-scored member keeps its own; stored n and mn match the items.
func TestExecMemberExpiryAcrossRewrites(t *testing.T) {
	type result struct {
		sttl, dttl, zttl []int64
		smembers         []string
		zs               string
	}
	run := func(inTx bool) result {
		ctx, c, p, _ := setupClocked(t)
		s, d, z := p+"s", p+"d", p+"z"
		_, err := c.SAdd(ctx, s, "a", "b", "c")
		require.NoError(t, err)
		_, err = c.SExpire(ctx, s, time.Minute, ExpireAlways, "a", "b", "c")
		require.NoError(t, err)
		_, err = c.ZAdd(ctx, z, Z{1, "a"}, Z{2, "b"}, Z{3, "c"})
		require.NoError(t, err)
		_, err = c.ZExpire(ctx, z, time.Minute, ExpireAlways, "a", "b")
		require.NoError(t, err)
		body := func(tx Pipeliner) error {
			return inOrder(
				func() error { return errOf(tx.SMove(ctx, s, d, "c")) },
				func() error { return errOf(tx.Del(ctx, s)) },
				func() error { return errOf(tx.SAdd(ctx, s, "a", "x")) },
				func() error { return errOf(tx.ZRem(ctx, z, "a")) },
				func() error { return errOf(tx.ZAdd(ctx, z, Z{1, "a"})) },
				func() error { return errOf(tx.ZIncrBy(ctx, z, 5, "b")) },
				func() error { return errOf(tx.ZAddArgs(ctx, z, ZAddArgs{GT: true, Members: []Z{{0, "b"}}})) },
			)
		}
		if inTx {
			require.NoError(t, c.TxPipelined(ctx, body))
		} else {
			require.NoError(t, body(c))
		}
		var r result
		r.sttl, err = c.STTL(ctx, s, "a", "x")
		require.NoError(t, err)
		r.dttl, err = c.STTL(ctx, d, "c")
		require.NoError(t, err)
		r.zttl, err = c.ZTTL(ctx, z, "a", "b", "c")
		require.NoError(t, err)
		r.smembers, err = c.SMembers(ctx, s)
		require.NoError(t, err)
		r.zs = xzs(c.ZRangeWithScores(ctx, z, 0, -1))
		checkStoredCounts(t, p)
		return r
	}
	require.Equal(t, run(false), run(true))
}

// rankTruth checks the members' ZRANK (and every fifth's ZREVRANK)
// through c against truth (member → score), ordered as Redis orders
// them: every member's in the full suite; in the everyday one both ends'
// and a third of the others', drawn from the run's seed (testenv.Sample).
func rankTruth(t *testing.T, c *Client, k string, truth map[string]float64, step string) {
	t.Helper()
	ctx := context.Background()
	keep := testenv.Sample(t, 0, 0.35)
	zs := make([]Z, 0, len(truth))
	for m, s := range truth {
		zs = append(zs, Z{Score: s, Member: m})
	}
	zs = sortZ(zs)
	n, err := c.ZCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, len(zs), n, step)
	for i, z := range zs {
		if keep() || i == 0 || i == len(zs)-1 {
			r, ok, err := c.ZRank(ctx, k, z.Member)
			require.NoError(t, err)
			require.True(t, ok, "%s: %s", step, z.Member)
			require.EqualValues(t, i, r, "%s: ZRANK %s", step, z.Member)
		}
		if i%5 != 0 {
			continue
		}
		r, ok, err := c.ZRevRank(ctx, k, z.Member)
		require.NoError(t, err)
		require.True(t, ok)
		require.EqualValues(t, len(zs)-1-i, r, "%s: ZREVRANK %s", step, z.Member)
	}
}

// rankedRight checks k's ranks through each client against truth
// (rankTruth), then its count items and stored counts through c.
func rankedRight(t *testing.T, c *Client, k string, truth map[string]float64, step string, through ...*Client) {
	t.Helper()
	for _, cl := range through {
		who := "writer"
		if cl != c {
			who = "other client"
		}
		rankTruth(t, cl, k, truth, step+", "+who)
	}
	checkRankItems(t, c, k)
	checkStoredCounts(t, k)
}

// rankedPair is a ranked sorted set k of n members m000... (score i) with
// count items built, and two clients on it that both know its ranges.
func rankedPair(t *testing.T, n int) (c, c2 *Client, k string, truth map[string]float64) {
	c, _, p := rankedClient(t, 8, 20)
	c2, _, _ = rankedClient(t, 8, 20)
	k = p + "z"
	require.Greater(t, buildRanked(t, c, k, n, n), 5)
	truth = map[string]float64{}
	for i := range n {
		truth[fmt.Sprintf("m%03d", i)] = float64(i)
	}
	rankTruth(t, c2, k, truth, "built") // c2 reads the ranges too
	return c, c2, k, truth
}

// A ranked sorted set (count items) written inside
// EXEC: new members, removals by rank, score and range, a ZINCRBY across
// ranges, a pop, and an expiry set in the same transaction; afterwards
// ranks through the writing client and through another client that knew
// the old ranges match the truth, and the count items recount exactly.
func TestExecRankedWrittenInExec(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx := context.Background()
	c, c2, k, truth := rankedPair(t, 120)
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		return inOrder(
			func() error { return errOf(tx.ZAdd(ctx, k, Z{-1, "new0"}, Z{55.5, "new1"}, Z{500, "new2"})) },
			func() error { return errOf(tx.ZRemRangeByRank(ctx, k, 10, 14)) },
			func() error { return errOf(tx.ZRemRangeByScore(ctx, k, "(80", "83")) },
			func() error { return errOf(tx.ZIncrBy(ctx, k, 100, "m003")) },
			func() error { return errOf(tx.ZPopMax(ctx, k)) },
			func() error { return errOf(tx.Expire(ctx, k, time.Hour)) },
		)
	}))
	truth["new0"], truth["new1"] = -1, 55.5
	for _, m := range []string{"m009", "m010", "m011", "m012", "m013", "m081", "m082", "m083"} {
		delete(truth, m)
	}
	truth["m003"] = 103
	rankedRight(t, c, k, truth, "after EXEC", c, c2)
}

// A ranked sorted set whose EXEC has no room for its
// count items (members written + metadata + count items > 100) is
// unranked instead (exec.go commit); another client that still believes
// it ranked then writes and ranks it: its ranks stay exact and, once
// rebuilt, its count items recount.
func TestExecRankedOverflowUnranks(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	ctx := context.Background()
	c, c2, k, truth := rankedPair(t, 200)
	var zs []Z
	for i := range 90 { // one new member in each range, and more
		m := fmt.Sprintf("n%03d", i)
		zs = append(zs, Z{Score: float64(i*2) + 0.5, Member: m})
		truth[m] = float64(i*2) + 0.5
	}
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.ZAdd(ctx, k, zs...)
		return err
	}))
	_, ranked := rawGet(t, model.MetaKey(k))[model.AttrRanked]
	require.False(t, ranked, "unranked: no room for its count items")
	_, err := c2.ZAdd(ctx, k, Z{-5, "late"})
	require.NoError(t, err)
	_, err = c2.ZRem(ctx, k, "m100")
	require.NoError(t, err)
	truth["late"] = -5
	delete(truth, "m100")
	rankedRight(t, c, k, truth, "after the unranking EXEC", c2, c)
}

// Another client's transaction that
// removes a member and adds it back (MULTI; SREM s a; SADD s a; EXEC), or
// re-scores one and back (ZADD z 5 a; ZADD z 1 a), writes the watched key
// twice: Redis aborts the watcher's EXEC (checked here on redis-server),
// and so does redimo when the same commands run one by one outside a
// transaction (each stores a new version token). Inside one TxPipelined
// the net change is nil, so the commit wrote no member item and only a
// ConditionCheck on the metadata item: no new version, and the watcher's
// EXEC committed.
func TestExecWatchSeesNetZeroExec(t *testing.T) {
	ctx, c, _, p := setup(t)
	rs := p + "redis"
	rdb := redisKeys(t, rs, rs+"o")
	require.NoError(t, rdb.SAdd(ctx, rs, "a").Err())
	rdb2 := zRedis(t)
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		_, err := rdb2.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.SRem(ctx, rs, "a")
			p.SAdd(ctx, rs, "a")
			return nil
		})
		require.NoError(t, err)
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.SAdd(ctx, rs+"o", "x")
			return nil
		})
		return err
	}, rs)
	require.ErrorIs(t, err, redis.TxFailedErr, "redis-server")

	s, z, o := p+"s", p+"z", p+"o"
	_, err = c.SAdd(ctx, s, "a")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, z, Z{1, "a"})
	require.NoError(t, err)
	other, _, _ := newTestClient(t)
	watchAcross := func(key string, write func() error) error {
		return watchAdd(ctx, c, key, func() { require.NoError(t, write()) }, o, "x")
	}
	err = watchAcross(s, func() error {
		return inOrder(func() error { return errOf(other.SRem(ctx, s, "a")) },
			func() error { return errOf(other.SAdd(ctx, s, "a")) })
	})
	require.ErrorIs(t, err, ErrTxFailed, "SREM then SADD outside a transaction")
	for _, c := range []struct {
		name  string
		write func(tx Pipeliner) error
	}{
		{"SREM s a; SADD s a", func(tx Pipeliner) error {
			return inOrder(func() error { return errOf(tx.SRem(ctx, s, "a")) },
				func() error { return errOf(tx.SAdd(ctx, s, "a")) })
		}},
		{"ZADD z 5 a; ZADD z 1 a", func(tx Pipeliner) error {
			return inOrder(func() error { return errOf(tx.ZAdd(ctx, z, Z{5, "a"})) },
				func() error { return errOf(tx.ZAdd(ctx, z, Z{1, "a"})) })
		}},
	} {
		key := s
		if strings.HasPrefix(c.name, "ZADD") {
			key = z
		}
		err = watchAcross(key, func() error { return other.TxPipelined(ctx, c.write) })
		require.ErrorIs(t, err, ErrTxFailed, "another client's MULTI; %s; EXEC", c.name)
	}
}

// Long members (> 1015 bytes, two sharing their first
// 1015 bytes) through a transaction as Redis answers them: ZADD, ZINCRBY,
// ZRANK, ZRANGEBYLEX, ZREM, SADD, SMOVE, SISMEMBER, SPOP, and the end
// state and stored counts.
func TestExecLongMembers(t *testing.T) {
	shared := strings.Repeat("x", model.InlineMemberLen)
	l1, l2, l3 := shared+"1", shared+"2", shared+"22"
	runDiff(t, func(p string) []xop {
		z, s, d := p+"z", p+"s", p+"d"
		return []xop{
			xzadd("ZADD", z, false, false, false, false, false, Z{1, l2}, Z{1, l1}, Z{1, shared}, Z{0, l3}),
			xop{"ZINCRBY", func(ctx context.Context, tx redis.Pipeliner) func() string { return rincr(tx.ZIncrBy(ctx, z, 1, l3)) },
				func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.ZIncrBy(ctx, z, 1, l3)) }},
			xop{"ZRANK", func(ctx context.Context, tx redis.Pipeliner) func() string { return rint(tx.ZRank(ctx, z, l2)) },
				func(ctx context.Context, tx Pipeliner) string {
					r, _, err := tx.ZRank(ctx, z, l2)
					return xfmt(r, err)
				}},
			xzrange("ZRANGEBYLEX", ZRangeArgs{Key: z, Start: "(" + shared, Stop: "[" + l2, ByLex: true}),
			xcmd("ZREM", z, l1, l1+"no"),
			xcmd("SADD", s, l1, l2, l3),
			xop{"SMOVE", func(ctx context.Context, tx redis.Pipeliner) func() string { return rbool(tx.SMove(ctx, s, d, l2)) },
				func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.SMove(ctx, s, d, l2)) }},
			xop{"SISMEMBER", func(ctx context.Context, tx redis.Pipeliner) func() string { return rbool(tx.SIsMember(ctx, s, l2)) },
				func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.SIsMember(ctx, s, l2)) }},
			xcmd("SREM", s, l1),
			xop{"SPOP", func(ctx context.Context, tx redis.Pipeliner) func() string { return rstrs(tx.SPopN(ctx, s, 3)) },
				func(ctx context.Context, tx Pipeliner) string { return dstrs(tx.SPopN(ctx, s, 3)) }},
			xzall("ZRANGE", z),
		}
	}, "z", "s", "d")
}

// Concurrent transactions read-modify-write the same
// sorted-set member and set: every ZINCRBY inside TxPipelined lands once
// (the commit is conditioned on the key as read, and fn runs again on a
// conflict), and the stored counts stay exact.
func TestExecConcurrentIncrements(t *testing.T) {
	ctx, c, _, p := setup(t)
	z, s := p+"z", p+"s"
	const workers, each = 3, 6
	runWorkers(workers, func(w int) {
		cw, _, _ := newTestClient(t)
		for i := range each {
			err := cw.TxPipelined(ctx, func(tx Pipeliner) error {
				if _, err := tx.ZIncrBy(ctx, z, 1, "a"); err != nil {
					return err
				}
				n, err := tx.SCard(ctx, s)
				if err != nil {
					return err
				}
				_, err = tx.SAdd(ctx, s, fmt.Sprintf("w%d-%d-%d", w, i, n))
				return err
			})
			assert.NoError(t, err)
		}
	})
	score, ok, err := c.ZScore(ctx, z, "a")
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, workers*each, score)
	members, err := c.SMembers(ctx, s)
	require.NoError(t, err)
	require.Len(t, members, workers*each)
	seen := map[string]bool{}
	for _, m := range members { // each saw a different SCARD: serializable
		n := m[strings.LastIndex(m, "-")+1:]
		require.False(t, seen[n], "two transactions saw SCARD %s", n)
		seen[n] = true
	}
	checkStoredCounts(t, p)
}

// A ranked sorted set deleted inside EXEC (its count
// items stay behind, ignored), then made again outside; and one deleted
// and refilled in the same EXEC (it stays ranked, its count items
// adjusted): ranks through another client that knew the old ranges stay
// exact.
func TestExecRankedDeletedInExec(t *testing.T) {
	ctx := context.Background()
	c, c2, k, _ := rankedPair(t, 60)
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		_, err := tx.Del(ctx, k)
		return err
	}))
	_, err := c.ZAdd(ctx, k, Z{3, "x"}, Z{1, "y"}, Z{2, "m000"})
	require.NoError(t, err)
	truth := map[string]float64{"x": 3, "y": 1, "m000": 2}
	rankTruth(t, c2, k, truth, "deleted in EXEC, made again")

	c, c2, k, _ = rankedPair(t, 60)
	require.NoError(t, c.TxPipelined(ctx, func(tx Pipeliner) error {
		if _, err := tx.Del(ctx, k); err != nil {
			return err
		}
		_, err := tx.ZAdd(ctx, k, Z{3, "x"}, Z{1, "y"}, Z{2, "m000"}, Z{30, "m030"})
		return err
	}))
	truth = map[string]float64{"x": 3, "y": 1, "m000": 2, "m030": 30}
	rankedRight(t, c, k, truth, "deleted and refilled in one EXEC", c2)
}

// Bad input inside a transaction is
// refused before anything is read or written, as outside it; but the
// error named another command than the Client's twin: ZCOUNT, ZLEXCOUNT,
// ZREMRANGEBYSCORE and ZREMRANGEBYLEX inside TxPipelined went through
// zrange and answered "ZRANGE ..." ArgErrors where Client.ZCount answers
// "ZCOUNT ..." and so on (ZREMRANGEBYRANK was right); ExpireAtWith with
// a bad condition answered "EXPIRE ..." where the Client's answers
// "EXPIREAT ...". The other bad inputs (flags, NaN, counts, pop orders,
// conditions) answer as the Client does, and nothing is written.
func TestExecBadInputErrors(t *testing.T) {
	ctx, c, cnt, p := setup(t)
	k := p + "z"
	_, err := c.ZAdd(ctx, k, Z{1, "a"})
	require.NoError(t, err)
	cases := []struct {
		name string
		run  func(x Pipeliner) error
	}{
		{"ZCOUNT", func(x Pipeliner) error { _, err := x.ZCount(ctx, k, "x", "1"); return err }},
		{"ZLEXCOUNT", func(x Pipeliner) error { _, err := x.ZLexCount(ctx, k, "x", "[a"); return err }},
		{"ZREMRANGEBYSCORE", func(x Pipeliner) error { _, err := x.ZRemRangeByScore(ctx, k, "1", "(x"); return err }},
		{"ZREMRANGEBYLEX", func(x Pipeliner) error { _, err := x.ZRemRangeByLex(ctx, k, "a", "[b"); return err }},
		{"ZRANGE BYSCORE BYLEX", func(x Pipeliner) error {
			_, err := x.ZRangeArgs(ctx, ZRangeArgs{Key: k, Start: "0", Stop: "1", ByScore: true, ByLex: true})
			return err
		}},
		{"ZRANGE LIMIT by rank", func(x Pipeliner) error {
			_, err := x.ZRangeArgs(ctx, ZRangeArgs{Key: k, Start: "0", Stop: "1", Offset: 1, Count: 1})
			return err
		}},
		{"ZRANGE rank not integer", func(x Pipeliner) error {
			_, err := x.ZRangeArgs(ctx, ZRangeArgs{Key: k, Start: "0", Stop: "1.5"})
			return err
		}},
		{"ZADD NX XX", func(x Pipeliner) error {
			_, err := x.ZAddArgs(ctx, k, ZAddArgs{NX: true, XX: true, Members: []Z{{1, "b"}}})
			return err
		}},
		{"ZADD GT NX", func(x Pipeliner) error {
			_, err := x.ZAddArgs(ctx, k, ZAddArgs{NX: true, GT: true, Members: []Z{{1, "b"}}})
			return err
		}},
		{"ZADD NaN", func(x Pipeliner) error { _, err := x.ZAdd(ctx, k, Z{2, "b"}, Z{math.NaN(), "c"}); return err }},
		{"ZADD INCR 2 members", func(x Pipeliner) error {
			_, _, err := x.ZAddArgsIncr(ctx, k, ZAddArgs{Members: []Z{{1, "b"}, {1, "c"}}})
			return err
		}},
		{"ZINCRBY NaN", func(x Pipeliner) error { _, err := x.ZIncrBy(ctx, k, math.NaN(), "a"); return err }},
		{"SPOP -1", func(x Pipeliner) error { _, err := x.SPopN(ctx, p+"s", -1); return err }},
		{"ZPOPMIN -1", func(x Pipeliner) error { _, err := x.ZPopMin(ctx, k, -1); return err }},
		{"ZPOPMAX 1 2", func(x Pipeliner) error { _, err := x.ZPopMax(ctx, k, 1, 2); return err }},
		{"ZMPOP 0", func(x Pipeliner) error { _, _, err := x.ZMPop(ctx, PopMin, 0, k); return err }},
		{"ZMPOP order", func(x Pipeliner) error { _, _, err := x.ZMPop(ctx, PopOrder(9), 1, k); return err }},
		{"EXPIRE cond", func(x Pipeliner) error {
			_, err := x.ExpireAtWith(ctx, k, time.Now().Add(time.Hour), ExpireCondition(99))
			return err
		}},
		{"DEL no keys", func(x Pipeliner) error { _, err := x.Del(ctx); return err }},
		{"SADD no members", func(x Pipeliner) error { _, err := x.SAdd(ctx, p+"s"); return err }},
	}
	for _, tc := range cases {
		outside := tc.run(c)
		require.Error(t, outside, tc.name)
		cnt.reset()
		var inside error
		require.NoError(t, c.TxPipelined(ctx, func(x Pipeliner) error {
			inside = tc.run(x)
			return nil
		}))
		require.Equal(t, fmt.Sprint(outside), fmt.Sprint(inside), tc.name)
		require.Zero(t, cnt.byOp["TransactWriteItems"], "%s: nothing written", tc.name)
	}
	got, err := c.ZRangeWithScores(ctx, k, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []Z{{1, "a"}}, got)
}

// rnil formats a go-redis reply that may be nil (redis.Nil) as "nil".
func rnil(v any, err error) string {
	if errors.Is(err, redis.Nil) {
		return "nil"
	}
	return xfmt(v, err)
}

// sign maps a PEXPIRETIME reply to -2, -1 or "at" (clocks differ).
func sign(v int64, err error) string {
	if v > 0 {
		return "at" + xerr(err)
	}
	return xfmt(v, err)
}

// randomTxOp is one random command on the review's keys: sets s1 s2,
// sorted sets z1 z2, and l (all scores 0, for the lex commands); keys are
// picked from all five so that WRONGTYPE answers are compared too.
func randomTxOp(r *rand.Rand, p string) xop {
	keys := []string{p + "s1", p + "s2", p + "z1", p + "z2", p + "l"}
	pool := []string{"a", "b", "c", "d", "e", "f"}
	key := func() string { return keys[r.IntN(len(keys))] }
	set := func() string { // a set key mostly
		if r.IntN(5) == 0 {
			return key()
		}
		return keys[r.IntN(2)]
	}
	zkey := func() string { // never l: a score other than 0 there would
		// make the lex commands' answer unspecified (Redis's differs)
		if r.IntN(5) == 0 {
			return keys[r.IntN(4)]
		}
		return keys[2+r.IntN(2)]
	}
	mem := func() string { return pool[r.IntN(len(pool))] }
	mems := func() []string {
		out := make([]string, 1+r.IntN(3))
		for i := range out {
			out[i] = mem()
		}
		return out
	}
	anys := func(ms []string) []any {
		out := make([]any, len(ms))
		for i, m := range ms {
			out[i] = m
		}
		return out
	}
	score := func() float64 { return float64(r.IntN(9)-4) / 2 }
	// edge is a range bound: either end, or v() open or closed.
	edge := func(minus, plus, closed string, v func() string) string {
		switch r.IntN(6) {
		case 0:
			return minus
		case 1:
			return plus
		case 2:
			return "(" + v()
		}
		return closed + v()
	}
	bound := func() string { return edge("-inf", "+inf", "", func() string { return fmt.Sprint(score()) }) }
	lex := func() string { return edge("-", "+", "[", mem) }
	sortedStrs := func(v []string, err error) string { return dstrs(sorted(v), err) }
	if r.IntN(4) == 0 {
		return randomTxKeyOp(r, key, func() string { return keys[r.IntN(4)] }, set, zkey)
	}
	switch r.IntN(30) {
	case 0, 1, 2: // SADD twice as often as SREM
		return xcmd([]string{"SADD", "SADD", "SREM"}[r.IntN(3)], set(), mems()...)
	case 3:
		return xcmd("SCARD", set())
	case 4:
		k, ms := set(), mems()
		return xop{"SMISMEMBER " + k + fmt.Sprint(ms),
			func(ctx context.Context, tx redis.Pipeliner) func() string {
				return later(tx.SMIsMember(ctx, k, anys(ms)...), xfmt)
			},
			func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.SMIsMember(ctx, k, ms...)) }}
	case 5:
		k := set()
		return xop{"SMEMBERS " + k, func(ctx context.Context, tx redis.Pipeliner) func() string {
			return later(tx.SMembers(ctx, k), sortedStrs)
		},
			func(ctx context.Context, tx Pipeliner) string { return sortedStrs(tx.SMembers(ctx, k)) }}
	case 6:
		src, dst, m := set(), set(), mem()
		return xop{"SMOVE " + src + " " + dst + " " + m, func(ctx context.Context, tx redis.Pipeliner) func() string { return rbool(tx.SMove(ctx, src, dst, m)) },
			func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.SMove(ctx, src, dst, m)) }}
	case 7:
		k := set()
		return xop{"SPOP all " + k, func(ctx context.Context, tx redis.Pipeliner) func() string {
			return later(tx.SPopN(ctx, k, 10), sortedStrs)
		},
			func(ctx context.Context, tx Pipeliner) string { return sortedStrs(tx.SPopN(ctx, k, 10)) }}
	case 8, 9, 10:
		k := zkey()
		var zs []Z
		for range 1 + r.IntN(3) {
			zs = append(zs, Z{score(), mem()})
		}
		flags := [][5]bool{{}, {true}, {false, true}, {false, false, true}, {false, false, false, true}, {false, true, true}, {false, true, false, true}}[r.IntN(7)]
		ch := r.IntN(2) == 0
		return xzadd(fmt.Sprintf("ZADD %s %v ch=%v %v", k, flags, ch, zs), k, flags[0], flags[1], flags[2], flags[3], ch, zs...)
	case 11:
		k := zkey()
		flags := [][5]bool{{}, {true}, {false, true}, {false, false, true}, {false, false, false, true}}[r.IntN(5)]
		z := Z{score(), mem()}
		return xzincr(fmt.Sprintf("ZADD INCR %s %v %v", k, flags, z), k, flags[0], flags[1], flags[2], flags[3], z)
	case 12:
		k, m, by := zkey(), mem(), score()
		return xop{fmt.Sprintf("ZINCRBY %s %g %s", k, by, m), func(ctx context.Context, tx redis.Pipeliner) func() string { return rincr(tx.ZIncrBy(ctx, k, by, m)) },
			func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.ZIncrBy(ctx, k, by, m)) }}
	case 13:
		return xcmd("ZREM", zkey(), mems()...)
	case 14:
		return xcmd("ZCARD", zkey())
	case 15:
		k, m := zkey(), mem()
		return xop{"ZSCORE " + k + " " + m, func(ctx context.Context, tx redis.Pipeliner) func() string { return rincr(tx.ZScore(ctx, k, m)) },
			func(ctx context.Context, tx Pipeliner) string { return dincr(tx.ZScore(ctx, k, m)) }}
	case 16:
		k := zkey()
		start, stop, rev := int64(r.IntN(9)-4), int64(r.IntN(9)-4), r.IntN(2) == 0
		z := ZRangeArgs{Key: k, Start: fmt.Sprint(start), Stop: fmt.Sprint(stop), Rev: rev}
		rz := redis.ZRangeArgs{Key: k, Start: start, Stop: stop, Rev: rev}
		return xop{fmt.Sprintf("ZRANGE %+v WITHSCORES", z), func(ctx context.Context, tx redis.Pipeliner) func() string {
			return rzsl(tx.ZRangeArgsWithScores(ctx, rz))
		}, func(ctx context.Context, tx Pipeliner) string { return xzs(tx.ZRangeArgsWithScores(ctx, z)) }}
	case 17:
		z := ZRangeArgs{Key: zkey(), Start: bound(), Stop: bound(), ByScore: true, Rev: r.IntN(2) == 0}
		if r.IntN(2) == 0 {
			z.Offset, z.Count = int64(r.IntN(3)), int64(r.IntN(4)-1)
			if z.Count == 0 {
				z.Count = 2
			}
		}
		return xzrange(fmt.Sprintf("ZRANGE %+v", z), z)
	case 18:
		return xcmd("ZCOUNT", zkey(), bound(), bound())
	case 19:
		k, m, rev := zkey(), mem(), r.IntN(2) == 0
		return xop{fmt.Sprintf("ZRANK rev=%v %s %s", rev, k, m), func(ctx context.Context, tx redis.Pipeliner) func() string {
			c := tx.ZRank(ctx, k, m)
			if rev {
				c = tx.ZRevRank(ctx, k, m)
			}
			return func() string { return rnil(c.Result()) }
		}, func(ctx context.Context, tx Pipeliner) string {
			f := tx.ZRank
			if rev {
				f = tx.ZRevRank
			}
			n, ok, err := f(ctx, k, m)
			if err == nil && !ok {
				return "nil"
			}
			return xfmt(n, err)
		}}
	case 20:
		return xcmd("ZREMRANGEBYRANK", zkey(), fmt.Sprint(r.IntN(7)-3), fmt.Sprint(r.IntN(7)-3))
	case 21:
		return xcmd("ZREMRANGEBYSCORE", zkey(), bound(), bound())
	case 22:
		k, n, max := zkey(), int64(r.IntN(4)), r.IntN(2) == 0
		return xop{fmt.Sprintf("ZPOP max=%v %s %d", max, k, n), func(ctx context.Context, tx redis.Pipeliner) func() string {
			if max {
				return rzsl(tx.ZPopMax(ctx, k, n))
			}
			return rzsl(tx.ZPopMin(ctx, k, n))
		}, func(ctx context.Context, tx Pipeliner) string {
			if max {
				return xzs(tx.ZPopMax(ctx, k, n))
			}
			return xzs(tx.ZPopMin(ctx, k, n))
		}}
	case 23:
		ks, n, order := []string{zkey(), zkey()}, int64(1+r.IntN(3)), []PopOrder{PopMin, PopMax}[r.IntN(2)]
		return xop{fmt.Sprintf("ZMPOP %v %s %d", ks, order, n), func(ctx context.Context, tx redis.Pipeliner) func() string {
			c := tx.ZMPop(ctx, strings.ToLower(order.String()), n, ks...)
			return func() string {
				k, zs, err := c.Result()
				if errors.Is(err, redis.Nil) {
					err = nil
				}
				return k + " " + rzs(zs, err)
			}
		}, func(ctx context.Context, tx Pipeliner) string {
			k, zs, err := tx.ZMPop(ctx, order, n, ks...)
			return k + " " + xzs(zs, err)
		}}
	case 24:
		return xcmd("ZADD", p+"l", "0", mem())
	case 25:
		z := ZRangeArgs{Key: p + "l", Start: lex(), Stop: lex(), ByLex: true, Rev: r.IntN(2) == 0}
		if r.IntN(2) == 0 {
			z.Offset, z.Count = int64(r.IntN(3)), int64(1+r.IntN(2))
		}
		if r.IntN(3) == 0 {
			return xcmd("ZLEXCOUNT", z.Key, z.Start, z.Stop)
		}
		if r.IntN(3) == 0 {
			return xcmd("ZREMRANGEBYLEX", z.Key, z.Start, z.Stop)
		}
		return xzrange(fmt.Sprintf("ZRANGE %+v", z), z)
	case 26:
		return xcmd([]string{"DEL", "EXISTS"}[r.IntN(2)], key(), key())
	case 27:
		k := key()
		return xop{"TYPE " + k, func(ctx context.Context, tx redis.Pipeliner) func() string { return later(tx.Type(ctx, k), xfmt) },
			func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.Type(ctx, k)) }}
	case 28:
		k := key()
		if r.IntN(2) == 0 {
			return xop{"EXPIRE " + k, func(ctx context.Context, tx redis.Pipeliner) func() string {
				return rbool(tx.Expire(ctx, k, time.Hour))
			},
				func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.Expire(ctx, k, time.Hour)) }}
		}
		return xop{"PERSIST " + k, func(ctx context.Context, tx redis.Pipeliner) func() string { return rbool(tx.Persist(ctx, k)) },
			func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.Persist(ctx, k)) }}
	default:
		k := key()
		return xop{"PEXPIRETIME " + k, func(ctx context.Context, tx redis.Pipeliner) func() string {
			c := tx.Do(ctx, "pexpiretime", k)
			return func() string { return sign(c.Int64()) }
		}, func(ctx context.Context, tx Pipeliner) string { return sign(tx.PExpireTime(ctx, k)) }}
	}
}

// Random transactions of every
// Pipeliner command over two sets, two sorted sets and a lex sorted set
// (keys of each type picked now and then for the others: WRONGTYPE), each
// run as one MULTI/EXEC on redis-server and one TxPipelined, replies
// compared, then the end state and stored counts (runDiff). LIMIT offsets
// are not negative and counts not 0 (TestExecZRangeLimitEdges).
func TestExecRandomTransactions(t *testing.T) {
	ctx, c, _, p := setup(t)
	keys := []string{"s1", "s2", "z1", "z2", "l"}
	rdb := redisKeys(t, model.MapSlice(keys, func(k string) string { return p + k })...)
	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, seed))
	for round := range 40 {
		var ops []xop
		for range 3 + r.IntN(10) {
			ops = append(ops, randomTxOp(r, p))
		}
		want, got := diffTx(t, ctx, rdb, c, ops)
		require.Equal(t, want, got, "seed %d round %d", seed, round)
		sameKeys(t, ctx, rdb, c, p, keys, fmt.Sprintf("seed %d round %d", seed, round))
	}
	checkStoredCounts(t, p)
}

// The WATCH read-modify-write loop
// of go-redis's examples: each worker reads a score through the Tx (the
// Client), then writes score+1 in Tx.TxPipelined, retrying on
// ErrTxFailed; concurrent workers on their own clients lose no increment,
// as with Redis's WATCH.
func TestExecWatchLoopConcurrent(t *testing.T) {
	ctx, c, _, p := setup(t)
	z := p + "z"
	const workers, each = 3, 5
	runWorkers(workers, func(int) {
		cw, _, _ := newTestClient(t)
		for range each {
			for attempt := 0; ; attempt++ {
				err := cw.Watch(ctx, func(tx *Tx) error {
					s, _, err := tx.ZScore(ctx, z, "a")
					if err != nil {
						return err
					}
					return tx.TxPipelined(ctx, func(p Pipeliner) error {
						_, err := p.ZAdd(ctx, z, Z{s + 1, "a"})
						return err
					})
				}, z)
				if errors.Is(err, ErrTxFailed) && attempt < 100 {
					continue
				}
				assert.NoError(t, err)
				break
			}
		}
	})
	s, _, err := c.ZScore(ctx, z, "a")
	require.NoError(t, err)
	require.EqualValues(t, workers*each, s)
	checkStoredCounts(t, p)
}

// WATCH a key longer than
// model.InlineKeyLen (2047 bytes), nobody writes it, EXEC: Redis commits, as
// redimo does for a short key (checked first). EXEC's touchWatched read
// the watched keys with Prefetch, which filed each metadata item under
// its partition key, but a long key's partition key is 'K' + a prefix +
// SHA-256, not the key: the lookup missed, the key was recorded missing
// and EXEC failed with ErrTxFailed however often retried (the WATCH loop
// never ended).
func TestExecWatchLongKey(t *testing.T) {
	ctx, c, _, p := setup(t)
	for _, k := range []string{p + "short", p + "long" + strings.Repeat("k", model.InlineKeyLen)} {
		_, err := c.SAdd(ctx, k, "a")
		require.NoError(t, err)
		err = watchAdd(ctx, c, k, nil, k, "b")
		require.NoError(t, err, "WATCH %s; MULTI; SADD; EXEC, nobody else writing", shortQ(k))
		n, err := c.SCard(ctx, k)
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
	}
}

// Redimo-server runs EXEC as
// ExecWatched with Pipeline.Prefetch of every queued command's keys.
// Prefetch of an existing long key (as above) recorded it missing: SCARD
// inside answered 0 (Redis and Client.SCard: 1), and the commit,
// conditioned on the metadata item being absent, failed on every attempt,
// so even a read-only EXEC ended in ErrContention (Redis: [1], and [1]
// for SADD).
func TestExecPrefetchLongKey(t *testing.T) {
	ctx, c, _, p := setup(t)
	k := p + strings.Repeat("k", model.InlineKeyLen+1)
	_, err := c.SAdd(ctx, k, "a")
	require.NoError(t, err)
	var card int64
	err = c.ExecWatched(ctx, nil, func(tx *Pipeline) error {
		if err := tx.Prefetch(ctx, k); err != nil {
			return err
		}
		var err error
		card, err = tx.SCard(ctx, k)
		return err
	})
	require.NoError(t, err, "a read-only EXEC: its ConditionCheck (absent) fails every time")
	require.EqualValues(t, 1, card, "SCARD after Prefetch")
	err = c.ExecWatched(ctx, nil, func(tx *Pipeline) error {
		if err := tx.Prefetch(ctx, k); err != nil {
			return err
		}
		_, err := tx.SAdd(ctx, k, "b")
		return err
	})
	require.NoError(t, err, "SADD after Prefetch")
}

// Key expiry around transactions, against the same
// commands run one by one through the Client: EXPIRE inside a
// transaction, the expiry passing between transactions (the key is
// missing: EXISTS 0, SADD makes a new key with no expiry), EXPIREAT in
// the past deleting a key made in the same transaction, PERSIST, the GT
// and NX conditions, and PEXPIRETIME after each.
func TestExecKeyExpiryAcrossTransactions(t *testing.T) {
	run := func(inTx bool) []string {
		ctx, c, p, clock := setupClocked(t)
		k, o := p+"k", p+"o"
		var out []string
		step := func(body func(x Pipeliner) []string) {
			if !inTx {
				out = append(out, body(c)...)
				return
			}
			require.NoError(t, c.TxPipelined(ctx, func(x Pipeliner) error {
				out = append(out, body(x)...)
				return nil
			}))
		}
		step(func(x Pipeliner) []string {
			return []string{
				xfmt(x.SAdd(ctx, k, "a", "b")),
				xfmt(x.Expire(ctx, k, time.Second)),
				xfmt(x.ExpireAtWith(ctx, k, clock.Now().Add(time.Hour), ExpireNX)),
				xfmt(x.ExpireAtWith(ctx, k, clock.Now().Add(2*time.Second), ExpireGT)),
				xfmt(x.PExpireTime(ctx, k)),
			}
		})
		clock.Add(2500 * time.Millisecond)
		step(func(x Pipeliner) []string {
			return []string{
				xfmt(x.Exists(ctx, k)),
				xfmt(x.Persist(ctx, k)),
				xfmt(x.SAdd(ctx, k, "c")),
				xfmt(x.SCard(ctx, k)),
				xfmt(x.PExpireTime(ctx, k)),
				xfmt(x.ZAdd(ctx, o, Z{1, "m"})),
				xfmt(x.Expire(ctx, o, time.Minute)),
				xfmt(x.Persist(ctx, o)),
				xfmt(x.ExpireAtWith(ctx, o, clock.Now().Add(-time.Second), ExpireAlways)),
				xfmt(x.Exists(ctx, o, k)),
				xfmt(x.Type(ctx, o)),
			}
		})
		clock.Add(time.Hour)
		step(func(x Pipeliner) []string {
			return []string{xfmt(x.SMembers(ctx, k)), xfmt(x.PExpireTime(ctx, o))}
		})
		checkStoredCounts(t, p)
		return out
	}
	require.Equal(t, run(false), run(true))
}

// EXPIRE with a sub-millisecond
// remainder, on a clock between two milliseconds (now = T + 0.5 ms):
// Client.Expire computes now in ms + d in whole ms, as go-redis sends
// PEXPIRE with d truncated: EXPIRE k 0.7ms is PEXPIRE k 0, which deletes
// the key (reply true, EXISTS 0), and EXPIRE k 1.6ms expires at T + 1.
// Pipeline.Expire computed Now().Add(d) truncated: T + 1.2 ms → T + 1,
// later than now, so the key was kept (EXISTS 1), and 1.6 ms expired at
// T + 2: inside and outside a transaction answered and stored differently.
func TestExecExpireSubMillisecond(t *testing.T) {
	run := func(inTx bool) []string {
		ctx, c, p, clock := setupClocked(t)
		clock.Add(500 * time.Microsecond)
		k, o := p+"k", p+"o"
		_, err := c.SAdd(ctx, k, "a")
		require.NoError(t, err)
		_, err = c.SAdd(ctx, o, "a")
		require.NoError(t, err)
		var out []string
		body := func(x Pipeliner) error {
			out = append(out, xfmt(x.Expire(ctx, k, 700*time.Microsecond)), xfmt(x.Exists(ctx, k)),
				xfmt(x.Expire(ctx, o, 1600*time.Microsecond)), xfmt(x.PExpireTime(ctx, o)))
			return nil
		}
		if inTx {
			require.NoError(t, c.TxPipelined(ctx, body))
		} else {
			require.NoError(t, body(c))
		}
		return out
	}
	outside := run(false)
	require.Equal(t, []string{"true", "0", "true", "1800000000001"}, outside, "Client, outside a transaction")
	require.Equal(t, outside, run(true), "inside TxPipelined")
}

// Two transactions in one Watch function:
// Redis's EXEC unwatches every key (go-redis's Tx then sends the second
// MULTI/EXEC unconditioned, checked here on redis-server), so the second
// commits. redimo's Tx kept comparing the watched keys with their state
// at WATCH, so its own first EXEC, which wrote the watched key, made the
// second fail with ErrTxFailed (and a retry loop around Watch repeated
// the first EXEC's writes).
func TestExecSecondExecAfterWatch(t *testing.T) {
	ctx, c, _, p := setup(t)
	rk := p + "redis"
	rdb := redisKeys(t, rk)
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		for _, m := range []string{"a", "b"} {
			if _, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.SAdd(ctx, rk, m)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	}, rk)
	require.NoError(t, err, "redis-server")
	require.EqualValues(t, 2, rdb.SCard(ctx, rk).Val())

	k := p + "k"
	err = c.Watch(ctx, func(tx *Tx) error {
		for _, m := range []string{"a", "b"} {
			if err := tx.TxPipelined(ctx, func(p Pipeliner) error {
				_, err := p.SAdd(ctx, k, m)
				return err
			}); err != nil {
				return fmt.Errorf("EXEC adding %s: %w", m, err)
			}
		}
		return nil
	}, k)
	require.NoError(t, err)
	n, err := c.SCard(ctx, k)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
}

// randomTxKeyOp is a random command of those a transaction gained with
// the seam (view.go): the STORE commands, the set and sorted-set cards,
// SUNION/SDIFF, RENAME, RENAMENX, COPY, EXPIRE with a condition and TTL,
// on the keys of randomTxOp (key: any; dst: any but the lex sorted set,
// whose scores stay 0; set: mostly sets; zkey: mostly sorted sets).
func randomTxKeyOp(r *rand.Rand, key, dst, set, zkey func() string) xop {
	sortedStrs := func(v []string, err error) string { return dstrs(sorted(v), err) }
	switch r.IntN(12) {
	case 0:
		return xcmd([]string{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}[r.IntN(3)], dst(), set(), set())
	case 1:
		return xcmd([]string{"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"}[r.IntN(3)], dst(), "2", zkey(), zkey())
	case 2:
		return xcmd("ZRANGESTORE", dst(), zkey(), fmt.Sprint(r.IntN(5)-2), fmt.Sprint(r.IntN(5)-2))
	case 3:
		if r.IntN(2) == 0 {
			return xcmd("SINTERCARD", "2", set(), set())
		}
		return xcmd("ZINTERCARD", "2", zkey(), zkey())
	case 4:
		a, b, union := set(), set(), r.IntN(2) == 0
		name := map[bool]string{true: "SUNION", false: "SDIFF"}[union]
		return xop{name + " " + a + " " + b, func(ctx context.Context, tx redis.Pipeliner) func() string {
			if union {
				return later(tx.SUnion(ctx, a, b), sortedStrs)
			}
			return later(tx.SDiff(ctx, a, b), sortedStrs)
		}, func(ctx context.Context, tx Pipeliner) string {
			if union {
				return sortedStrs(tx.SUnion(ctx, a, b))
			}
			return sortedStrs(tx.SDiff(ctx, a, b))
		}}
	case 5, 6:
		a, b := key(), dst()
		return xop{"RENAME " + a + " " + b, func(ctx context.Context, tx redis.Pipeliner) func() string {
			c := tx.Rename(ctx, a, b)
			return func() string { return xerr(c.Err()) }
		}, func(ctx context.Context, tx Pipeliner) string { return xerr(tx.Rename(ctx, a, b)) }}
	case 7:
		a, b := key(), dst()
		return xop{"RENAMENX " + a + " " + b, func(ctx context.Context, tx redis.Pipeliner) func() string { return rbool(tx.RenameNX(ctx, a, b)) },
			func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.RenameNX(ctx, a, b)) }}
	case 8:
		a, b, replace := key(), dst(), r.IntN(2) == 0
		if a == b {
			return xcmd("EXISTS", a)
		}
		return xop{fmt.Sprintf("COPY %s %s replace=%v", a, b, replace), func(ctx context.Context, tx redis.Pipeliner) func() string {
			c := tx.Copy(ctx, a, b, 0, replace)
			return func() string { n, err := c.Result(); return xfmt(n == 1, err) }
		}, func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.Copy(ctx, a, b, replace)) }}
	case 9, 10:
		k, d := key(), time.Duration(1+r.IntN(3))*time.Hour
		cond := []ExpireCondition{ExpireNX, ExpireXX, ExpireGT, ExpireLT}[r.IntN(4)]
		return xop{fmt.Sprintf("EXPIRE %s %v %s", k, d, cond), func(ctx context.Context, tx redis.Pipeliner) func() string {
			f := map[ExpireCondition]func(context.Context, string, time.Duration) *redis.BoolCmd{
				ExpireNX: tx.ExpireNX, ExpireXX: tx.ExpireXX, ExpireGT: tx.ExpireGT, ExpireLT: tx.ExpireLT}[cond]
			return rbool(f(ctx, k, d))
		}, func(ctx context.Context, tx Pipeliner) string { return xfmt(tx.ExpireWith(ctx, k, d, cond)) }}
	default:
		k := key()
		return xop{"TTL " + k, func(ctx context.Context, tx redis.Pipeliner) func() string { return later(tx.TTL(ctx, k), xttl) },
			func(ctx context.Context, tx Pipeliner) string { return xttl(tx.TTL(ctx, k)) }}
	}
}
