package server_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// SELECT against redis-server: the same key names in databases 0, 1 and 2
// are different keys, and CONFIG GET answers as Redis's default config.
var selectScript = []string{
	"SELECT 1", "SADD {s} a", "ZADD {z} 1 m", "SELECT 2", "EXISTS {s} {z}", "SADD {s} b c", "SCARD {s}",
	"SELECT 1", "SCARD {s}", "KEYS {s}*", "SELECT 0", "EXISTS {s} {z}", "KEYS {s}*", "SELECT 2",
	"MULTI", "SMOVE {s} {t} b", "SCARD {t}", "EXEC", "KEYS {t}*", "SELECT 15", "EXISTS {t}", "SELECT 16",
	"COPY {t} {u} DB 16", "CONFIG GET databases", "CONFIG GET maxmemory", "SELECT 1", "DEL {s} {z}",
	"SELECT 2", "DEL {s} {t}", "SELECT 0",
}

func TestDifferentialSelect(t *testing.T) { runDifferential(t, selectScript) }

// What redimo-server does differently with databases, on a table of its
// own: MOVE, SWAPDB, COPY to another database and SELECT inside MULTI are
// refused with errors that say why; INFO lists every database that has
// keys; FLUSHDB empties the selected database only, FLUSHALL all of them.
func TestSelectNamespaces(t *testing.T) {
	ts := freshServer(t, "db")
	c := dial(t, ts.addr)
	require.Equal(t, "+OK\r\n", c.do("SELECT", "3"))
	require.Equal(t, ":2\r\n", c.do("SADD", "k", "a", "b"))
	require.Contains(t, c.do("CLIENT", "INFO"), " db=3 ")
	require.Equal(t, "-ERR MOVE is not supported by redimo-server: databases are key namespaces of one DynamoDB table, and a key cannot move between them atomically\r\n", c.do("MOVE", "k", "0"))
	require.Equal(t, "-ERR SWAPDB is not supported by redimo-server: databases are key namespaces of one DynamoDB table, and cannot be swapped\r\n", c.do("SWAPDB", "0", "3"))
	require.Equal(t, "-ERR COPY to another database is not supported by redimo-server\r\n", c.do("COPY", "k", "k2", "DB", "0"))
	require.Equal(t, ":1\r\n", c.do("COPY", "k", "k2", "DB", "3"))
	require.Equal(t, "+OK\r\n", c.do("MULTI"))
	require.Contains(t, c.do("SELECT", "0"), "-ERR SELECT cannot be queued in a redimo transaction")
	require.Equal(t, "-EXECABORT Transaction discarded because of previous errors.\r\n", c.do("EXEC"))
	require.Equal(t, "+OK\r\n", c.do("WATCH", "k"))
	require.Equal(t, "+OK\r\n", c.do("SELECT", "0"))
	require.Equal(t, "-ERR redimo-server watches keys of one database per transaction: UNWATCH first\r\n", c.do("WATCH", "k"))
	require.Equal(t, "+OK\r\n", c.do("MULTI"))
	require.Equal(t, "+QUEUED\r\n", c.do("SADD", "k", "y"))
	require.Equal(t, "-EXECABORT Transaction discarded because of: keys watched in database 3, EXEC in database 0 (redimo-server runs a transaction in one database)\r\n", c.do("EXEC"))
	require.Equal(t, ":1\r\n", c.do("SADD", "k", "x"))
	require.Equal(t, "+OK\r\n", c.do("SELECT", "7"))
	require.Equal(t, ":1\r\n", c.do("SADD", "k", "x"))
	require.Equal(t, "$108\r\n# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\ndb3:keys=2,expires=0,avg_ttl=0\r\ndb7:keys=1,expires=0,avg_ttl=0\r\n\r\n", c.do("INFO", "keyspace"))
	require.Equal(t, "+OK\r\n", c.do("FLUSHDB"))
	require.Equal(t, ":0\r\n", c.do("DBSIZE"))
	require.Equal(t, "+OK\r\n", c.do("SELECT", "3"))
	require.Equal(t, ":2\r\n", c.do("DBSIZE"))
	require.Equal(t, "+OK\r\n", c.do("FLUSHALL"))
	for _, n := range []string{"0", "3"} {
		require.Equal(t, "+OK\r\n", c.do("SELECT", n))
		require.Equal(t, ":0\r\n", c.do("DBSIZE"), "database %s after FLUSHALL", n)
	}
}
