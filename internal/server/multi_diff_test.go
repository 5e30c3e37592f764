package server_test

import (
	"context"
	"errors"
	"testing"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// multiScript is the differential script of MULTI/EXEC/DISCARD/WATCH.
var multiScript = []string{
	"MULTI", "SADD {s} a b", "ZADD {z} 1 a 2 b", "SCARD {s}", "ZPOPMIN {z}", "BZPOPMIN {none} 0", "BZPOPMAX {z} 0",
	"BZMPOP 0 1 {none} MIN", "ZADD {s} 1 x", "ZMPOP 1 {z} MAX", "EXEC",
	"EXEC", "DISCARD", "MULTI", "MULTI", "SADD {s} c", "DISCARD", "SCARD {s}",
	"MULTI", "SADD {s} d", "NOSUCHCMD", "SADD", "EXEC", "SCARD {s}",
	"MULTI", "WATCH {s}", "EXEC",
	"MULTI", "EXEC x", "EXEC",
	"WATCH {s}", "SADD {s} e", "MULTI", "SCARD {s}", "EXEC", "SCARD {s}",
	"WATCH {s}", "SADD {s} e", "MULTI", "SCARD {s}", "EXEC",
	"WATCH {s} {z}", "MULTI", "SCARD {s}", "EXEC",
	"WATCH {s}", "UNWATCH", "SADD {s} f", "MULTI", "SCARD {s}", "EXEC",
	"WATCH {none}", "MULTI", "EXEC", "WATCH {s}", "DEL {s}", "MULTI", "EXEC",
	"WATCH {s}", "WATCH {z}", "ZADD {z} 5 q", "MULTI", "PING", "EXEC",
	"WATCH {s}", "MULTI", "UNWATCH", "ECHO hi", "EXEC",
	"WATCH", "MULTI x", "UNWATCH x", "DISCARD x",
	"MULTI", "PING", "ECHO hi", "SMEMBERS {none}", "EXEC", "MULTI", "EXEC",
	"DEL {s} {z}",
}

func TestDifferentialMulti(t *testing.T) { runDifferential(t, multiScript) }

// go-redis's TxPipelined and its WATCH retry loop against redimo-server:
// a watched key changed by another connection fails the first EXEC.
func TestMultiGoRedis(t *testing.T) {
	ts := startServer(t, nil, server.Config{})
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: ts.addr})
	defer rdb.Close()
	other := redis.NewClient(&redis.Options{Addr: ts.addr})
	defer other.Close()
	k := "multi:" + randomHex(4)

	cmds, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, k+":s", "a", "b")
		p.ZAdd(ctx, k+":z", redis.Z{Score: 1, Member: "m"})
		p.SCard(ctx, k+":s")
		return nil
	})
	require.NoError(t, err)
	require.Len(t, cmds, 3)
	require.Equal(t, int64(2), cmds[2].(*redis.IntCmd).Val())

	tries := 0
	for {
		tries++
		err := rdb.Watch(ctx, func(tx *redis.Tx) error {
			n, err := tx.ZScore(ctx, k+":z", "m").Result()
			if err != nil {
				return err
			}
			if tries == 1 {
				other.ZIncrBy(ctx, k+":z", 5, "m")
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.ZAdd(ctx, k+":z", redis.Z{Score: n * 2, Member: "m"})
				return nil
			})
			return err
		}, k+":z")
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		require.NoError(t, err)
		break
	}
	require.Equal(t, 2, tries)
	require.Equal(t, 12.0, rdb.ZScore(ctx, k+":z", "m").Val())
	rdb.Del(ctx, k+":s", k+":z")
}
