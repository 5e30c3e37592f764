package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	"github.com/stretchr/testify/require"
)

// TestClientTracking: CLIENT TRACKING ON (RESP3) is accepted, and each key
// a tracked read returns is invalidated by a push right after the reply;
// with OPTIN only reads after CLIENT CACHING YES (through a MULTI ...
// EXEC) are tracked. What redimo-server cannot deliver (REDIRECT,
// BCAST) is refused, and so is tracking over RESP2.
func TestClientTracking(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	c := dial(t, ts.addr)
	key := "trk:" + randomHex(4)
	require.Contains(t, c.do("CLIENT", "TRACKING", "ON"), "RESP3")
	require.Contains(t, c.do("HELLO", "3"), "proto")
	require.Contains(t, c.do("CLIENT", "TRACKING", "ON", "BCAST"), "not supported")
	require.Contains(t, c.do("CLIENT", "TRACKING", "ON", "REDIRECT", "1"), "not supported")
	require.Contains(t, c.do("CLIENT", "CACHING", "YES"), "OPTIN or OPTOUT")
	require.Equal(t, "+OK\r\n", c.do("CLIENT", "TRACKING", "ON"))
	require.Contains(t, c.do("INFO", "clients"), "tracking_clients:1\r\n")
	require.Equal(t, ":2\r\n", c.do("SADD", key, "a", "b"))
	require.Equal(t, "~2\r\n$1\r\na\r\n$1\r\nb\r\n", c.do("SMEMBERS", key))
	require.Equal(t, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$"+itoaLen(key)+"\r\n"+key+"\r\n", string(c.read()), "the push after the reply")

	require.Equal(t, "+OK\r\n", c.do("CLIENT", "TRACKING", "ON", "OPTIN"))
	require.Equal(t, ":2\r\n", c.do("SCARD", key), "not opted in: no push")
	require.Equal(t, "+OK\r\n", c.do("CLIENT", "CACHING", "YES"))
	require.Equal(t, "+OK\r\n", c.do("MULTI"))
	require.Equal(t, "+QUEUED\r\n", c.do("PTTL", key))
	require.Equal(t, "+QUEUED\r\n", c.do("SCARD", key))
	require.Equal(t, "*2\r\n:-1\r\n:2\r\n", c.do("EXEC"))
	require.Equal(t, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$"+itoaLen(key)+"\r\n"+key+"\r\n", string(c.read()), "PTTL and SCARD read one key")
	require.Equal(t, ":2\r\n", c.do("SCARD", key), "CACHING YES lasted for the transaction only")
	require.Equal(t, "+PONG\r\n", c.do("PING"), "no push pending")
	require.Equal(t, "+OK\r\n", c.do("CLIENT", "TRACKING", "OFF"))
	require.Contains(t, c.do("INFO", "clients"), "tracking_clients:0\r\n")

	// In-process (the CLI): no connection to push on.
	sess := ts.NewSession()
	ctx := context.Background()
	ts.Do(ctx, sess, []string{"HELLO", "3"})
	require.Contains(t, ts.Do(ctx, sess, []string{"CLIENT", "TRACKING", "ON"}).Str, "needs a connection")
}

func itoaLen(s string) string { return itoa(len(s)) }

// TestRueidisDefaults: rueidis connects with its default options (RESP3,
// CLIENT TRACKING ON OPTIN), and its cached reads (DoCache) never serve a
// stale value: a write through another client is seen at once.
func TestRueidisDefaults(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	ctx := context.Background()
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{ts.addr}})
	require.NoError(t, err)
	defer rc.Close()
	other := redis.NewClient(&redis.Options{Addr: ts.addr})
	defer other.Close()
	key := "rue:" + randomHex(4)
	require.NoError(t, rc.Do(ctx, rc.B().Sadd().Key(key).Member("a").Build()).Error())
	for want := int64(1); want <= 3; want++ {
		res := rc.DoCache(ctx, rc.B().Scard().Key(key).Cache(), time.Minute)
		n, err := res.AsInt64()
		require.NoError(t, err)
		require.Equal(t, want, n, "a cached read after a write by another client")
		require.False(t, res.IsCacheHit())
		// The invalidation came in the same write as the reply: rueidis
		// has read it long before this write (a DynamoDB round trip) ends.
		require.NoError(t, other.SAdd(ctx, key, want+1).Err())
	}
}
