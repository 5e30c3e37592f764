package redimo_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo"
)

// The examples need a DynamoDB table, so they are compiled, not run; `make
// demo` runs the same calls against DynamoDB Local.

func ExampleNewClient() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	rdb := redimo.NewClient(dynamodb.NewFromConfig(cfg), func(o *redimo.Options) {
		o.TableName = "my-app-sets"
		o.EventuallyConsistent = true // half the read cost
	})
	if err := rdb.CreateTable(ctx); err != nil { // a no-op when it exists
		log.Fatal(err)
	}
}

func ExampleClient_SAdd() {
	ctx := context.Background()
	var rdb *redimo.Client // from redimo.NewClient
	added, err := rdb.SAdd(ctx, "visitors:2026-11-22", "u1", "u2", "u1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(added) // 2: u1 counts once
}

func ExampleClient_SPop() {
	ctx := context.Background()
	var rdb *redimo.Client
	member, ok, err := rdb.SPop(ctx, "raffle")
	switch {
	case err != nil:
		log.Fatal(err)
	case !ok:
		fmt.Println("the raffle is empty")
	default:
		fmt.Println("winner:", member)
	}
}

func ExampleClient_SScan() {
	ctx := context.Background()
	var rdb *redimo.Client
	for member, err := range rdb.SScan(ctx, "users", "admin:*") {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(member)
	}
}

func ExampleErrWrongType() {
	ctx := context.Background()
	var rdb *redimo.Client
	_, err := rdb.SAdd(ctx, "leaderboard", "x")
	if errors.Is(err, redimo.ErrWrongType) {
		fmt.Println("leaderboard is not a set")
	}
}

func ExampleArgError() {
	var err error = &redimo.ArgError{Command: "SADD", Arg: "member", Value: "…", Err: redimo.ErrMemberTooLong}
	var ae *redimo.ArgError
	fmt.Println(errors.Is(err, redimo.ErrInvalidArgument), errors.As(err, &ae) && ae.Arg == "member")
	// Output: true true
}
