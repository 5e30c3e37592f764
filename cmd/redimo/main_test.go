package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/chzyer/readline"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/testenv"
)

// The tests run the CLI in-process against DynamoDB Local at
// REDIMO_TEST_ENDPOINT, in a fresh table that `redimo create-table` makes.
// Without an endpoint they skip, unless REDIMO_TEST_REQUIRE=1 (make test).
// Outputs are compared with redis-cli's against the redis-server at
// REDIMO_TEST_REDIS when it is set.

var (
	endpoint  string
	randomHex = testenv.RandomHex
	testTable = "redimo_cli_test_" + randomHex(4)
)

func TestMain(m *testing.M) {
	if endpoint = testenv.MainEndpoint(); endpoint != "" {
		out, code := cli(nil, "", "create-table")
		if code != 0 || out != "OK (table "+testTable+")\n" {
			fmt.Fprintf(os.Stderr, "create-table: exit %d: %s\n", code, out)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// cli runs the CLI on the test table and returns its stdout and stderr and
// exit status.
func cli(tb testing.TB, stdin string, args ...string) (string, int) {
	if tb != nil {
		testenv.NeedEndpoint(tb)
	}
	if !slices.Contains(args, "--raw") {
		args = append([]string{"--no-raw"}, args...)
	}
	return cliRaw(args, stdin)
}

// cliRaw runs the CLI on the test table as a script would (stdout is not a
// terminal), without --no-raw.
func cliRaw(args []string, stdin string) (string, int) {
	var out bytes.Buffer
	code := run(context.Background(), append([]string{"--endpoint", endpoint, "--table", testTable}, args...),
		strings.NewReader(stdin), &out, &out)
	return out.String(), code
}

// TestCLIRawIntoPipe: into a pipe or file, replies are raw, as redis-cli's.
func TestCLIRawIntoPipe(t *testing.T) {
	testenv.NeedEndpoint(t)
	k := "raw:" + randomHex(4)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SADD", k, "b", "a"}, "2\n"},
		{[]string{"SMEMBERS", k}, "a\nb\n"},
		{[]string{"SRANDMEMBER", k + "none"}, "\n"},
		{[]string{"--no-raw", "SCARD", k}, "(integer) 2\n"},
	} {
		out, code := cliRaw(tc.args, "")
		require.Equal(t, 0, code)
		require.Equal(t, tc.want, out, "%q", tc.args)
	}
}

func TestCLICost(t *testing.T) {
	testenv.NeedEndpoint(t)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--endpoint", endpoint, "--table", testTable, "--cost", "SADD", "cost:" + randomHex(4), "a", "b"},
		strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code)
	require.Equal(t, "2\n", stdout.String())
	require.Regexp(t, `^\(1 DynamoDB request, 0 RCU, 2 WCU( \(\d+ reported\))?\)\n$`, stderr.String(),
		"the cost model: a small set, one UpdateItem of its metadata item (1 WCU) and its new key-index entry (1 WCU)")
}

func TestCLIHelp(t *testing.T) {
	var out bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"help"}, strings.NewReader(""), &out, &out))
	require.Contains(t, out.String(), "SADD visitors alice bob")
	require.Contains(t, out.String(), "@sorted-set")
	out.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"help", "@set"}, strings.NewReader(""), &out, &out))
	require.Contains(t, out.String(), "  SINTERCARD ")
	require.NotContains(t, out.String(), "ZADD")
	out.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"help", "sadd"}, strings.NewReader(""), &out, &out))
	require.Contains(t, out.String(), "SADD\n  Adds one or more members to a set.")
	require.Contains(t, out.String(), "takes at least 2 argument(s)")
}

// TestCLIPrompt drives the interactive prompt (its terminal replaced by a
// pipe): commands run, help answers, history is saved, quit leaves.
func TestCLIPrompt(t *testing.T) {
	testenv.NeedEndpoint(t)
	hist := t.TempDir() + "/history"
	k := "prompt:" + randomHex(4)
	var out bytes.Buffer
	rl, err := readline.NewEx(&readline.Config{
		Prompt: "> ", HistoryFile: hist, Stdin: io.NopCloser(strings.NewReader("SADD " + k + " a b\nhelp sadd\n\"bad\nSCARD " + k + "\nquit\nSCARD " + k + "\n")),
		Stdout: &out, Stderr: &out, FuncIsTerminal: func() bool { return false },
	})
	require.NoError(t, err)
	defer rl.Close()
	var ran [][]string
	prompt(context.Background(), rl, &out, func(args []string) { ran = append(ran, args) })
	require.Equal(t, [][]string{{"SADD", k, "a", "b"}, {"SCARD", k}}, ran, "nothing after quit")
	require.Contains(t, out.String(), "Adds one or more members to a set.")
	require.Contains(t, out.String(), "Invalid argument(s)")
	saved, err := os.ReadFile(hist)
	require.NoError(t, err)
	require.Contains(t, string(saved), "SADD "+k+" a b\n")
}

// TestCLISetupMistakes: a missing table, an unreachable endpoint, no
// region, no credentials: one line naming the fix, exit status 1.
func TestCLISetupMistakes(t *testing.T) {
	testenv.IsolateAWS(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing table", []string{"--endpoint", endpoint, "--table", "no_such_table", "SCARD", "k"},
			[]string{`table "no_such_table" does not exist`, "`redimo --endpoint " + endpoint + " --table no_such_table create-table`"}},
		{"unreachable endpoint", []string{"--endpoint", "http://127.0.0.1:1", "SCARD", "k"},
			[]string{"cannot reach DynamoDB at http://127.0.0.1:1", "--endpoint", "make ddb-local"}},
		{"no region", []string{"SCARD", "k"}, []string{"no AWS region", "--region", "AWS_REGION", "--endpoint"}},
		{"no credentials", []string{"--region", "eu-west-1", "create-table"},
			[]string{"no AWS credentials", "AWS_ACCESS_KEY_ID", "--endpoint"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if endpoint == "" && tc.name == "missing table" {
				t.Skip("no DynamoDB: set REDIMO_TEST_ENDPOINT (make test does)")
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
			require.Equal(t, 1, code)
			require.Empty(t, stdout.String())
			msg := stderr.String()
			require.Equal(t, 1, strings.Count(msg, "\n"), "one line: %s", msg)
			require.True(t, strings.HasPrefix(msg, "redimo: "), msg)
			require.Equal(t, 1, strings.Count(msg, "redimo: "), "no doubled prefix: %s", msg)
			for _, w := range tc.want {
				require.Contains(t, msg, w)
			}
		})
	}
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
