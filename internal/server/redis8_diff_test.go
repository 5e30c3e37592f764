package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// redis8Script exercises Redis 8.10's SUNIONCARD and SDIFFCARD and Redis
// 8.8's AGGREGATE COUNT, which the reference redis-server (7.0) lacks: each
// line's reference reply is a model run on the reference server (see
// redis8Model), compared byte for byte in RESP2 and RESP3.
var redis8Script = []string{
	"SADD {a} 1 2 3", "SADD {b} 3 4", "ZADD {z} 1 x 2 y",
	"SUNIONCARD 2 {a} {b}", "SUNIONCARD 2 {a} {b} LIMIT 3", "SUNIONCARD 2 {a} {b} LIMIT 0", "SUNIONCARD 2 {a} {b} limit 1",
	"SUNIONCARD 3 {a} {b} {none} LIMIT 100", "SUNIONCARD 1 {a}", "SUNIONCARD 2 {a} {a} LIMIT 2", "SUNIONCARD 1 {none}",
	"SUNIONCARD 2 {a} {z}", "SUNIONCARD 1 {z} LIMIT 1", "SUNIONCARD 2 {none} {z}", "SUNIONCARD 0 {a}", "SUNIONCARD -1 {a}",
	"SUNIONCARD x {a}", "SUNIONCARD 3 {a} {b}", "SUNIONCARD 1 {a} LIMIT -1", "SUNIONCARD 1 {a} LIMIT x",
	"SUNIONCARD 1 {a} FOO 1", "SUNIONCARD 1 {a} LIMIT", "SUNIONCARD 1 {a} LIMIT 1 LIMIT 2", "SUNIONCARD 2 {z} {a} LIMIT -1",
	"SUNIONCARD", "SUNIONCARD 1",
	"SDIFFCARD 2 {a} {b}", "SDIFFCARD 2 {a} {b} LIMIT 1", "SDIFFCARD 3 {a} {b} {none} LIMIT 100", "SDIFFCARD 1 {a}",
	"SDIFFCARD 2 {a} {a}", "SDIFFCARD 2 {b} {a} LIMIT 0", "SDIFFCARD 1 {none}", "SDIFFCARD 2 {none} {a}",
	"SDIFFCARD 2 {none} {z}", "SDIFFCARD 2 {a} {z}", "SDIFFCARD 0 {a}", "SDIFFCARD 1 {a} LIMIT -1", "SDIFFCARD 1 {a} LIMIT",
	"SDIFFCARD 3 {a}", "SDIFFCARD 1 {a} BAR", "SDIFFCARD",
	"ZADD {za} 1 a 2 b 3 c", "ZADD {zb} 10 b 20 c 30 d", "SADD {sa} a d x",
	"ZUNION 3 {za} {zb} {sa} AGGREGATE COUNT WITHSCORES", "ZUNION 2 {za} {zb} WEIGHTS 2 0.5 AGGREGATE count WITHSCORES",
	"ZUNION 3 {za} {none} {za} AGGREGATE COUNT WITHSCORES", "ZUNION 2 {za} {zb} AGGREGATE COUNT",
	"ZINTER 2 {za} {zb} AGGREGATE COUNT WITHSCORES", "ZINTER 2 {za} {za} WEIGHTS 1 inf AGGREGATE COUNT WITHSCORES",
	"ZINTER 2 {za} {sa} WEIGHTS -1 0 AGGREGATE COUNT WITHSCORES", "ZINTER 2 {za} {none} AGGREGATE COUNT",
	"ZUNIONSTORE {dst} 3 {za} {zb} {sa} WEIGHTS 1 2 3 AGGREGATE COUNT", "ZRANGE {dst} 0 -1 WITHSCORES",
	"ZINTERSTORE {dst} 2 {za} {sa} AGGREGATE COUNT", "ZRANGE {dst} 0 -1 WITHSCORES",
	"ZUNIONSTORE {za} 2 {za} {zb} AGGREGATE COUNT", "ZRANGE {za} 0 -1 WITHSCORES",
	"ZUNION 2 {za} {zb} AGGREGATE COUNT FOO", "ZUNION 2 {za} {zb} AGGREGATE COUNT WEIGHTS 1", "ZUNION 2 {za} {zb} AGGREGATE",
	"ZDIFF 2 {za} {zb} AGGREGATE COUNT", "ZINTERCARD 2 {za} {zb} AGGREGATE COUNT",
	"DEL {a} {b} {z} {za} {zb} {sa} {dst}",
}

func TestDifferentialRedis8(t *testing.T) {
	needRedis(t)
	ts := startServer(t, nil, server.Config{})
	for _, proto := range []int{2, 3} {
		prefix := "diff8:" + randomHex(4) + ":"
		got, want := dial(t, ts.addr), dial(t, redisAddr)
		if proto == 3 {
			require.Equal(t, mask(want.do("HELLO", "3")), mask(got.do("HELLO", "3")))
		}
		for _, line := range redis8Script {
			args, ok := resp.SplitArgs(line)
			require.True(t, ok, line)
			for i := range args {
				args[i] = keyRE.ReplaceAllString(args[i], prefix+"$1")
			}
			g := got.do(args...)
			require.Equal(t, redis8Model(t, want, prefix, args), g, "RESP%d: %s", proto, line)
		}
	}
}

// redis8Model is the reference reply to args on the Redis 7.0 server r.
//
// SUNIONCARD and SDIFFCARD share SINTERCARD's arguments and errors: an
// error from SINTERCARD with the same arguments other than WRONGTYPE is
// the reply (the command's name put in an arity error); else the reply is
// the size of SUNION or SDIFF of the keys (or its WRONGTYPE), capped at the
// last LIMIT when it is above 0.
//
// ZUNION, ZINTER and their *STORE with AGGREGATE COUNT run with SUM on
// plain-set copies of the inputs: a member of a set scores 1, so SUM of
// the weights of the inputs holding a member is COUNT's score; a missing
// input stays missing, and every argument is still parsed by the server.
// Other commands are sent as they are.
func redis8Model(t *testing.T, r *client, prefix string, args []string) string {
	cmd := strings.ToUpper(args[0])
	switch cmd {
	case "SUNIONCARD", "SDIFFCARD":
		check := r.do(append([]string{"SINTERCARD"}, args[1:]...)...)
		if strings.HasPrefix(check, "-") && !strings.HasPrefix(check, "-WRONGTYPE") {
			return strings.Replace(check, "'sintercard'", "'"+strings.ToLower(cmd)+"'", 1)
		}
		n, _ := strconv.Atoi(args[1])
		keys, opts := args[2:2+n], args[2+n:]
		var limit int64
		for i := 0; i+1 < len(opts); i += 2 {
			limit, _ = strconv.ParseInt(opts[i+1], 10, 64)
		}
		raw := r.do(append([]string{strings.TrimSuffix(cmd, "CARD")}, keys...)...)
		v, err := resp.NewReader(strings.NewReader(raw)).ReadReply()
		require.NoError(t, err)
		if v.IsError() {
			return raw
		}
		size := int64(len(v.Elems))
		if limit > 0 {
			size = min(size, limit)
		}
		return ":" + strconv.FormatInt(size, 10) + "\r\n"
	case "ZUNION", "ZINTER", "ZUNIONSTORE", "ZINTERSTORE":
		count := -1
		for i := 1; i < len(args); i++ {
			if strings.EqualFold(args[i], "COUNT") && strings.EqualFold(args[i-1], "AGGREGATE") {
				count = i
			}
		}
		if count < 0 {
			break
		}
		rewritten := append([]string(nil), args...)
		rewritten[count] = "SUM"
		at := 1
		if strings.HasSuffix(cmd, "STORE") {
			at = 2
		}
		n, err := strconv.Atoi(args[at])
		for i := at + 1; err == nil && i <= at+n && i < len(args); i++ {
			cp := prefix + "count-copy:" + strconv.Itoa(i)
			rewritten[i] = cp
			r.do("DEL", cp)
			switch typ := r.do("TYPE", args[i]); typ {
			case "+set\r\n":
				r.do("SUNIONSTORE", cp, args[i])
			case "+zset\r\n":
				members, err := resp.NewReader(strings.NewReader(r.do("ZRANGE", args[i], "0", "-1"))).ReadReply()
				require.NoError(t, err)
				for _, m := range members.Elems {
					r.do("SADD", cp, m.Str)
				}
			case "+none\r\n":
			default:
				t.Fatalf("model: %s is %q", args[i], typ)
			}
		}
		return r.do(rewritten...)
	}
	return r.do(args...)
}
