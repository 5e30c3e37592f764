package server_test

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// Differential scripts: each line runs on redimo-server and on the
// reference redis-server, in RESP2 and in RESP3, and the replies must be
// the same bytes. Lines are split as redis-cli splits them; {x} is key x
// under a prefix unique to the run. A line starting with "~" has an
// unordered reply (SMEMBERS...), compared with its elements sorted; one
// starting with "≈" a TTL that may trail Redis's by the time the script
// has spent on redimo-server (see below). A
// line starting with "@" runs on a second connection to each server (a
// concurrent client: WATCH conflicts).

var connectionScript = []string{
	"PING", "PING hello", "PING a b", "ECHO", `ECHO "hi there"`,
	"SELECT 0", "SELECT 16", "SELECT -1", "SELECT x", "SELECT 01", "SELECT 99999999999",
	"HELLO 4", "HELLO x", "HELLO 1", "HELLO 2 FOO", "HELLO 2 SETNAME", "HELLO 2 AUTH default",
	"HELLO 3 AUTH nobody pw", "AUTH x", "AUTH nobody x", "AUTH default x", "AUTH a b c",
	"CLIENT", "CLIENT FOO", "CLIENT SETNAME", `CLIENT SETNAME "a b"`, "CLIENT SETNAME conn-1",
	"CLIENT GETNAME", `CLIENT SETNAME ""`, "CLIENT GETNAME", "CLIENT ID x",
	"COMMAND FOO", "COMMAND COUNT x", "CONFIG", "CONFIG FOO", "CONFIG GET", "CONFIG GET save",
	"CONFIG GET appendonly", "CONFIG GET nosuchparameter", "TIME x", "INFO nosuchsection",
	"FOO", "FOO a b", `foo "a b" "c\r\nd"`, "FOO " + strings.Repeat("x", 200) + " y",
	strings.Repeat("Z", 200) + " a", "foo " + strings.Repeat("a ", 100),
	"SADD", "SADD {s}", "SCARD", "SCARD a b", "SISMEMBER a", "SMOVE a b", "SINTER", "SINTERCARD 1",
	"SDIFFSTORE {d}", "DEL", "UNLINK", "TYPE", "TYPE a b", "EXISTS", "SSCAN {s}", "SRANDMEMBER", "SPOP",
}

var setScript = []string{
	"SADD {s} a b c", "SADD {s} a d", "SADD {t} c d e", "SADD {u} 1", "SADD {s} a a a",
	"~SMEMBERS {s}", "SMEMBERS {none}", "SCARD {s}", "SCARD {none}",
	"SISMEMBER {s} a", "SISMEMBER {s} z", "SISMEMBER {none} a",
	"SMISMEMBER {s} a z d a", "SMISMEMBER {none} a",
	"~SSCAN {s} 0", "~SSCAN {s} 0 MATCH [ab]*", "~SSCAN {s} 0 COUNT 100 MATCH *", "SSCAN {s} 0 MATCH d",
	"SSCAN {s} 0 match zz*", "SSCAN {s} x", "SSCAN {s} 18446744073709551616", "SSCAN {s} 0 COUNT 0",
	"SSCAN {s} 0 COUNT x", "SSCAN {s} 0 MATCH", "SSCAN {s} 0 FOO bar", "SSCAN {none} 0",
	"SSCAN {none} 0 FOO", "SSCAN {s} 18446744073709551615 COUNT 0",
	"~SRANDMEMBER {s} 10", "SRANDMEMBER {u}", "SRANDMEMBER {u} -3", "SRANDMEMBER {u} 1", "SRANDMEMBER {u} 0",
	"SRANDMEMBER {none}", "SRANDMEMBER {none} 5", "SRANDMEMBER {none} -5", "SRANDMEMBER {s} x",
	"SRANDMEMBER {s} 01", "SRANDMEMBER {s} +1", "SRANDMEMBER {s} -9223372036854775808", "SRANDMEMBER {s} 1 2",
	"SPOP {none}", "SPOP {none} 3", "SPOP {s} -1", "SPOP {s} x", "SPOP {s} 0", "SPOP {s} 1 2",
	"SMOVE {none} {s} a", "SMOVE {s} {t} a", "SMOVE {s} {t} zz", "SMOVE {s} {s} b", "SMOVE {s} {s} zz",
	"~SMEMBERS {t}", "~SINTER {s} {t}", "SINTER {s} {none}", "SINTER {none}", "~SUNION {s} {t} {none}",
	"~SDIFF {t} {s}", "SDIFF {none} {s}", "~SDIFF {s} {none}", "SDIFF {s} {s}",
	"SINTERCARD 2 {s} {t}", "SINTERCARD 2 {s} {t} LIMIT 1", "SINTERCARD 2 {s} {t} LIMIT 0", "SINTERCARD 1 {none}",
	"SINTERCARD 0 {s}", "SINTERCARD x {s}", "SINTERCARD 3 {s} {t}", "SINTERCARD 1 {s} LIMIT -1",
	"SINTERCARD 1 {s} LIMIT x", "SINTERCARD 1 {s} FOO 1", "SINTERCARD 1 {s} LIMIT", "SINTERCARD 1 {s} LIMIT 1 LIMIT 2",
	"SINTERSTORE {d} {s} {t}", "~SMEMBERS {d}", "SUNIONSTORE {d} {s} {t}", "SCARD {d}",
	"SDIFFSTORE {d} {t} {s}", "~SMEMBERS {d}", "SINTERSTORE {d} {none}", "EXISTS {d}",
	"SPOP {u}", "SPOP {u}", "EXISTS {u}", "SADD {u} x", "~SPOP {u} 5", "EXISTS {u}",
	"SREM {t} c zz", "SREM {t} zz", "SREM {none} a", "SREM {t}",
	"EXISTS {s} {s} {none}", "TYPE {s}", "TYPE {none}", "DEL {s} {none} {s}", "UNLINK {t}", "EXISTS {s} {t}",
	`SADD {bin} "\x00\xff" "" "a b" "\r\n"`, "~SMEMBERS {bin}", `SISMEMBER {bin} ""`, `SMISMEMBER {bin} "\x00\xff" "\x00"`,
	"DEL {bin}",
}

func TestDifferentialConnection(t *testing.T) { runDifferential(t, connectionScript) }

func TestDifferentialSets(t *testing.T) { runDifferential(t, setScript) }

func runDifferential(t *testing.T, script []string) {
	needRedis(t)
	ts := startServer(t, nil, server.Config{})
	for _, proto := range []int{2, 3} {
		prefix := "diff:" + randomHex(4) + ":"
		start := time.Now()
		got, want := dial(t, ts.addr), dial(t, redisAddr)
		var got2, want2 *client // the second connections, dialled when first used
		if proto == 3 {
			require.Equal(t, mask(want.do("HELLO", "3")), mask(got.do("HELLO", "3")))
		}
		for _, line := range script {
			gc, wc := got, want
			if strings.HasPrefix(line, "@") {
				if got2 == nil {
					got2, want2 = dial(t, ts.addr), dial(t, redisAddr)
					if proto == 3 {
						require.Equal(t, mask(want2.do("HELLO", "3")), mask(got2.do("HELLO", "3")))
					}
				}
				gc, wc, line = got2, want2, line[1:]
			}
			unordered := strings.HasPrefix(line, "~")
			// "≈": a TTL in seconds, Redis's or less by at most the
			// seconds redimo-server has spent on the script so far (its
			// commands take time where Redis's take none), or 1 more (each
			// server rounds its own elapsed time).
			approx := strings.HasPrefix(line, "≈")
			line = strings.TrimPrefix(line, "≈")
			args, ok := resp.SplitArgs(strings.TrimPrefix(line, "~"))
			require.True(t, ok, line)
			for i := range args {
				args[i] = keyRE.ReplaceAllString(args[i], prefix+"$1")
			}
			g, w := gc.do(args...), wc.do(args...)
			if unordered {
				g, w = sorted(g, proto), sorted(w, proto)
			}
			var gi, wi int64
			if _, err := fmt.Sscanf(g, ":%d\r\n", &gi); approx && err == nil {
				spent := int64(time.Since(start).Seconds())
				if _, err := fmt.Sscanf(w, ":%d\r\n", &wi); err == nil && gi >= 0 && wi >= 0 && gi >= wi-1-spent && gi <= wi+1 {
					continue
				}
			}
			require.Equal(t, w, g, "RESP%d: %s", proto, line)
		}
		for _, c := range []*client{got, want} {
			require.Equal(t, "+OK\r\n", c.do("QUIT"))
			require.Equal(t, "", c.readAll()) // then the connection closes
		}
	}
}

var keyRE = regexp.MustCompile(`\{(\w+)\}`)

// sorted re-encodes a reply with the elements of its arrays of strings
// sorted.
func sorted(raw string, proto int) string {
	v, err := resp.NewReader(strings.NewReader(raw)).ReadReply()
	if err != nil {
		return raw
	}
	// Elements of one kind (strings, or [member, score] pairs) are sorted
	// by their encoding; SSCAN's [cursor, members] is sorted inside.
	var sortValue func(v resp.Value)
	sortValue = func(v resp.Value) {
		same := true
		for _, e := range v.Elems {
			sortValue(e)
			same = same && e.Kind == v.Elems[0].Kind
		}
		if same && v.Kind != resp.Map && len(v.Elems) > 0 && v.Elems[0].Kind != resp.Array {
			slices.SortFunc(v.Elems, func(a, b resp.Value) int { return strings.Compare(enc(a), enc(b)) })
		}
		if same && len(v.Elems) > 0 && v.Elems[0].Kind == resp.Array && len(v.Elems[0].Elems) == 2 && v.Elems[0].Elems[1].Kind == resp.Double {
			slices.SortFunc(v.Elems, func(a, b resp.Value) int { return strings.Compare(enc(a), enc(b)) })
		}
	}
	sortValue(v)
	return string(resp.Append(nil, v, proto))
}

func enc(v resp.Value) string { return string(resp.Append(nil, v, 3)) }

// mask zeroes the client id in a HELLO reply.
func mask(raw string) string {
	return regexp.MustCompile(`\$2\r\nid\r\n:\d+\r\n`).ReplaceAllString(raw, "$$2\r\nid\r\n:0\r\n")
}

// TestDifferentialProtocol sends raw bytes (inline commands, malformed
// requests) on a fresh connection and compares everything the server
// sends until it closes the connection.
func TestDifferentialProtocol(t *testing.T) {
	needRedis(t)
	ts := startServer(t, nil, server.Config{})
	var pipeline bytes.Buffer
	for i := range 50 {
		pipeline.Write(encode("ECHO", strings.Repeat("x", i)))
	}
	for _, in := range []string{
		"PING\r\nQUIT\r\n",
		"ECHO \"a\\x41\\n\\t\\\"\" 'b\\'c' d\r\nQUIT\r\n",
		"\r\n\r\nPING\n   \nQUIT\n",
		"*0\r\n*-1\r\nPING\r\nQUIT\r\n",
		"*1\r\n$4\r\nPINGxx*1\r\n$4\r\nQUIT\r\n",
		"*x\r\n",
		"*1\r\n!3\r\nfoo\r\n",
		"*1\r\n$x\r\n",
		"*1\r\n$-1\r\n",
		"*1\r\n$600000000\r\n",
		"*3000000000\r\n",
		"PING\r\nECHO \"unbalanced\r\nPING\r\n",
		"ECHO \"a\"b\r\n",
		"ECHO 'a'b\r\n",
		pipeline.String() + "QUIT\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n*1\r\n$4\r\nQUIT\r\n",
	} {
		got, want := dial(t, ts.addr), dial(t, redisAddr)
		got.send([]byte(in))
		want.send([]byte(in))
		require.Equal(t, want.readAll(), got.readAll(), "%q", in)
	}
}
