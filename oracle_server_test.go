package redimo

// The differential test of oracle_test.go, through redimo-server: the
// same random sequences are sent, as Redis commands, to a redimo-server
// (built from cmd/redimo-server and run on the test table) and to
// redis-server, and the replies are compared.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/testenv"
)

// startRedimoServer builds and starts cmd/redimo-server on a free port.
func startRedimoServer(t *testing.T) string {
	addr := testenv.FreeAddr()
	srv := exec.Command(testenv.BuildServer(t), "--addr", addr, "--endpoint", testEndpoint, "--table", testTable)
	srv.Stderr = os.Stderr
	require.NoError(t, srv.Start())
	t.Cleanup(func() {
		_ = srv.Process.Signal(os.Interrupt)
		_ = srv.Wait()
	})
	if !testenv.WaitListening(addr, 5*time.Second) {
		t.Fatal("redimo-server did not start")
	}
	return addr
}

func TestOracleRedisThroughServer(t *testing.T) {
	t.Parallel() // isolated by its key prefix: runs beside the other heavy tests
	addr := testenv.RedisAddr(t)
	needDB(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 8})
	defer rdb.Close()
	srv := redis.NewClient(&redis.Options{Addr: startRedimoServer(t), Protocol: 2, PoolSize: 8, MaxRetries: -1})
	defer srv.Close()
	p := "oracle-server:" + randomHex(3) + ":"

	seqs, length := envInt("REDIMO_ORACLE_SERVER_SEQS", testenv.Budget(4, 50)), envInt("REDIMO_ORACLE_LEN", 100)
	first := envInt("REDIMO_ORACLE_SEED", int(testenv.Seed(t, 0)))
	skipped := map[string]int{}
	start := time.Now()
	for seed := first; seed < first+seqs; seed++ {
		keys := []string{fmt.Sprintf("%s%d:k1", p, seed), fmt.Sprintf("%s%d:k2", p, seed), fmt.Sprintf("%s%d:k3", p, seed)}
		g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 7)), keys: keys}
		var history []string
		for i := range length {
			o := g.next()
			history = append(history, o.String())
			fail := func(why string) {
				t.Fatalf("seed %d, command %d: %s\nsequence:\n  %s", seed, i, why, strings.Join(history, "\n  "))
			}
			if o.lexKey != "" && !sameScores(ctx, rdb, o.lexKey) {
				skipped["lex range over members of different scores (unspecified in Redis)"]++
				continue
			}
			got, err := srv.Do(ctx, anys(o.args...)...).Result()
			if o.special != nil { // random replies: check them, and mirror SPOP on Redis
				if err != nil {
					if w := canon(nil, rdb.Do(ctx, anys(o.args...)...).Err(), ordered); w != canon(nil, err, ordered) {
						fail(fmt.Sprintf("server %s, redis %s", canon(nil, err, ordered), w))
					}
					continue
				}
				var ms []string
				if list, ok := got.([]any); ok {
					for _, x := range list {
						ms = append(ms, x.(string))
					}
				}
				if _, cerr := o.special(ctx, rdb, ms); cerr != nil {
					fail(cerr.Error())
				}
				continue
			}
			want, werr := rdb.Do(ctx, anys(o.args...)...).Result()
			if o.skip != "" {
				skipped[o.skip]++
				continue
			}
			if g, w := canon(got, err, o.kind), canon(want, werr, o.kind); g != w {
				fail(fmt.Sprintf("server %s, redis %s", g, w))
			}
		}
		for _, k := range keys {
			for _, args := range [][]any{{"TYPE", k}, {"SMEMBERS", k}, {"ZRANGE", k, 0, -1, "WITHSCORES"}} {
				got, err := srv.Do(ctx, args...).Result()
				want, werr := rdb.Do(ctx, args...).Result()
				if g, w := canon(got, err, unordered), canon(want, werr, unordered); g != w {
					t.Fatalf("seed %d: final %v: server %s, redis %s", seed, args, g, w)
				}
			}
		}
	}
	for reason, n := range skipped {
		t.Logf("reply not compared (known difference) %d times: %s", n, reason)
	}
	t.Logf("%d sequences × %d commands through redimo-server compared with redis-server in %v", seqs, length, time.Since(start).Round(time.Millisecond))
}
