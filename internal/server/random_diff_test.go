package server_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// randomTemplates are the commands of the random differential test, with
// placeholders: {k} one of three keys (sets and sorted sets mix, so wrong
// types occur), {m} a member, {ms} one to three members, {s} a score, {b}
// a score bound, {l} a lex bound, {r} a rank or offset, {c} a count.
// "~" marks an unordered reply. ZRANGEBYLEX and friends run on a key whose
// scores are all 0 ({lex}): with mixed scores Redis's answer depends on
// its encoding.
var randomTemplates = []string{
	"SADD {k} {ms}", "SREM {k} {ms}", "SCARD {k}", "SISMEMBER {k} {m}", "SMISMEMBER {k} {ms}", "~SMEMBERS {k}",
	"~SINTER {k} {k}", "~SUNION {k} {k}", "~SDIFF {k} {k}", "SINTERCARD 2 {k} {k}", "SINTERSTORE {k} {k} {k}",
	"SUNIONSTORE {k} {k} {k}", "SDIFFSTORE {k} {k} {k}", "SMOVE {k} {k} {m}", "~SSCAN {k} 0", "EXISTS {k} {k}",
	"TYPE {k}", "DEL {k}",
	"ZADD {k} {s} {m}", "ZADD {k} {s} {m} {s} {m}", "ZADD {k} XX CH {s} {m}", "ZADD {k} NX {s} {m}",
	"ZADD {k} GT {s} {m}", "ZADD {k} LT CH {s} {m}", "ZADD {k} INCR {s} {m}", "ZINCRBY {k} {s} {m}", "ZREM {k} {ms}",
	"ZCARD {k}", "ZSCORE {k} {m}", "ZMSCORE {k} {ms}", "ZCOUNT {k} {b} {b}", "ZRANK {k} {m}", "ZREVRANK {k} {m}",
	"ZRANGE {k} {r} {r}", "ZRANGE {k} {r} {r} WITHSCORES", "ZRANGE {k} {r} {r} REV", "ZRANGEBYSCORE {k} {b} {b} WITHSCORES",
	"ZRANGEBYSCORE {k} {b} {b} LIMIT {r} {c}", "ZREVRANGEBYSCORE {k} {b} {b} WITHSCORES",
	"ZRANGE {k} {b} {b} BYSCORE REV LIMIT {r} {c} WITHSCORES", "ZREMRANGEBYSCORE {k} {b} {b}", "ZREMRANGEBYRANK {k} {r} {r}",
	"ZPOPMIN {k}", "ZPOPMAX {k} {c}", "ZUNION 2 {k} {k} WITHSCORES", "ZINTER 2 {k} {k} WITHSCORES", "ZDIFF 2 {k} {k} WITHSCORES",
	"ZUNIONSTORE {k} 2 {k} {k} WEIGHTS {s} {s}", "ZINTERSTORE {k} 2 {k} {k} AGGREGATE MAX", "ZDIFFSTORE {k} 2 {k} {k}",
	"ZINTERCARD 2 {k} {k}", "ZRANGESTORE {k} {k} {r} {r}", "~ZSCAN {k} 0",
	"ZADD {lex} 0 {m}", "ZRANGEBYLEX {lex} {l} {l}", "ZREVRANGEBYLEX {lex} {l} {l} LIMIT {r} {c}", "ZLEXCOUNT {lex} {l} {l}",
	"ZREMRANGEBYLEX {lex} {l} {l}", "ZRANGE {lex} {l} {l} BYLEX",
}

var randomValues = map[string][]string{
	"m": {"a", "b", "c", "d", "", "héllo", "\xff"},
	"s": {"-inf", "-1.5", "0", "1", "2.5", "+inf", "1e308", "0.1"},
	"b": {"-inf", "+inf", "0", "1", "(1", "2.5", "(2.5", "-1.5", "(-inf"},
	"l": {"-", "+", "[a", "(a", "[b", "(c", "[héllo", "[", "(\xff"},
	"r": {"-3", "-1", "0", "1", "2", "5"},
	"c": {"-1", "0", "1", "2", "5"},
}

// randomRuns is the frame of the random differential tests: a server on
// the run's table, then run for each of env_SEQS (default seqs) sequences
// of env_LEN (default length) commands, with the sequence's number, its
// seed (for failure messages), a source seeded with it and a key prefix of
// its own starting with name.
func randomRuns(t *testing.T, env, name string, seqs, length int, run func(ts *testServer, seq int, seed uint64, r *rand.Rand, prefix string, length int)) {
	needRedis(t)
	ts := startServer(t, nil, server.Config{})
	seqs, length = envInt(env+"_SEQS", seqs), envInt(env+"_LEN", length)
	base := rand.Uint64()
	for seq := range seqs {
		seed := base + uint64(seq)
		run(ts, seq, seed, rand.New(rand.NewPCG(seed, 0)), name+":"+randomHex(4)+":", length)
	}
}

// TestDifferentialRandom runs random command sequences on redimo-server
// and the reference redis-server (RESP2 and RESP3 alternately) and compares
// every reply's bytes. REDIMO_RANDOM_SEQS and REDIMO_RANDOM_LEN make it
// longer; a failure names the seed and the commands that led to it.
func TestDifferentialRandom(t *testing.T) {
	randomRuns(t, "REDIMO_RANDOM", "rnd", 4, 120, func(ts *testServer, seq int, seed uint64, r *rand.Rand, prefix string, length int) {
		keys := []string{prefix + "x", prefix + "y", prefix + "z"}
		proto := 2 + seq%2
		got, want := dial(t, ts.addr), dial(t, redisAddr)
		if proto == 3 {
			got.do("HELLO", "3")
			want.do("HELLO", "3")
		}
		var history []string
		for range length {
			out, unordered := randomCommand(r, keys, prefix)
			history = append(history, strings.Join(quoteAll(out), " "))
			g, w := got.do(out...), want.do(out...)
			if unordered {
				g, w = sorted(g, proto), sorted(w, proto)
			}
			require.Equal(t, w, g, "RESP%d, seed %d, after:\n%s", proto, seed, strings.Join(history, "\n"))
		}
		want.do(append([]string{"DEL", prefix + "lex"}, keys...)...)
		got.do(append([]string{"DEL", prefix + "lex"}, keys...)...)
	})
}

// randomCommand is one random command of randomTemplates on keys, and
// whether its reply is unordered.
func randomCommand(r *rand.Rand, keys []string, prefix string) ([]string, bool) {
	tpl := randomTemplates[r.IntN(len(randomTemplates))]
	unordered := strings.HasPrefix(tpl, "~")
	args, _ := resp.SplitArgs(strings.TrimPrefix(tpl, "~"))
	var out []string
	for _, a := range args {
		switch a {
		case "{k}":
			out = append(out, keys[r.IntN(len(keys))])
		case "{lex}":
			out = append(out, prefix+"lex")
		case "{ms}":
			for range 1 + r.IntN(3) {
				out = append(out, pick(r, "m"))
			}
		case "{m}", "{s}", "{b}", "{l}", "{r}", "{c}":
			out = append(out, pick(r, a[1:len(a)-1]))
		default:
			out = append(out, a)
		}
	}
	return out, unordered
}

func pick(r *rand.Rand, kind string) string {
	vs := randomValues[kind]
	return vs[r.IntN(len(vs))]
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
