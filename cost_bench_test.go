package redimo

// BenchmarkCostTable: what a million commands cost, for three workloads,
// computed from the requests the commands make on DynamoDB Local priced by
// the cost model (price.go, Request.PricedReadUnits and PricedWriteUnits)
// at DynamoDB's on-demand prices (OnDemandPrices), beside:
//
//   - the plain client: each write command one PutItem of its member's
//     item, each read command one strongly consistent GetItem, no counts
//     (what a hand-written DynamoDB client does), priced by the same model;
//   - Upstash's pay-as-you-go serverless Redis ($0.2 per 100,000
//     commands) and ElastiCache Serverless for Redis OSS and for Valkey
//     (per million ECPUs, one ECPU per command of under 1 KB, plus the
//     storage each meters at the least whatever the data, which makes the
//     break-even volume: the commands a month at which redimo's bill
//     reaches ElastiCache's). docs/costs.md names the source of each
//     price.
//
// The mixes (commands chosen at random, 8 goroutines):
//
//   - visitors: unique visitors per page and day (20 sets, 5,000 users):
//     90% SADD of a visitor (new or returning), 5% SCARD, 5% SISMEMBER;
//   - leaderboard: 5 boards of 1,000 players: 70% ZINCRBY, 15% ZREVRANGE
//     0 9 WITHSCORES, 10% ZSCORE, 5% ZREVRANK;
//   - tags: tags of 1,000 posts (100 tags): 40% SADD, 10% SREM, 40%
//     SISMEMBER, 10% SCARD;
//   - expiring: members with an expiry of their own (who is online: 20
//     sets, 5,000 users): 70% SADDEX of 10 minutes (new or refreshed), 20%
//     SISMEMBER, 10% SCARD;
//   - queue: a job queue (issue 34; 10 queues): 50% ZADD of a job scored by
//     its time, 50% BZPOPMIN of one with a 20 ms timeout (its waiting
//     reads included); a job is one of each, so $ per million jobs is
//     twice the per-command figure. The plain client counts a PutItem
//     for each (a pop's DeleteItem costs as much; the Query that finds
//     the job is not counted).
//
// It prints the table BENCHMARKS.md and docs/costs.md show:
//
//	make bench BENCHFLAGS='-bench CostTable -benchtime 1x'

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
)

// Other services' prices, in US dollars (us-east-1; docs/costs.md names
// the source of each).
const (
	// upstashPerMillion is a million commands at Upstash's pay-as-you-go
	// rate, $0.2 per 100,000 commands.
	upstashPerMillion = 2.0
	// ElastiCache Serverless bills requests in ECPUs (one per KB a command
	// transfers: one for each command of these mixes) and storage in
	// GB-hours, at least 1 GB (Redis OSS) or 100 MB (Valkey) per cache.
	redisOSSPerMillionECPU, valkeyPerMillionECPU = 0.0034, 0.0023
	redisOSSPerGBHour, valkeyPerGBHour           = 0.125, 0.084
	redisOSSMinGB, valkeyMinGB                   = 1.0, 0.1
	hoursPerMonth                                = 730
)

// elastiCache is an ElastiCache Serverless engine's prices.
type elastiCache struct {
	name             string
	perMillionECPU   float64
	perGBHour, minGB float64
}

var elastiCaches = []elastiCache{
	{"ElastiCache Serverless Redis OSS", redisOSSPerMillionECPU, redisOSSPerGBHour, redisOSSMinGB},
	{"ElastiCache Serverless Valkey", valkeyPerMillionECPU, valkeyPerGBHour, valkeyMinGB},
}

// minimum is what a cache costs a month however idle: its minimum
// storage.
func (e elastiCache) minimum() float64 { return e.minGB * e.perGBHour * hoursPerMonth }

// breakEven is the commands a month, in millions, at which a service
// costing perMillion a million commands (and nothing idle) costs as much
// as e with its minimum storage; 0 when it never does.
func (e elastiCache) breakEven(perMillion float64) float64 {
	if perMillion <= e.perMillionECPU {
		return 0
	}
	return e.minimum() / (perMillion - e.perMillionECPU)
}

// costMix is a workload: op runs command i of a worker on c (redimo) and
// says whether it is a write; the plain client makes one PutItem of the
// member's item for a write, one GetItem of it for a read.
type costMix struct {
	name string
	op   func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (write bool, k, member string, err error)
}

var costMixes = []costMix{
	{"visitors", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("page%02d", rng.IntN(20))), fmt.Sprintf("user%04d", rng.IntN(5000))
		switch p := rng.IntN(100); {
		case p < 90:
			_, err := c.SAdd(ctx, k, m)
			return true, k, m, err
		case p < 95:
			_, err := c.SCard(ctx, k)
			return false, k, m, err
		default:
			_, err := c.SIsMember(ctx, k, m)
			return false, k, m, err
		}
	}},
	{"leaderboard", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("board%d", rng.IntN(5))), fmt.Sprintf("player%04d", rng.IntN(1000))
		switch p := rng.IntN(100); {
		case p < 70:
			_, err := c.ZIncrBy(ctx, k, float64(1+rng.IntN(10)), m)
			return true, k, m, err
		case p < 85:
			_, err := c.ZRevRangeWithScores(ctx, k, 0, 9)
			return false, k, m, err
		case p < 95:
			_, _, err := c.ZScore(ctx, k, m)
			return false, k, m, err
		default:
			_, _, err := c.ZRevRank(ctx, k, m)
			return false, k, m, err
		}
	}},
	{"tags", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("post%04d", rng.IntN(1000))), fmt.Sprintf("tag%03d", rng.IntN(100))
		switch p := rng.IntN(100); {
		case p < 40:
			_, err := c.SAdd(ctx, k, m)
			return true, k, m, err
		case p < 50:
			_, err := c.SRem(ctx, k, m)
			return true, k, m, err
		case p < 90:
			_, err := c.SIsMember(ctx, k, m)
			return false, k, m, err
		default:
			_, err := c.SCard(ctx, k)
			return false, k, m, err
		}
	}},
	{"expiring", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("online%02d", rng.IntN(20))), fmt.Sprintf("user%04d", rng.IntN(5000))
		switch p := rng.IntN(100); {
		case p < 70:
			_, err := c.SAddEx(ctx, k, 10*time.Minute, false, m)
			return true, k, m, err
		case p < 90:
			_, err := c.SIsMember(ctx, k, m)
			return false, k, m, err
		default:
			_, err := c.SCard(ctx, k)
			return false, k, m, err
		}
	}},
	{"queue", func(ctx context.Context, c *Client, key func(string) string, rng *rand.Rand) (bool, string, string, error) {
		k, m := key(fmt.Sprintf("queue%d", rng.IntN(10))), fmt.Sprintf("job%016x", rng.Uint64())
		if rng.IntN(2) == 0 {
			_, err := c.ZAdd(ctx, k, Z{Score: float64(time.Now().UnixMicro()), Member: m})
			return true, k, m, err
		}
		_, _, err := c.BZPopMin(ctx, 20*time.Millisecond, k)
		return true, k, m, err
	}},
}

func BenchmarkCostTable(b *testing.B) {
	needDB(b)
	const workers, warm, measured = 8, 4000, 2000
	db := local.Client(testEndpoint, nil)
	var tally Tally
	// REDIMO_DISABLE_SMALL_SETS=1: every set member an item, as before
	// issue 26 (the "before" of BENCHMARKS.md's small-set table).
	noSmall := os.Getenv("REDIMO_DISABLE_SMALL_SETS") == "1"
	c := NewClient(db, func(o *Options) { o.TableName = testTable; o.Metrics = tally.Add; o.DisableSmallSets = noSmall })
	ixs := c.st.DB.(*api).indexes
	ctx := context.Background()
	if err := c.CheckTable(ctx); err != nil {
		b.Fatal(err)
	}
	p := "CostTable:" + randomHex(3) + ":"
	type row struct {
		redimo, plain Cost
		commands      int
	}
	rows := map[string]*row{}
	for n := range b.N {
		for _, mix := range costMixes {
			r := rows[mix.name]
			if r == nil {
				r = &row{}
				rows[mix.name] = r
			}
			key := func(k string) string { return fmt.Sprintf("%s%s%d:%s", p, mix.name, n, k) }
			var (
				mu    sync.Mutex
				plain Cost
				first error
			)
			run := func(count int, seed uint64, measure bool) {
				runWorkers(workers, func(w int) {
					rng := rand.New(rand.NewPCG(seed, uint64(w)))
					for range count / workers {
						write, k, m, err := mix.op(ctx, c, key, rng)
						if err == nil && measure {
							var pc Cost
							pc, err = plainCommand(ctx, db, ixs, write, "plain:"+k, m)
							mu.Lock()
							plain = plain.Plus(pc)
							mu.Unlock()
						}
						if err != nil {
							mu.Lock()
							first = err
							mu.Unlock()
							return
						}
					}
				})
			}
			run(warm, uint64(n), false) // the sets grow to their working size
			tally.Take()
			run(measured, uint64(n)+1000, true)
			if first != nil {
				b.Fatalf("%s: %v", mix.name, first)
			}
			r.redimo = r.redimo.Plus(tally.Take())
			r.plain = r.plain.Plus(plain)
			r.commands += measured / workers * workers
		}
	}
	perM := func(x float64, cmds int) float64 { return x / float64(cmds) * 1e6 }
	// The table goes to stdout whole (a benchmark's log keeps 10 lines).
	fmt.Printf("DynamoDB on-demand, us-east-1: $%.3f per million RCU, $%.3f per million WCU\n",
		OnDemandPrices.PerMillionReadUnits, OnDemandPrices.PerMillionWriteUnits)
	fmt.Printf("| mix | client | requests / command | RCU / command | WCU / command | $ per million commands |\n")
	fmt.Printf("|---|---|---|---|---|---|\n")
	for _, mix := range costMixes {
		r := rows[mix.name]
		for _, side := range []struct {
			name string
			c    Cost
		}{{"redimo", r.redimo}, {"plain", r.plain}} {
			cmds := float64(r.commands)
			dollars := perM(side.c.Dollars(OnDemandPrices), r.commands)
			fmt.Printf("| %s | %s | %.2f | %.2f | %.2f | $%.2f |\n", mix.name, side.name,
				float64(side.c.Requests)/cmds, side.c.ReadUnits/cmds, side.c.WriteUnits/cmds, dollars)
			b.ReportMetric(side.c.ReadUnits/cmds, mix.name+"-"+side.name+"-RCU/cmd")
			b.ReportMetric(side.c.WriteUnits/cmds, mix.name+"-"+side.name+"-WCU/cmd")
			b.ReportMetric(dollars, mix.name+"-"+side.name+"-$/Mcmd")
		}
	}
	fmt.Printf("\nDollars per million commands; ElastiCache: one ECPU per command, and at least $%.2f (Redis OSS) or $%.2f (Valkey) a month of storage\n",
		elastiCaches[0].minimum(), elastiCaches[1].minimum())
	fmt.Printf("| mix | redimo | plain DynamoDB client | Upstash | %s | %s | break-even with Redis OSS, commands a month | with Valkey |\n",
		elastiCaches[0].name, elastiCaches[1].name)
	fmt.Printf("|---|---|---|---|---|---|---|---|\n")
	for _, mix := range costMixes {
		r := rows[mix.name]
		redimo, plain := perM(r.redimo.Dollars(OnDemandPrices), r.commands), perM(r.plain.Dollars(OnDemandPrices), r.commands)
		fmt.Printf("| %s | $%.2f | $%.2f | $%.2f | $%.4f | $%.4f | %.1f million | %.1f million |\n", mix.name, redimo, plain,
			upstashPerMillion, elastiCaches[0].perMillionECPU, elastiCaches[1].perMillionECPU,
			elastiCaches[0].breakEven(redimo), elastiCaches[1].breakEven(redimo))
		b.ReportMetric(elastiCaches[0].breakEven(redimo), mix.name+"-breakeven-redis-Mcmd/month")
		b.ReportMetric(elastiCaches[1].breakEven(redimo), mix.name+"-breakeven-valkey-Mcmd/month")
	}
}

// plainCommand is the plain client's command: one PutItem of member's item
// in key for a write, one strongly consistent GetItem of it for a read;
// priced by the cost model.
func plainCommand(ctx context.Context, db *dynamodb.Client, ixs []model.IndexShape, write bool, key, member string) (Cost, error) {
	it := model.ItemKey(key, model.MemberSK(model.TypeSet, member))
	if write {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable, Item: it})
		return Cost{Requests: 1, WriteUnits: model.PricedWrite("Put", it, it, nil, nil, nil, nil, ixs)}, err
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &testTable, Key: it, ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		return Cost{}, err
	}
	reported := 0.0
	if out.ConsumedCapacity != nil {
		reported = aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
	}
	return Cost{Requests: 1, ReadUnits: model.PricedRead(reported, aws.Bool(true), out.Item)}, nil
}
