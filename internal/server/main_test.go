package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"regexp"
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

// freshTable makes a table of its own for the test, named for tag, and
// returns its name and a Client on it (optFns set more of its Options).
func freshTable(tb testing.TB, tag string, optFns ...func(*redimo.Options)) (string, *redimo.Client) {
	tb.Helper()
	needDB(tb)
	table := "redimo_server_" + tag + "_" + randomHex(4)
	db := redimo.NewClient(testDB, append([]func(*redimo.Options){func(o *redimo.Options) { o.TableName = table }}, optFns...)...)
	require.NoError(tb, db.CreateTable(context.Background()))
	return table, db
}

// freshServer starts a server on a table of its own, named for tag, made
// for the test.
func freshServer(tb testing.TB, tag string) *testServer {
	tb.Helper()
	_, db := freshTable(tb, tag)
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

// read returns the next reply's bytes. The server writes a pipeline's
// replies once it has read the whole pipeline's commands and run them, so
// the first reply of 100 commands waits for all of them: under make
// test-all's load (-race, both DynamoDB Locals busy) that took over 20 s
// once (TestDifferentialPipelined). Two minutes still end a hang well
// inside the package's timeout.
func (c *client) read() []byte {
	c.tb.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(2 * time.Minute))
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

// readAll returns everything until the server closes the connection
// (within 2 minutes, as read's replies).
func (c *client) readAll() string {
	c.tb.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(2 * time.Minute))
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

// maskIDs masks client ids (HELLO's id, CLIENT ID) and the fields of a
// CLIENT LIST/INFO line that differ between any two servers.
var maskIDs = regexp.MustCompile(`\$2\r\nid\r\n:\d+\r\n`)

// pairedServer is a fresh redimo-server, for a test that needs redis-server.
func pairedServer(t *testing.T) *testServer {
	t.Helper()
	needRedis(t)
	return startServer(t, nil, server.Config{})
}

// blockedSend sends cmd, a blocking command, on c and returns once the
// server lists c as blocked (CLIENT LIST's flag b, on both servers), asked
// on o: so commands blocked one after another are queued in that order.
func blockedSend(t *testing.T, c, o *client, cmd ...string) {
	t.Helper()
	id := strings.TrimSuffix(strings.TrimPrefix(c.do("CLIENT", "ID"), ":"), "\r\n")
	c.send(encode(cmd...))
	require.Eventually(t, func() bool { return strings.Contains(o.do("CLIENT", "LIST", "ID", id), "flags=b") },
		10*time.Second, 5*time.Millisecond, "client %s never blocked in %v", id, cmd)
}

// onBothServers runs check on redis-server, then on a fresh redimo-server,
// with a key prefix unique to the run ("diff:<tag>:<hex>").
func onBothServers(t *testing.T, tag string, check func(addr, p string)) {
	t.Helper()
	for _, addr := range []string{redisAddr, pairedServer(t).addr} {
		check(addr, "diff:"+tag+":"+randomHex(4))
	}
}

// repliesOfBoth runs lines (split as redis-cli splits them, {x} a key under a
// prefix unique to the run) on one fresh connection to each server, in
// RESP proto, and returns each line's replies from redis-server and
// redimo-server.
func repliesOfBoth(t *testing.T, ts *testServer, proto int, lines ...string) (want, got []string) {
	t.Helper()
	prefix := "diff:" + randomHex(4) + ":"
	g, w := dial(t, ts.addr), dial(t, redisAddr)
	if proto == 3 {
		require.Equal(t, maskIDs.ReplaceAllString(w.do("HELLO", "3"), "id"), maskIDs.ReplaceAllString(g.do("HELLO", "3"), "id"))
	}
	for _, line := range lines {
		args, ok := resp.SplitArgs(line)
		require.True(t, ok, line)
		for i := range args {
			args[i] = keyRE.ReplaceAllString(args[i], prefix+"$1")
		}
		wr, gr := w.do(args...), g.do(args...)
		want = append(want, maskIDs.ReplaceAllString(strings.ReplaceAll(wr, prefix, "{}"), "id"))
		got = append(got, maskIDs.ReplaceAllString(strings.ReplaceAll(gr, prefix, "{}"), "id"))
	}
	return want, got
}

// requireSameReplies requires the replies of lines to be the same bytes on both
// servers (ts nil: a fresh redimo-server), in RESP2 and RESP3.
func requireSameReplies(t *testing.T, ts *testServer, lines ...string) {
	t.Helper()
	if ts == nil {
		ts = pairedServer(t)
	}
	for _, proto := range []int{2, 3} {
		want, got := repliesOfBoth(t, ts, proto, lines...)
		for i := range lines {
			require.Equal(t, want[i], got[i], "RESP%d: %s", proto, lines[i])
		}
	}
}

// requireSameRaw sends in as one write on a fresh connection to each server and
// requires the same bytes back until the connection closes (ids masked).
func requireSameRaw(t *testing.T, ts *testServer, in []byte) {
	t.Helper()
	got, want := dial(t, ts.addr), dial(t, redisAddr)
	got.send(in)
	want.send(in)
	require.Equal(t, maskIDs.ReplaceAllString(want.readAll(), "id"), maskIDs.ReplaceAllString(got.readAll(), "id"), "%.80q", in)
}
