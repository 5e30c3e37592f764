package server_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// An adversarial review of what Redis clients meet: each TestServerReview*
// below runs the same commands on redimo-server and on the reference
// redis-server (7.0) and compares the bytes. Its comment says what
// redis-server answers, what redimo-server answered, and why. The ones
// marked "passes" are risky paths checked and found right.

// reviewIDs masks client ids (HELLO's id, CLIENT ID) and the fields of a
// CLIENT LIST/INFO line that differ between any two servers.
var reviewIDs = regexp.MustCompile(`\$2\r\nid\r\n:\d+\r\n`)

// reviewServer is a fresh redimo-server, for a test that needs redis-server.
func reviewServer(t *testing.T) *testServer {
	t.Helper()
	needRedis(t)
	return startServer(t, nil, server.Config{})
}

// reviewEach runs check on redis-server, then on a fresh redimo-server,
// with a key prefix unique to the run ("review:<tag>:<hex>").
// blockedSend sends cmd, a blocking command, on c and returns once the
// server lists c as blocked (CLIENT LIST's flag b, on both servers), asked
// on o: so commands blocked one after another are queued in that order.
func blockedSend(t *testing.T, c, o *client, cmd ...string) {
	t.Helper()
	id := strings.TrimSuffix(strings.TrimPrefix(c.do("CLIENT", "ID"), ":"), "\r\n")
	c.send(encode(cmd...))
	require.Eventually(t, func() bool { return strings.Contains(o.do("CLIENT", "LIST", "ID", id), "flags=b") },
		10*time.Second, 5*time.Millisecond, "client %s never blocked in %v", id, cmd)
}

func reviewEach(t *testing.T, tag string, check func(addr, p string)) {
	t.Helper()
	for _, addr := range []string{redisAddr, reviewServer(t).addr} {
		check(addr, "review:"+tag+":"+randomHex(4))
	}
}

// reviewBoth runs lines (split as redis-cli splits them, {x} a key under a
// prefix unique to the run) on one fresh connection to each server, in
// RESP proto, and returns each line's replies from redis-server and
// redimo-server.
func reviewBoth(t *testing.T, ts *testServer, proto int, lines ...string) (want, got []string) {
	t.Helper()
	prefix := "review:" + randomHex(4) + ":"
	g, w := dial(t, ts.addr), dial(t, redisAddr)
	if proto == 3 {
		require.Equal(t, reviewIDs.ReplaceAllString(w.do("HELLO", "3"), "id"), reviewIDs.ReplaceAllString(g.do("HELLO", "3"), "id"))
	}
	for _, line := range lines {
		args, ok := resp.SplitArgs(line)
		require.True(t, ok, line)
		for i := range args {
			args[i] = keyRE.ReplaceAllString(args[i], prefix+"$1")
		}
		wr, gr := w.do(args...), g.do(args...)
		want = append(want, reviewIDs.ReplaceAllString(strings.ReplaceAll(wr, prefix, "{}"), "id"))
		got = append(got, reviewIDs.ReplaceAllString(strings.ReplaceAll(gr, prefix, "{}"), "id"))
	}
	return want, got
}

// reviewSame requires the replies of lines to be the same bytes on both
// servers (ts nil: a fresh redimo-server), in RESP2 and RESP3.
func reviewSame(t *testing.T, ts *testServer, lines ...string) {
	t.Helper()
	if ts == nil {
		ts = reviewServer(t)
	}
	for _, proto := range []int{2, 3} {
		want, got := reviewBoth(t, ts, proto, lines...)
		for i := range lines {
			require.Equal(t, want[i], got[i], "RESP%d: %s", proto, lines[i])
		}
	}
}

// reviewRaw sends in as one write on a fresh connection to each server and
// requires the same bytes back until the connection closes (ids masked).
func reviewRaw(t *testing.T, ts *testServer, in []byte) {
	t.Helper()
	got, want := dial(t, ts.addr), dial(t, redisAddr)
	got.send(in)
	want.send(in)
	require.Equal(t, reviewIDs.ReplaceAllString(want.readAll(), "id"), reviewIDs.ReplaceAllString(got.readAll(), "id"), "%.80q", in)
}

// FINDING (medium). CLIENT LIST ignored its arguments, listing every
// connection ("$252\r\nid=1 addr=..."); redis-server 7.0 filters and checks
// them: ID 999999 "$0\r\n\r\n", ID x "-ERR Invalid client ID\r\n", TYPE foo
// "-ERR Unknown client type 'foo'\r\n", TYPE / ID / FOO "-ERR syntax
// error\r\n". A client reading its own line (CLIENT LIST ID <id>) got all.
func TestServerReviewClientListArguments(t *testing.T) {
	reviewSame(t, nil, "CLIENT LIST ID 999999", "CLIENT LIST ID x", "CLIENT LIST TYPE foo", "CLIENT LIST TYPE",
		"CLIENT LIST ID", "CLIENT LIST FOO")
}

// FINDING (low). CLIENT LIST listed connections in random order (a map);
// redis-server lists them in the order they connected (ascending id),
// mostly: its clientsCron rotates the list now and then, so a busy
// redis-server listed "08 00 01 ... 07 09 ..." once. redimo-server lists
// by id always; only its order is checked.
func TestServerReviewClientListOrder(t *testing.T) {
	ids := regexp.MustCompile(`(?m)^id=(\d+) .* name=review-(\d+) `)
	reviewEach(t, "order", func(addr, _ string) {
		if addr == redisAddr {
			return // the oracle's order is not a promise (above)
		}
		var first *client
		for i := range 16 {
			c := dial(t, addr)
			require.Equal(t, "+OK\r\n", c.do("CLIENT", "SETNAME", fmt.Sprintf("review-%02d", i)))
			if first == nil {
				first = c
			}
		}
		var names []string
		for _, m := range ids.FindAllStringSubmatch(first.do("CLIENT", "LIST"), -1) {
			names = append(names, m[2])
		}
		require.Len(t, names, 16)
		require.True(t, slices.IsSorted(names), "%s lists %v", addr, names)
	})
}

// FINDING (low). COMMAND INFO of an unknown command: redis-server answers a
// null in the array ("*1\r\n$-1\r\n", RESP3 "*1\r\n_\r\n"), redimo-server
// answered a null array ("*1\r\n*-1\r\n").
func TestServerReviewCommandInfoUnknown(t *testing.T) {
	reviewSame(t, nil, "COMMAND INFO nosuchcommand", "COMMAND INFO nosuch client|nosuch")
}

// FINDING (low). COMMAND LIST ignored its arguments, listing every command
// ("*117\r\n$4\r\nauth\r\n..."); redis-server 7.0 answers "COMMAND LIST
// FILTERBY" and "... FILTERBY foo bar" "-ERR syntax error\r\n", and
// "... FILTERBY PATTERN zrangeby*" the names zrangebylex, zrangebyscore.
func TestServerReviewCommandListFilterBy(t *testing.T) {
	ts := reviewServer(t)
	reviewSame(t, ts, "COMMAND LIST FILTERBY", "COMMAND LIST FILTERBY foo bar")
	for _, proto := range []int{2, 3} {
		want, got := reviewBoth(t, ts, proto, "COMMAND LIST FILTERBY PATTERN zrangeby*")
		require.Equal(t, sorted(want[0], proto), sorted(got[0], proto))
	}
}

// FINDING (low). CONFIG GET DATABASES: redis-server 7.0 replies the name
// as asked ("*2\r\n$9\r\nDATABASES\r\n$2\r\n16\r\n"), redimo-server
// replied it lower-cased: a client reading the reply as a map missed it.
func TestServerReviewConfigGetExactName(t *testing.T) {
	reviewSame(t, nil, "CONFIG GET DATABASES", "CONFIG GET MaxMemory")
}

// FINDING (low). HELLO applies its options in order, as redis-server 7.0
// (AUTH and SETNAME act as parsed); redimo-server parsed them all first:
//
//	HELLO 2 SETNAME foo FOO; CLIENT GETNAME
//	    redis: "-ERR Syntax error in HELLO option 'FOO'\r\n", then "$3\r\nfoo\r\n"
//	    redimo: the same error, then "$-1\r\n"
//	HELLO 2 AUTH nobody x FOO
//	    redis: "-WRONGPASS invalid username-password pair or user is disabled.\r\n"
//	    redimo: "-ERR Syntax error in HELLO option 'FOO'\r\n"
//	HELLO 2 SETNAME "a b" AUTH nobody x
//	    redis: "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"
//	    redimo: "-WRONGPASS ..."
func TestServerReviewHelloOptionOrder(t *testing.T) {
	reviewSame(t, nil, "HELLO 2 SETNAME foo FOO", "CLIENT GETNAME", "HELLO 2 AUTH nobody x FOO",
		`HELLO 2 SETNAME "a b" AUTH nobody x`, "CLIENT GETNAME")
}

// FINDING (low). ZRANDMEMBER key 2^62 WITHSCORES: redis-server refuses
// counts beyond LONG_MAX/2 = 2^62-1 ("-ERR value is out of range\r\n"),
// redimo-server answered the whole set (n > 1<<62, not 1<<62-1). -(2^62)
// and 2^62-1 answered as Redis.
func TestServerReviewZRandMemberWithScoresBound(t *testing.T) {
	reviewSame(t, nil, "ZADD {z} 1 a", "ZRANDMEMBER {z} 4611686018427387903 WITHSCORES",
		"ZRANDMEMBER {z} -4611686018427387904 WITHSCORES", "ZRANDMEMBER {z} 4611686018427387904 WITHSCORES", "DEL {z}")
}

// FINDING (medium). Blocked pops served first come, first served:
// redis-server gives a ZADD's member to A (BZPOPMIN k 3, blocked first),
// "*3\r\n$..\r\n<k>\r\n$1\r\nx\r\n$1\r\n1\r\n", and B (BZPOPMIN k 0.6)
// times out ("*-1\r\n"), every time. redimo-server woke every waiter to
// race, so B often won and A, blocked longer, starved (no queue of
// waiters per key). A race: it failed most runs, not every one.
func TestServerReviewBlockedPopOrder(t *testing.T) {
	reviewEach(t, "fifo", func(addr, k string) {
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

// Passes: blocked pops of several kinds on one key, fed by one ZADD, are
// served as redis-server serves them, first come first served, each by
// its own rule (BZMPOP MIN COUNT 3 the three lowest, BZPOPMIN the next,
// BZPOPMAX the highest); a pop blocked on two keys that the ZADD left
// without a member waits on and is served from its other key; ten
// BZPOPMIN blocked on one key and a ZADD of ten members: each gets its
// member, in the order they blocked. (redimo-server serves each key's
// waiters together, with one pop per kind: the library's zpop.go.)
func TestServerReviewBlockedPopsTogether(t *testing.T) {
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
	reviewEach(t, "together", func(addr, p string) {
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

// Passes: a pipeline of 40 commands in one write, mixing replies and
// errors of every kind (unknown command, arity, WRONGTYPE, not a float,
// syntax), member writes to one key that run at once, and a type change
// of a key in the middle: the replies come in order, the same bytes as
// redis-server's.
func TestServerReviewPipelineMixedErrors(t *testing.T) {
	ts := reviewServer(t)
	k := "review:pipe:" + randomHex(4) + ":"
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
	reviewRaw(t, ts, append(in, encode("QUIT")...))
}

// Passes: what a connection meets around blocking and MULTI. A BZPOPMIN
// pipelined before a ZADD to its key on the same connection times out
// before the ZADD runs (null, then :1), as in Redis; BZPOPMIN and BZMPOP
// with timeout 0 inside MULTI answer null at once (RESP3 "_"); QUIT inside
// MULTI is not queued (+OK, then the connection closes); a too-big inline
// request (70,000 bytes, no newline) is refused and the connection closed.
func TestServerReviewConnectionEdges(t *testing.T) {
	ts := reviewServer(t)
	p := "review:conn:" + randomHex(4) + ":"
	for _, in := range []string{
		"BZPOPMIN " + p + "bz 0.3\r\nZADD " + p + "bz 1 a\r\nZCARD " + p + "bz\r\nDEL " + p + "bz\r\nQUIT\r\n",
		"HELLO 3\r\nMULTI\r\nBZPOPMIN " + p + "none 0\r\nBZMPOP 0 1 " + p + "none MIN\r\nEXEC\r\nQUIT\r\n",
		"MULTI\r\nSADD " + p + "q a\r\nQUIT\r\nPING\r\n",
		"MULTI\r\nMULTI\r\nWATCH " + p + "q\r\nEXEC\r\nEXEC\r\nDISCARD\r\nQUIT\r\n",
		strings.Repeat("x", 70000),
	} {
		reviewRaw(t, ts, []byte(in))
	}
}

// Passes: scores in every form strtod takes (Infinity, hex, ".5", "5.",
// "+5", subnormals, 2^53+1), formatted in RESP2 and RESP3 as Redis does
// (ZSCORE, ZRANGE WITHSCORES, ZINCRBY to inf, WEIGHTS 0 on inf members);
// binary keys and members ("\x00", "\xff", CRLF, the empty string) through
// TYPE, EXISTS, KEYS and SCAN MATCH/TYPE, RENAME and ZRANGEBYLEX.
func TestServerReviewScoresAndBinary(t *testing.T) {
	reviewSame(t, nil,
		"ZADD {f} Infinity a -Infinity b .5 e 5. g +5 h 0x1p3 i 1e-310 m -1e-310 n 00001 p 9007199254740993 r 1e-5 w 12345678901234567 y",
		`ZADD {f} "1 " k`, `ZADD {f} "" l`, "ZADD {f} 1,5 j", "ZADD {f} NaN j",
		"ZRANGE {f} 0 -1 WITHSCORES", "ZSCORE {f} m", "ZMSCORE {f} a b nope w", "ZCOUNT {f} (Infinity +inf",
		"ZRANGEBYSCORE {f} (0x1p3 +inf WITHSCORES", `ZRANGEBYSCORE {f} "(" +inf`, "ZINCRBY {f} 0x1p-1 e",
		"ZINCRBY {f} -Infinity a", "ZPOPMIN {f}", "ZPOPMAX {f} 2", "ZUNIONSTORE {g} 1 {f} WEIGHTS 0", "ZRANGE {g} 0 -1 WITHSCORES",
		"DEL {f} {g}",
		`SADD "{b}\x00\r\n" "\r\n" "\x00" ""`, `TYPE "{b}\x00\r\n"`, `EXISTS "{b}\x00\r\n" "{b}\x00"`, `KEYS "{b}?\r\n"`,
		`SCAN 0 MATCH "{b}\x00*" COUNT 1000`, `SCAN 0 MATCH "{b}*" TYPE zset COUNT 1000`, `RENAME "{b}\x00\r\n" "{b}\xff"`,
		`ZADD "{b}\xfe" 0 "\xff" 0 "\x00" 0 ""`, `ZRANGEBYLEX "{b}\xfe" "[\x00" "(\xff"`, `ZRANGE "{b}\xfe" 0 -1 WITHSCORES`,
		`DEL "{b}\xff" "{b}\xfe"`)
}

// Passes: WATCH as Redis 7.0 sees a change made by another connection
// meanwhile: a member removed and added back, a key expired after WATCH
// (isWatchedKeyExpired), a RENAME or COPY REPLACE onto the key fail EXEC
// ("*-1\r\n"); a no-op (SADD of a present member, ZADD of the same score,
// ZINCRBY 0, PERSIST of a key without expiry, DEL of the missing watched
// key) does not. (A key missing when watched, then created and deleted
// again, passes EXEC on redimo-server and fails it on Redis: documented in
// README.md, Guarantees, "Optimistic locking", so not a finding.)
func TestServerReviewWatchSeesChanges(t *testing.T) {
	reviewEach(t, "watch", func(addr, p string) {
		a, o := dial(t, addr), dial(t, addr)
		do := func(lines ...string) {
			for _, line := range lines {
				if line == "sleep" {
					time.Sleep(400 * time.Millisecond)
					continue
				}
				args := strings.Fields(line)
				for i, a := range args {
					if a == "k" || a == "src" || a == "none" { // the keys
						args[i] = p + a
					}
				}
				o.do(args...)
			}
		}
		for _, c := range []struct {
			before, between []string
			want            string
		}{
			{[]string{"SADD k a"}, []string{"SREM k a", "SADD k a"}, "*-1\r\n"},
			{[]string{"SADD k a", "PEXPIRE k 200"}, []string{"sleep"}, "*-1\r\n"},
			{[]string{"SADD k a"}, []string{"SADD src b", "RENAME src k"}, "*-1\r\n"},
			{[]string{"SADD k a"}, []string{"SADD src b", "COPY src k REPLACE"}, "*-1\r\n"},
			{[]string{"SADD k a"}, []string{"SADD k a", "PERSIST k", "DEL none"}, "*1\r\n+PONG\r\n"},
			{[]string{"ZADD k 1 a"}, []string{"ZADD k 1 a", "ZINCRBY k 0 a", "ZPOPMIN none"}, "*1\r\n+PONG\r\n"},
			{nil, []string{"DEL k"}, "*1\r\n+PONG\r\n"},
		} {
			do("DEL k src")
			do(c.before...)
			require.Equal(t, "+OK\r\n", a.do("WATCH", p+"k"))
			do(c.between...)
			require.Equal(t, "+OK\r\n", a.do("MULTI"))
			require.Equal(t, "+QUEUED\r\n", a.do("PING"))
			require.Equal(t, c.want, a.do("EXEC"), "%s: %v then %v", addr, c.before, c.between)
		}
		do("DEL k src")
	})
}

// Passes: a blocked pop waits in its own database: BZPOPMIN k in database
// 1 is not woken by ZADD k in database 0, and times out ("*-1\r\n") while
// database 0's k keeps its member; a ZADD in database 1 then wakes the next
// wait.
func TestServerReviewBlockedPopDatabase(t *testing.T) {
	reviewEach(t, "bdb", func(addr, k string) {
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

// FINDING (low). COMMAND INFO's entry in RESP3: redis-server 7.0 sends the
// tips, key specifications and subcommands (8th to 10th elements) as sets
// (for ZCARD "~0\r\n~1\r\n%3\r\n$5\r\nflags...~0\r\n"); redimo-server sent
// arrays ("*0\r\n*0\r\n*0\r\n"), another type to a RESP3 client decoding
// COMMAND (redis-cli, cluster clients reading key positions). The other
// elements' kinds were Redis's.
func TestServerReviewCommandInfoResp3Kinds(t *testing.T) {
	ts := reviewServer(t)
	kinds := func(raw string) []resp.Kind {
		v, err := resp.NewReader(strings.NewReader(raw)).ReadReply()
		require.NoError(t, err)
		require.Len(t, v.Elems, 1)
		var out []resp.Kind
		for _, e := range v.Elems[0].Elems {
			out = append(out, e.Kind)
		}
		return out
	}
	for _, name := range []string{"zcard", "sadd"} {
		want, got := reviewBoth(t, ts, 3, "COMMAND INFO "+name)
		require.Equal(t, kinds(want[0]), kinds(got[0]), "COMMAND INFO %s: redis %q, redimo %q", name, want[0], got[0])
	}
}

// FINDING (medium). Pipelined member writes that empty a key and add
// another member kept Redis's order only one at a time: on a set {a} with
// a TTL of 100 s, the pipeline SREM k a, SADD k b, TTL k answers on
// redis-server ":1\r\n:1\r\n:-1\r\n" (SREM deletes the key, SADD creates a
// new one without expiry), on redimo-server ":1\r\n:1\r\n:100\r\n" (the two
// shared one transaction, so the key kept its expiry). The same with
// ZREM/ZADD. Fixed: they run in order (the key's deletion drops its expiry).
func TestServerReviewPipelineEmptiedKeyExpiry(t *testing.T) {
	reviewEach(t, "pttl", func(addr, p string) {
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

// FINDING (medium). A blocked pop whose key is then created with another
// type: redis-server leaves the client blocked and answers "*-1\r\n" at
// the timeout; redimo-server answered "-WRONGTYPE Operation against a key
// holding the wrong kind of value\r\n" at its next read (block returned
// ErrWrongType from every re-read, not only the first). A key already of
// the wrong type when the pop starts is WRONGTYPE on both, checked below.
func TestServerReviewBlockedPopKeyTypeChange(t *testing.T) {
	reviewEach(t, "btype", func(addr, k string) {
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
