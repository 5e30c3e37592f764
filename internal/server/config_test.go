package server_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/stretchr/testify/require"
)

// configScript sets and reads Redis 7.0's parameters, and ends with the
// reference redis-server's defaults back (make test's, and the ones the
// other scripts read). Values that would act on the reference server are
// harmless ones: no save point it could reach, a memory limit far above
// its use.
var configScript = []string{
	"CONFIG SET zset-max-ziplist-entries 100", "CONFIG GET zset-max-ziplist-entries", "CONFIG GET zset-max-listpack-entries",
	"CONFIG SET zset-max-listpack-entries 127 zset-max-listpack-value 32", "CONFIG GET zset-max-ziplist-value",
	"CONFIG GET zset-max-listpack-value", "CONFIG GET ZSET-MAX-LISTPACK-ENTRIES",
	"CONFIG SET set-max-intset-entries 1000", "CONFIG GET set-max-intset-entries", "CONFIG SET Set-Max-Intset-Entries 0",
	"CONFIG GET set-max-intset-entries",
	"CONFIG SET", "CONFIG SET foo", "CONFIG SET foo 1", "CONFIG SET Foo 1", "CONFIG SET zset-max-listpack-entries",
	"CONFIG SET zset-max-listpack-entries 1 foo", "CONFIG SET zset-max-listpack-entries 1 foo 2",
	"CONFIG SET foo 2 zset-max-listpack-entries x", "CONFIG SET databases 1 foo 2", "CONFIG SET foo 2 databases 1",
	"CONFIG SET databases 16", "CONFIG SET zset-max-listpack-entries abc", "CONFIG SET ZSET-MAX-LISTPACK-ENTRIES abc",
	"CONFIG SET zset-max-ziplist-entries abc", "CONFIG SET zset-max-listpack-entries -1", "CONFIG SET set-max-intset-entries -1",
	"CONFIG SET zset-max-listpack-entries 1.5", `CONFIG SET zset-max-listpack-entries " 1"`, "CONFIG SET zset-max-listpack-entries +1",
	"CONFIG SET zset-max-listpack-entries 01", "CONFIG SET zset-max-listpack-entries 1k", `CONFIG SET zset-max-listpack-entries ""`,
	"CONFIG SET zset-max-listpack-entries 99999999999999999999", "CONFIG SET zset-max-listpack-value 9223372036854775807",
	"CONFIG GET zset-max-listpack-value", "CONFIG SET zset-max-listpack-value 9223372036854775808",
	"CONFIG SET zset-max-listpack-value 18446744073709551616", "CONFIG SET zset-max-listpack-value 1kb",
	"CONFIG GET zset-max-listpack-value", "CONFIG SET zset-max-listpack-value 2M", "CONFIG GET zset-max-listpack-value",
	"CONFIG SET zset-max-listpack-value -1", "CONFIG SET zset-max-listpack-value 1.5", "CONFIG SET zset-max-listpack-value 20000000000g",
	"CONFIG SET maxmemory 20000000000g", "CONFIG GET maxmemory", "CONFIG SET maxmemory 99999999999999999999999", "CONFIG GET maxmemory",
	"CONFIG SET zset-max-listpack-entries 1 ZSET-MAX-LISTPACK-ENTRIES 2",
	"CONFIG SET zset-max-ziplist-entries 5 zset-max-listpack-entries 6", "CONFIG GET zset-max-ziplist-entries",
	// A good value then a bad one: nothing is set.
	"CONFIG SET zset-max-listpack-entries 7 zset-max-listpack-value x", "CONFIG GET zset-max-listpack-entries",
	"CONFIG SET zset-max-listpack-entries 7 zset-max-listpack-value 3 set-max-intset-entries -2", "CONFIG GET zset-max-listpack-value",
	"CONFIG SET maxmemory 1gb", "CONFIG GET maxmemory", "CONFIG SET maxmemory 2G", "CONFIG GET maxmemory",
	"CONFIG SET maxmemory 3000000k", "CONFIG GET maxmemory", "CONFIG SET maxmemory 5000000000b", "CONFIG GET maxmemory",
	"CONFIG SET maxmemory -1", "CONFIG SET maxmemory abc", "CONFIG SET maxmemory 1kib", `CONFIG SET maxmemory ""`,
	"CONFIG GET maxmemory", "CONFIG SET maxmemory 0",
	"CONFIG SET appendonly maybe", "CONFIG SET appendonly NO", "CONFIG GET appendonly",
	`CONFIG SET save "86400 100000000"`, "CONFIG GET save", `CONFIG SET save "86400 100000000 90000 +200000000"`,
	"CONFIG GET save", `CONFIG SET save "1 2 3"`, `CONFIG SET save "a b"`, `CONFIG SET save "  5  6 "`,
	`CONFIG SET save "0 1"`, `CONFIG SET save "1 -1"`, "CONFIG GET save", `CONFIG SET save ""`, "CONFIG GET save",
	"CONFIG SET zset-max-listpack-entries 128 zset-max-listpack-value 64 set-max-intset-entries 512 maxmemory 0 appendonly no",
	"CONFIG GET zset-max-ziplist-entries", "CONFIG GET set-max-intset-entries",
}

// TestConfigSetDifferential: CONFIG SET's replies, errors and the values
// CONFIG GET then reports are redis-server 7.0's, byte for byte.
func TestConfigSetDifferential(t *testing.T) {
	needRedis(t)
	t.Cleanup(func() { resetReferenceConfig(t) })
	runDifferential(t, configScript)
}

// resetReferenceConfig puts the parameters configScript sets back to the
// reference redis-server's defaults, whatever the script got to.
func resetReferenceConfig(t *testing.T) {
	require.Equal(t, "+OK\r\n", dial(t, redisAddr).do("CONFIG", "SET",
		"zset-max-listpack-entries", "128", "zset-max-listpack-value", "64", "set-max-intset-entries", "512",
		"maxmemory", "0", "appendonly", "no", "save", ""))
}

// configMap reads a CONFIG GET reply as name -> value.
func configMap(t *testing.T, raw string) map[string]string {
	t.Helper()
	v, err := resp.NewReader(strings.NewReader(raw)).ReadReply()
	require.NoError(t, err, raw)
	m := map[string]string{}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		m[v.Elems[i].Str] = v.Elems[i+1].Str
	}
	return m
}

// TestConfigGetPatterns: CONFIG GET's glob patterns find what CONFIG SET
// set, under both names of an aliased parameter, as redis-server's (whose
// order differs: compared as maps). set-max-listpack-entries and
// set-max-listpack-value are Redis 7.2's, which 7.0 does not know.
func TestConfigGetPatterns(t *testing.T) {
	needRedis(t)
	t.Cleanup(func() { resetReferenceConfig(t) })
	ts := startServer(t, nil, server.Config{})
	got, want := dial(t, ts.addr), dial(t, redisAddr)
	for _, c := range []*client{got, want} {
		require.Equal(t, "+OK\r\n", c.do("CONFIG", "SET", "zset-max-ziplist-entries", "99", "zset-max-listpack-value", "33", "set-max-intset-entries", "7"))
	}
	for _, pats := range [][]string{
		{"zset-max-*"}, {"zset-max-*-entries"}, {"zset-max-ziplist-*", "zset-max-listpack-entries"},
		{"ZSET-MAX-*", "zset-*"}, {"set-max-intset-*"}, {"zset-max-listpack-entries", "ZSET-MAX-ZIPLIST-VALUE"},
		{"appendonly", "save", "maxmemory", "databases"}, {"nosuch*"},
	} {
		args := append([]string{"CONFIG", "GET"}, pats...)
		require.Equal(t, configMap(t, want.do(args...)), configMap(t, got.do(args...)), "CONFIG GET %v", pats)
	}
	require.Equal(t, map[string]string{"set-max-intset-entries": "7", "set-max-listpack-entries": "128", "set-max-listpack-value": "64"},
		configMap(t, got.do("CONFIG", "GET", "set-max-*")))
	require.Equal(t, "+OK\r\n", got.do("CONFIG", "SET", "set-max-listpack-entries", "5", "set-max-listpack-value", "6"))
	require.Equal(t, map[string]string{"set-max-listpack-entries": "5", "set-max-listpack-value": "6"},
		configMap(t, got.do("CONFIG", "GET", "set-max-listpack-*")))
	// Values are the server's, not the connection's, and last as long as
	// it does.
	require.Equal(t, map[string]string{"zset-max-ziplist-entries": "99"}, configMap(t, dial(t, ts.addr).do("CONFIG", "GET", "zset-max-ziplist-entries")))
	other := startServer(t, nil, server.Config{})
	require.Equal(t, map[string]string{"zset-max-ziplist-entries": "128"}, configMap(t, dial(t, other.addr).do("CONFIG", "GET", "zset-max-ziplist-entries")))
	// What redimo-server sets by its flags is refused, as Redis refuses an
	// immutable parameter (Redis itself would change port, maxclients and
	// timeout).
	for _, p := range []string{"port", "maxclients", "timeout", "databases"} {
		require.Equal(t, "-ERR CONFIG SET failed (possibly related to argument '"+p+"') - can't set immutable config\r\n", got.do("CONFIG", "SET", p, "1"))
	}
	require.Contains(t, got.do("CONFIG", "HELP"), "SET <directive> <value>")
}

// infoClients is the Clients section of INFO as name -> value.
func infoClients(t *testing.T, c *client) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, l := range regexp.MustCompile(`(\w+):(\d+)\r\n`).FindAllStringSubmatch(c.do("INFO", "clients"), -1) {
		m[l[1]] = l[2]
	}
	return m
}

// TestInfoClients: INFO clients has redis-server 7.0's fields (a subset
// of them, no client buffer sizes), and blocked_clients counts the
// connections waiting in BZPOPMIN/BZPOPMAX/BZMPOP, those with a timeout
// also in clients_in_timeout_table, until their wait ends.
func TestInfoClients(t *testing.T) {
	needRedis(t)
	ts := startServer(t, nil, server.Config{MaxClients: 77})
	c := dial(t, ts.addr)
	want := infoClients(t, dial(t, redisAddr))
	got := infoClients(t, c)
	for name := range got {
		require.Contains(t, want, name, "a field redis-server's INFO clients has")
	}
	require.Equal(t, map[string]string{
		"connected_clients": "1", "cluster_connections": "0", "maxclients": "77",
		"blocked_clients": "0", "tracking_clients": "0", "clients_in_timeout_table": "0",
	}, got)

	prefix := "infoclients:" + randomHex(4) + ":"
	waitFor := func(blocked, inTable string) {
		t.Helper()
		require.Eventually(t, func() bool {
			m := infoClients(t, c)
			return m["blocked_clients"] == blocked && m["clients_in_timeout_table"] == inTable
		}, 10*time.Second, 20*time.Millisecond, "blocked_clients:%s clients_in_timeout_table:%s", blocked, inTable)
	}
	// A BZPOPMIN with a timeout, fed by a ZADD.
	b1 := dial(t, ts.addr)
	b1.send(encode("BZPOPMIN", prefix+"q", "30"))
	waitFor("1", "1")
	require.Equal(t, "2", infoClients(t, c)["connected_clients"])
	require.Equal(t, ":1\r\n", c.do("ZADD", prefix+"q", "1", "a"))
	require.Equal(t, "*3\r\n$"+itoa(len(prefix+"q"))+"\r\n"+prefix+"q\r\n$1\r\na\r\n$1\r\n1\r\n", string(b1.read()))
	waitFor("0", "0")
	// BZMPOP waiting forever (timeout 0: not in the timeout table) and
	// BZPOPMAX timing out.
	b2, b3 := dial(t, ts.addr), dial(t, ts.addr)
	b2.send(encode("BZMPOP", "0", "1", prefix+"m", "MIN"))
	b3.send(encode("BZPOPMAX", prefix+"x", "0.5"))
	require.Eventually(t, func() bool { return infoClients(t, c)["blocked_clients"] != "0" }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, "*-1\r\n", string(b3.read()))
	waitFor("1", "0")
	require.Equal(t, ":1\r\n", c.do("ZADD", prefix+"m", "2", "b"))
	require.Contains(t, string(b2.read()), "$1\r\nb\r\n")
	waitFor("0", "0")
	// Inside MULTI a blocking pop does not wait, nor count.
	require.Equal(t, "+OK\r\n", c.do("MULTI"))
	require.Equal(t, "+QUEUED\r\n", c.do("BZPOPMIN", prefix+"none", "1"))
	require.Equal(t, "*1\r\n*-1\r\n", c.do("EXEC"))
	require.Equal(t, "0", infoClients(t, c)["blocked_clients"])
}
