// Command walkthrough is the tour behind `make demo`: it runs redimo's
// commands against DynamoDB Local (at REDIMO_ENDPOINT) in a fresh table,
// and prints each step: the command, what it does, its reply, and what it
// cost in DynamoDB (requests, read and write capacity units).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo"
)

// sections run in order; each file of this folder adds its story.
var sections = []struct {
	title, intro string
	run          func(*walk)
}{
	{"Sets: a post's tags", "A set holds distinct strings (like a Go map[string]struct{}). Each member is\none DynamoDB item, and each key has one more item that keeps its count exact.", setsStory},
	{"Sorted sets: a game's leaderboard", "A sorted set gives each member a score and keeps them ordered by score:\nthe top 3 is one query of an index.", leaderboardStory},
	{"Unique daily visitors on a sharded set", "One logical set spread over 16 keys, for sets too busy for one DynamoDB\npartition. Add reports whether the visitor is new: count each visitor once.", visitorsStory},
	{"A one-time-password rate limit that holds across app servers", "At most 3 codes per phone number per 2 seconds. The check and the claim\nare one conditional write, so concurrent servers cannot both get the last one.", otpStory},
	{"Members that expire", "Any member of a set can have its own time to live: \"who is online\".", expiringStory},
}

// Table is the walk-through's own table, deleted and created afresh on
// each run so that the keys start empty.
const Table = "redimo_walkthrough"

func main() {
	endpoint := os.Getenv("REDIMO_ENDPOINT")
	if endpoint == "" {
		endpoint = "http://127.0.0.1:8000"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := runWalk(ctx, endpoint, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func runWalk(ctx context.Context, endpoint string, out io.Writer) error {
	db := localDynamoDB(endpoint)
	if err := freshTable(ctx, db); err != nil {
		return err
	}
	w := &walk{ctx: ctx, out: out, clock: &clock{}}
	w.rdb = redimo.NewClient(db, func(o *redimo.Options) {
		o.TableName = Table
		o.Metrics = w.cost.Add // what each request costs, by redimo's cost model
		o.Now = w.clock.Now
	})
	if err := w.rdb.CreateTable(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, `redimo walk-through: Redis's set and sorted-set commands, stored in DynamoDB
Local (%s), in a fresh table %q.

Each step shows a command, what it does, its reply, and what it cost in
DynamoDB: requests, read capacity units (RCU) and write capacity units
(WCU). That is what AWS bills: on-demand, about $0.125
per million RCU and $0.625 per million WCU (us-east-1). A strongly
consistent read of an item up to 4 KB is 1 RCU; a write of an item up to
1 KB is 1 WCU, 2 inside a transaction (redimo's writes are transactions,
so counts stay exact), and each index entry a write puts or deletes costs
as much again. The figures are redimo's cost model (Request.PricedReadUnits
and PricedWriteUnits): reads as DynamoDB Local reported them; for writes,
DynamoDB Local reports the units of one item per transaction and no index
writes, so its own figure follows in parentheses. A transaction cancelled
because a condition failed (the member was there already) still costs its
items' units, as on DynamoDB.
`, endpoint, Table)
	for i, s := range sections {
		fmt.Fprintf(out, "\n== %d. %s ==\n%s\n\n", i+1, s.title, s.intro)
		s.run(w)
	}
	fmt.Fprintf(out, `
== Total: %d commands, %s ==

Next: the same commands over the Redis protocol, redimo-server driven by
redis-cli (below in `+"`make demo`"+`; alone: `+"`make server-demo`"+`). Then add redimo to your module
with `+"`go get github.com/redimo-go/redimo`"+` and start from README.md ("Use with
DynamoDB Local").
`, w.commands, costText(w.total))
	return nil
}

// freshTable deletes the walk-through's table if an earlier run left it.
func freshTable(ctx context.Context, db *dynamodb.Client) error {
	_, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(Table)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		return nil
	case err != nil:
		return fmt.Errorf("cannot reach DynamoDB Local: %w", err)
	}
	return dynamodb.NewTableNotExistsWaiter(db).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(Table)}, time.Minute)
}

// localDynamoDB is a DynamoDB client of DynamoDB Local at endpoint: any
// static credentials and region (DynamoDB Local started with -sharedDb,
// as make ddb-local does, keeps one database for all), and the SDK's
// response checksum check off (DynamoDB Local does not send the checksum).
// For AWS: dynamodb.NewFromConfig(cfg), cfg from config.LoadDefaultConfig.
func localDynamoDB(endpoint string) *dynamodb.Client {
	return dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.DisableValidateResponseChecksum = true
	})
}

// walk runs and prints the steps.
type walk struct {
	ctx      context.Context
	rdb      *redimo.Client
	out      io.Writer
	clock    *clock
	cost     redimo.Tally // of the step running
	total    redimo.Cost
	commands int
}

// do prints the command and what it does, runs it, and prints its reply
// and cost.
func (w *walk) do(command, what string, f func() (any, error)) any {
	w.cost.Take()
	reply, err := f()
	c := w.cost.Take()
	w.total = w.total.Plus(c)
	w.commands++
	fmt.Fprintf(w.out, "  > %s\n", command)
	if what != "" {
		fmt.Fprintf(w.out, "    %s\n", what)
	}
	text := format(reply)
	if err != nil {
		text = "error: " + err.Error()
	}
	if len(text) > 40 { // the cost on its own line
		fmt.Fprintf(w.out, "    reply: %s\n    %-47s cost: %s\n", text, "", costText(c))
	} else {
		fmt.Fprintf(w.out, "    reply: %-40s cost: %s\n", text, costText(c))
	}
	return reply
}

// say prints a line of narration.
func (w *walk) say(format string, args ...any) {
	fmt.Fprintf(w.out, "  -- "+format+"\n", args...)
}

func format(v any) string {
	switch v := v.(type) {
	case []string:
		return "[" + strings.Join(quoteAll(v), " ") + "]"
	case string:
		return fmt.Sprintf("%q", v)
	default:
		return fmt.Sprintf("%v", v)
	}
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// costText is what a step cost ("1 request, 0.5 RCU, 0 WCU"); DynamoDB
// Local's own WCU follow when they differ (transactions).
func costText(c redimo.Cost) string {
	s := "s"
	if c.Requests == 1 {
		s = ""
	}
	text := fmt.Sprintf("%d request%s, %g RCU, %g WCU", c.Requests, s, c.ReadUnits, c.WriteUnits)
	if c.ReportedWriteUnits != c.WriteUnits {
		text += fmt.Sprintf(" (Local reported %g)", c.ReportedWriteUnits)
	}
	return text
}

// clock is the walk-through's clock (Options.Now): real time, moved
// forward by advance instead of sleeping.
type clock struct {
	offset atomic.Int64 // a time.Duration
}

func (c *clock) Now() time.Time {
	return time.Now().Add(time.Duration(c.offset.Load()))
}

func (c *clock) advance(d time.Duration) {
	c.offset.Add(int64(d))
}
