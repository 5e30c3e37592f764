package server_test

import (
	"strings"
	"testing"
)

// TestDifferentialLongMembers: members of 1,000 to 100,000 bytes (over
// the 1015 bytes a sort key holds whole: the library's "Long members"),
// multibyte ones, and some sharing their first 1015 bytes, through the
// set and sorted-set commands, compared with redis-server.
func TestDifferentialLongMembers(t *testing.T) {
	a2k := strings.Repeat("a", 2000)
	mb := strings.Repeat("é", 1000) // 2000 bytes
	shared := strings.Repeat("p", 1015)
	big := strings.Repeat("x", 100_000)
	members := []string{a2k, mb, shared, shared + "b", shared + "a", shared + "ab", big, strings.Repeat("y", 1016), "s"}
	q := func(s string) string { return "'" + s + "'" }
	var script []string
	for _, m := range members {
		script = append(script, "SADD {s} "+q(m), "ZADD {z} 1 "+q(m), "ZADD {lex} 0 "+q(m))
	}
	script = append(script,
		"SADD {s} "+q(a2k), "ZADD {z} 2 "+q(mb), "ZADD {z} NX 5 "+q(shared+"a"), "ZADD {z} XX CH 3 "+q(big),
		"SCARD {s}", "ZCARD {z}", "SISMEMBER {s} "+q(a2k), "SISMEMBER {s} "+q(a2k+"a"), "SMISMEMBER {s} "+q(mb)+" "+q(shared+"c"),
		"~SMEMBERS {s}", "ZRANGE {z} 0 -1 WITHSCORES", "ZREVRANGE {z} 0 -1", "ZRANGE {z} 2 4", "ZSCORE {z} "+q(mb),
		"ZMSCORE {z} "+q(big)+" "+q(shared+"z"), "ZRANK {z} "+q(shared+"ab"), "ZREVRANK {z} "+q(shared+"ab"),
		"ZINCRBY {z} 1.5 "+q(shared), "ZRANGE {lex} 0 -1", "ZRANGEBYLEX {lex} "+q("["+shared+"a")+" +",
		"ZRANGEBYLEX {lex} "+q("("+shared+"a")+" "+q("["+shared+"b"), "ZREVRANGEBYLEX {lex} + "+q("("+shared),
		"ZLEXCOUNT {lex} "+q("["+shared)+" "+q("("+shared+"ab"), "ZRANGEBYLEX {lex} - "+q("("+a2k+"a")+" LIMIT 1 3",
		"~ZSCAN {z} 0", "~SSCAN {s} 0", "~SSCAN {s} 0 MATCH "+q(shared+"a*"),
		"SREM {s} "+q(shared+"a")+" "+q(shared+"q"), "ZREM {z} "+q(shared+"b")+" "+q(shared+"q"),
		"ZREMRANGEBYLEX {lex} "+q("["+shared+"a")+" "+q("["+shared+"b"), "ZRANGE {lex} 0 -1",
		"ZPOPMIN {z} 3", "ZPOPMAX {z}", "~SINTER {s} {s}", "SINTERSTORE {d} {s} {s}", "~SMEMBERS {d}",
		"ZUNIONSTORE {dz} 2 {z} {lex}", "ZRANGE {dz} 0 -1 WITHSCORES", "SMOVE {s} {s2} "+q(mb), "~SMEMBERS {s2}",
		"DEL {s} {z} {lex} {d} {dz} {s2}",
	)
	// Keys over the 2047 bytes a partition key holds whole.
	k3 := "{lk}" + strings.Repeat("k", 3000)
	k100 := "{lk}" + strings.Repeat("K", 100_000)
	script = append(script,
		"SADD "+k3+" a b "+q(a2k), "ZADD "+k100+" 1 a 2 "+q(big), "SCARD "+k3, "ZRANGE "+k100+" 0 -1 WITHSCORES",
		"TYPE "+k3, "TYPE "+k100, "EXISTS "+k3+" "+k100, "SISMEMBER "+k3+" "+q(a2k), "SUNIONSTORE "+k100+"x "+k3,
		"~SMEMBERS "+k100+"x", "EXPIRE "+k3+" 1000", "≈TTL "+k3, "RENAME "+k3+" "+k3+"r", "~SMEMBERS "+k3+"r",
		"EXISTS "+k3, "~KEYS {lk}*", "~KEYS {lk}K*", "DEL "+k3+"r "+k100+" "+k100+"x", "EXISTS "+k100,
	)
	runDifferential(t, script)
}
