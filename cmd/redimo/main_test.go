package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tests run the CLI in-process against DynamoDB Local at
// REDIMO_TEST_ENDPOINT, in a fresh table that `redimo create-table` makes.
// Without an endpoint they skip, unless REDIMO_TEST_REQUIRE=1 (make test).
// Outputs are compared with redis-cli's against the redis-server at
// REDIMO_TEST_REDIS when it is set.

var (
	endpoint  = os.Getenv("REDIMO_TEST_ENDPOINT")
	testTable = "redimo_cli_test_" + randomHex(4)
)

func TestMain(m *testing.M) {
	if endpoint == "" && os.Getenv("REDIMO_TEST_REQUIRE") == "1" {
		fmt.Fprintln(os.Stderr, "REDIMO_TEST_REQUIRE=1 but REDIMO_TEST_ENDPOINT is not set: no DynamoDB to test against")
		os.Exit(1)
	}
	if endpoint != "" {
		out, code := cli(nil, "", "create-table")
		if code != 0 || out != "OK (table "+testTable+")\n" {
			fmt.Fprintf(os.Stderr, "create-table: exit %d: %s\n", code, out)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// cli runs the CLI on the test table and returns its stdout and stderr and
// exit status.
func cli(tb testing.TB, stdin string, args ...string) (string, int) {
	if tb != nil && endpoint == "" {
		tb.Skip("no DynamoDB: set REDIMO_TEST_ENDPOINT (make test does)")
	}
	var out bytes.Buffer
	code := run(context.Background(), append([]string{"--endpoint", endpoint, "--table", testTable}, args...),
		strings.NewReader(stdin), &out, &out)
	return out.String(), code
}

func TestCLI(t *testing.T) {
	k := "cli:" + randomHex(4) + ":"
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
		code  int
	}{
		{args: []string{"SADD", k + "s", "a", "b", `x"y`}, want: "(integer) 3\n"},
		{args: []string{"smembers", k + "s"}, want: "1) \"a\"\n2) \"b\"\n3) \"x\\\"y\"\n"},
		{args: []string{"--raw", "SMEMBERS", k + "s"}, want: "a\nb\nx\"y\n"},
		{args: []string{"-3", "SMEMBERS", k + "s"}, want: "1~ \"a\"\n2~ \"b\"\n3~ \"x\\\"y\"\n"},
		{args: []string{"SSCAN", k + "s", "0", "MATCH", "[ab]"}, want: "1) \"0\"\n2) 1) \"a\"\n   2) \"b\"\n"},
		{args: []string{"SRANDMEMBER", k + "none"}, want: "(nil)\n"},
		{args: []string{"SMEMBERS", k + "none"}, want: "(empty array)\n"},
		{args: []string{"NOSUCH", "x"}, want: "(error) ERR unknown command 'NOSUCH', with args beginning with: 'x' \n", code: 1},
		{args: []string{"SADD", k + "s"}, want: "(error) ERR wrong number of arguments for 'sadd' command\n", code: 1},
		{args: []string{"TYPE", k + "s"}, want: "set\n"},
		{stdin: "SISMEMBER " + k + "s a\n\nSCARD " + k + "s\nSADD " + k + `s "unbalanced` + "\n",
			want: "(integer) 1\n(integer) 3\nInvalid argument(s)\n", code: 1},
		{args: []string{"ZADD", k + "z", "0.1", "a", "2", "b"}, want: "(integer) 2\n"},
		{args: []string{"ZSCORE", k + "z", "a"}, want: "\"0.10000000000000001\"\n"},
		{args: []string{"-3", "ZSCORE", k + "z", "a"}, want: "(double) 0.10000000000000001\n"},
		{args: []string{"-3", "ZRANGE", k + "z", "0", "-1", "WITHSCORES"}, want: "1) 1) \"a\"\n   2) (double) 0.10000000000000001\n2) 1) \"b\"\n   2) (double) 2\n"},
		{args: []string{"SADD", k + "z", "x"}, want: "(error) WRONGTYPE Operation against a key holding the wrong kind of value\n", code: 1},
		{args: []string{"DEL", k + "s", k + "z"}, want: "(integer) 2\n"},
		{args: []string{"--nosuchflag"}, code: 2},
	} {
		out, code := cli(t, tc.stdin, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, out)
		if tc.want != "" {
			require.Equal(t, tc.want, out, "%v", tc.args)
		}
	}
}

// TestCLILikeRedisCLI: the CLI prints what redis-cli --no-raw prints for
// the same commands against a real redis-server.
func TestCLILikeRedisCLI(t *testing.T) {
	addr := os.Getenv("REDIMO_TEST_REDIS")
	redisCLI, err := exec.LookPath("redis-cli")
	if addr == "" || err != nil {
		t.Skip("needs REDIMO_TEST_REDIS and redis-cli (make test)")
	}
	host, port, _ := net.SplitHostPort(addr)
	k := "clidiff:" + randomHex(4) + ":"
	for _, args := range [][]string{
		{"SADD", k + "s", "a", "\x01\n\xc3\xa9"},
		{"SCARD", k + "s"},
		{"SMISMEMBER", k + "s", "a", "z"},
		{"SISMEMBER", k + "s", "\x01\n\xc3\xa9"},
		{"SPOP", k + "none"},
		{"SPOP", k + "none", "3"},
		{"SINTERCARD", "0", k + "s"},
		{"SSCAN", k + "none", "0"},
		{"PING"},
		{"ECHO", "x y"},
		{"FOO", "bar"},
		{"-3", "HELLO", "3", "SETNAME", "x"},
		{"-3", "SPOP", k + "none", "3"},
		{"ZADD", k + "z", "1", "a", "2.5", "b"},
		{"ZRANGE", k + "z", "0", "-1", "WITHSCORES"},
		{"-3", "ZRANGE", k + "z", "0", "-1", "WITHSCORES"},
		{"-3", "ZSCORE", k + "z", "b"},
		{"ZRANDMEMBER", k + "none"},
		{"DEL", k + "z"},
		{"DEL", k + "s"},
	} {
		want, _ := exec.Command(redisCLI, append([]string{"-h", host, "-p", port, "--no-raw"}, args...)...).Output()
		got, _ := cli(t, "", args...)
		if len(args) > 1 && args[1] == "HELLO" { // ids differ
			got, want = strings.Split(got, "4#")[0], []byte(strings.Split(string(want), "4#")[0])
		}
		require.Equal(t, string(want), got, "%q", args)
	}
}
