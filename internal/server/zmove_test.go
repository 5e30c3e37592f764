package server_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// zmoveScript is a script of Redis 8.12's ZMOVE, BZMOVE and ZMOVEMEMBER,
// which the reference redis-server (7.0) lacks, with the replies
// redis.io/commands/zmove, /bzmove and /zmovemember document (the
// comments follow the keys' contents). Each line is a command and its
// reply: "pairs m s ..." is the array of [member, score] pairs the moves
// reply (ZMPOP's element array: the score a bulk string in RESP2, a
// double in RESP3), "nil" the null array, anything else the raw reply,
// the same in both protocols. The error texts the pages do not give are
// redimo's choices: Redis's usual ones (ZMPOP's count, ZRANGEBYSCORE's
// bounds, BZMPOP's timeout) and HGETDEL's for num-members.
var zmoveScript = [][2]string{
	{"ZADD {s} 1 a 2 b 3 c 4 d 5 e", ":5\r\n"},
	{"ZMOVE {s} {d} MIN", "pairs a 1"},             // s: b c d e; d: a
	{"ZMOVE {s} {d} max COUNT 2", "pairs e 5 d 4"}, // s: b c; d: a d e
	{"ZMOVE {s} {d} BYSCORE (2 +inf", "pairs c 3"}, // s: b; d: a c d e
	{"ZMOVE {s} {d} BYSCORE 0 1", "nil"},           // an empty range
	{"ZMOVE {s} {d} BYSCORE 5 1", "nil"},           // min above max
	{"ZCARD {d}", ":4\r\n"},                        //
	{"ZMOVE {s} {s} MIN", "nil"},                   // the same key
	{"ZMOVE {none} {d} MIN", "nil"},                // a missing source
	{"SADD {set} x", ":1\r\n"},                     //
	{"ZMOVE {s} {set} MIN", "-" + wrongType},       // source exists: either key's type
	{"ZMOVE {none} {set} MIN", "nil"},              // a missing source first
	{"ZMOVE {set} {d} MIN", "-" + wrongType},       //
	{"ZMOVE {set} {set} MIN", "-" + wrongType},     //
	{"ZMOVE {s} {d} MIN COUNT 0", "-ERR count should be greater than 0\r\n"},
	{"ZMOVE {s} {d} MIN COUNT x", "-ERR count should be greater than 0\r\n"},
	{"ZMOVE {s} {d} MIN COUNT 1 COUNT 2", "-ERR syntax error\r\n"},
	{"ZMOVE {s} {d} MIN COUNT", "-ERR syntax error\r\n"},
	{"ZMOVE {s} {d} FOO", "-ERR syntax error\r\n"},
	{"ZMOVE {s} {d} BYSCORE 1", "-ERR syntax error\r\n"},
	{"ZMOVE {s} {d} BYSCORE a 1", "-ERR min or max is not a float\r\n"},
	{"ZMOVE {s} {d}", "-ERR wrong number of arguments for 'zmove' command\r\n"},
	{"ZMOVE {s} {d} min COUNT 5", "pairs b 2"}, // s: gone; d: a b c d e
	{"EXISTS {s}", ":0\r\n"},
	{"ZMOVEMEMBER {d} {s} MEMBERS 4 e nope a e", "pairs e 5 a 1"}, // request order, once; d: b c d; s: a e
	{"ZMOVEMEMBER {d} {s} MEMBERS 1 nope", "nil"},
	{"ZADD {d} 10 a", ":1\r\n"},                              // d: b c d a=10
	{"ZMOVEMEMBER {s} {d} NX MEMBERS 2 a e", "pairs e 5"},    // a stays in s; d: b c d e a=10
	{"ZMOVEMEMBER {d} {s} XX MEMBERS 3 b a c", "pairs a 10"}, // a's score replaces s's; s: a=10 ...
	{"ZMOVEMEMBER {d} {s} xx MEMBERS 1 a", "nil"},            // a not in d any more
	{"ZMOVEMEMBER {s} {d} NX XX MEMBERS 1 a", "-ERR syntax error\r\n"},
	{"ZMOVEMEMBER {s} {d} MEMBERS 0 a", "-ERR Parameter `num-members` should be greater than 0\r\n"},
	{"ZMOVEMEMBER {s} {d} MEMBERS x a", "-ERR Parameter `num-members` should be greater than 0\r\n"},
	{"ZMOVEMEMBER {s} {d} MEMBERS 2 a", "-ERR The `num-members` parameter must match the number of arguments\r\n"},
	{"ZMOVEMEMBER {s} {d} MEMBER 1 a", "-ERR syntax error\r\n"},
	{"ZMOVEMEMBER {s} {d} MEMBERS 1", "-ERR wrong number of arguments for 'zmovemember' command\r\n"},
	{"ZMOVEMEMBER {set} {d} MEMBERS 1 x", "-" + wrongType},
	{"ZMOVEMEMBER {s} {s} MEMBERS 1 a", "nil"},
	{"BZMOVE {s} {d} MIN 0.01", "pairs a 10"}, // s: gone; d: b c d e a=10
	{"BZMOVE {none} {d} MAX 0.05", "nil"},     // the timeout
	{"BZMOVE {s} {d} BYSCORE 1", "-ERR syntax error\r\n"},
	{"BZMOVE {s} {d} MIN -1", "-ERR timeout is negative\r\n"},
	{"BZMOVE {s} {d} MIN abc", "-ERR timeout is not a float or out of range\r\n"},
	{"BZMOVE {s} {d} MIN 0 COUNT 0", "-ERR count should be greater than 0\r\n"},
	{"BZMOVE {s} {d} MIN", "-ERR wrong number of arguments for 'bzmove' command\r\n"},
	{"BZMOVE {d} {d} MIN 0", "nil"},                    // the same key: at once, never blocking
	{"BZMOVE {none} {none} MIN 0", "nil"},              // the same missing key too
	{"BZMOVE {d} {s} max 0 COUNT 2", "pairs a 10 e 5"}, // d: b c d; s: e a=10
	{"BZMOVE {set} {d} MIN 0", "-" + wrongType},
	{"DEL {s} {d} {set}", ":3\r\n"},
}

const wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value\r\n"

// movedRESP is the reply "pairs m s ..." or "nil" in RESP proto.
func movedRESP(proto int, want string) string {
	if want == "nil" {
		if proto == 3 {
			return "_\r\n"
		}
		return "*-1\r\n"
	}
	if !strings.HasPrefix(want, "pairs ") {
		return want
	}
	f := strings.Fields(want)[1:]
	out := "*" + strconv.Itoa(len(f)/2) + "\r\n"
	for i := 0; i < len(f); i += 2 {
		out += "*2\r\n$" + strconv.Itoa(len(f[i])) + "\r\n" + f[i] + "\r\n"
		if proto == 3 {
			out += "," + f[i+1] + "\r\n"
		} else {
			out += "$" + strconv.Itoa(len(f[i+1])) + "\r\n" + f[i+1] + "\r\n"
		}
	}
	return out
}

func TestZMoveScript(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	for _, proto := range []int{2, 3} {
		c := dial(t, ts.addr)
		if proto == 3 {
			c.do("HELLO", "3")
		}
		prefix := "zmove:" + randomHex(4) + ":"
		for _, line := range zmoveScript {
			args, ok := resp.SplitArgs(line[0])
			require.True(t, ok, line[0])
			for i := range args {
				args[i] = keyRE.ReplaceAllString(args[i], prefix+"$1")
			}
			require.Equal(t, movedRESP(proto, line[1]), c.do(args...), "RESP%d: %s", proto, line[0])
		}
	}
}

// TestZMoveCommandInfo: COMMAND INFO and COMMAND DOCS list the three, with
// Redis 8.12's arity, flags and keys (source and destination).
func TestZMoveCommandInfo(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	c := dial(t, ts.addr)
	info := c.do("COMMAND", "INFO", "zmove", "bzmove", "zmovemember")
	for _, want := range []string{
		"*10\r\n$5\r\nzmove\r\n:-4\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:2\r\n:1\r\n",
		"*10\r\n$6\r\nbzmove\r\n:-5\r\n*3\r\n+write\r\n+denyoom\r\n+blocking\r\n:1\r\n:2\r\n:1\r\n",
		"*10\r\n$11\r\nzmovemember\r\n:-6\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:2\r\n:1\r\n",
	} {
		require.Contains(t, info, want)
	}
	docs := c.do("COMMAND", "DOCS", "zmove", "bzmove", "zmovemember")
	for _, want := range []string{"$5\r\nzmove\r\n", "$6\r\nbzmove\r\n", "$11\r\nzmovemember\r\n", "$6\r\n8.12.0\r\n", "$10\r\nsorted-set\r\n"} {
		require.Contains(t, docs, want)
	}
}

// TestZMoveMulti: inside MULTI the moves are queued and run in the
// transaction; BZMOVE does not block there.
func TestZMoveMulti(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	c := dial(t, ts.addr)
	p := "zmove-multi:" + randomHex(4) + ":"
	s, d := p+"s", p+"d"
	for _, cmd := range [][]string{
		{"MULTI"}, {"ZADD", s, "1", "x", "2", "y"}, {"ZMOVE", s, d, "MIN"}, {"BZMOVE", p + "none", d, "MIN", "0"},
		{"ZMOVEMEMBER", d, s, "NX", "MEMBERS", "1", "x"}, {"ZMOVE", s, d, "BYSCORE", "-inf", "+inf"},
	} {
		want := "+QUEUED\r\n"
		if cmd[0] == "MULTI" {
			want = "+OK\r\n"
		}
		require.Equal(t, want, c.do(cmd...), cmd)
	}
	require.Equal(t, "*5\r\n:2\r\n"+movedRESP(2, "pairs x 1")+movedRESP(2, "nil")+movedRESP(2, "pairs x 1")+movedRESP(2, "pairs x 1 y 2"),
		c.do("EXEC"))
	require.Equal(t, ":0\r\n", c.do("EXISTS", s))
	require.Equal(t, ":2\r\n", c.do("ZCARD", d))
	c.do("DEL", d)
}

// TestBZMoveWoken: a BZMOVE waiting on one connection is woken by a ZADD
// on another, and counts in INFO's blocked_clients while it waits.
func TestBZMoveWoken(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	waiter, writer := dial(t, ts.addr), dial(t, ts.addr)
	p := "bzmove:" + randomHex(4) + ":"
	waiter.send(encode("BZMOVE", p+"s", p+"d", "MAX", "5", "COUNT", "3"))
	require.Eventually(t, func() bool {
		return strings.Contains(writer.do("INFO", "clients"), "blocked_clients:1\r\n")
	}, 5*time.Second, 20*time.Millisecond)
	require.Equal(t, ":2\r\n", writer.do("ZADD", p+"s", "1", "a", "2", "b"))
	require.Equal(t, movedRESP(2, "pairs b 2 a 1"), string(waiter.read()))
	require.Equal(t, ":0\r\n", writer.do("EXISTS", p+"s"))
	require.Equal(t, ":2\r\n", writer.do("ZCARD", p+"d"))
	require.Equal(t, ":1\r\n", writer.do("DEL", p+"d"))
}
