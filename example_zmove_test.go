package redimo_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/redimo-go/redimo"
)

// ExampleClient_BZMove takes a job from "pending" into "in-flight" in one
// transaction, as Redis 8.12's BZMOVE (waiting up to 10 s for one): a
// worker that dies leaves the job in in-flight, where a reaper finds it,
// instead of losing it. ZMoveMember puts it back by name, with its score.
func ExampleClient_BZMove() {
	ctx := context.Background()
	rdb := newClient()
	must(rdb.ZAdd(ctx, "jobs:pending",
		redimo.Z{Score: 1763812800, Member: "send-invoice:42"}, // due times, Unix seconds
		redimo.Z{Score: 1763812700, Member: "welcome:u7"}))
	jobs, err := rdb.BZMove(ctx, 10*time.Second, "jobs:pending", "jobs:inflight", redimo.ZMoveArgs{Order: redimo.PopMin})
	if err != nil || len(jobs) == 0 { // empty: 10 s without a job
		log.Fatal(err)
	}
	fmt.Println("working on", jobs[0].Member)
	// The worker gave up: back to pending, due when it was.
	back, err := rdb.ZMoveMember(ctx, "jobs:inflight", "jobs:pending", redimo.ZMoveMemberArgs{Members: []string{jobs[0].Member}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("back: %s at %.0f\n", back[0].Member, back[0].Score)
	pending, err := rdb.ZCard(ctx, "jobs:pending")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pending, "pending")
	// Output:
	// working on welcome:u7
	// back: welcome:u7 at 1763812700
	// 2 pending
}
