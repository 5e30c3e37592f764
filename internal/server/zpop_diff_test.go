package server_test

import (
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
