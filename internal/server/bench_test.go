package server_test

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// benchOp is one command of the protocol-overhead benchmark: as
// redis-benchmark arguments (__rand_int__ is a random 12-digit number below
// 100,000, as redis-benchmark -r 100000 makes it), and as the same call to
// the library and through go-redis.
type benchOp struct {
	name    string
	args    []string
	lib     func(ctx context.Context, c *redimo.Client, r string) error
	goredis func(ctx context.Context, c *redis.Client, r string) error
}

// randInt is redis-benchmark's __rand_int__ for -r 100000.
func randInt() string { return fmt.Sprintf("%012d", rand.IntN(100000)) }

// stats are the throughput and latency percentiles of a run.
type stats struct{ rps, p50, p99 float64 }

// measure runs op n times from c goroutines and returns requests per
// second and latency percentiles (ms).
func measure(b *testing.B, n, c int, op func() error) stats {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, c)
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				t := time.Now()
				if err := op(); err != nil {
					errs <- err
					return
				}
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	slices.Sort(lat)
	ms := func(q float64) float64 { return float64(lat[int(q*float64(n-1))]) / 1e6 }
	return stats{rps: float64(n) / elapsed.Seconds(), p50: ms(0.50), p99: ms(0.99)}
}

// redisBenchmark runs redis-benchmark -n n -c c -r 100000 --csv with args
// against addr.
func redisBenchmark(b *testing.B, bin, addr string, n, c int, args []string) (stats, string) {
	host, port, _ := net.SplitHostPort(addr)
	cmdline := append([]string{"-h", host, "-p", port, "-n", strconv.Itoa(n), "-c", strconv.Itoa(c), "-r", "100000", "--csv"}, args...)
	out, err := exec.Command(bin, cmdline...).Output()
	require.NoError(b, err, string(out))
	recs, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	require.NoError(b, err, string(out))
	require.Len(b, recs, 2, string(out)) // header, one test
	f := func(col string) float64 {
		i := slices.Index(recs[0], col)
		require.GreaterOrEqual(b, i, 0, col)
		v, err := strconv.ParseFloat(recs[1][i], 64)
		require.NoError(b, err)
		return v
	}
	return stats{rps: f("rps"), p50: f("p50_latency_ms"), p99: f("p99_latency_ms")}, "redis-benchmark " + strings.Join(cmdline, " ")
}

// BenchmarkProtocolOverhead measures each command n times (default 2000,
// env REDIMO_BENCH_N) from 8 concurrent clients: the library called
// directly, redis-benchmark against redimo-server, and go-redis against
// redimo-server, on DynamoDB Local. The server runs in this process.
//
//	make bench BENCHFLAGS='-bench ProtocolOverhead -benchtime 1x'
func BenchmarkProtocolOverhead(b *testing.B) {
	bin := needBinary(b, "redis-benchmark")
	n := 2000
	if s := os.Getenv("REDIMO_BENCH_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	const c = 8
	ts := startServer(b, nil, server.Config{})
	lib := redimo.NewClient(testDB, func(o *redimo.Options) { o.TableName = testTable })
	rdb := redis.NewClient(&redis.Options{Addr: ts.addr, PoolSize: c})
	defer rdb.Close()
	ctx := context.Background()
	prefix := "bench:" + randomHex(4) + ":"
	type row struct{ lib, srv, gor []stats }
	ops := benchOps(prefix)
	rows := make([]row, len(ops))
	var cmdlines []string
	for round := range b.N {
		for i, op := range ops {
			// Warm up DynamoDB Local's JIT and the connections first.
			measure(b, n/10, c, func() error { return op.lib(ctx, lib, randInt()) })
			measure(b, n/10, c, func() error { return op.goredis(ctx, rdb, randInt()) })
			rows[i].lib = append(rows[i].lib, measure(b, n, c, func() error { return op.lib(ctx, lib, randInt()) }))
			s, cmdline := redisBenchmark(b, bin, ts.addr, n, c, op.args)
			rows[i].srv = append(rows[i].srv, s)
			rows[i].gor = append(rows[i].gor, measure(b, n, c, func() error { return op.goredis(ctx, rdb, randInt()) }))
			if round == 0 {
				cmdlines = append(cmdlines, cmdline)
			}
		}
	}
	// The protocol alone: PING, which touches no table.
	ping, cmdline := redisBenchmark(b, bin, ts.addr, 20*n, c, []string{"ping"})
	cmdlines = append(cmdlines, cmdline)
	// Printed, not logged: go test cuts benchmark logs after 10 lines.
	for _, l := range cmdlines {
		fmt.Println(l)
	}
	fmt.Printf("median of %d rounds, %d requests each, %d clients:\n", b.N, n, c)
	for i, op := range ops {
		l, s, g := median(rows[i].lib), median(rows[i].srv), median(rows[i].gor)
		fmt.Printf("%-9s library %6.0f req/s p50 %5.2f ms p99 %6.2f ms | redis-benchmark→server %6.0f req/s p50 %5.2f ms p99 %6.2f ms (%.2fx library req/s) | go-redis→server %6.0f req/s p50 %5.2f ms p99 %6.2f ms (%.2fx)\n",
			op.name, l.rps, l.p50, l.p99, s.rps, s.p50, s.p99, s.rps/l.rps, g.rps, g.p50, g.p99, g.rps/l.rps)
		b.ReportMetric(s.rps/l.rps, op.name+"-server/library")
	}
	fmt.Printf("PING (no DynamoDB) redis-benchmark→server %6.0f req/s p50 %5.3f ms p99 %5.3f ms\n", ping.rps, ping.p50, ping.p99)
}

// median is the run with the median throughput.
func median(runs []stats) stats {
	s := slices.Clone(runs)
	slices.SortFunc(s, func(a, b stats) int { return cmp.Compare(a.rps, b.rps) })
	return s[len(s)/2]
}

func benchOps(prefix string) []benchOp {
	set, zset := prefix+"set", prefix+"zset"
	ops := []benchOp{
		{"SADD", []string{"sadd", set, "__rand_int__"},
			func(ctx context.Context, c *redimo.Client, r string) error { _, err := c.SAdd(ctx, set, r); return err },
			func(ctx context.Context, c *redis.Client, r string) error { return c.SAdd(ctx, set, r).Err() }},
		{"SISMEMBER", []string{"sismember", set, "__rand_int__"},
			func(ctx context.Context, c *redimo.Client, r string) error {
				_, err := c.SIsMember(ctx, set, r)
				return err
			},
			func(ctx context.Context, c *redis.Client, r string) error { return c.SIsMember(ctx, set, r).Err() }},
	}
	return append(ops, zsetBenchOps(zset)...)
}
