package redimo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/redimo-go/redimo"
)

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
