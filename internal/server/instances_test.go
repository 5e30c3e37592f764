package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestTwoInstances: two servers, each with its own redimo.Client (as two
// processes behind a load balancer), over one table. A BZPOPMIN waiting on
// one is served by a ZADD through the other; a WATCH on one is
// invalidated by a write through the other (EXEC replies nil); what one
// writes, the other reads.
func TestTwoInstances(t *testing.T) {
	ctx := context.Background()
	table, one := freshTable(t, "two")
	other := redimo.NewClient(testDB, func(o *redimo.Options) { o.TableName = table })
	a := redis.NewClient(&redis.Options{Addr: startServer(t, nil, server.Config{Client: one}).addr, ReadTimeout: -1})
	defer a.Close()
	b := redis.NewClient(&redis.Options{Addr: startServer(t, nil, server.Config{Client: other}).addr})
	defer b.Close()

	// A blocking pop on a, served by b.
	popped := make(chan *redis.ZWithKey, 1)
	go func() { popped <- a.BZPopMin(ctx, 20*time.Second, "q").Val() }()
	time.Sleep(200 * time.Millisecond) // a's pop is waiting (if not, it finds the job at once: the test still holds)
	began := time.Now()
	require.NoError(t, b.ZAdd(ctx, "q", redis.Z{Score: 1, Member: "job"}).Err())
	select {
	case z := <-popped:
		require.NotNil(t, z)
		require.Equal(t, "job", z.Member)
		t.Logf("BZPOPMIN on a served %v after the ZADD on b", time.Since(began).Round(time.Millisecond))
	case <-time.After(15 * time.Second):
		t.Fatal("BZPOPMIN on a not served by a ZADD on b")
	}
	require.Equal(t, int64(0), b.Exists(ctx, "q").Val(), "popped once, seen by both")

	// WATCH on a, a write through b: EXEC on a fails.
	require.NoError(t, b.SAdd(ctx, "w", "x").Err())
	err := a.Watch(ctx, func(tx *redis.Tx) error {
		require.Equal(t, int64(1), tx.SCard(ctx, "w").Val())
		require.NoError(t, b.SAdd(ctx, "w", "y").Err())
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.SAdd(ctx, "w", "z")
			return nil
		})
		return err
	}, "w")
	require.ErrorIs(t, err, redis.TxFailedErr)
	require.Equal(t, []string{"x", "y"}, a.SMembers(ctx, "w").Val())
}
