package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/testenv"
)

// TestServe runs the program in-process on a free port against DynamoDB
// Local at REDIMO_TEST_ENDPOINT (skipped without one, unless
// REDIMO_TEST_REQUIRE=1): --create-table makes a fresh table, a go-redis
// client authenticates with REDIMO_PASSWORD and runs commands, CONFIG GET
// timeout answers --timeout, and SIGTERM shuts it down cleanly.
func TestServe(t *testing.T) {
	endpoint := testenv.NeedEndpoint(t)
	t.Setenv("REDIMO_PASSWORD", "pw")
	table := "redimo_server_main_test_" + testenv.RandomHex(4)

	logR, logW := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		exit <- run([]string{"--addr", "127.0.0.1:0", "--endpoint", endpoint, "--table", table, "--create-table",
			"--metrics-addr", "127.0.0.1:0", "--timeout", "7"}, logW)
		logW.Close()
	}()
	lines := bufio.NewScanner(logR)
	var addr, metricsURL string
	re := regexp.MustCompile(`msg="redimo-server listening" addr=(\S+)`)
	reMetrics := regexp.MustCompile(`msg=metrics url=(\S+)`)
	for addr == "" && lines.Scan() {
		if m := re.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
		if m := reMetrics.FindStringSubmatch(lines.Text()); m != nil {
			metricsURL = m[1]
		}
	}
	require.NotEmpty(t, metricsURL, "no metrics line in the log")
	require.NotEmpty(t, addr, "no listening line in the log")
	var rest []string
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		for lines.Scan() {
			rest = append(rest, lines.Text())
		}
	}()

	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Password: "pw"})
	defer rdb.Close()
	require.Equal(t, int64(2), rdb.SAdd(ctx, "k", "a", "b").Val())
	require.Equal(t, []string{"a", "b"}, rdb.SMembers(ctx, "k").Val())
	require.Contains(t, rdb.Info(ctx, "redimo").Val(), "table:"+table)

	// INFO commandstats: Redis's fields, then what the calls cost in
	// DynamoDB by redimo's cost model (SADD of 2 new members: 3 items
	// written transactionally, 2 write units each: 6; set members have no
	// local-index entry, and the new key's key-index entry is not seen).
	stats := rdb.Info(ctx, "commandstats").Val()
	require.Regexp(t, `cmdstat_sadd:calls=1,usec=\d+,usec_per_call=[\d.]+,rejected_calls=0,failed_calls=0,dynamodb_requests=1,rcu=0,wcu=2,conflicts=0,retries=0\r\n`, stats)
	require.Regexp(t, `cmdstat_smembers:calls=1,.*,dynamodb_requests=1,rcu=[1-9]`, stats)
	require.NotContains(t, rdb.Info(ctx).Val(), "cmdstat_", "not in the default sections, as in Redis")

	res, err := http.Get(metricsURL)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Contains(t, string(body), `redimo_dynamodb_write_capacity_units_total{command="sadd"} 2`)
	require.Contains(t, string(body), `redimo_dynamodb_requests_total{command="smembers"} 1`)
	require.Contains(t, string(body), `redimo_commands_total{command="sadd"} 1`)
	require.Contains(t, string(body), `redimo_command_latency_seconds_count{command="sadd"} 1`)
	for _, path := range []string{"/healthz", "/readyz"} {
		// As a probe does, asked again while it fails: /readyz's
		// DescribeTable has 2 s, which a DynamoDB Local busy with the
		// other tests' transactions can take.
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			res, err := http.Get(strings.TrimSuffix(metricsURL, "/metrics") + path)
			require.NoError(c, err)
			res.Body.Close()
			require.Equal(c, http.StatusOK, res.StatusCode, path)
		}, 30*time.Second, 100*time.Millisecond)
	}
	require.Equal(t, map[string]string{"timeout": "7"}, rdb.ConfigGet(ctx, "timeout").Val(), "--timeout is Redis's timeout")
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, _ = nc.Write([]byte("PING\r\n"))
	buf := make([]byte, 64)
	n, _ := nc.Read(buf)
	require.Equal(t, "-NOAUTH Authentication required.\r\n", string(buf[:n]))

	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case code := <-exit:
		require.Equal(t, 0, code)
	case <-time.After(20 * time.Second):
		t.Fatal("no exit 20 s after SIGTERM")
	}
	<-logDone
	require.Contains(t, rest[len(rest)-1], `msg=bye`)
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = nc.Read(buf)
	require.ErrorIs(t, err, io.EOF, "connections are closed")
}

// TestSetupMistakes: each mistake a newcomer makes ends the program at
// start with one line naming the fix.
func TestSetupMistakes(t *testing.T) {
	testenv.IsolateAWS(t)
	endpoint := os.Getenv("REDIMO_TEST_ENDPOINT")
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"missing table", []string{"--endpoint", endpoint, "--table", "no_such_table"}, nil,
			[]string{`table "no_such_table" does not exist at ` + endpoint, "--create-table",
				"`redimo --endpoint " + endpoint + " --table no_such_table create-table`"}},
		{"unreachable endpoint", []string{"--endpoint", "http://127.0.0.1:1"}, nil,
			[]string{"cannot reach DynamoDB at http://127.0.0.1:1 (", "connection refused", "--endpoint", "make ddb-local"}},
		{"no region", nil, nil, []string{"no AWS region", "--region", "AWS_REGION", "--endpoint"}},
		{"no credentials", []string{"--region", "eu-west-1"}, nil,
			[]string{"no AWS credentials", "AWS_ACCESS_KEY_ID", "AWS_PROFILE", "--endpoint"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if endpoint == "" && tc.name == "missing table" {
				t.Skip("no DynamoDB: set REDIMO_TEST_ENDPOINT (make test does)")
			}
			var out strings.Builder
			code := run(append([]string{"--addr", "127.0.0.1:0"}, tc.args...), &out)
			require.Equal(t, 1, code, out.String())
			require.Equal(t, 1, strings.Count(out.String(), "\n"), "one line: %s", out.String())
			require.True(t, strings.HasPrefix(out.String(), "redimo-server: "), out.String())
			require.NotContains(t, out.String(), "redimo: ")
			for _, w := range tc.want {
				require.Contains(t, out.String(), w)
			}
		})
	}
}

func TestBadFlags(t *testing.T) {
	require.Equal(t, 2, run([]string{"--nosuch"}, io.Discard))
	require.Equal(t, 2, run([]string{"extra"}, io.Discard))
	require.Equal(t, 2, run([]string{"--timeout", "-1"}, io.Discard))
	require.Equal(t, 2, run([]string{"--timeout", "2147483648"}, io.Discard))
	require.Equal(t, 0, run([]string{"-h"}, io.Discard))
	require.Equal(t, 2, run([]string{"--tls-addr", "127.0.0.1:0"}, io.Discard), "no certificate")
	require.Equal(t, 2, run([]string{"--tls-addr", "127.0.0.1:0", "--tls-cert-file", "/nonexistent", "--tls-key-file", "/nonexistent"}, io.Discard))
	require.Equal(t, 2, run([]string{"--tls-cert-file", "c.pem", "--tls-key-file", "k.pem"}, io.Discard), "no --tls-addr")
	require.Equal(t, 2, run([]string{"--addr", ""}, io.Discard), "nothing to listen on")
}
