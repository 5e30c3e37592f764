package server_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// TestDifferentialPipelined sends random command sequences as whole
// pipelines (one write each) to redimo-server and redis-server and
// compares every reply: commands of a pipeline that run at the same time
// (independent keys, or member writes of different members of one key)
// must answer exactly as one by one. Eight keys or two, so that both
// kinds of runs form; every 15th command is a barrier (PING).
func TestDifferentialPipelined(t *testing.T) {
	randomRuns(t, "REDIMO_PIPELINE", "pipe", 6, 100, func(ts *testServer, seq int, seed uint64, r *rand.Rand, prefix string, length int) {
		var keys []string
		for i := range []int{8, 2}[seq%2] { // 2 keys: runs of member writes of one key
			keys = append(keys, fmt.Sprint(prefix, i))
		}
		got, want := dial(t, ts.addr), dial(t, redisAddr)
		var cmds [][]string
		var unordered []bool
		var raw []byte
		for i := range length {
			out, u := randomCommand(r, keys, prefix)
			if i%15 == 14 {
				out, u = []string{"PING"}, false
			}
			cmds, unordered = append(cmds, out), append(unordered, u)
			raw = append(raw, encode(out...)...)
		}
		got.send(raw)
		want.send(raw)
		for i := range cmds {
			g, w := string(got.read()), string(want.read())
			if unordered[i] {
				g, w = sorted(g, 2), sorted(w, 2)
			}
			if g != w {
				var history []string
				for _, c := range cmds[:i+1] {
					history = append(history, strings.Join(quoteAll(c), " "))
				}
				require.Equal(t, w, g, "seed %d, command %d of the pipeline:\n%s", seed, i, strings.Join(history, "\n"))
			}
		}
		want.do(append([]string{"DEL", prefix + "lex"}, keys...)...)
		got.do(append([]string{"DEL", prefix + "lex"}, keys...)...)
	})
}

// slowTx is a DynamoDBAPI whose transactions take at least d and are
// counted.
type slowTx struct {
	redimo.DynamoDBAPI
	d              time.Duration
	txs            atomic.Int64
	inflight, peak atomic.Int64 // transactions in flight, and the most at once
}

func (s *slowTx) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	s.txs.Add(1)
	now := s.inflight.Add(1)
	for p := s.peak.Load(); now > p && !s.peak.CompareAndSwap(p, now); p = s.peak.Load() {
	}
	defer s.inflight.Add(-1)
	time.Sleep(s.d)
	return s.DynamoDBAPI.TransactWriteItems(ctx, in, opts...)
}

// A pipeline of SADDs on distinct keys runs at once: their transactions
// are in flight together (distinct keys are not combined since issue 23:
// each goes at once); SADDs of one key share transactions.
func TestPipelineRunsIndependentCommandsTogether(t *testing.T) {
	needDB(t)
	db := &slowTx{DynamoDBAPI: testDB, d: 20 * time.Millisecond}
	// Member items: the SADDs' transactions are what is counted (a small
	// set's SADD is one UpdateItem, smallset.go).
	ts := startServer(t, db, server.Config{Client: redimo.NewClient(db, func(o *redimo.Options) { o.TableName = testTable; o.DisableSmallSets = true })})
	c := dial(t, ts.addr)
	prefix := "pipeconc:" + randomHex(4) + ":"
	var raw []byte
	const n = 40
	for i := range n {
		raw = append(raw, encode("SADD", fmt.Sprint(prefix, i), "a", "b")...)
	}
	c.send(raw)
	for range n {
		require.Equal(t, ":2\r\n", string(c.read()))
	}
	t.Logf("%d pipelined SADDs on distinct keys: %d transactions, at most %d at once", n, db.txs.Load(), db.peak.Load())
	require.Greater(t, db.peak.Load(), int64(n/4), "one by one would be 1 at once")
	// One key, distinct members (redis-benchmark -P 16 -t sadd): together.
	db.txs.Store(0)
	raw = nil
	for i := range n {
		raw = append(raw, encode("SADD", prefix+"one", fmt.Sprint("m", i))...)
	}
	c.send(raw)
	for range n {
		require.Equal(t, ":1\r\n", string(c.read()))
	}
	t.Logf("%d pipelined SADDs of distinct members of one key: %d transactions", n, db.txs.Load())
	require.Less(t, db.txs.Load(), int64(n/2))
	// The same key and the same members: in order, replies as Redis's.
	raw = nil
	for i := range 10 {
		raw = append(raw, encode("SADD", prefix+"same", fmt.Sprint("m", i%3))...)
	}
	c.send(raw)
	for i := range 10 {
		want := ":0\r\n"
		if i < 3 {
			want = ":1\r\n"
		}
		require.Equal(t, want, string(c.read()), "SADD %d on one key", i)
	}
}

// A pipeline of 40 commands in one write, mixing replies and
// errors of every kind (unknown command, arity, WRONGTYPE, not a float,
// syntax), member writes to one key that run at once, and a type change
// of a key in the middle: the replies come in order, the same bytes as
// redis-server's.
func TestServerPipelineMixedErrors(t *testing.T) {
	ts := pairedServer(t)
	k := "diff:pipe:" + randomHex(4) + ":"
	var in []byte
	for i := range 4 {
		for _, cmd := range [][]string{
			{"ZADD", k + "m", "1", "a"}, {"SADD", k + "m", "b"}, {"SCARD", k + "nosuch"}, {"ZADD", k + "m", "x", "a"},
			{"FOO", "bar"}, {"ZINCRBY", k + "m", "1", "a"}, {"SADD"}, {"ZADD", k + "m", "2", "b" + fmt.Sprint(i)},
			{"ZRANGE", k + "m", "0", "-1", "WITHSCORES"}, {"ZRANGE", k + "m", "0", "1", "BYLEX"},
			{"DEL", k + "m"}, {"SADD", k + "m", "s"}, {"SREM", k + "m", "s"},
		} {
			in = append(in, encode(cmd...)...)
		}
	}
	requireSameRaw(t, ts, append(in, encode("QUIT")...))
}

// Pipelined member writes that empty a key and add
// another member kept Redis's order only one at a time: on a set {a} with
// a TTL of 100 s, the pipeline SREM k a, SADD k b, TTL k answers on
// redis-server ":1\r\n:1\r\n:-1\r\n" (SREM deletes the key, SADD creates a
// new one without expiry), on redimo-server ":1\r\n:1\r\n:100\r\n" (the two
// shared one transaction, so the key kept its expiry). The same with
// ZREM/ZADD. Fixed: they run in order (the key's deletion drops its expiry).
func TestServerPipelineEmptiedKeyExpiry(t *testing.T) {
	onBothServers(t, "pttl", func(addr, p string) {
		c := dial(t, addr)
		setup := func() {
			for _, cmd := range [][]string{{"SADD", p + "k", "a"}, {"EXPIRE", p + "k", "100"}, {"ZADD", p + "z", "1", "a"}, {"EXPIRE", p + "z", "100"}} {
				require.Equal(t, ":1\r\n", c.do(cmd...), "%s: %v", addr, cmd)
			}
		}
		cmds := [][]string{{"SREM", p + "k", "a"}, {"SADD", p + "k", "b"}, {"ZREM", p + "z", "a"}, {"ZADD", p + "z", "2", "b"},
			{"TTL", p + "k"}, {"TTL", p + "z"}, {"DEL", p + "k", p + "z"}}
		want := []string{":1\r\n", ":1\r\n", ":1\r\n", ":1\r\n", ":-1\r\n", ":-1\r\n", ":2\r\n"}
		setup() // one at a time
		for i, cmd := range cmds {
			require.Equal(t, want[i], c.do(cmd...), "%s one by one: %v", addr, cmd)
		}
		setup() // pipelined
		var in []byte
		for _, cmd := range cmds {
			in = append(in, encode(cmd...)...)
		}
		c.send(in)
		for i, cmd := range cmds {
			require.Equal(t, want[i], string(c.read()), "%s pipelined: %v", addr, cmd)
		}
	})
}
