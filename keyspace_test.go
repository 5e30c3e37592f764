package redimo

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// freshTable is a client on a table of its own, for commands on every key.
func freshTable(t *testing.T) (*Client, *counter) {
	t.Helper()
	needDB(t)
	cnt := &counter{db: testDB}
	c := NewClient(cnt, func(o *Options) { o.TableName = "redimo_ks_" + randomHex(4) })
	require.NoError(t, c.CreateTable(context.Background()))
	return c, cnt
}

func TestKeyspace(t *testing.T) {
	c, cnt := freshTable(t)
	ctx := context.Background()
	var sets, zsets []string
	for i := range 30 {
		k := fmt.Sprint("s", i)
		_, err := c.SAdd(ctx, k, "a", "b")
		require.NoError(t, err)
		sets = append(sets, k)
	}
	for i := range 20 {
		k := fmt.Sprint("z", i)
		_, err := c.ZAdd(ctx, k, Z{1, "a"})
		require.NoError(t, err)
		zsets = append(zsets, k)
	}
	// Gone keys are not listed: deleted, emptied, expired.
	_, err := c.SAdd(ctx, "gone", "x")
	require.NoError(t, err)
	_, err = c.SRem(ctx, "gone", "x")
	require.NoError(t, err)
	_, err = c.ZAdd(ctx, "expired", Z{1, "a"})
	require.NoError(t, err)
	_, err = c.PExpire(ctx, "expired", 100*time.Millisecond)
	require.NoError(t, err)
	time.Sleep(150 * time.Millisecond)
	all := slices.Sorted(slices.Values(append(slices.Clone(sets), zsets...)))

	// SCAN to the end with a small COUNT: every key, each at least once.
	scanAll := func(match string, typ string) []string {
		seen := map[string]bool{}
		cursor, rounds := uint64(0), 0
		for {
			keys, next, err := c.ScanType(ctx, cursor, match, 7, typ)
			require.NoError(t, err)
			for _, k := range keys {
				seen[k] = true
			}
			rounds++
			if next == 0 {
				break
			}
			require.Greater(t, next, cursor, "the cursor moves forward")
			cursor = next
		}
		require.Greater(t, rounds, 1)
		var out []string
		for k := range seen {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	require.Equal(t, all, scanAll("", ""))
	require.Equal(t, slices.Sorted(slices.Values(zsets)), scanAll("", "zset"))
	require.Equal(t, []string{"s1", "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19"}, scanAll("s1*", "set"))
	require.Empty(t, scanAll("z*", "set"))

	cnt.reset()
	keys, err := c.Keys(ctx, "*")
	require.NoError(t, err)
	t.Logf("KEYS * over 52 keys: %s", cnt)
	require.Equal(t, all, slices.Sorted(slices.Values(keys)))
	keys, err = c.Keys(ctx, "z?")
	require.NoError(t, err)
	require.Len(t, keys, 10)

	cnt.reset()
	n, err := c.DBSize(ctx)
	require.NoError(t, err)
	t.Logf("DBSIZE: %s", cnt)
	require.EqualValues(t, 50, n, "50 keys: the expired one, not deleted yet, is not counted (Redis's active expiry deletes it)")

	for range 20 {
		k, ok, err := c.RandomKey(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Contains(t, all, k)
	}
	n, err = c.Touch(ctx, "s1", "s1", "nope", "z3")
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	enc, ok, err := c.ObjectEncoding(ctx, "s1")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "listpack", enc) // {a, b}: Redis 7.2's
	enc, _, err = c.ObjectEncoding(ctx, "z1")
	require.NoError(t, err)
	require.Equal(t, "listpack", enc)
	_, ok, err = c.ObjectEncoding(ctx, "nope")
	require.NoError(t, err)
	require.False(t, ok)

	require.NoError(t, c.FlushDB(ctx))
	n, err = c.DBSize(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = c.Exists(ctx, all...)
	require.NoError(t, err)
	require.Zero(t, n)
	_, ok, err = c.RandomKey(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	keys, next, err := c.Scan(ctx, 0, "", 0)
	require.NoError(t, err)
	require.Empty(t, keys)
	require.Zero(t, next)
}

// A table made before the key index is refused with the fix in the error.
func TestCheckTableWithoutKeyIndex(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	name := "redimo_old_" + randomHex(4)
	in := NewClient(testDB, func(o *Options) { o.TableName = name }).schema()
	in.GlobalSecondaryIndexes = nil
	in.AttributeDefinitions = slices.DeleteFunc(in.AttributeDefinitions, func(d types.AttributeDefinition) bool {
		return *d.AttributeName == model.AttrKS || *d.AttributeName == model.AttrKH
	})
	_, err := testDB.CreateTable(ctx, in)
	require.NoError(t, err)
	c := NewClient(testDB, func(o *Options) { o.TableName = name })
	err = c.CheckTable(ctx)
	require.ErrorIs(t, err, ErrTableMismatch)
	require.ErrorIs(t, err, ErrNoKeyIndex)
	require.Contains(t, err.Error(), "update-table --table-name "+name)
	require.ErrorIs(t, c.CreateTable(ctx), ErrNoKeyIndex)
}

// TestDelWhole (issue 31): DEL of a big set or sorted set goes at once for
// every reader. A reader polling SCARD/ZCARD and SISMEMBER/ZSCORE while
// the DEL runs sees the whole key or none of it, never a part; a DEL whose
// context is cancelled at request k, for several k, leaves the key whole
// or gone for a fresh Client, with the stored count equal to the member
// items left; a later write reclaims the dead key's leftovers.
func TestDelWhole(t *testing.T) {
	needDB(t)
	t.Parallel()
	ctx := context.Background()
	// The full suite's 3,000 members under -race: about a minute.
	n := testenv.Budget(400, 3000)
	for _, zset := range []bool{false, true} {
		t.Run(fmt.Sprint("zset=", zset), func(t *testing.T) {
			c, clean := cleanClient(t), cleanClient(t)
			p := t.Name() + ":" + randomHex(3) + ":"
			fill := func(k string) {
				ms := numbered("m%05d", n)
				var err error
				if zset {
					zs := make([]Z, len(ms))
					for i, m := range ms {
						zs[i] = Z{float64(i), m}
					}
					_, err = clean.ZAdd(ctx, k, zs...)
				} else {
					_, err = clean.SAdd(ctx, k, ms...)
				}
				require.NoError(t, err)
			}
			card := func(k string) (int64, bool) {
				if zset {
					n, err := clean.ZCard(ctx, k)
					require.NoError(t, err)
					_, ok, err := clean.ZScore(ctx, k, "m00007")
					require.NoError(t, err)
					return n, ok
				}
				n, err := clean.SCard(ctx, k)
				require.NoError(t, err)
				ok, err := clean.SIsMember(ctx, k, "m00007")
				require.NoError(t, err)
				return n, ok
			}

			// A reader polling while the DEL runs.
			k := p + "polled"
			fill(k)
			stop, done := make(chan struct{}), make(chan struct{})
			var seen []int64
			gone := false
			go func() {
				defer close(done)
				for {
					select {
					case <-stop:
						return
					default:
					}
					got, member := card(k) // SCARD, then SISMEMBER
					require.Contains(t, []int64{0, int64(n)}, got, "the reader saw %d of %d members", got, n)
					require.False(t, gone && (got > 0 || member), "the key came back")
					require.False(t, got == 0 && member, "a member of a key already gone")
					gone = gone || got == 0 || !member
					seen = append(seen, got)
				}
			}()
			time.Sleep(20 * time.Millisecond)
			deleted, err := c.Del(ctx, k)
			require.NoError(t, err)
			require.EqualValues(t, 1, deleted)
			close(stop)
			<-done
			require.True(t, gone)
			t.Logf("%d reads during and after the DEL of %d members: each %d or 0", len(seen), n, n)

			// Cancelled at request k: whole or gone.
			h := &cancelAt{next: http.DefaultTransport}
			cut := faultyClient(t, h)
			steps := []int{1, 2, 3}
			if testenv.Thorough() {
				steps = []int{1, 2, 3, 4}
			}
			for _, step := range steps {
				k := fmt.Sprintf("%scut%d", p, step)
				fill(k)
				cctx, cancel := context.WithCancel(ctx)
				h.arm(step, cancel)
				_, err := cut.Del(cctx, k)
				h.step.Store(0)
				cancel()
				got, member := card(k)
				require.Contains(t, []int64{0, int64(n)}, got, "step %d: %d of %d members left (%v)", step, got, n, err)
				require.Equal(t, got > 0, member)
				if got == 0 {
					// The dead key's leftovers go with the next write.
					if zset {
						_, err = clean.ZAdd(ctx, k, Z{1, "new"})
					} else {
						_, err = clean.SAdd(ctx, k, "new")
					}
					require.NoError(t, err)
					got, _ = card(k)
					require.EqualValues(t, 1, got)
				}
			}
			checkStoredCounts(t, p)
		})
	}
}
