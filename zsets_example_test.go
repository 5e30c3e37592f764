package redimo_test

import (
	"context"
	"fmt"
	"log"
	"strconv"
	"time"

	"github.com/redimo-go/redimo"
)

// Sorted-set examples. Like the others, they need a table, so they are
// compiled, not run; `make demo` runs the leaderboard story.

func ExampleClient_ZAdd() {
	ctx := context.Background()
	var rdb *redimo.Client // from redimo.NewClient
	added, err := rdb.ZAdd(ctx, "game:1",
		redimo.Z{Score: 120, Member: "ann"},
		redimo.Z{Score: 95, Member: "cyd"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(added) // 2
}

func ExampleClient_ZAddArgs() {
	ctx := context.Background()
	var rdb *redimo.Client
	// Keep each player's best score: GT only raises; CH counts raised scores.
	changed, err := rdb.ZAddArgs(ctx, "best:game:1", redimo.ZAddArgs{
		GT: true, Ch: true,
		Members: []redimo.Z{{Score: 130, Member: "ann"}, {Score: 10, Member: "bob"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(changed)
}

func ExampleClient_ZIncrBy() {
	ctx := context.Background()
	var rdb *redimo.Client
	// Concurrent increments of one member add up exactly.
	score, err := rdb.ZIncrBy(ctx, "game:1", 50, "bob")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(score)
}

func ExampleClient_ZRevRangeWithScores() {
	ctx := context.Background()
	var rdb *redimo.Client
	// The top 3: one Query of the score index reading 3 entries.
	top, err := rdb.ZRevRangeWithScores(ctx, "game:1", 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	for i, z := range top {
		fmt.Printf("%d. %s %v\n", i+1, z.Member, z.Score)
	}
}

func ExampleClient_ZRevRank() {
	ctx := context.Background()
	var rdb *redimo.Client
	rank, ok, err := rdb.ZRevRank(ctx, "game:1", "cyd")
	switch {
	case err != nil:
		log.Fatal(err)
	case !ok:
		fmt.Println("cyd has not played")
	default:
		fmt.Println("cyd is number", rank+1)
	}
}

func ExampleClient_ZRangeByScore() {
	ctx := context.Background()
	var rdb *redimo.Client
	// Players not seen in the last hour ("(" makes the bound exclusive),
	// 100 at a time.
	cutoff := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	stale, err := rdb.ZRangeByScore(ctx, "game:1:last-seen", &redimo.ZRangeBy{
		Min: "-inf", Max: "(" + cutoff, Count: 100,
	})
	if err != nil {
		log.Fatal(err)
	}
	if len(stale) > 0 {
		if _, err := rdb.ZRem(ctx, "game:1", stale...); err != nil {
			log.Fatal(err)
		}
	}
}

func ExampleClient_ZRangeArgs() {
	ctx := context.Background()
	var rdb *redimo.Client
	// ZRANGE game:1 +inf 100 BYSCORE REV LIMIT 0 10: with REV, Start is the
	// greater bound, as in Redis.
	members, err := rdb.ZRangeArgs(ctx, redimo.ZRangeArgs{
		Key: "game:1", Start: "+inf", Stop: "100", ByScore: true, Rev: true, Count: 10,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(members)
}

func ExampleClient_ZUnionStore() {
	ctx := context.Background()
	var rdb *redimo.Client
	// A season total over two games; a plain set counts each member as 1.
	n, err := rdb.ZUnionStore(ctx, "season", &redimo.ZStore{
		Keys:      []string{"game:1", "game:2"},
		Aggregate: redimo.AggregateSum,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "players")
}
