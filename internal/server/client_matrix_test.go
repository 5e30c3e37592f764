package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/testenv"
)

// scriptStep is one step of testdata/client_script.json (see its "about").
type scriptStep struct {
	Name     string     `json:"name"`
	Do       []string   `json:"do"`
	Multi    [][]string `json:"multi"`
	Pipeline [][]string `json:"pipeline"`
	Scan     string     `json:"scan"`
	Type     string     `json:"type"`
	Watch    string     `json:"watch"`
	Member   string     `json:"member"`
	BZPopMin string     `json:"bzpopmin"`
	Push     []string   `json:"push"`
	Sort     bool       `json:"sort"`
	Repeat   bool       `json:"repeat"`
	Redimo   any        `json:"redimo"`
}

func loadScript(t *testing.T) []scriptStep {
	raw, err := os.ReadFile("testdata/client_script.json")
	require.NoError(t, err)
	var s struct{ Steps []scriptStep }
	require.NoError(t, json.Unmarshal(raw, &s))
	for i, step := range s.Steps {
		if step.Repeat {
			expand(step.Do)
			for _, c := range step.Multi {
				expand(c)
			}
		}
		s.Steps[i] = step
	}
	return s.Steps
}

// repeated is the script's c*n: c repeated n times.
var repeated = regexp.MustCompile(`^(.+)\*(\d+)$`)

func expand(args []string) {
	for i, a := range args {
		if m := repeated.FindStringSubmatch(a); m != nil {
			n, _ := strconv.Atoi(m[2])
			args[i] = strings.Repeat(m[1], n)
		}
	}
}

// scriptDB is the database the script runs in (it flushes it).
const scriptDB = 14

// TestClients runs the common script (testdata/client_script.json: sets,
// sorted sets, MULTI/EXEC, pipelines, SCAN, a blocking pop, WRONGTYPE,
// SADDEX) with each client library on its default options, against
// redis-server and against redimo-server, and requires the same replies
// (SADDEX, which redis-server 7.0 lacks: the script's expected ones).
// The Node.js clients need node and scripts/with-services.sh's install
// (REDIMO_TEST_NODE_PATH), redis-py Debian's python3-redis: without them
// their subtests skip, naming what runs them (make test), or fail under
// REDIMO_TEST_REQUIRE=1.
func TestClients(t *testing.T) {
	needRedis(t)
	steps := loadScript(t)
	ts := freshServer(t, "clients")
	type runner func(t *testing.T, addr string, redimoOnly bool) string
	goRunner := func(do func(t *testing.T, addr string, steps []scriptStep, redimoOnly bool) []string) runner {
		return func(t *testing.T, addr string, redimoOnly bool) string {
			return strings.Join(do(t, addr, steps, redimoOnly), "\n")
		}
	}
	type clientCase struct {
		name string
		run  runner
	}
	cases := []clientCase{
		{"go-redis RESP2", goRunner(func(t *testing.T, addr string, s []scriptStep, r bool) []string {
			return goRedisScript(t, addr, 2, s, r)
		})},
		{"go-redis RESP3", goRunner(func(t *testing.T, addr string, s []scriptStep, r bool) []string {
			return goRedisScript(t, addr, 3, s, r)
		})},
		{"rueidis", goRunner(rueidisScript)},
		{"ioredis", nodeRunner("ioredis")},
		{"node-redis", nodeRunner("node-redis")},
		{"redis-py", pythonRunner},
	}
	if !testenv.Thorough() {
		// The everyday suite runs two of the libraries, by the run's
		// seed: each script runs on both servers, about 5 s a library.
		i := int(testenv.Seed(t, 0) % uint64(len(cases)))
		cases = []clientCase{cases[i], cases[(i+len(cases)/2)%len(cases)]}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.run(t, redisAddr, false)
			got := tc.run(t, ts.addr, true)
			var rest []string
			for _, line := range strings.Split(got, "\n") {
				name, reply, _ := strings.Cut(line, "\t")
				i := slices.IndexFunc(steps, func(s scriptStep) bool { return s.Name == name })
				if i >= 0 && steps[i].Redimo != nil {
					expect, _ := json.Marshal(steps[i].Redimo)
					require.JSONEq(t, string(expect), reply, "%s: %s", tc.name, name)
					continue
				}
				rest = append(rest, line)
			}
			require.Equal(t, want, strings.Join(rest, "\n"))
			require.Contains(t, got, "saddex\t")
			t.Logf("%s against redimo-server:\n%s", tc.name, got)
		})
	}
}

// scriptLine is a step's output line: its name, then its reply as JSON
// (errors as "error: message").
func scriptLine(step scriptStep, v any, err error) string {
	if err != nil && !errors.Is(err, redis.Nil) && !rueidis.IsRedisNil(err) {
		v = "error: " + err.Error()
	}
	if s, ok := v.([]any); ok && step.Sort {
		slices.SortFunc(s, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	}
	raw, jerr := json.Marshal(v)
	if jerr != nil {
		raw = []byte(fmt.Sprintf("%q", fmt.Sprint(v)))
	}
	return step.Name + "\t" + string(raw)
}

// scriptClient is what a Go runner gives runScript: do runs one command;
// batch runs MULTI/EXEC or a pipeline (each reply, errors as values);
// other runs a command on another connection; watch runs the WATCH retry
// loop with the client's own WATCH and MULTI (see the script's "about").
type scriptClient struct {
	do    func([]string) (any, error)
	batch func(cmds [][]string, tx bool) []any
	other func([]string)
	watch func(key, member string) (any, error)
}

// runScript runs the steps with c.
func runScript(steps []scriptStep, redimoOnly bool, c scriptClient) []string {
	do := c.do
	var out []string
	for _, step := range steps {
		if step.Redimo != nil && !redimoOnly {
			continue
		}
		var (
			v   any
			err error
		)
		switch {
		case step.Do != nil:
			v, err = do(step.Do)
		case step.Multi != nil:
			v = c.batch(step.Multi, true)
		case step.Pipeline != nil:
			v = c.batch(step.Pipeline, false)
		case step.Watch != "":
			v, err = c.watch(step.Watch, step.Member)
		case step.Scan != "":
			keys := []any{}
			cursor := "0"
			for {
				var page any
				args := []string{"SCAN", cursor, "MATCH", step.Scan, "COUNT", "2"}
				if step.Type != "" {
					args = append(args, "TYPE", step.Type)
				}
				page, err = do(args)
				if err != nil {
					break
				}
				p := page.([]any)
				cursor = fmt.Sprint(p[0])
				keys = append(keys, p[1].([]any)...)
				if cursor == "0" {
					break
				}
			}
			slices.SortFunc(keys, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
			v = slices.Compact(keys)
		case step.BZPopMin != "":
			go func() { time.Sleep(300 * time.Millisecond); c.other(step.Push) }()
			v, err = do([]string{"BZPOPMIN", step.BZPopMin, "0"})
		}
		out = append(out, scriptLine(step, v, err))
	}
	return out
}

func anyArgs(args []string) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}

func goRedisScript(t *testing.T, addr string, proto int, steps []scriptStep, redimoOnly bool) []string {
	ctx := context.Background()
	r := redis.NewClient(&redis.Options{Addr: addr, DB: scriptDB, Protocol: proto})
	defer r.Close()
	other := redis.NewClient(&redis.Options{Addr: addr, DB: scriptDB, Protocol: proto})
	defer other.Close()
	batch := func(cmds [][]string, tx bool) []any {
		fn := func(p redis.Pipeliner) error {
			for _, c := range cmds {
				p.Do(ctx, anyArgs(c)...)
			}
			return nil
		}
		var res []redis.Cmder
		if tx {
			res, _ = r.TxPipelined(ctx, fn)
		} else {
			res, _ = r.Pipelined(ctx, fn)
		}
		out := make([]any, len(res))
		for i, c := range res {
			v, err := c.(*redis.Cmd).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				v = "error: " + err.Error()
			}
			out[i] = v
		}
		return out
	}
	watch := func(key, member string) (any, error) {
		tries := 0
		for {
			tries++
			err := r.Watch(ctx, func(tx *redis.Tx) error {
				v, err := tx.ZScore(ctx, key, member).Result()
				if err != nil {
					return err
				}
				if tries == 1 {
					require.NoError(t, other.ZIncrBy(ctx, key, 5, member).Err())
				}
				_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.ZAdd(ctx, key, redis.Z{Score: v * 2, Member: member})
					return nil
				})
				return err
			}, key)
			if errors.Is(err, redis.TxFailedErr) {
				continue
			}
			if err != nil {
				return nil, err
			}
			score, err := r.Do(ctx, "ZSCORE", key, member).Result()
			return []any{tries, score}, err
		}
	}
	return runScript(steps, redimoOnly, scriptClient{
		do:    func(args []string) (any, error) { return r.Do(ctx, anyArgs(args)...).Result() },
		batch: batch,
		other: func(args []string) { require.NoError(t, other.Do(ctx, anyArgs(args)...).Err()) },
		watch: watch,
	})
}

// rueidisScript runs the script with rueidis on its default options
// (RESP3, client-side caching on).
func rueidisScript(t *testing.T, addr string, steps []scriptStep, redimoOnly bool) []string {
	ctx := context.Background()
	opt := rueidis.ClientOption{InitAddress: []string{addr}, SelectDB: scriptDB}
	r, err := rueidis.NewClient(opt)
	require.NoError(t, err)
	defer r.Close()
	other, err := rueidis.NewClient(opt)
	require.NoError(t, err)
	defer other.Close()
	build := func(c rueidis.Client, args []string) rueidis.Completed {
		b := c.B().Arbitrary(args[0]).Args(args[1:]...)
		if strings.HasPrefix(strings.ToUpper(args[0]), "B") {
			return b.Blocking()
		}
		return b.Build()
	}
	result := func(res rueidis.RedisResult) any {
		v, err := res.ToAny()
		if err != nil && !rueidis.IsRedisNil(err) {
			return "error: " + err.Error()
		}
		return v
	}
	batch := func(cmds [][]string, tx bool) []any {
		var res []rueidis.RedisResult
		if tx {
			_ = r.Dedicated(func(d rueidis.DedicatedClient) error {
				all := []rueidis.Completed{d.B().Multi().Build()}
				for _, c := range cmds {
					all = append(all, d.B().Arbitrary(c[0]).Args(c[1:]...).Build())
				}
				res = d.DoMulti(ctx, append(all, d.B().Exec().Build())...)
				return nil
			})
			exec, err := res[len(res)-1].ToArray()
			if err != nil {
				return []any{"error: " + err.Error()}
			}
			out := make([]any, len(exec))
			for i, m := range exec {
				v, err := m.ToAny()
				if err != nil && !rueidis.IsRedisNil(err) {
					v = "error: " + err.Error()
				}
				out[i] = v
			}
			return out
		}
		all := make([]rueidis.Completed, len(cmds))
		for i, c := range cmds {
			all[i] = build(r, c)
		}
		out := []any{}
		for _, x := range r.DoMulti(ctx, all...) {
			out = append(out, result(x))
		}
		return out
	}
	watch := func(key, member string) (any, error) {
		tries := 0
		for {
			tries++
			var committed bool
			err := r.Dedicated(func(d rueidis.DedicatedClient) error {
				if err := d.Do(ctx, d.B().Watch().Key(key).Build()).Error(); err != nil {
					return err
				}
				v, err := d.Do(ctx, d.B().Zscore().Key(key).Member(member).Build()).AsFloat64()
				if err != nil {
					return err
				}
				if tries == 1 {
					require.NoError(t, other.Do(ctx, other.B().Zincrby().Key(key).Increment(5).Member(member).Build()).Error())
				}
				res := d.DoMulti(ctx, d.B().Multi().Build(), d.B().Zadd().Key(key).ScoreMember().ScoreMember(v*2, member).Build(), d.B().Exec().Build())
				err = res[2].Error()
				committed = err == nil
				if rueidis.IsRedisNil(err) {
					return nil
				}
				return err
			})
			if err != nil {
				return nil, err
			}
			if committed {
				score, err := r.Do(ctx, r.B().Zscore().Key(key).Member(member).Build()).ToAny()
				return []any{tries, score}, err
			}
		}
	}
	return runScript(steps, redimoOnly, scriptClient{
		do:    func(args []string) (any, error) { return r.Do(ctx, build(r, args)).ToAny() },
		batch: batch,
		other: func(args []string) { require.NoError(t, other.Do(ctx, build(other, args)).Error()) },
		watch: watch,
	})
}

// nodeRunner runs testdata/client_script.js with lib (ioredis or
// node-redis).
func nodeRunner(lib string) func(t *testing.T, addr string, redimoOnly bool) string {
	return func(t *testing.T, addr string, redimoOnly bool) string {
		node, err := exec.LookPath("node")
		nodePath := os.Getenv("REDIMO_TEST_NODE_PATH")
		switch {
		case err != nil:
			testenv.Missing(t, "no node on PATH: %s needs Node.js (make test runs it)", lib)
		case nodePath == "":
			testenv.Missing(t, "REDIMO_TEST_NODE_PATH unset: run through scripts/with-services.sh --redis (make test), which installs %s", lib)
		}
		_, port, _ := net.SplitHostPort(addr)
		cmd := exec.Command(node, "testdata/client_script.js", lib, port, fmt.Sprint(scriptDB), flag(redimoOnly))
		cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.TrimSpace(string(out))
	}
}

func pythonRunner(t *testing.T, addr string, redimoOnly bool) string {
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import redis").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		testenv.Missing(t, "no python3 with redis-py (Debian: python3-redis; make test installs it)")
	}
	_, port, _ := net.SplitHostPort(addr)
	out, err := exec.Command(python, "testdata/client_script.py", port, fmt.Sprint(scriptDB), flag(redimoOnly)).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return strings.TrimSpace(string(out))
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
