package testenv

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// EnvShard, set to "i/n", makes a package's test binary run only the i-th
// of n shares of its tests (Shard). `make test` runs the root package as
// n processes side by side: its tests wait on round trips to DynamoDB
// Local far more than they use a core, and the tests isolate themselves
// by key prefix, table and redis database already, as they do from the
// other packages' tests that run beside them.
const EnvShard = "REDIMO_TEST_SHARD"

// EnvShardBeside, set to a number of seconds, is the other work that runs
// beside the last share on its DynamoDB Local (scripts/run-suite.sh: the
// other packages, with DDB_INSTANCES=2): Shard deals that share as much
// less. Every process of the run must see the same value.
const EnvShardBeside = "REDIMO_TEST_SHARD_BESIDE"

// SlowTests is the file, in a package's directory, of its slowest tests
// and their seconds in the everyday suite ("TestName 12.3" a line), which
// Shard spreads first so that the shares take about as long. `make
// slow-tests` writes it from the last run; a test it does not list counts
// as half a second. A stale file unbalances the shares, nothing more.
const SlowTests = "testdata/slow-tests.txt"

var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Example|Fuzz)\w*)\(`)

// Shard restricts the run to this process's share when EnvShard is set:
// it adds the tests of the other shares to -test.skip. Call it from
// TestMain before m.Run, in the package's directory (go test's working
// directory). It parses the command line.
func Shard() error {
	spec := os.Getenv(EnvShard)
	if spec == "" {
		return nil
	}
	i, n, err := parseShard(spec)
	if err != nil {
		return err
	}
	names, err := testNames(".")
	if err != nil {
		return err
	}
	weights, err := readWeights(SlowTests)
	if err != nil {
		return err
	}
	beside := 0.0
	if v := os.Getenv(EnvShardBeside); v != "" {
		if beside, err = strconv.ParseFloat(v, 64); err != nil || beside < 0 {
			return fmt.Errorf("%s=%q: want seconds", EnvShardBeside, v)
		}
	}
	var others []string
	for s, share := range Shares(names, weights, n, beside) {
		if s != i-1 {
			others = append(others, share...)
		}
	}
	if len(others) == 0 {
		return nil
	}
	if !flag.Parsed() {
		flag.Parse()
	}
	skip := "^(" + strings.Join(others, "|") + ")$"
	if s := flag.Lookup("test.skip").Value.String(); s != "" {
		skip = s + "|" + skip
	}
	return flag.Set("test.skip", skip)
}

func parseShard(spec string) (i, n int, err error) {
	a, b, ok := strings.Cut(spec, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("%s=%q: want i/n with 1 <= i <= n", EnvShard, spec)
	}
	return i, n, nil
}

// Shares deals names into n shares of about equal seconds: the slowest
// first, each to the share with the fewest seconds so far (ties to the
// lower share), names without a weight at half a second. The last share
// starts with beside seconds (other work beside it). The same names,
// weights and beside give the same shares in every process.
func Shares(names []string, weights map[string]float64, n int, beside float64) [][]string {
	weight := func(name string) float64 {
		if w, ok := weights[name]; ok {
			return w
		}
		return 0.5
	}
	names = slices.Clone(names)
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(weight(b), weight(a)), strings.Compare(a, b))
	})
	shares := make([][]string, n)
	load := make([]float64, n)
	load[n-1] = beside
	for _, name := range names {
		s := slices.Index(load, slices.Min(load))
		shares[s] = append(shares[s], name)
		load[s] += weight(name)
	}
	return shares
}

// testNames lists the Test, Example and Fuzz functions of dir's test
// files.
func testNames(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			names = append(names, string(m[1]))
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// readWeights reads SlowTests; a missing file weighs every test alike.
func readWeights(path string) (map[string]float64, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	weights := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, secs, ok := strings.Cut(line, " ")
		w, err := strconv.ParseFloat(strings.TrimSpace(secs), 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: %q: want \"TestName seconds\"", path, line)
		}
		weights[name] = w
	}
	return weights, sc.Err()
}
