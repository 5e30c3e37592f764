package server_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// infoRequests returns how many DynamoDB requests the server's INFO
// calls have made so far (INFO commandstats' dynamodb_requests).
func infoRequests(ts *testServer) int64 {
	for _, st := range ts.CommandStats() {
		if st.Command == "info" {
			return st.Requests
		}
	}
	return 0
}

// TestInfoIsCheap: the INFO a connecting client sends (ioredis's ready
// check: INFO with no section) makes no DynamoDB request; INFO keyspace
// counts the keys of every database (16 shards of the key index each),
// then reuses the figures for keyspaceTTL.
func TestInfoIsCheap(t *testing.T) {
	ctx := context.Background()
	_, db := freshTable(t, "info", func(o *redimo.Options) { o.Metrics = server.Record })
	ts := startServer(t, nil, server.Config{Client: db})
	rdb := redis.NewClient(&redis.Options{Addr: ts.addr})
	defer rdb.Close()
	for i := range 20 {
		require.NoError(t, rdb.SAdd(ctx, fmt.Sprint("k", i), "a").Err())
	}
	info := rdb.Info(ctx).Val()
	require.Contains(t, info, "# Server\r\n")
	t.Logf("INFO (default sections): %d DynamoDB requests", infoRequests(ts))
	require.Zero(t, infoRequests(ts), "INFO with no section")
	require.NotContains(t, info, "# Keyspace")

	ks := rdb.Info(ctx, "keyspace").Val()
	require.Equal(t, "# Keyspace\r\ndb0:keys=20,expires=0,avg_ttl=0\r\n", ks)
	n := infoRequests(ts)
	t.Logf("INFO keyspace: %d DynamoDB requests", n)
	require.Positive(t, n)
	require.Contains(t, rdb.Info(ctx, "all").Val(), "db0:keys=20,")
	require.Equal(t, n, infoRequests(ts), "INFO all within keyspaceTTL reuses the count")
}
