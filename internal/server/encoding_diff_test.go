package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// ints is the Redis arguments "from ... to".
func ints(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, " %d", i)
	}
	return b.String()[1:]
}

// pairs is the ZADD arguments "1 m1 2 m2 ... n mn".
func pairs(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, " %d m%d", i, i)
	}
	return b.String()[1:]
}

// encodingScript: OBJECT ENCODING under CONFIG SET's thresholds, where
// Redis 7.0.15 answers as Redis 7.2 does: sorted sets (listpack,
// skiplist) and sets of integers (intset, or hashtable when too many for
// an intset and for a listpack). It starts and ends at the defaults.
var encodingScript = []string{
	"CONFIG SET zset-max-listpack-entries 128 zset-max-listpack-value 64 set-max-intset-entries 512",
	"ZADD {z} 1 a 2 b", "OBJECT ENCODING {z}",
	"CONFIG SET zset-max-listpack-entries 3", "ZADD {z} 3 c", "OBJECT ENCODING {z}", "ZADD {z} 4 d", "OBJECT ENCODING {z}",
	"ZADD {z2} 1 " + strings.Repeat("v", 64), "OBJECT ENCODING {z2}", "ZADD {z3} 1 " + strings.Repeat("v", 65), "OBJECT ENCODING {z3}",
	"CONFIG SET zset-max-ziplist-value 100", "ZADD {z4} 1 " + strings.Repeat("v", 65), "OBJECT ENCODING {z4}",
	"ZADD {z4} 1 " + strings.Repeat("v", 101), "OBJECT ENCODING {z4}",
	"CONFIG SET zset-max-listpack-entries 0", "ZADD {z5} 1 a", "OBJECT ENCODING {z5}",
	"CONFIG SET zset-max-listpack-entries 128 zset-max-listpack-value 64",
	"ZADD {z6} " + strings.Repeat("1 m ", 3) + "2 n", "OBJECT ENCODING {z6}",
	"ZADD {big} " + pairs(130), "OBJECT ENCODING {big}",
	"SADD {s} 1 2 3", "OBJECT ENCODING {s}", "SADD {s} -5 9223372036854775807 0", "OBJECT ENCODING {s}",
	// Sets of up to 99 members (written at most 64 at a time) are
	// redimo's small sets (smallset.go), larger ones member items,
	// "hashtable" where Redis may still say intset (up to
	// set-max-intset-entries).
	"SADD {s1} " + ints(1, 60), "OBJECT ENCODING {s1}", "SADD {s1} " + ints(61, 513), "OBJECT ENCODING {s1}",
	"CONFIG SET set-max-intset-entries 50", "SADD {s2} " + ints(1, 50), "OBJECT ENCODING {s2}",
	"SADD {s3} " + ints(1, 201), "OBJECT ENCODING {s3}",
	"OBJECT ENCODING {none}",
	// Inside MULTI, after writes (the issue's "MULTI refuses OBJECT
	// ENCODING after a write, ZRANGESTORE").
	"MULTI", "ZADD {q} 1 a 2 b 3 c", "OBJECT ENCODING {q}", "ZRANGESTORE {d} {q} 0 1", "ZRANGE {d} 0 -1 WITHSCORES",
	"OBJECT ENCODING {d}", "SADD {i} 7 8", "OBJECT ENCODING {i}", "DEL {q}", "OBJECT ENCODING {q}", "EXEC",
	"CONFIG SET zset-max-listpack-entries 128 zset-max-listpack-value 64 set-max-intset-entries 512",
}

func TestDifferentialEncoding(t *testing.T) {
	t.Cleanup(func() { // the defaults again on the shared redis-server, whatever happened
		if redisAddr != "" {
			c := dial(t, redisAddr)
			c.do("CONFIG", "SET", "zset-max-listpack-entries", "128", "zset-max-listpack-value", "64", "set-max-intset-entries", "512")
		}
	})
	runDifferential(t, encodingScript)
}

// TestMultiInfo: INFO inside MULTI is queued and answered at EXEC, as
// Redis 7.0 does (its reply is the server's own, so not compared).
func TestMultiInfo(t *testing.T) {
	needRedis(t)
	for name, addr := range map[string]string{"redis-server": redisAddr, "redimo-server": startServer(t, nil, server.Config{}).addr} {
		c := dial(t, addr)
		require.Equal(t, "+OK\r\n", c.do("MULTI"), name)
		require.Equal(t, "+QUEUED\r\n", c.do("SADD", "multiinfo:"+randomHex(4), "a"), name)
		require.Equal(t, "+QUEUED\r\n", c.do("INFO", "server"), name)
		got := c.do("EXEC")
		require.True(t, strings.HasPrefix(got, "*2\r\n:1\r\n"), "%s: %q", name, got)
		require.Contains(t, got, "redis_version:", name)
	}
}
