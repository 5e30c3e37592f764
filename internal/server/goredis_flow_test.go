package server_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestGoRedisFlows runs issue 11's client flows from go-redis (TxPipelined
// with a WRONGTYPE inside, the Watch retry loop, ScanType iterators with
// match and type, Keys, DBSize, Rename, Copy, ZMPop, BZPopMin with and
// without a timeout, ExpireTime, 2000-byte members, FlushDB) against
// database 13 of redis-server and of a redimo-server over a table of its
// own, and compares what the two runs log.
func TestGoRedisFlows(t *testing.T) {
	needRedis(t)
	ts := freshServer(t, "gr")
	want := goRedisFlow(t, redisAddr)
	got := goRedisFlow(t, ts.addr)
	require.Equal(t, want, got)
	t.Logf("go-redis against redimo-server:\n%s", strings.Join(got, "\n"))
}

func goRedisFlow(t *testing.T, addr string) []string {
	ctx := context.Background()
	r := redis.NewClient(&redis.Options{Addr: addr, DB: 13})
	defer r.Close()
	other := redis.NewClient(&redis.Options{Addr: addr, DB: 13})
	defer other.Close()
	var out []string
	log := func(a ...any) { out = append(out, fmt.Sprint(a...)) }
	cmdsOf := func(cmds []redis.Cmder) string {
		var b []string
		for _, c := range cmds {
			b = append(b, c.String())
		}
		return strings.Join(b, " | ")
	}
	require.NoError(t, r.FlushDB(ctx).Err())

	cmds, err := r.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, "s", "a", "b")
		p.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "m"}, redis.Z{Score: 2, Member: "n"})
		p.SCard(ctx, "s")
		p.ZRangeWithScores(ctx, "z", 0, -1)
		return nil
	})
	log("TxPipelined ", err, " ", cmdsOf(cmds))
	cmds, err = r.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, "z", "x")
		p.ZIncrBy(ctx, "z", 1, "n")
		return nil
	})
	log("TxPipelined error ", err, " ", cmdsOf(cmds))

	tries := 0
	for {
		tries++
		err := r.Watch(ctx, func(tx *redis.Tx) error {
			v, err := tx.ZScore(ctx, "z", "m").Result()
			if err != nil {
				return err
			}
			if tries == 1 {
				other.ZIncrBy(ctx, "z", 5, "m")
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.ZAdd(ctx, "z", redis.Z{Score: v * 2, Member: "m"})
				return nil
			})
			return err
		}, "z")
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		require.NoError(t, err)
		break
	}
	log("watch tries ", tries, " ", r.ZScore(ctx, "z", "m").Val())

	for i := range 12 {
		r.SAdd(ctx, fmt.Sprintf("k:%02d", i), "x")
	}
	r.ZAdd(ctx, "zz:1", redis.Z{Score: 1, Member: "a"})
	log("scan match ", scanKeys(t, ctx, r, "k:0*", "", 3))
	log("scan type ", scanKeys(t, ctx, r, "", "zset", 3))
	keys := r.Keys(ctx, "k:1*").Val()
	slices.Sort(keys)
	log("keys ", keys)
	log("dbsize ", r.DBSize(ctx).Val())
	log("rename ", r.Rename(ctx, "k:00", "renamed").Val(), " ", r.Exists(ctx, "k:00").Val(), " ", r.SMembers(ctx, "renamed").Val())
	// go-redis's Copy always names the destination database: this one.
	log("copy ", r.Copy(ctx, "renamed", "copied", 13, false).Val(), " ", r.Copy(ctx, "renamed", "copied", 13, false).Val(), " ",
		r.Copy(ctx, "renamed", "copied", 13, true).Val())
	key, zs, err := r.ZMPop(ctx, "MIN", 5, "nope", "z").Result()
	log("zmpop ", key, " ", zs, " ", err)
	log("bzpopmin timeout ", r.BZPopMin(ctx, time.Second, "nope1", "nope2").Err()) // go-redis's shortest timeout
	go func() {
		time.Sleep(500 * time.Millisecond)
		other.ZAdd(ctx, "q", redis.Z{Score: 3, Member: "job"})
	}()
	log("bzpopmin no timeout ", r.BZPopMin(ctx, 0, "q").Val())
	r.Expire(ctx, "renamed", 1000*time.Second)
	log("expiretime>0 ", r.ExpireTime(ctx, "renamed").Val() > 0)
	big, wide := strings.Repeat("x", 2000), strings.Repeat("é", 1000) // 2000 bytes each
	log("2000-byte members ", r.SAdd(ctx, "big", big, wide).Val(), " ", r.SIsMember(ctx, "big", wide).Val(), " ",
		r.ZAdd(ctx, "zbig", redis.Z{Score: 1, Member: big}, redis.Z{Score: 2, Member: wide}).Val(), " ",
		slices.Equal(r.ZRange(ctx, "zbig", 0, -1).Val(), []string{big, wide}))
	log("flushdb ", r.FlushDB(ctx).Val(), " ", r.DBSize(ctx).Val())
	return out
}
