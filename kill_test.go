package redimo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// killDelEnv, set in a re-run of the test binary, makes it a process that
// runs one DEL and exits (see init): "endpoint\ntable\nkey".
const killDelEnv = "REDIMO_TEST_KILL_DEL"

// init is the killed process: it runs before TestMain (no table made, no
// test run), deletes the key, prints how many keys it deleted and exits.
func init() {
	spec := os.Getenv(killDelEnv)
	if spec == "" {
		return
	}
	parts := strings.Split(spec, "\n")
	c := redimo.NewClient(local.Client(parts[0], nil), func(o *redimo.Options) { o.TableName = parts[1] })
	n, err := c.Del(context.Background(), parts[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "DEL:", err)
		os.Exit(1)
	}
	fmt.Println("deleted", n)
	os.Exit(0)
}

// TestDelSIGKILL: a process running DEL of a big set, or of a ranked
// sorted set (2,000 members or more, model.RankMin: it has count items), is
// killed with SIGKILL after a random delay, again and again; a fresh
// Client then finds the key whole (every member, with its score, the
// count equal to the members, ZRANK right) or gone (EXISTS 0, the count
// 0, and a new member starts the key afresh, alone), every time. The
// first run of each key is not killed: it measures how long the process
// takes, the range of the delays.
func TestDelSIGKILL(t *testing.T) {
	endpoint := testenv.NeedEndpoint(t)
	// The full suite's 5,000 members under -race: about 2 minutes.
	n := testenv.Budget(1000, 5000)
	kills := testenv.Budget(2, 4)
	seed := testenv.Seed(t, 31)
	ctx := context.Background()
	table := "redimo_kill_test_" + testenv.RandomHex(4)
	fresh := func() *redimo.Client {
		return redimo.NewClient(local.Client(endpoint, nil), func(o *redimo.Options) { o.TableName = table })
	}
	require.NoError(t, fresh().CreateTable(ctx))
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf("m%05d", i)
	}

	for _, zset := range []bool{false, true} {
		t.Run(fmt.Sprint("zset=", zset), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, map[bool]uint64{false: 1, true: 2}[zset]))
			key := fmt.Sprintf("kill:%v:%s", zset, testenv.RandomHex(3))
			// fill writes the members to a key that holds only the first.
			fill := func() {
				c := fresh()
				var added int64
				var err error
				if zset {
					zs := make([]redimo.Z, n)
					for i, m := range members {
						zs[i] = redimo.Z{Score: float64(i), Member: m}
					}
					added, err = c.ZAdd(ctx, key, zs...)
				} else {
					added, err = c.SAdd(ctx, key, members...)
				}
				require.NoError(t, err)
				require.EqualValues(t, n-1, added)
			}
			// first writes the first member to a missing key: it must
			// start the key afresh, alone.
			first := func() {
				c := fresh()
				if zset {
					added, err := c.ZAdd(ctx, key, redimo.Z{Score: 0, Member: members[0]})
					require.NoError(t, err)
					require.EqualValues(t, 1, added)
					got, err := c.ZRange(ctx, key, 0, -1)
					require.NoError(t, err)
					require.Equal(t, members[:1], got)
					card, err := c.ZCard(ctx, key)
					require.NoError(t, err)
					require.EqualValues(t, 1, card)
					return
				}
				added, err := c.SAdd(ctx, key, members[0])
				require.NoError(t, err)
				require.EqualValues(t, 1, added)
				got, err := c.SMembers(ctx, key)
				require.NoError(t, err)
				require.Equal(t, members[:1], got)
				card, err := c.SCard(ctx, key)
				require.NoError(t, err)
				require.EqualValues(t, 1, card)
			}
			// whole reports whether the key is there in full; false: gone.
			// Anything else fails the test.
			whole := func(round string) bool {
				c := fresh()
				var (
					exists, card int64
					got          []string
				)
				// A request the killed process sent just before the kill
				// may still land after it: the key is judged once it
				// stands still (EXISTS the same before and after the
				// reads of its members).
				for settle := 0; ; settle++ {
					var err error
					exists, card, got, err = readKey(ctx, c, key, zset)
					require.NoError(t, err)
					again, err := c.Exists(ctx, key)
					require.NoError(t, err)
					if again == exists {
						break
					}
					require.Less(t, settle, 20, "%s: the key keeps changing after the kill", round)
					time.Sleep(100 * time.Millisecond)
				}
				require.EqualValues(t, len(got), card, "%s: the count equals the members", round)
				if exists == 0 {
					require.Empty(t, got, "%s: EXISTS 0, yet members are there", round)
					return false
				}
				require.Equal(t, len(members), len(got), "%s: neither whole nor gone: %d of %d members", round, len(got), len(members))
				require.Equal(t, members, got, round)
				if zset { // the scores, and the count items of a ranked key are right
					for _, i := range []int{0, n / 2, n - 1} {
						rank, ok, err := c.ZRank(ctx, key, members[i])
						require.NoError(t, err)
						require.True(t, ok)
						require.EqualValues(t, i, rank, "%s: ZRANK %s", round, members[i])
					}
				}
				return true
			}
			del := func(key string) (*exec.Cmd, *strings.Builder) {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), killDelEnv+"="+endpoint+"\n"+table+"\n"+key)
				out := &strings.Builder{}
				cmd.Stdout, cmd.Stderr = out, out
				require.NoError(t, cmd.Start())
				t.Cleanup(func() { _ = cmd.Process.Kill() })
				return cmd, out
			}

			began := time.Now()
			first()
			fill()
			require.True(t, whole("filled"))
			filled := time.Since(began)
			// The first DEL runs to its end: how long it takes is the
			// range of the kills' delays; half the kills come within twice
			// the time of a DEL of a missing key (the process starts, reads
			// the key's metadata item, exits), around the write that kills
			// the key.
			began = time.Now()
			cmd, out := del(key)
			require.NoError(t, cmd.Wait(), out.String())
			span := time.Since(began)
			require.Equal(t, "deleted 1\n", out.String())
			require.False(t, whole("after an uninterrupted DEL"))
			began = time.Now()
			cmd, out = del(key + ":missing")
			require.NoError(t, cmd.Wait(), out.String())
			early := 2 * time.Since(began)
			require.Equal(t, "deleted 0\n", out.String())
			var wholes, gones int
			for round := range kills {
				first()
				fill()
				within := span
				if round%2 == 0 {
					within = min(early, span)
				}
				// Killed before its write, the key is whole: kill again.
				for try := 0; ; try++ {
					cmd, _ := del(key)
					delay := time.Duration(rng.Int64N(int64(within)))
					time.Sleep(delay)
					if err := cmd.Process.Kill(); err != nil {
						require.ErrorIs(t, err, os.ErrProcessDone) // it ended first
					}
					_ = cmd.Wait()
					if !whole(fmt.Sprintf("kill %d.%d after %v", round, try, delay.Round(time.Millisecond))) {
						gones++
						break
					}
					wholes++
					if try == 20 {
						break
					}
				}
			}
			t.Logf("%d members: filled in %v, DEL took %v uninterrupted (%v for a missing key); %d kills left the key whole, %d left it gone", n, filled.Round(time.Millisecond), span.Round(time.Millisecond), (early / 2).Round(time.Millisecond), wholes, gones)
		})
	}
}

// readKey reads key as the SIGKILL test judges it: EXISTS, the count, and
// the members (a sorted set's in order, each scored by its place; a set's
// sorted).
func readKey(ctx context.Context, c *redimo.Client, key string, zset bool) (exists, card int64, got []string, err error) {
	if exists, err = c.Exists(ctx, key); err != nil {
		return 0, 0, nil, err
	}
	if !zset {
		if card, err = c.SCard(ctx, key); err != nil {
			return 0, 0, nil, err
		}
		got, err = c.SMembers(ctx, key)
		slices.Sort(got)
		return exists, card, got, err
	}
	if card, err = c.ZCard(ctx, key); err != nil {
		return 0, 0, nil, err
	}
	zs, err := c.ZRangeWithScores(ctx, key, 0, -1)
	for i, z := range zs {
		if z.Score != float64(i) {
			return 0, 0, nil, fmt.Errorf("the score of %s is %v, not %d", z.Member, z.Score, i)
		}
		got = append(got, z.Member)
	}
	return exists, card, got, err
}
