package server_test

import (
	"net"
	"os"
	"os/exec"
	"testing"

	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// TestIORedis runs testdata/ioredis_flow.js with ioredis (installed from
// the npm registry by scripts/with-services.sh, which exports
// REDIMO_TEST_NODE_PATH) against database 12 of redis-server and of a
// redimo-server over a table of its own, and compares what the two runs
// print. It skips without node or ioredis, unless REDIMO_TEST_REQUIRE=1.
func TestIORedis(t *testing.T) {
	needRedis(t)
	needDB(t)
	nodePath := os.Getenv("REDIMO_TEST_NODE_PATH")
	node, err := exec.LookPath("node")
	switch {
	case err != nil:
		testenv.Missing(t, "no node on PATH: ioredis needs Node.js")
	case nodePath == "":
		testenv.Missing(t, "REDIMO_TEST_NODE_PATH unset: run through scripts/with-services.sh (make test), which installs ioredis")
	}
	ts := freshServer(t, "io")
	run := func(addr string) string {
		_, port, _ := net.SplitHostPort(addr)
		cmd := exec.Command(node, "testdata/ioredis_flow.js", port, "12")
		cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	want := run(redisAddr)
	got := run(ts.addr)
	require.Equal(t, want, got)
	t.Logf("ioredis against redimo-server:\n%s", got)
}
