package redimo_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo"
)

// The examples run against DynamoDB Local at REDIMO_TEST_ENDPOINT (`make
// test` starts one), each in a fresh table; without an endpoint they are
// skipped (see TestMain). Each starts from newClient, which stands for the
// client your program makes (ExampleNewClient shows how).

// ExampleNewClient connects to DynamoDB Local, with static credentials
// (any: DynamoDB Local started with -sharedDb, as `make ddb-local` and
// docker-compose.yml start it, keeps one database whatever the
// credentials and region) and response checksum validation off (DynamoDB Local does
// not send the checksum the SDK checks). For AWS, use
// config.LoadDefaultConfig and dynamodb.NewFromConfig(cfg) instead.
func ExampleNewClient() {
	ctx := context.Background()
	endpoint := os.Getenv("REDIMO_TEST_ENDPOINT") // e.g. http://127.0.0.1:8000
	db := dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.DisableValidateResponseChecksum = true
	})
	rdb := redimo.NewClient(db, func(o *redimo.Options) {
		o.TableName = freshTable() // default "redimo"
	})
	if err := rdb.CreateTable(ctx); err != nil { // a no-op when it exists
		log.Fatal(err)
	}
	added, err := rdb.SAdd(ctx, "visitors:2026-11-22", "u1", "u2")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(added)
	// Output: 2
}

func ExampleClient_SAdd() {
	ctx := context.Background()
	rdb := newClient()
	added, err := rdb.SAdd(ctx, "visitors:2026-11-22", "u1", "u2", "u1")
	if err != nil {
		log.Fatal(err)
	}
	n, err := rdb.SCard(ctx, "visitors:2026-11-22")
	if err != nil {
		log.Fatal(err)
	}
	isMember, err := rdb.SIsMember(ctx, "visitors:2026-11-22", "u3")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(added, n, isMember) // u1 counts once
	// Output: 2 2 false
}

func ExampleClient_SPop() {
	ctx := context.Background()
	rdb := newClient()
	if _, err := rdb.SAdd(ctx, "raffle", "ann"); err != nil {
		log.Fatal(err)
	}
	for range 2 {
		member, ok, err := rdb.SPop(ctx, "raffle")
		switch {
		case err != nil:
			log.Fatal(err)
		case !ok: // Redis's nil reply
			fmt.Println("the raffle is empty")
		default:
			fmt.Println("winner:", member)
		}
	}
	// Output:
	// winner: ann
	// the raffle is empty
}

// SScan streams a set's members in the order of their hashes (a set has
// no order); SMembers returns them sorted.
func ExampleClient_SScan() {
	ctx := context.Background()
	rdb := newClient()
	if _, err := rdb.SAdd(ctx, "users", "admin:ann", "bob", "admin:cyd"); err != nil {
		log.Fatal(err)
	}
	for member, err := range rdb.SScan(ctx, "users", "admin:*") {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(member)
	}
	// Output:
	// admin:cyd
	// admin:ann
}

// Set algebra: SINTER reads the smallest set and probes the others.
func ExampleClient_SInter() {
	ctx := context.Background()
	rdb := newClient()
	must(rdb.SAdd(ctx, "post:1:tags", "go", "redis", "dynamodb"))
	must(rdb.SAdd(ctx, "post:2:tags", "go", "aws"))

	both, err := rdb.SInter(ctx, "post:1:tags", "post:2:tags")
	if err != nil {
		log.Fatal(err)
	}
	all, err := rdb.SUnion(ctx, "post:1:tags", "post:2:tags")
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(all) // a set has no order
	only1, err := rdb.SDiff(ctx, "post:1:tags", "post:2:tags")
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(only1)
	stored, err := rdb.SInterStore(ctx, "common", "post:1:tags", "post:2:tags")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(both, all, only1, stored)
	// Output: [go] [aws dynamodb go redis] [dynamodb redis] 1
}

func ExampleErrWrongType() {
	ctx := context.Background()
	rdb := newClient()
	must(rdb.ZAdd(ctx, "leaderboard", redimo.Z{Score: 1, Member: "ann"}))
	_, err := rdb.SAdd(ctx, "leaderboard", "x")
	if errors.Is(err, redimo.ErrWrongType) {
		fmt.Println("leaderboard is not a set")
	}
	// Output: leaderboard is not a set
}

func ExampleArgError() {
	ctx := context.Background()
	rdb := newClient()
	_, err := rdb.ZRangeByScore(ctx, "game:1", &redimo.ZRangeBy{Min: "zero", Max: "+inf"})
	var ae *redimo.ArgError
	if errors.As(err, &ae) {
		fmt.Println(errors.Is(err, redimo.ErrNotFloat), ae.Arg, ae.Value)
	}
	// Output: true min zero
}

// A table that does not exist gives ErrTableNotFound, whose message says
// how to create it.
func ExampleErrTableNotFound() {
	ctx := context.Background()
	rdb := newClient(func(o *redimo.Options) { o.TableName = freshTable() }) // not created
	_, err := rdb.SAdd(ctx, "k", "a")
	if errors.Is(err, redimo.ErrTableNotFound) {
		fmt.Println("creating the table")
		if err := rdb.CreateTable(ctx); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(rdb.SAdd(ctx, "k", "a"))
	// Output:
	// creating the table
	// 1 <nil>
}

// Key expiry, with a clock the example controls (Options.Now): the
// expiry is judged by the client's clock.
func ExampleClient_Expire() {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	rdb := newClient(func(o *redimo.Options) { o.Now = clock.Now })
	must(rdb.SAdd(ctx, "session:42", "cart"))

	ok, err := rdb.Expire(ctx, "session:42", 30*time.Minute)
	if err != nil {
		log.Fatal(err)
	}
	ttl, err := rdb.TTL(ctx, "session:42")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ok, ttl)

	clock.Advance(31 * time.Minute)
	n, err := rdb.Exists(ctx, "session:42")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("exists:", n)
	// Output:
	// true 30m0s
	// exists: 0
}

// Unique visitors on a set too busy for one DynamoDB partition: Add
// reports exactly which visitors are new.
func ExampleShardedSet() {
	ctx := context.Background()
	rdb := newClient()
	today := rdb.ShardedSet("visitors:2026-11-22", 16)
	unique := 0
	for _, v := range []string{"alice", "bob", "alice", "carol"} {
		added, err := today.Add(ctx, v)
		if err != nil {
			log.Fatal(err)
		}
		unique += int(added)
	}
	n, err := today.Card(ctx)
	if err != nil {
		log.Fatal(err)
	}
	isMember, err := today.IsMember(ctx, "carol")
	if err != nil {
		log.Fatal(err)
	}
	_, err = rdb.ShardedSet("visitors:2026-11-22", 8).Add(ctx, "dave")
	fmt.Println(unique, n, isMember, errors.Is(err, redimo.ErrShardCount))
	// Output: 3 3 true true
}

// "Who is online": each member expires on its own.
func ExampleExpiringSet() {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	rdb := newClient(func(o *redimo.Options) { o.Now = clock.Now })
	online := rdb.ExpiringSet("online")
	must(online.Add(ctx, time.Minute, "alice", "bob"))
	must(online.Add(ctx, time.Hour, "carol"))

	clock.Advance(2 * time.Minute) // alice and bob expire
	n, err := online.Card(ctx)
	if err != nil {
		log.Fatal(err)
	}
	ttl, ok, err := online.TTL(ctx, "carol")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, ttl, ok)
	for member, err := range online.Members(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(member)
	}
	// Output:
	// 1 58m0s true
	// carol
}

// At most 3 one-time passwords per phone number per 10 minutes, across all
// app servers: the check and the claim are one conditional write.
func ExampleRateLimiter_Allow() {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	rdb := newClient(func(o *redimo.Options) { o.Now = clock.Now })
	otp := rdb.RateLimiter(3, 10*time.Minute)
	for i := range 4 {
		r, err := otp.Allow(ctx, "otp:+15550100")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("request %d: allowed=%v remaining=%d retry after %v\n", i+1, r.Allowed, r.Remaining, r.RetryAfter)
		clock.Advance(time.Minute)
	}
	clock.Advance(7 * time.Minute) // the first request leaves the window
	r, err := otp.Allow(ctx, "otp:+15550100")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("request 5: allowed=%v\n", r.Allowed)
	// Output:
	// request 1: allowed=true remaining=2 retry after 0s
	// request 2: allowed=true remaining=1 retry after 0s
	// request 3: allowed=true remaining=0 retry after 0s
	// request 4: allowed=false remaining=0 retry after 7m0s
	// request 5: allowed=true
}

// Options.Metrics reports each DynamoDB request: here, what SADD and
// SCARD cost in capacity units, as DynamoDB reported them.
func ExampleOptions_metrics() {
	ctx := context.Background()
	var mu sync.Mutex
	var lines []string
	rdb := newClient(func(o *redimo.Options) {
		o.Metrics = func(_ context.Context, r redimo.Request) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, fmt.Sprintf("%s: %s, %g RCU, %g WCU", r.Command, r.Operation, r.ReadUnits, r.WriteUnits))
		}
	})
	must(rdb.SAdd(ctx, "tags", "go", "redis")) // a small set: one UpdateItem of its metadata item, and the key's entry in the key index
	must(rdb.SCard(ctx, "tags"))               // the metadata item, read strongly consistent
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// SAdd: UpdateItem, 0 RCU, 2 WCU
	// SCard: GetItem, 1 RCU, 0 WCU
}

// A Tally sums what requests cost by the cost model (index writes
// included, at DynamoDB's documented rates), and prices the sum.
func ExampleTally() {
	ctx := context.Background()
	var t redimo.Tally
	rdb := newClient(func(o *redimo.Options) { o.Metrics = t.Add })
	must(rdb.SAdd(ctx, "cost:visitors", "u1", "u2")) // a small set: its metadata item and its key-index entry, 1 WCU each
	must(rdb.SCard(ctx, "cost:visitors"))            // the metadata item, strongly consistent
	c := t.Take()
	fmt.Printf("%d requests, %g RCU, %g WCU: $%.3f per million times\n", c.Requests, c.ReadUnits, c.WriteUnits, c.Dollars(redimo.OnDemandPrices)*1e6)
	// Output:
	// 2 requests, 1 RCU, 2 WCU: $1.375 per million times
}

// Sorted-set examples: a game's leaderboard.

// addScores fills the leaderboard game:1 of the examples below.
func addScores(rdb *redimo.Client) {
	must(rdb.ZAdd(context.Background(), "game:1",
		redimo.Z{Score: 120, Member: "ann"},
		redimo.Z{Score: 80, Member: "bob"},
		redimo.Z{Score: 95, Member: "cyd"},
		redimo.Z{Score: 60, Member: "dee"}))
}

func ExampleClient_ZAdd() {
	ctx := context.Background()
	rdb := newClient()
	added, err := rdb.ZAdd(ctx, "game:1",
		redimo.Z{Score: 120, Member: "ann"},
		redimo.Z{Score: 95, Member: "cyd"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(added)
	// Output: 2
}

func ExampleClient_ZAddArgs() {
	ctx := context.Background()
	rdb := newClient()
	addScores(rdb)
	// Keep each player's best score: GT only raises; Ch counts raised
	// scores too, not only new members.
	changed, err := rdb.ZAddArgs(ctx, "game:1", redimo.ZAddArgs{
		GT: true, Ch: true,
		Members: []redimo.Z{{Score: 130, Member: "ann"}, {Score: 10, Member: "bob"}, {Score: 5, Member: "eve"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(changed) // ann raised, eve added; bob kept 80
	// Output: 2
}

func ExampleClient_ZIncrBy() {
	ctx := context.Background()
	rdb := newClient()
	addScores(rdb)
	// Concurrent increments of one member add up exactly.
	score, err := rdb.ZIncrBy(ctx, "game:1", 50, "bob")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(score)
	// Output: 130
}

func ExampleClient_ZRevRangeWithScores() {
	ctx := context.Background()
	rdb := newClient()
	addScores(rdb)
	// The top 3: one Query of the score index reading 3 entries.
	top, err := rdb.ZRevRangeWithScores(ctx, "game:1", 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	for i, z := range top {
		fmt.Printf("%d. %s %v\n", i+1, z.Member, z.Score)
	}
	// Output:
	// 1. ann 120
	// 2. cyd 95
	// 3. bob 80
}

func ExampleClient_ZRevRank() {
	ctx := context.Background()
	rdb := newClient()
	addScores(rdb)
	for _, player := range []string{"cyd", "zed"} {
		rank, ok, err := rdb.ZRevRank(ctx, "game:1", player)
		switch {
		case err != nil:
			log.Fatal(err)
		case !ok: // Redis's nil reply
			fmt.Println(player, "has not played")
		default:
			fmt.Println(player, "is number", rank+1)
		}
	}
	// Output:
	// cyd is number 2
	// zed has not played
}

func ExampleClient_ZRangeByScore() {
	ctx := context.Background()
	rdb := newClient()
	addScores(rdb)
	// Scores from 80 (inclusive) to 120 (exclusive: "("), at most 10.
	players, err := rdb.ZRangeByScore(ctx, "game:1", &redimo.ZRangeBy{Min: "80", Max: "(120", Count: 10})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(players)
	// Output: [bob cyd]
}

func ExampleClient_ZRangeArgs() {
	ctx := context.Background()
	rdb := newClient()
	addScores(rdb)
	// ZRANGE game:1 +inf 70 BYSCORE REV LIMIT 0 2: with Rev, Start is the
	// greater bound, as in Redis.
	members, err := rdb.ZRangeArgs(ctx, redimo.ZRangeArgs{
		Key: "game:1", Start: "+inf", Stop: "70", ByScore: true, Rev: true, Count: 2,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(members)
	// Output: [ann cyd]
}

func ExampleClient_ZUnionStore() {
	ctx := context.Background()
	rdb := newClient()
	addScores(rdb)
	must(rdb.ZAdd(ctx, "game:2", redimo.Z{Score: 10, Member: "ann"}, redimo.Z{Score: 300, Member: "eve"}))
	// A season's total over two games.
	n, err := rdb.ZUnionStore(ctx, "season", &redimo.ZStore{
		Keys:      []string{"game:1", "game:2"},
		Aggregate: redimo.AggregateSum,
	})
	if err != nil {
		log.Fatal(err)
	}
	top, err := rdb.ZRevRangeWithScores(ctx, "season", 0, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "players; top 2:", top)
	// Output: 5 players; top 2: [{300 eve} {130 ann}]
}

// A leaderboard page for one player: their rank from the top and the two
// players just above and below them.
func ExampleClient_ZRevRankAround() {
	ctx := context.Background()
	rdb := newClient()
	for i, name := range []string{"ann", "bob", "cyd", "dee", "eve", "fay", "gus"} {
		must(rdb.ZAdd(ctx, "season:7", redimo.Z{Score: float64(100 + 10*i), Member: name}))
	}
	me, ok, err := rdb.ZRevRankAround(ctx, "season:7", "cyd", 2)
	if err != nil || !ok {
		log.Fatal(err, ok)
	}
	fmt.Printf("cyd is #%d\n", me.Rank+1)
	for i, z := range me.Members {
		fmt.Printf("#%d %s %g\n", me.First+int64(i)+1, z.Member, z.Score)
	}
	// Output:
	// cyd is #5
	// #3 eve 140
	// #4 dee 130
	// #5 cyd 120
	// #6 bob 110
	// #7 ann 100
}

// A race's results, fastest first: a runner's place and the runners just
// before and after them, in one read of the index whatever the place.
func ExampleClient_ZRankAround() {
	ctx := context.Background()
	rdb := newClient()
	for i, name := range []string{"ann", "bob", "cyd", "dee", "eve"} {
		must(rdb.ZAdd(ctx, "race:10k", redimo.Z{Score: float64(2400 + 60*i), Member: name})) // seconds
	}
	me, ok, err := rdb.ZRankAround(ctx, "race:10k", "cyd", 1)
	if err != nil || !ok {
		log.Fatal(err, ok)
	}
	fmt.Printf("cyd placed %d\n", me.Rank+1)
	for i, z := range me.Members {
		fmt.Printf("%d. %s %gs\n", me.First+int64(i)+1, z.Member, z.Score)
	}
	// Output:
	// cyd placed 3
	// 2. bob 2460s
	// 3. cyd 2520s
	// 4. dee 2580s
}

// ExampleClient_SExpire gives set members a time to live of their own
// (Redis 8.12's SEXPIRE): a user's session tokens lapse one by one while
// the set lives on. An expired member is missing to every command from
// the millisecond it expires (SCARD included), deleted or not.
func ExampleClient_SExpire() {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	rdb := newClient(func(o *redimo.Options) { o.Now = clock.Now }) // yours: the default clock
	must(rdb.SAdd(ctx, "sessions:u1", "tok-a", "tok-b"))
	replies, err := rdb.SExpire(ctx, "sessions:u1", 30*time.Minute, redimo.ExpireAlways, "tok-a", "tok-x")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(replies) // 1: set; -2: no such member
	ttls, err := rdb.STTL(ctx, "sessions:u1", "tok-a", "tok-b")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ttls) // seconds; -1: no expiry
	clock.Advance(31 * time.Minute)
	left, err := rdb.SMembers(ctx, "sessions:u1")
	if err != nil {
		log.Fatal(err)
	}
	n, err := rdb.SCard(ctx, "sessions:u1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(left, n)
	// Output:
	// [1 -2]
	// [1800 -1]
	// [tok-b] 1
}

// Redis 8.12's SADDEX: claim two job slots for 30 s only if neither is
// taken (MNX, atomic), then renew them only if both are still held (MXX).
func ExampleClient_SAddExArgs() {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	rdb := newClient(func(o *redimo.Options) { o.Now = clock.Now })
	claim := redimo.SAddExArgs{Mode: redimo.SAddExMNX, TTL: 30 * time.Second, Members: []string{"slot-1", "slot-2"}}
	first, err := rdb.SAddExArgs(ctx, "claims", claim)
	if err != nil {
		log.Fatal(err)
	}
	again, err := rdb.SAddExArgs(ctx, "claims", claim) // both taken: nothing written
	if err != nil {
		log.Fatal(err)
	}
	clock.Advance(20 * time.Second)
	renew := redimo.SAddExArgs{Mode: redimo.SAddExMXX, TTL: 30 * time.Second, Members: []string{"slot-1", "slot-2"}}
	renewed, err := rdb.SAddExArgs(ctx, "claims", renew)
	if err != nil {
		log.Fatal(err)
	}
	ttls, err := rdb.STTL(ctx, "claims", "slot-1", "slot-2")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(first, again, renewed, ttls)
	// Output: true false true [30 30]
}

// ExampleClient_BZPopMin is a job queue: producers add jobs to a sorted
// set scored by when they are due, and workers, in any number of
// processes, pop the earliest; each job goes to one worker only. A worker
// whose queue is empty waits for the next job (a write through the same
// Client wakes it at once; another process's, at the next poll).
func ExampleClient_BZPopMin() {
	ctx := context.Background()
	rdb := newClient()
	jobs := make(chan string)
	go func() { // a worker
		for range 2 {
			job, ok, err := rdb.BZPopMin(ctx, 10*time.Second, "jobs:email")
			if err != nil || !ok { // ok false: 10 s without a job
				log.Fatal(err, ok)
			}
			jobs <- job.Member
		}
	}()
	must(rdb.ZAdd(ctx, "jobs:email",
		redimo.Z{Score: 1763812800, Member: "send-invoice:42"}, // due times, Unix seconds
		redimo.Z{Score: 1763812700, Member: "welcome:u7"}))
	fmt.Println(<-jobs)
	fmt.Println(<-jobs)
	// Output:
	// welcome:u7
	// send-invoice:42
}

// ExampleClient_Scan lists keys as Redis's SCAN does, page by page from
// cursor 0 until the cursor comes back 0, and KEYS all at once. Both read
// the table's key index, never the members; the listing is eventually
// consistent (a key made in the last second may be missing) and in no
// useful order.
func ExampleClient_Scan() {
	ctx := context.Background()
	rdb := newClient()
	must(rdb.SAdd(ctx, "user:1:tags", "go", "dynamodb"))
	must(rdb.SAdd(ctx, "user:2:tags", "redis"))
	must(rdb.ZAdd(ctx, "user:1:scores", redimo.Z{Score: 10, Member: "quiz"}))
	must(rdb.SAdd(ctx, "team:7", "u1", "u2"))
	var tags []string
	for cursor := uint64(0); ; {
		page, next, err := rdb.Scan(ctx, cursor, "user:*:tags", 0)
		if err != nil {
			log.Fatal(err)
		}
		tags = append(tags, page...)
		if cursor = next; cursor == 0 {
			break
		}
	}
	slices.Sort(tags)
	fmt.Println(tags)
	all, err := rdb.Keys(ctx, "*")
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(all)
	fmt.Println(all)
	// Output:
	// [user:1:tags user:2:tags]
	// [team:7 user:1:scores user:1:tags user:2:tags]
}

// Transactions: Redis's MULTI/EXEC and WATCH, and SELECT's databases.

// ExampleClient_TxPipelined moves a job from a queue to a worker's set and
// counts it, as Redis's MULTI/EXEC: each command sees the earlier ones'
// writes, and all the writes commit together, in one TransactWriteItems,
// or not at all.
func ExampleClient_TxPipelined() {
	ctx := context.Background()
	rdb := newClient()
	if _, err := rdb.ZAdd(ctx, "jobs", redimo.Z{Score: 1, Member: "job-1"}, redimo.Z{Score: 2, Member: "job-2"}); err != nil {
		log.Fatal(err)
	}
	var next []redimo.Z
	var left int64
	err := rdb.TxPipelined(ctx, func(p redimo.Pipeliner) error {
		var err error
		if next, err = p.ZPopMin(ctx, "jobs"); err != nil || len(next) == 0 {
			return err
		}
		if _, err = p.SAdd(ctx, "worker:1", next[0].Member); err != nil {
			return err
		}
		left, err = p.ZCard(ctx, "jobs")
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	running, err := rdb.SMembers(ctx, "worker:1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(next[0].Member, left, running)
	// Output: job-1 1 [job-1]
}

// ExampleClient_Watch doubles a score unless another client changed it
// between the read and the write, the WATCH retry loop of Redis: the
// check is part of the write's own transaction.
func ExampleClient_Watch() {
	ctx := context.Background()
	rdb := newClient()
	if _, err := rdb.ZAdd(ctx, "scores", redimo.Z{Score: 10, Member: "alice"}); err != nil {
		log.Fatal(err)
	}
	for {
		err := rdb.Watch(ctx, func(tx *redimo.Tx) error {
			score, _, err := tx.ZScore(ctx, "scores", "alice")
			if err != nil {
				return err
			}
			return tx.TxPipelined(ctx, func(p redimo.Pipeliner) error {
				_, err := p.ZAdd(ctx, "scores", redimo.Z{Score: score * 2, Member: "alice"})
				return err
			})
		}, "scores")
		if errors.Is(err, redimo.ErrTxFailed) {
			continue // alice's score changed meanwhile: read it again
		}
		if err != nil {
			log.Fatal(err)
		}
		break
	}
	score, _, err := rdb.ZScore(ctx, "scores", "alice")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(score)
	// Output: 20
}

// ExampleClient_WithDB uses database 1, Redis's SELECT 1: the same key
// name is another key there.
func ExampleClient_WithDB() {
	ctx := context.Background()
	rdb := newClient()
	db1, err := rdb.WithDB(1)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := rdb.SAdd(ctx, "tags", "a"); err != nil {
		log.Fatal(err)
	}
	if _, err := db1.SAdd(ctx, "tags", "x", "y"); err != nil {
		log.Fatal(err)
	}
	n0, err := rdb.SCard(ctx, "tags")
	if err != nil {
		log.Fatal(err)
	}
	n1, err := db1.SCard(ctx, "tags")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n0, n1)
	// Output: 1 2
}

// newClient returns a client on a fresh table of the DynamoDB Local at
// REDIMO_TEST_ENDPOINT: in your program, the client of ExampleNewClient.
// It first deletes the tables of the examples before (go test runs
// examples one at a time, each calling newClient or freshTable once);
// Example_zzDropTables, the last to run, deletes the last one.
func newClient(optFns ...func(*redimo.Options)) *redimo.Client {
	dropExampleTables()
	db := exampleDB()
	table := freshTable()
	if err := redimo.NewClient(db, func(o *redimo.Options) { o.TableName = table }).CreateTable(context.Background()); err != nil {
		log.Fatal(err)
	}
	return redimo.NewClient(db, append([]func(*redimo.Options){func(o *redimo.Options) { o.TableName = table }}, optFns...)...)
}

// exampleDB is a DynamoDB client of the DynamoDB Local at REDIMO_TEST_ENDPOINT.
func exampleDB() *dynamodb.Client {
	return dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(os.Getenv("REDIMO_TEST_ENDPOINT"))
		o.DisableValidateResponseChecksum = true
	})
}

// exampleTables are the tables freshTable named, not yet deleted.
var exampleTables struct {
	sync.Mutex
	names []string
}

// freshTable names a table no other example uses, and records it for
// dropExampleTables.
func freshTable() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "redimo_example_" + hex.EncodeToString(b)
	exampleTables.Lock()
	exampleTables.names = append(exampleTables.names, name)
	exampleTables.Unlock()
	return name
}

// dropExampleTables deletes the tables freshTable named so far.
func dropExampleTables() {
	exampleTables.Lock()
	defer exampleTables.Unlock()
	db := exampleDB()
	for _, name := range exampleTables.names {
		_, err := db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		var gone *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &gone) {
			log.Fatal(err)
		}
	}
	exampleTables.names = nil
}

// fakeClock is a clock that moves only when told (Options.Now).
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// must drops a command's reply, stopping the example on an error.
func must[T any](_ T, err error) {
	if err != nil {
		log.Fatal(err)
	}
}
