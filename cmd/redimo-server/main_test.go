package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestServe runs the program in-process on a free port against DynamoDB
// Local at REDIMO_TEST_ENDPOINT (skipped without one, unless
// REDIMO_TEST_REQUIRE=1): --create-table makes a fresh table, a go-redis
// client authenticates with REDIMO_PASSWORD and runs commands, CONFIG GET
// timeout answers --timeout, and SIGTERM shuts it down cleanly.
func TestServe(t *testing.T) {
	endpoint := testEndpoint(t)
	t.Setenv("REDIMO_PASSWORD", "pw")
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	table := "redimo_server_main_test_" + hex.EncodeToString(b)
	p := start(t, "--endpoint", endpoint, "--table", table, "--create-table", "--timeout", "7")
	addr := p.addr

	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Password: "pw"})
	defer rdb.Close()
	require.Equal(t, int64(2), rdb.SAdd(ctx, "k", "a", "b").Val())
	require.Equal(t, []string{"a", "b"}, rdb.SMembers(ctx, "k").Val())
	require.Contains(t, rdb.Info(ctx, "redimo").Val(), "table:"+table)
	require.Equal(t, map[string]string{"timeout": "7"}, rdb.ConfigGet(ctx, "timeout").Val(), "--timeout is Redis's timeout")
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, _ = nc.Write([]byte("PING\r\n"))
	buf := make([]byte, 64)
	n, _ := nc.Read(buf)
	require.Equal(t, "-NOAUTH Authentication required.\r\n", string(buf[:n]))

	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case code := <-p.exit:
		require.Equal(t, 0, code)
	case <-time.After(20 * time.Second):
		t.Fatal("no exit 20 s after SIGTERM")
	}
	rest := <-p.logs
	require.Contains(t, rest[len(rest)-1], `msg=bye`)
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = nc.Read(buf)
	require.ErrorIs(t, err, io.EOF, "connections are closed")
}

func TestBadFlags(t *testing.T) {
	require.Equal(t, 2, run([]string{"--nosuch"}, io.Discard))
	require.Equal(t, 2, run([]string{"extra"}, io.Discard))
	require.Equal(t, 2, run([]string{"--timeout", "-1"}, io.Discard))
	require.Equal(t, 2, run([]string{"--timeout", "2147483648"}, io.Discard))
	require.Equal(t, 0, run([]string{"-h"}, io.Discard))
}
