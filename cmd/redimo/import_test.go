package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/connect"
	"github.com/redimo-go/redimo/internal/testenv"
)

// importRedisDB is the redis-server database the import tests fill (other
// tests use 0, 9, 10, 13), under a key prefix of their own.
const importRedisDB = 11

// importSource is the test's redis-server database, and its URL.
func importSource(t *testing.T) (*redis.Client, string) {
	addr := testenv.RedisAddr(t)
	src := redis.NewClient(&redis.Options{Addr: addr, DB: importRedisDB})
	t.Cleanup(func() { src.Close() })
	return src, fmt.Sprintf("redis://%s/%d", addr, importRedisDB)
}

// tableClient is a client of the CLI tests' table, for the test's own
// reads and writes.
func tableClient(t *testing.T) *redimo.Client {
	f := connect.Flags{Table: testTable, Endpoint: testenv.NeedEndpoint(t)}
	c, _, err := f.Client(context.Background())
	require.NoError(t, err)
	return c
}

// cleanKeys deletes the keys under prefix from the source and the table.
func cleanKeys(t *testing.T, src *redis.Client, dst *redimo.Client, prefix string) {
	t.Cleanup(func() {
		ctx := context.Background()
		keys, err := src.Keys(ctx, prefix+"*").Result()
		require.NoError(t, err)
		for k := range slices.Chunk(keys, 500) {
			require.NoError(t, src.Del(ctx, k...).Err())
		}
		keys, err = dst.Keys(ctx, prefix+"*")
		require.NoError(t, err)
		if len(keys) > 0 {
			_, err = dst.Del(ctx, keys...)
			require.NoError(t, err)
		}
	})
}

// runImportCLI runs `redimo import` in-process on the test table.
func runImportCLI(ctx context.Context, args ...string) (stdout, stderr string, code int) {
	return runCLI(ctx, append([]string{"import"}, args...)...)
}

// TestImport fills a real redis-server with 200 sets and sorted sets (100
// everyday; 1 member to a few big keys; some with TTLs) and keys of other
// types, imports them, interrupting the import part-way through a big
// key, then resumes it; the import's verify pass and the test's own
// comparison of every member, score and TTL find the table equal to the
// source. Keys already in the table are made equal too: one with a member
// the source lacks, one of another type, one with a TTL the source's has
// not.
func TestImport(t *testing.T) {
	src, url := importSource(t)
	dst := tableClient(t)
	ctx := context.Background()
	prefix := "imp:" + randomHex(4) + ":"
	cleanKeys(t, src, dst, prefix)
	rng := rand.New(rand.NewPCG(testenv.Seed(t, 32), 0))
	big := testenv.Budget(300, 20_000)

	type key struct {
		name  string
		zset  bool
		ttl   time.Duration
		count int
	}
	var keys []key
	members := 0
	nkeys := testenv.Budget(100, 200)
	for i := range nkeys {
		k := key{name: fmt.Sprintf("%skey%03d", prefix, i), zset: rng.IntN(2) == 0}
		switch {
		case i == 0:
			k.count = big
		case i < 4:
			k.count = testenv.Budget(150, 2_000) + rng.IntN(testenv.Budget(150, 3_000))
		case i < testenv.Budget(12, 20):
			k.count = testenv.Budget(10, 50) + rng.IntN(testenv.Budget(90, 300))
		default:
			k.count = 1 + rng.IntN(20)
		}
		if rng.IntN(4) == 0 {
			k.ttl = time.Hour + time.Duration(rng.Int64N(int64(47*time.Hour)))
		}
		keys = append(keys, k)
		members += k.count
	}
	// Members of every shape: empty, binary, long, unicode; scores of
	// every kind: ±inf, negative, fractions that need 17 digits.
	member := func(j int) string {
		switch j {
		case 0:
			return ""
		case 1:
			return "\x00\xff\r\n binary"
		case 2:
			return strings.Repeat("long", 300)
		case 3:
			return "éü 名前"
		}
		return "m" + strconv.Itoa(j)
	}
	score := func(j int) float64 {
		switch j {
		case 0:
			return math.Inf(-1)
		case 1:
			return math.Inf(1)
		}
		return (rng.Float64() - 0.3) * math.Pow(10, float64(rng.IntN(12)))
	}
	pipe := src.Pipeline()
	for _, k := range keys {
		for j := 0; j < k.count; j += 500 {
			var sm []any
			var zm []redis.Z
			for m := j; m < min(j+500, k.count); m++ {
				sm = append(sm, member(m))
				zm = append(zm, redis.Z{Member: member(m), Score: score(m)})
			}
			if k.zset {
				pipe.ZAdd(ctx, k.name, zm...)
			} else {
				pipe.SAdd(ctx, k.name, sm...)
			}
		}
		if k.ttl > 0 {
			pipe.PExpire(ctx, k.name, k.ttl)
		}
	}
	for i := range 3 {
		pipe.Set(ctx, fmt.Sprintf("%sstring%d", prefix, i), "v", 0)
		pipe.HSet(ctx, fmt.Sprintf("%shash%d", prefix, i), "f", "v")
		pipe.RPush(ctx, fmt.Sprintf("%slist%d", prefix, i), "a", "b")
	}
	for i := range 2 {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: fmt.Sprintf("%sstream%d", prefix, i), Values: []string{"f", "v"}})
	}
	_, err := pipe.Exec(ctx)
	require.NoError(t, err)

	// In the table before the import: key005 with a member the source
	// lacks (and a TTL), key006 of the other type.
	extra, other := keys[5], keys[6]
	if extra.zset {
		_, err = dst.ZAdd(ctx, extra.name, redimo.Z{Member: "stale", Score: 1})
	} else {
		_, err = dst.SAdd(ctx, extra.name, "stale")
	}
	require.NoError(t, err)
	_, err = dst.PExpire(ctx, extra.name, 30*time.Hour)
	require.NoError(t, err)
	if other.zset {
		_, err = dst.SAdd(ctx, other.name, "x")
	} else {
		_, err = dst.ZAdd(ctx, other.name, redimo.Z{Member: "x", Score: 1})
	}
	require.NoError(t, err)

	// First run, with the progress bar: cancelled (as Ctrl-C would) once
	// the checkpoint shows a key part-way through its members (saved after
	// every chunk, so that a fast machine shows one too).
	defer func(d time.Duration) { checkpointEvery = d }(checkpointEvery)
	checkpointEvery = 0
	cpFile := filepath.Join(t.TempDir(), "import.checkpoint")
	args := []string{"-match", prefix + "*", "-checkpoint", cpFile, "-count", "100", url}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	partway := make(chan *keyState, 1)
	go func() {
		defer cancel()
		for cctx.Err() == nil {
			time.Sleep(2 * time.Millisecond)
			var cp checkpoint
			b, err := os.ReadFile(cpFile)
			if err != nil || json.Unmarshal(b, &cp) != nil {
				continue
			}
			for _, k := range cp.Page {
				if k.Cursor != 0 && !k.Scanned {
					partway <- k
					return
				}
			}
		}
	}()
	start := time.Now()
	out, stderr, code := runImportCLI(cctx, args...)
	first := time.Since(start)
	require.Equal(t, 1, code, "the first run is interrupted: %s%s", out, stderr)
	require.Contains(t, stderr, "interrupted; run the same command again to continue (checkpoint "+cpFile+")")
	require.Regexp(t, fmt.Sprintf(`keys \d+/%d .*members/s`, nkeys), stderr, "the progress bar: keys, members, rate")
	require.Contains(t, stderr, fmt.Sprintf("/%d, ", members), "the survey's total")
	// Durations as progressbar prints them: 4s, 11m39s, 1h2m3s.
	require.Regexp(t, `members/s\) \[(\d+[hms])+:(\d+[hms])+\]`, stderr, "the elapsed time and the ETA")
	var k *keyState
	select {
	case k = <-partway:
	default:
		t.Fatalf("the import ended before any key was part-way: %s", out)
	}
	t.Logf("interrupted after %s, %q at member cursor %d", first, k.Key, k.Cursor)
	card, err := dst.Exists(ctx, string(k.Key))
	require.NoError(t, err)
	require.EqualValues(t, 1, card, "the key in progress is partly in the table")
	_, err = os.Stat(cpFile)
	require.NoError(t, err, "the checkpoint stays")

	// Resume, quietly: the report, exit status 0, the checkpoint gone.
	out, stderr, code = runImportCLI(ctx, append([]string{"-quiet"}, args...)...)
	require.Equal(t, 0, code, "%s%s", out, stderr)
	require.Empty(t, stderr)
	t.Log("\n" + out)
	require.Contains(t, out, ", in 2 runs")
	require.Contains(t, out, fmt.Sprintf("keys:     %d copied (", nkeys))
	require.Contains(t, out, fmt.Sprintf("members:  %d copied", members))
	require.Contains(t, out, "1 replaced a key of another type in the table")
	require.Contains(t, out, "1 removed from the table (not in the source)")
	require.Contains(t, out, "skipped:  11 keys of other types: 3 hash, 3 list, 2 stream, 3 string\n")
	require.Regexp(t, `DynamoDB: \d+ requests, [\d.e+]+ RCU, [\d.e+]+ WCU, \$[\d.]+ .* for the copy, [\d.]+ WCU a member`, out)
	require.Contains(t, out, fmt.Sprintf("verify:   OK: %d keys, cardinalities equal, ", nkeys))
	_, err = os.Stat(cpFile)
	require.ErrorIs(t, err, os.ErrNotExist)

	// The test's own comparison: every member, score and TTL.
	for _, k := range keys {
		typ, err := dst.Type(ctx, k.name)
		require.NoError(t, err)
		srcTTL, err := src.PTTL(ctx, k.name).Result()
		require.NoError(t, err)
		dstTTL, err := dst.PTTL(ctx, k.name)
		require.NoError(t, err)
		if k.ttl == 0 {
			require.Equal(t, redimo.TTLPersistent, dstTTL, k.name)
		} else {
			require.InDelta(t, float64(srcTTL), float64(dstTTL), float64(2*time.Second), k.name)
		}
		if !k.zset {
			require.Equal(t, "set", typ, k.name)
			want, err := src.SMembers(ctx, k.name).Result()
			require.NoError(t, err)
			got, err := dst.SMembers(ctx, k.name)
			require.NoError(t, err)
			sort.Strings(want)
			sort.Strings(got)
			require.Equal(t, want, got, k.name)
			continue
		}
		require.Equal(t, "zset", typ, k.name)
		want, err := src.ZRangeWithScores(ctx, k.name, 0, -1).Result()
		require.NoError(t, err)
		got, err := dst.ZRangeWithScores(ctx, k.name, 0, -1)
		require.NoError(t, err)
		require.Len(t, got, len(want), k.name)
		for i := range want {
			require.Equal(t, want[i].Member, got[i].Member, k.name)
			require.Equal(t, want[i].Score, got[i].Score, "%s %q", k.name, got[i].Member)
		}
	}
}

// TestImportMistakes: a bad URL or flag is exit status 2 before anything
// is read; a checkpoint of another import is refused; an unreachable
// Redis is one line.
func TestImportMistakes(t *testing.T) {
	testenv.NeedEndpoint(t)
	ctx := context.Background()
	_, stderr, code := runImportCLI(ctx, "http://127.0.0.1:6379")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "redimo import: ")
	_, stderr, code = runImportCLI(ctx)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "one source URL")
	_, _, code = runImportCLI(ctx, "-db", "16", "redis://127.0.0.1:1")
	require.Equal(t, 2, code)
	_, stderr, code = runImportCLI(ctx, "redis://127.0.0.1:1/0")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "redimo import: cannot reach Redis at 127.0.0.1:1")

	_, url := importSource(t)
	cpFile := filepath.Join(t.TempDir(), "cp")
	b, err := json.Marshal(checkpoint{Source: "redis://elsewhere:6379/0", Table: testTable})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cpFile, b, 0o644))
	_, stderr, code = runImportCLI(ctx, "-checkpoint", cpFile, url)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "is of another import (redis://elsewhere:6379/0")
}

// TestImportKeyFinish: a key whose chunks are written is made equal to
// the source whatever the table holds: members the copy missed (the
// source grew during it) are copied again, a key the source deleted
// meanwhile is deleted, a TTL is set from the source's.
func TestImportKeyFinish(t *testing.T) {
	src, _ := importSource(t)
	dst := tableClient(t)
	ctx := context.Background()
	prefix := "impfin:" + randomHex(4) + ":"
	cleanKeys(t, src, dst, prefix)
	var tally redimo.Tally
	im := &importer{flags: importFlags{count: 3, parallel: 1, checkpoint: filepath.Join(t.TempDir(), "cp")}, src: src, dst: dst, tally: &tally,
		cp: &checkpoint{Stats: importStats{Skipped: map[string]int64{}}}}

	grown, gone := prefix+"grown", prefix+"gone"
	require.NoError(t, src.ZAdd(ctx, grown, redis.Z{Member: "a", Score: 1}, redis.Z{Member: "b", Score: 2},
		redis.Z{Member: "c", Score: 3}, redis.Z{Member: "d", Score: 4}).Err())
	require.NoError(t, src.PExpire(ctx, grown, time.Hour).Err())
	_, err := dst.ZAdd(ctx, grown, redimo.Z{Member: "a", Score: 1}, redimo.Z{Member: "b", Score: 9})
	require.NoError(t, err)
	_, err = dst.SAdd(ctx, gone, "x")
	require.NoError(t, err)

	// grown: its chunks "written", but the table has half of it, one
	// score stale.
	k := &keyState{Key: []byte(grown), Type: "zset", Scanned: true}
	require.NoError(t, im.copyKey(ctx, k))
	require.True(t, k.done)
	got, err := dst.ZRangeWithScores(ctx, grown, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []redimo.Z{{Member: "a", Score: 1}, {Member: "b", Score: 2}, {Member: "c", Score: 3}, {Member: "d", Score: 4}}, got)
	ttl, err := dst.PTTL(ctx, grown)
	require.NoError(t, err)
	require.InDelta(t, float64(time.Hour), float64(ttl), float64(2*time.Second))
	require.EqualValues(t, 1, im.cp.Stats.ChangedKeys)
	require.EqualValues(t, 1, k.Again)

	// gone: listed by SCAN, deleted from the source before its copy.
	k = &keyState{Key: []byte(gone), Type: "set"}
	require.NoError(t, im.copyKey(ctx, k))
	n, err := dst.Exists(ctx, gone)
	require.NoError(t, err)
	require.Zero(t, n)
	require.EqualValues(t, 1, im.cp.Stats.Vanished)
	require.EqualValues(t, 1, im.cp.Stats.ZSets)
	require.EqualValues(t, 4, im.cp.Stats.Members)
}

// TestImportRerun: an import run again after it finished (its checkpoint
// gone) copies the same keys again and changes nothing; one run after the
// source changed brings the table to the source's new state, members
// deleted from the source included.
func TestImportRerun(t *testing.T) {
	src, url := importSource(t)
	dst := tableClient(t)
	ctx := context.Background()
	prefix := "imprerun:" + randomHex(4) + ":"
	cleanKeys(t, src, dst, prefix)
	for i := range 10 {
		require.NoError(t, src.SAdd(ctx, fmt.Sprintf("%ss%d", prefix, i), "a", "b", i).Err())
		require.NoError(t, src.ZAdd(ctx, fmt.Sprintf("%sz%d", prefix, i), redis.Z{Member: "a", Score: float64(i)}).Err())
	}
	args := []string{"-quiet", "-match", prefix + "*", "-checkpoint", filepath.Join(t.TempDir(), "cp"), url}
	for range 2 {
		out, stderr, code := runImportCLI(ctx, args...)
		require.Equal(t, 0, code, "%s%s", out, stderr)
		require.Contains(t, out, "keys:     20 copied (10 sets, 10 sorted sets)\nmembers:  40 copied\n")
		require.Contains(t, out, "verify:   OK: 20 keys")
	}
	require.NoError(t, src.SRem(ctx, prefix+"s0", "a").Err())
	require.NoError(t, src.ZAdd(ctx, prefix+"z0", redis.Z{Member: "a", Score: -1}, redis.Z{Member: "new", Score: 2}).Err())
	out, stderr, code := runImportCLI(ctx, args...)
	require.Equal(t, 0, code, "%s%s", out, stderr)
	require.Contains(t, out, "members:  40 copied, 1 removed from the table (not in the source)\n")
	got, err := dst.SMembers(ctx, prefix+"s0")
	require.NoError(t, err)
	require.Equal(t, []string{"0", "b"}, got)
	zs, err := dst.ZRangeWithScores(ctx, prefix+"z0", 0, -1)
	require.NoError(t, err)
	require.Equal(t, []redimo.Z{{Member: "a", Score: -1}, {Member: "new", Score: 2}}, zs)
}

// TestExport: the table's sets and sorted sets (a big one, TTLs, a key
// Redis already holds with other members or of another type) written to
// a real redis-server equal, member by member, score by score, TTL by
// TTL; no staging key left behind.
func TestExport(t *testing.T) {
	src, url := importSource(t)
	dst := tableClient(t)
	ctx := context.Background()
	prefix := "impexp:" + randomHex(4) + ":"
	cleanKeys(t, src, dst, prefix)
	var big []string
	for i := range testenv.Budget(300, 5_000) {
		big = append(big, "m"+strconv.Itoa(i))
	}
	_, err := dst.SAdd(ctx, prefix+"big", big...)
	require.NoError(t, err)
	_, err = dst.ZAdd(ctx, prefix+"z", redimo.Z{Member: "a", Score: math.Inf(-1)}, redimo.Z{Member: "b", Score: 0.1})
	require.NoError(t, err)
	expireSet := time.Now()
	_, err = dst.PExpire(ctx, prefix+"z", time.Hour)
	require.NoError(t, err)
	_, err = dst.SAdd(ctx, prefix+"s", "x", "")
	require.NoError(t, err)
	require.NoError(t, src.SAdd(ctx, prefix+"s", "stale").Err())
	require.NoError(t, src.Set(ctx, prefix+"z", "a string", 0).Err())

	out, stderr, code := runCLI(ctx, "export", "-match", prefix+"*", url)
	require.Equal(t, 0, code, "%s%s", out, stderr)
	t.Log("\n" + out)
	require.Contains(t, out, fmt.Sprintf("keys:     3 exported\nmembers:  %d exported\n", len(big)+4))
	require.Contains(t, out, "verify:   OK: 3 keys")
	for _, k := range []string{"big", "s"} {
		want, err := dst.SMembers(ctx, prefix+k)
		require.NoError(t, err)
		got, err := src.SMembers(ctx, prefix+k).Result()
		require.NoError(t, err)
		sort.Strings(got)
		require.Equal(t, want, got)
		ttl, err := src.PTTL(ctx, prefix+k).Result()
		require.NoError(t, err)
		require.Equal(t, time.Duration(-1), ttl)
	}
	got, err := src.ZRangeWithScores(ctx, prefix+"z", 0, -1).Result()
	require.NoError(t, err)
	require.Equal(t, []redis.Z{{Member: "a", Score: math.Inf(-1)}, {Member: "b", Score: 0.1}}, got)
	ttl, err := src.PTTL(ctx, prefix+"z").Result()
	require.NoError(t, err)
	// The same end: what is left of the hour, whatever the export took.
	left := time.Hour - time.Since(expireSet)
	require.InDelta(t, float64(left), float64(ttl), float64(time.Second), "PTTL %v, %v left of the hour", ttl, left)
	n, err := src.Exists(ctx, exportStaging(prefix+"big"), exportStaging(prefix+"s"), exportStaging(prefix+"z")).Result()
	require.NoError(t, err)
	require.Zero(t, n)
}

// runCLI runs the CLI on the test table with args, stdout and stderr apart.
func runCLI(ctx context.Context, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(ctx, append([]string{"--endpoint", endpoint, "--table", testTable}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}
