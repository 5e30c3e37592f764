package redimo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/redimo-go/redimo"
)

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
