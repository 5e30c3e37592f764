package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// The tests start the server on a free port against DynamoDB Local at
// REDIMO_TEST_ENDPOINT, in a fresh table made for this run. Without an
// endpoint they skip, unless REDIMO_TEST_REQUIRE=1 (make test), which makes
// that a failure (internal/testenv). The differential tests compare
// replies with a real redis-server: the one at REDIMO_TEST_REDIS
// (host:port; make test starts it), else one they start when redis-server
// is installed.

var (
	testDB     *dynamodb.Client
	testTable  string
	redisAddr  string // the reference redis-server
	redisError string // why there is none
	randomHex  = testenv.RandomHex
)

func TestMain(m *testing.M) {
	if endpoint := testenv.MainEndpoint(); endpoint != "" {
		testDB = local.Client(endpoint, nil)
		testTable = "redimo_server_test_" + randomHex(4)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := redimo.NewClient(testDB, func(o *redimo.Options) { o.TableName = testTable }).CreateTable(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "cannot create table %s at %s: %v\n", testTable, endpoint, err)
			os.Exit(1)
		}
	}
	var stop func()
	redisAddr, redisError, stop = testenv.StartRedis()
	code := m.Run()
	stop()
	os.Exit(code)
}

// needDB skips (or, under make test, fails) a test that needs DynamoDB.
func needDB(tb testing.TB) {
	tb.Helper()
	if testDB == nil {
		testenv.NeedEndpoint(tb)
	}
}

// needRedis skips (or, under make test, fails) a test that needs the
// reference redis-server.
func needRedis(tb testing.TB) {
	tb.Helper()
	if redisAddr == "" {
		testenv.Missing(tb, "no reference redis-server: %s", redisError)
	}
}

// needBinary returns the path of a program from redis-tools, skipping the
// test (failing it under make test) when it is not installed.
func needBinary(tb testing.TB, name string) string {
	tb.Helper()
	return testenv.Binary(tb, name, "Debian: redis-tools")
}

// testServer is a server on a free port over the run's table.
type testServer struct {
	*server.Server
	addr string
	port string
	done chan error
}

// freshServer starts a server on a table of its own, named for tag, made
// for the test.
func freshServer(tb testing.TB, tag string) *testServer {
	tb.Helper()
	needDB(tb)
	db := redimo.NewClient(testDB, func(o *redimo.Options) { o.TableName = "redimo_server_" + tag + "_" + randomHex(4) })
	require.NoError(tb, db.CreateTable(context.Background()))
	return startServer(tb, nil, server.Config{Client: db})
}

// startServer starts a server over db (the run's table when nil) and
// shuts it down when the test ends.
func startServer(tb testing.TB, db redimo.DynamoDBAPI, cfg server.Config) *testServer {
	tb.Helper()
	needDB(tb)
	if db == nil {
		db = testDB
	}
	if cfg.Client == nil {
		cfg.Client = redimo.NewClient(db, func(o *redimo.Options) { o.TableName = testTable })
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ts := &testServer{Server: server.New(cfg), addr: ln.Addr().String(), port: port, done: make(chan error, 1)}
	go func() { ts.done <- ts.Serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(tb, ts.Shutdown(ctx))
		require.ErrorIs(tb, <-ts.done, server.ErrServerClosed)
	})
	return ts
}

// client is a raw RESP connection.
type client struct {
	tb testing.TB
	nc net.Conn
	r  *resp.Reader
}

func dial(tb testing.TB, addr string) *client {
	tb.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(tb, err)
	tb.Cleanup(func() { nc.Close() })
	return &client{tb: tb, nc: nc, r: resp.NewReader(bufio.NewReader(nc))}
}

// encode is args as a RESP array of bulk strings.
func encode(args ...string) []byte {
	v := resp.Strings(args)
	return resp.Append(nil, v, 2)
}

func (c *client) send(raw []byte) {
	c.tb.Helper()
	_ = c.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := c.nc.Write(raw)
	require.NoError(c.tb, err)
}

// read returns the next reply's bytes.
func (c *client) read() []byte {
	c.tb.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	raw, _, err := c.r.ReadRawReply()
	require.NoError(c.tb, err)
	return raw
}

// do sends a command and returns its reply's bytes.
func (c *client) do(args ...string) string {
	c.tb.Helper()
	c.send(encode(args...))
	return string(c.read())
}

// readAll returns everything until the server closes the connection.
func (c *client) readAll() string {
	c.tb.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := c.nc.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// gate is a DynamoDBAPI whose GetItem of keys starting with "slow" blocks
// until released or cancelled, to hold a command in flight.
type gate struct {
	redimo.DynamoDBAPI
	entered   chan struct{} // a blocked call started
	release   chan struct{} // closing it lets blocked calls through
	mu        sync.Mutex
	cancelled int // blocked calls whose context was cancelled
}

func newGate(db redimo.DynamoDBAPI) *gate {
	return &gate{DynamoDBAPI: db, entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (g *gate) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if pk, ok := in.Key["pk"].(*types.AttributeValueMemberB); ok && bytes.HasPrefix(pk.Value, []byte("kslow")) {
		g.entered <- struct{}{}
		select {
		case <-g.release:
		case <-ctx.Done():
			g.mu.Lock()
			g.cancelled++
			g.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	return g.DynamoDBAPI.GetItem(ctx, in, opts...)
}

func (g *gate) cancelledCalls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cancelled
}
