package redimo_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/redimo-go/redimo"
)

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
