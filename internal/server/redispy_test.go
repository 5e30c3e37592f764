package server_test

import (
	"net"
	"os/exec"
	"testing"

	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// TestRedisPy runs testdata/redispy_flow.py with redis-py (Debian's
// python3-redis) against database 11 of redis-server and of a
// redimo-server over a table of its own (the flow flushes its database),
// and compares what the two runs print.
func TestRedisPy(t *testing.T) {
	needRedis(t)
	needDB(t)
	// The python3 on PATH (pyenv, say) may lack Debian's module.
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import redis").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		testenv.Missing(t, "no python3 with redis-py (Debian: python3-redis)")
	}
	ts := freshServer(t, "py")
	run := func(addr, database string) string {
		_, port, _ := net.SplitHostPort(addr)
		out, err := exec.Command(python, "testdata/redispy_flow.py", port, database).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	want := run(redisAddr, "11")
	got := run(ts.addr, "11")
	require.Equal(t, want, got)
	t.Logf("redis-py against redimo-server:\n%s", got)
}
