package redimo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// TestREADMEOutsideModule does what a new user does: a module of its own,
// at the lowest Go version redimo supports, with nothing but a replace
// line pointing at this repository, builds the README's programs and runs
// the DynamoDB Local one against the test's DynamoDB Local.
func TestREADMEOutsideModule(t *testing.T) {
	needDB(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	if testing.Short() {
		t.Skip("-short: builds a module")
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	programs := regexp.MustCompile("(?s)```go\n(package main\n.*?)```").FindAllStringSubmatch(string(readme), -1)
	require.Len(t, programs, 2, "the README's two complete programs: DynamoDB Local, then AWS")
	local, onAWS := programs[0][1], programs[1][1]
	require.Contains(t, local, `"http://127.0.0.1:8000"`)

	repo, err := os.Getwd()
	require.NoError(t, err)
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(readFile(t, "go.mod"))[1]
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("go.mod", "module example.com/app\n\ngo "+goVersion+"\n\nreplace github.com/redimo-go/redimo => "+repo+"\n")
	write("main.go", strings.Replace(local, "http://127.0.0.1:8000", testEndpoint, 1))
	write("aws/main.go", onAWS)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	gocmd := func(args ...string) string {
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir = dir
		// -mod=mod: the go command adds the requirements itself, as
		// `go get` would; GOTOOLCHAIN=local: no toolchain download.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}
	// Both programs' imports resolved (go.mod gets its requirements);
	// the full suite also builds the AWS program (it is not run). go vet
	// would also analyse every dependency: half a minute of CPU.
	gocmd("list", "-deps", "./...")
	if testenv.Thorough() {
		gocmd("build", "./...")
	}
	out := gocmd("run", ".")
	require.Regexp(t, `^[02] new visitors, 2 in all\n$`, out)
	require.Contains(t, readFile(t, filepath.Join(dir, "go.mod")), "go "+goVersion+"\n", "the module stays at the lowest version")
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(b)
}

// TestREADMEShape: a README a newcomer reads in ten minutes (≤ 300 lines),
// which shows `make demo` and `make test` (the contract), one contiguous
// list of limits and differences, the version scheme, the licence, and a
// table of contents for the reference in docs/.
func TestREADMEShape(t *testing.T) {
	readme := readFile(t, "README.md")
	lines := strings.Count(readme, "\n")
	require.LessOrEqual(t, lines, 300, "README.md lines")
	for _, want := range []string{"make demo", "make test", "## Contributing", "## Limits and differences from Redis",
		"## Versions and stability", "v0.MINOR.PATCH", "(LICENSE)", "(CHANGELOG.md)", "(docs/README.md)"} {
		require.Contains(t, readme, want)
	}
	// The limits are one list: from its heading to the next, nothing but
	// list items (no paragraph splitting it).
	section := strings.SplitN(strings.SplitN(readme, "## Limits and differences from Redis\n", 2)[1], "\n## ", 2)[0]
	for _, para := range strings.Split(strings.TrimSpace(section), "\n- ") {
		require.NotContains(t, strings.TrimPrefix(para, "- "), "\n\n", "a paragraph inside the list")
	}
	require.Regexp(t, `^\s+Apache License\s+Version 2\.0, January 2004`, readFile(t, "LICENSE"))
	require.Contains(t, readFile(t, "CHANGELOG.md"), "## [Unreleased]")
}
