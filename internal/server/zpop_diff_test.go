package server_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// zpopScript is the differential script of ZMPOP and the blocking pops
// (timeouts of 10 ms where a key is empty: both servers wait that long).
var zpopScript = []string{
	"ZADD {q} 1 a 2 b 3 c 4 d", "ZADD {q2} 10 x", "SADD {s} m",
	"ZMPOP 1 {q} MIN", "ZMPOP 2 {none} {q} MAX COUNT 2", "ZMPOP 2 {q} {q2} min COUNT 10", "ZMPOP 1 {q} MIN",
	"ZMPOP 1 {none} MIN", "ZMPOP 2 {none} {s} MIN", "ZMPOP 2 {q2} {s} MAX", "EXISTS {q2}",
	"ZMPOP 0 {q} MIN", "ZMPOP -1 {q} MIN", "ZMPOP x {q} MIN", "ZMPOP 2 {q} MIN", "ZMPOP 5 {q} MIN", "ZMPOP 1 {q} LOW",
	"ZMPOP 1 {q} MIN COUNT", "ZMPOP 1 {q} MIN COUNT 0", "ZMPOP 1 {q} MIN COUNT -1", "ZMPOP 1 {q} MIN COUNT x",
	"ZMPOP 1 {q} MIN COUNT 1 COUNT 2", "ZMPOP 1 {q} MIN FOO", "ZMPOP 1 {q}", "ZMPOP 1", "ZMPOP 1 {s} MAX COUNT 0",
	"ZADD {b} 1 a 2 b 3 c", "BZPOPMIN {none} {b} 0", "BZPOPMAX {b} 1", "BZPOPMIN {none} {b} 0.5", "BZPOPMIN {b} 0.01",
	"BZPOPMAX {none} 0.01", "BZPOPMIN {s} 1", "BZPOPMIN {none} {s} 1", "BZPOPMIN {b} x", "BZPOPMIN {b} -1", "BZPOPMIN {b} -0.5",
	"BZPOPMIN {b} ' 1'", "BZPOPMIN {b} nan", "BZPOPMIN {b} ''", "BZPOPMIN {b}",
	"BZPOPMIN {s} x", "BZPOPMIN {b} 1e400", "BZPOPMIN {b} -inf", "BZPOPMIN {b} 0x0.01",
	"ZADD {c} 1 a 2 b 3 c", "BZMPOP 0 1 {c} MIN", "BZMPOP 0.01 2 {none} {c} MAX COUNT 5", "BZMPOP 0.01 1 {c} MIN",
	"BZMPOP x 1 {c} MIN", "BZMPOP -1 1 {c} MIN", "BZMPOP x 0 {c} MIN", "BZMPOP x 1 {c} FOO", "BZMPOP x 1 {c} MIN COUNT 0",
	"BZMPOP 0.01 1 {s} MIN", "BZMPOP 1 1 {c}", "BZMPOP 1 2 {c} MIN",
	"DEL {q} {q2} {s} {b} {c}",
}

func TestDifferentialZPop(t *testing.T) { runDifferential(t, zpopScript) }

// A blocked BZPOPMIN holds only its own connection: another one runs
// commands meanwhile and its ZADD wakes the waiter at once (same server,
// same Client). A client that disconnects while blocked stops waiting: a
// member added afterwards stays.
func TestBlockingPopServer(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	k := "bzpop:" + randomHex(4)
	waiter, other := dial(t, ts.addr), dial(t, ts.addr)
	waiter.send(encode("BZPOPMIN", k+":none", k, "0"))
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, "+PONG\r\n", other.do("PING"))
	start := time.Now()
	require.Equal(t, ":1\r\n", other.do("ZADD", k, "5", "job"))
	require.Equal(t, "*3\r\n$"+itoa(len(k))+"\r\n"+k+"\r\n$3\r\njob\r\n$1\r\n5\r\n", string(waiter.read()))
	t.Logf("BZPOPMIN answered %v after the ZADD was sent", time.Since(start))

	gone := dial(t, ts.addr)
	gone.send(encode("BZPOPMIN", k, "0"))
	time.Sleep(300 * time.Millisecond)
	gone.nc.Close()
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, ":1\r\n", other.do("ZADD", k, "6", "later"))
	time.Sleep(time.Second) // a waiter still alive would be woken at once
	require.Equal(t, ":1\r\n", other.do("ZCARD", k))
	require.Equal(t, ":1\r\n", other.do("DEL", k))
}

func itoa(n int) string { return strconv.Itoa(n) }

// renameScript is the differential script of RENAME, RENAMENX and COPY.
var renameScript = []string{
	"SADD {a} x y", "ZADD {b} 1 m 2 n", "RENAME {a} {c}", "EXISTS {a}", "~SMEMBERS {c}", "RENAME {none} {c}",
	"RENAME {c} {c}", "RENAME {none} {none}", "RENAMENX {c} {b}", "RENAMENX {c} {d}", "RENAMENX {d} {d}",
	"RENAMENX {none} {x}", "EXPIRE {d} 1000", "RENAME {d} {e}", "≈TTL {e}", "COPY {e} {b}", "COPY {e} {b} REPLACE",
	"TYPE {b}", "≈TTL {b}", "~SMEMBERS {b}", "COPY {e} {e}", "COPY {none} {f}", "COPY {e} {f} DB 0", "~SMEMBERS {f}",
	"COPY {e} {g} DB x", "COPY {e} {g} FOO", "COPY {e} {g} DB", "COPY {e} {g} REPLACE REPLACE", "COPY {e}", "RENAME {e}",
	"RENAMENX {e}", "TOUCH {e} {none} {e}", "OBJECT ENCODING {none}", "ZADD {z} 3 q", "RENAME {z} {e}", "ZRANGE {e} 0 -1 WITHSCORES",
	"DEL {b} {c} {e} {f} {g}",
}

func TestDifferentialRename(t *testing.T) { runDifferential(t, renameScript) }

// Blocked pops served first come, first served:
// redis-server gives a ZADD's member to A (BZPOPMIN k 3, blocked first),
// "*3\r\n$..\r\n<k>\r\n$1\r\nx\r\n$1\r\n1\r\n", and B (BZPOPMIN k 0.6)
// times out ("*-1\r\n"), every time. redimo-server woke every waiter to
// race, so B often won and A, blocked longer, starved (no queue of
// waiters per key). A race: it failed most runs, not every one.
func TestServerBlockedPopOrder(t *testing.T) {
	onBothServers(t, "fifo", func(addr, k string) {
		for round := range 4 {
			a, b, o := dial(t, addr), dial(t, addr), dial(t, addr)
			blockedSend(t, a, o, "BZPOPMIN", k, "3")
			blockedSend(t, b, o, "BZPOPMIN", k, "0.6")
			require.Equal(t, ":1\r\n", o.do("ZADD", k, "1", "x"))
			ra, rb := string(a.read()), string(b.read())
			require.Equal(t, "*-1\r\n", rb, "%s round %d: the client blocked second got the member", addr, round)
			require.Equal(t, fmt.Sprintf("*3\r\n$%d\r\n%s\r\n$1\r\nx\r\n$1\r\n1\r\n", len(k), k), ra, "%s round %d", addr, round)
		}
	})
}

// Blocked pops of several kinds on one key, fed by one ZADD, are
// served as redis-server serves them, first come first served, each by
// its own rule (BZMPOP MIN COUNT 3 the three lowest, BZPOPMIN the next,
// BZPOPMAX the highest); a pop blocked on two keys that the ZADD left
// without a member waits on and is served from its other key; ten
// BZPOPMIN blocked on one key and a ZADD of ten members: each gets its
// member, in the order they blocked. (redimo-server serves each key's
// waiters together, with one pop per kind: the library's zpop.go.)
func TestServerBlockedPopsTogether(t *testing.T) {
	bulk := func(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }
	block := func(addr string, cmds ...[]string) []*client {
		o := dial(t, addr)
		cs := make([]*client, len(cmds))
		for i, cmd := range cmds {
			cs[i] = dial(t, addr)
			blockedSend(t, cs[i], o, cmd...) // blocked in this order
		}
		return cs
	}
	onBothServers(t, "together", func(addr, p string) {
		k, k2 := p+":k", p+":k2"
		o := dial(t, addr)
		cs := block(addr, []string{"BZMPOP", "10", "1", k, "MIN", "COUNT", "3"}, []string{"BZPOPMIN", k, "10"},
			[]string{"BZPOPMAX", k, "10"}, []string{"BZPOPMIN", k2, k, "10"})
		require.Equal(t, ":5\r\n", o.do("ZADD", k, "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"), addr)
		pair := func(m, score string) string { return "*2\r\n" + bulk(m) + bulk(score) }
		require.Equal(t, "*2\r\n"+bulk(k)+"*3\r\n"+pair("a", "1")+pair("b", "2")+pair("c", "3"), string(cs[0].read()), addr)
		require.Equal(t, "*3\r\n"+bulk(k)+bulk("d")+bulk("4"), string(cs[1].read()), addr)
		require.Equal(t, "*3\r\n"+bulk(k)+bulk("e")+bulk("5"), string(cs[2].read()), addr)
		require.Equal(t, ":0\r\n", o.do("EXISTS", k), addr)
		require.Equal(t, ":1\r\n", o.do("ZADD", k2, "9", "z"), addr)
		require.Equal(t, "*3\r\n"+bulk(k2)+bulk("z")+bulk("9"), string(cs[3].read()), addr)

		var ten [][]string
		args := []string{"ZADD", k}
		for i := range 10 {
			ten = append(ten, []string{"BZPOPMIN", k, "10"})
			args = append(args, strconv.Itoa(i), fmt.Sprint("job", i))
		}
		cs = block(addr, ten...)
		require.Equal(t, ":10\r\n", o.do(args...), addr)
		for i, c := range cs {
			require.Equal(t, "*3\r\n"+bulk(k)+bulk(fmt.Sprint("job", i))+bulk(strconv.Itoa(i)), string(c.read()), "%s: waiter %d", addr, i)
		}
	})
}

// A blocked pop waits in its own database: BZPOPMIN k in database
// 1 is not woken by ZADD k in database 0, and times out ("*-1\r\n") while
// database 0's k keeps its member; a ZADD in database 1 then wakes the next
// wait.
func TestServerBlockedPopDatabase(t *testing.T) {
	onBothServers(t, "bdb", func(addr, k string) {
		w, o := dial(t, addr), dial(t, addr)
		require.Equal(t, "+OK\r\n", w.do("SELECT", "1"))
		blockedSend(t, w, o, "BZPOPMIN", k, "0.8")
		require.Equal(t, ":1\r\n", o.do("ZADD", k, "1", "a"))
		require.Equal(t, "*-1\r\n", string(w.read()), addr)
		require.Equal(t, ":1\r\n", o.do("ZCARD", k))
		blockedSend(t, w, o, "BZPOPMIN", k, "5")
		require.Equal(t, "+OK\r\n", o.do("SELECT", "1"))
		require.Equal(t, ":1\r\n", o.do("ZADD", k, "2", "b"))
		require.Equal(t, fmt.Sprintf("*3\r\n$%d\r\n%s\r\n$1\r\nb\r\n$1\r\n2\r\n", len(k), k), string(w.read()), addr)
		require.Equal(t, "+OK\r\n", o.do("SELECT", "0"))
		require.Equal(t, ":1\r\n", o.do("DEL", k))
	})
}

// A blocked pop whose key is then created with another
// type: redis-server leaves the client blocked and answers "*-1\r\n" at
// the timeout; redimo-server answered "-WRONGTYPE Operation against a key
// holding the wrong kind of value\r\n" at its next read (block returned
// ErrWrongType from every re-read, not only the first). A key already of
// the wrong type when the pop starts is WRONGTYPE on both, checked below.
func TestServerBlockedPopKeyTypeChange(t *testing.T) {
	onBothServers(t, "btype", func(addr, k string) {
		a, o := dial(t, addr), dial(t, addr)
		blockedSend(t, a, o, "BZPOPMIN", k, "1")
		require.Equal(t, ":1\r\n", o.do("SADD", k, "x"))
		require.Equal(t, "*-1\r\n", string(a.read()), addr)
		require.Equal(t, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", a.do("BZPOPMIN", k, "1"), addr)
		require.Equal(t, ":1\r\n", o.do("DEL", k))
	})
}

// Not fixed, documented (README, "Differences from Redis"): redis-server
// serves blocked clients right after the command that made their key
// ready, before any other command runs (handleClientsBlockedOnKeys): with
// A blocked in BZPOPMIN k, a pipeline ZADD k 1 a, ZPOPMIN k from another
// connection answers ":1\r\n*0\r\n" and A gets the member. Here a write
// only wakes the waiter, which reads again, so the pipelined ZPOPMIN can
// take the member first. The test was removed: a blocked pop holds no
// claim on what a write adds, which across several servers (or Clients)
// on one table could not be given anyway.
