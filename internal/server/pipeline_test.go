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
