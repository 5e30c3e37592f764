// Package testenv is what every test package of redimo needs from its
// surroundings: DynamoDB Local's endpoint, the reference redis-server,
// programs on the PATH, a built redimo-server, and the rule that a test
// missing one of them skips when run by hand but fails under `make test`.
//
// `make test` (scripts/with-services.sh) starts DynamoDB Local and
// redis-server privately and sets:
//
//	REDIMO_TEST_ENDPOINT  DynamoDB Local's URL
//	REDIMO_TEST_REDIS     the reference redis-server's host:port
//	REDIMO_TEST_REQUIRE=1 a missing service fails the test instead of skipping it
//
// It imports nothing of redimo, so the library's own tests can use it.
package testenv

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// The variables `make test` sets.
const (
	EnvEndpoint = "REDIMO_TEST_ENDPOINT"
	EnvRedis    = "REDIMO_TEST_REDIS"
	EnvRequire  = "REDIMO_TEST_REQUIRE"
)

// RunWith says how to run the tests that need services.
const RunWith = "run `make test`, or `scripts/with-services.sh --redis -- go test ./...`, which start DynamoDB Local and redis-server (or set " + EnvEndpoint + " and " + EnvRedis + ")"

// Required reports whether a missing service is a failure
// (REDIMO_TEST_REQUIRE=1, as `make test` sets it) rather than a skip.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// Endpoint is DynamoDB Local's endpoint, "" when none is configured.
func Endpoint() string { return os.Getenv(EnvEndpoint) }

// MainEndpoint is Endpoint for a TestMain: with none configured it says
// so on stderr, and exits with status 1 under REDIMO_TEST_REQUIRE=1.
func MainEndpoint() string {
	e := Endpoint()
	if e == "" {
		if Required() {
			fmt.Fprintf(os.Stderr, "%s=1 but %s is not set: no DynamoDB to test against\n", EnvRequire, EnvEndpoint)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "no DynamoDB: skipping the tests that need it; %s\n", RunWith)
	}
	return e
}

// Missing skips tb because something it needs is missing, or fails it
// under REDIMO_TEST_REQUIRE=1.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	why := fmt.Sprintf(format, args...)
	if Required() {
		tb.Fatalf("%s=1 but %s", EnvRequire, why)
	}
	tb.Skip(why)
}

// NeedEndpoint returns DynamoDB Local's endpoint, or skips tb (fails it
// under make test) when none is configured.
func NeedEndpoint(tb testing.TB) string {
	tb.Helper()
	e := Endpoint()
	if e == "" {
		Missing(tb, "no DynamoDB: %s", RunWith)
	}
	return e
}

// RedisAddr returns the reference redis-server's address, or skips tb
// (fails it under make test) when none is configured.
func RedisAddr(tb testing.TB) string {
	tb.Helper()
	a := os.Getenv(EnvRedis)
	if a == "" {
		Missing(tb, "no redis-server to compare with: %s", RunWith)
	}
	return a
}

// StartRedis is for a TestMain: the reference redis-server of
// REDIMO_TEST_REDIS, else one it starts on a free port when redis-server
// is installed. addr is "" when there is none, and why says why; stop
// stops what it started.
func StartRedis() (addr, why string, stop func()) {
	if a := os.Getenv(EnvRedis); a != "" {
		return a, "", func() {}
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", "no " + EnvRedis + " and no redis-server installed", func() {}
	}
	addr = FreeAddr()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", os.TempDir())
	if err := cmd.Start(); err != nil {
		return "", "cannot start redis-server: " + err.Error(), func() {}
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	if !WaitListening(addr, 5*time.Second) {
		return "", "redis-server did not start", stop
	}
	return addr, "", stop
}

// Binary returns the path of a program, skipping tb (failing it under
// make test) when it is not installed; hint says where to get it.
func Binary(tb testing.TB, name, hint string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, "%s is not installed (%s)", name, hint)
	}
	return p
}

// BuildServer builds cmd/redimo-server into a temporary directory and
// returns the program's path.
func BuildServer(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "redimo-server")
	build := exec.Command("go", "build", "-o", bin, "./cmd/redimo-server")
	build.Dir = ModuleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./cmd/redimo-server: %v\n%s", err, out)
	}
	return bin
}

// ModuleRoot is the directory of redimo's go.mod.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// FreeAddr is a 127.0.0.1 address with a port nothing listens on.
func FreeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// WaitListening reports whether something accepts connections at addr
// within d.
func WaitListening(addr string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return true
		}
	}
	return false
}

// RandomHex is n random bytes in hexadecimal: table names and key
// prefixes unique to a run.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// IsolateAWS hides the machine's AWS and redimo configuration from the
// test: no credentials, no region, no endpoint, no instance metadata.
func IsolateAWS(tb testing.TB) {
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_REGION", "AWS_DEFAULT_REGION", "REDIMO_REGION", "REDIMO_ENDPOINT", "REDIMO_TABLE",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_WEB_IDENTITY_TOKEN_FILE"} {
		tb.Setenv(v, "")
	}
	tb.Setenv("AWS_CONFIG_FILE", filepath.Join(tb.TempDir(), "none"))
	tb.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(tb.TempDir(), "none"))
	tb.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// The budgets of the two suites. `make test`, the everyday suite, runs
// every test with small budgets and a seed that changes from run to run;
// `make test-all` (REDIMO_TEST_THOROUGH=1) runs the same tests with the
// full budgets and the fixed seeds the suite was written with.
const (
	EnvThorough = "REDIMO_TEST_THOROUGH"
	EnvSeed     = "REDIMO_TEST_SEED"
)

// Thorough reports whether this is the full suite (REDIMO_TEST_THOROUGH=1,
// as `make test-all` sets it).
func Thorough() bool { return os.Getenv(EnvThorough) == "1" }

// Budget is everyday in the everyday suite and thorough in the full one:
// how many sequences, draws, members or rounds a test spends.
func Budget[T any](everyday, thorough T) T {
	if Thorough() {
		return thorough
	}
	return everyday
}

var runSeed = func() uint64 {
	if s := os.Getenv(EnvSeed); s != "" {
		if v, err := strconv.ParseUint(s, 10, 64); err == nil {
			return v
		}
		fmt.Fprintf(os.Stderr, "%s=%q is not an unsigned integer: ignored\n", EnvSeed, s)
	}
	return uint64(time.Now().UnixNano()) % 1_000_000
}()

// Seed is the seed of a randomised test. The full suite uses fixed, the
// value the test was written with; the everyday suite takes one per run
// (REDIMO_TEST_SEED to repeat a run), so that successive runs cover new
// cases. The seed is logged, and on failure `go test` prints it with the
// line to repeat the run.
func Seed(tb testing.TB, fixed uint64) uint64 {
	tb.Helper()
	seed := fixed
	if !Thorough() || os.Getenv(EnvSeed) != "" {
		seed = runSeed
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("seed %d: repeat with %s=%d", seed, EnvSeed, seed)
		}
	})
	tb.Logf("seed %d (%s=%d repeats it)", seed, EnvSeed, seed)
	return seed
}

// Sample returns keep, which says whether the next case of a long table
// runs: every case in the full suite; in the everyday one a share of
// them (0 < share <= 1), drawn from the run's seed (Seed), so that
// successive everyday runs cover different cases and the full suite all
// of them. keep is for one goroutine.
func Sample(tb testing.TB, fixed uint64, share float64) (keep func() bool) {
	tb.Helper()
	if Thorough() {
		return func() bool { return true }
	}
	r := mrand.New(mrand.NewPCG(Seed(tb, fixed), 0x5a))
	return func() bool { return r.Float64() < share }
}
