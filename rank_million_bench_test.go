package redimo

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// loadRaw writes the members zs of key and its metadata item straight
// into the table (BatchWriteItem, 25 items a request, 16 at once), as the
// transactions would have left them, without count items: loading
// 1,000,000 members through ZADD takes ~10 minutes on DynamoDB Local.
func loadRaw(b *testing.B, key string, n int, z func(i int) Z) {
	ctx := context.Background()
	const workers = 16
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var batch []types.WriteRequest
			flush := func() error {
				for len(batch) > 0 {
					out, err := testDB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{testTable: batch}})
					if err != nil {
						return err
					}
					batch = out.UnprocessedItems[testTable]
				}
				return nil
			}
			for i := w; i < n; i += workers {
				zz := z(i)
				it := model.ItemKey(key, model.MemberSK(model.TypeZSet, zz.Member))
				it[model.AttrIX] = model.Bin(model.ZsetIX(zz.Score, zz.Member))
				batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
				if len(batch) == 25 {
					if err := flush(); err != nil {
						errs <- err
						return
					}
				}
			}
			if err := flush(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	meta := model.MetaKey(key)
	ks, kh := model.KeyIndexValues(key)
	meta[model.AttrType], meta[model.AttrCard], meta[model.AttrVer], meta[model.AttrKS], meta[model.AttrKH] = model.Str(string(model.TypeZSet)), model.Num(int64(n)), model.Bin(model.VersionToken()), ks, kh
	if _, err := testDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(testTable), Item: meta}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRankMillion: ZRANK/ZREVRANK at the median and the last rank of
// a 1,000,000-member sorted set (REDIMO_RANK_MEMBERS to change), scores
// i%1000 ("ties") and all equal ("equal"), with count items: requests
// (those on the critical path: a BatchGetItem and the count items' Query
// in parallel, then a Query COUNT within one range), items read and
// capacity units; also ZRANGE at the middle rank and a ZCOUNT over most
// of the set. The members are loaded raw (loadRaw), then a ZADD of one
// member builds the count items (and a ZREM takes it out again).
//
//	REDIMO_LOCAL_DIR=... make bench BENCHFLAGS='-bench RankMillion -benchtime 3x -timeout 60m'
func BenchmarkRankMillion(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("REDIMO_RANK_MEMBERS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	for _, scores := range []string{"equal", "ties"} {
		c, cnt, _ := newTestClient(b)
		ctx := context.Background()
		// A key of 11 bytes, as a real leaderboard's: a count item holds
		// the key, so the count items' Query costs more with a longer one
		// (~0.024 read units per count item with this test's usual
		// 33-byte prefixed keys, ~0.019 with this one).
		key := "lb:" + randomHex(3) + ":" + scores[:1]
		start := time.Now()
		loadRaw(b, key, n, func(i int) Z {
			s := float64(i % 1000)
			if scores == "equal" {
				s = 7
			}
			return Z{Score: s, Member: fmt.Sprintf("player%07d", i)}
		})
		fmt.Printf("%s: %d members loaded raw in %v\n", scores, n, time.Since(start).Round(time.Second))
		// Ties ordered by member: with scores i%1000 the median member is
		// player(n/2-1000+... ) found by ZRANGE; all equal: by name.
		cnt.reset()
		start = time.Now()
		// Loaded raw, the key has no count items: the next write that adds
		// a member builds them (rank.go), as it would for a key loaded
		// before redimo kept count items on write.
		if _, err := c.ZAdd(ctx, key, Z{Score: -1, Member: "builder"}); err != nil {
			b.Fatal(err)
		}
		ranges, _ := c.readRanges(ctx, key)
		fmt.Printf("%s: build by the next ZADD: %v, %.0f capacity units, %v; %d ranges\n", scores, cnt, cnt.units(), time.Since(start).Round(time.Second), len(ranges))
		if _, err := c.ZRem(ctx, key, "builder"); err != nil {
			b.Fatal(err)
		}
		if len(ranges) == 0 {
			b.Fatal("not built")
		}
		mid, err := c.ZRange(ctx, key, int64(n/2), int64(n/2))
		if err != nil || len(mid) != 1 {
			b.Fatal(mid, err)
		}
		// n/2 starts a range (built every 500): n/2+250 is a range's
		// middle, the most a count within one range reads.
		midRange, err := c.ZRange(ctx, key, int64(n/2+250), int64(n/2+250))
		if err != nil || len(midRange) != 1 {
			b.Fatal(midRange, err)
		}
		last, err := c.ZRange(ctx, key, -1, -1)
		if err != nil || len(last) != 1 {
			b.Fatal(last, err)
		}
		for _, m := range []struct {
			name, member string
			rank         int64
		}{{"median", mid[0], int64(n / 2)}, {"mid-range", midRange[0], int64(n/2 + 250)}, {"last", last[0], int64(n - 1)}} {
			b.Run(fmt.Sprintf("%s/ZRank_%s", scores, m.name), func(b *testing.B) {
				report(b, cnt, func() {
					if r, ok, err := c.ZRank(ctx, key, m.member); err != nil || !ok || r != m.rank {
						b.Fatal(r, ok, err)
					}
				})
			})
			b.Run(fmt.Sprintf("%s/ZRevRank_%s", scores, m.name), func(b *testing.B) {
				report(b, cnt, func() {
					if r, ok, err := c.ZRevRank(ctx, key, m.member); err != nil || !ok || r != int64(n-1)-m.rank {
						b.Fatal(r, ok, err)
					}
				})
			})
		}
		b.Run(scores+"/ZRange_n/2_+9", func(b *testing.B) {
			report(b, cnt, func() {
				if zs, err := c.ZRangeWithScores(ctx, key, int64(n/2), int64(n/2)+9); err != nil || len(zs) != 10 {
					b.Fatal(len(zs), err)
				}
			})
		})
		b.Run(scores+"/ZCount_wide", func(b *testing.B) {
			lo, hi := "100", "(900"
			want := int64(n) * 8 / 10
			if scores == "equal" {
				lo, hi, want = "-inf", "+inf", int64(n)
			}
			report(b, cnt, func() {
				if got, err := c.ZCount(ctx, key, lo, hi); err != nil || got != want {
					b.Fatal(got, want, err)
				}
			})
		})
	}
}
