package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestHealth: /healthz answers 200 while the server serves; /readyz 200
// while its table answers and 503 once the table is deleted; both 503
// once Shutdown has begun.
func TestHealth(t *testing.T) {
	ctx := context.Background()
	table, db := freshTable(t, "health")
	ts := startServer(t, nil, server.Config{Client: db})
	hs := httptest.NewServer(ts.HealthHandler())
	defer hs.Close()
	get := func(path string) (int, string) {
		res, err := http.Get(hs.URL + path)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	code, _ := get("/healthz")
	require.Equal(t, http.StatusOK, code)
	// Asked again while it fails, as a probe is: /readyz's DescribeTable
	// has 2 s, which a DynamoDB Local busy with other tests can take.
	require.Eventually(t, func() bool { code, _ = get("/readyz"); return code == http.StatusOK },
		30*time.Second, 100*time.Millisecond, "readyz while the table answers")
	code, _ = get("/nosuch")
	require.Equal(t, http.StatusNotFound, code)

	_, err := testDB.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	require.NoError(t, err)
	var body string
	require.Eventually(t, func() bool { code, body = get("/readyz"); return code == http.StatusServiceUnavailable },
		10*time.Second, 100*time.Millisecond, "readyz after the table was deleted")
	require.Contains(t, body, "not ready: ")
	require.Contains(t, body, table)
	code, _ = get("/healthz")
	require.Equal(t, http.StatusOK, code, "the process still serves")

	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	require.NoError(t, ts.Shutdown(sctx))
	code, _ = get("/healthz")
	require.Equal(t, http.StatusServiceUnavailable, code, "draining")
}

// TestLatencyHistogram: each command's latency lands in the buckets of
// redimo_command_latency_seconds, labelled by command, so that
// histogram_quantile gives its percentiles.
func TestLatencyHistogram(t *testing.T) {
	ts := freshServer(t, "hist")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: ts.addr})
	defer rdb.Close()
	for range 5 {
		require.NoError(t, rdb.SAdd(ctx, "h", "a").Err())
	}
	require.NoError(t, rdb.SCard(ctx, "h").Err())
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(ts.Collector()))
	families, err := reg.Gather()
	require.NoError(t, err)
	counts := map[string]uint64{}
	for _, f := range families {
		if f.GetName() != "redimo_command_latency_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			require.Len(t, h.GetBucket(), len(server.LatencyBuckets))
			last := h.GetBucket()[len(h.GetBucket())-1]
			require.LessOrEqual(t, last.GetCumulativeCount(), h.GetSampleCount())
			require.Positive(t, h.GetSampleSum())
			counts[m.GetLabel()[0].GetValue()] = h.GetSampleCount()
		}
	}
	require.Equal(t, uint64(5), counts["sadd"])
	require.Equal(t, uint64(1), counts["scard"])
}
