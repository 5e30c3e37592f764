// Command walkthrough is the tour behind `make demo`: it runs redimo's
// commands against DynamoDB (Local, at REDIMO_ENDPOINT) and prints each
// command, its reply, and how many DynamoDB requests it took.
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/local"
)

// sections run in order; each file of this folder adds its story.
var sections = []struct {
	title string
	run   func(*walk)
}{
	{"Sets: tags and set algebra", setsStory},
	{"Sorted sets: leaderboards", leaderboardStory},
	{"Unique daily visitors on a sharded set", visitorsStory},
	{"An OTP rate limit that holds across app servers", otpStory},
	{"Members that expire", expiringStory},
}

func main() {
	endpoint := os.Getenv("REDIMO_ENDPOINT")
	if endpoint == "" {
		endpoint = "http://127.0.0.1:8000"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	requests := &countingTransport{next: http.DefaultTransport}
	rdb := redimo.NewClient(local.Client(endpoint, requests))
	if err := rdb.CreateTable(ctx); err != nil {
		log.Fatalf("create table at %s: %v", endpoint, err)
	}
	w := &walk{ctx: ctx, rdb: rdb, requests: requests, run: fmt.Sprintf("%d", time.Now().Unix())}
	fmt.Printf("redimo walk-through against %s, table %q\n", endpoint, rdb.Options().TableName)
	for _, s := range sections {
		fmt.Printf("\n== %s ==\n", s.title)
		s.run(w)
	}
}

// walk runs and prints commands.
type walk struct {
	ctx      context.Context
	rdb      *redimo.Client
	requests *countingTransport
	run      string // makes this run's keys unique, so the demo can run twice
}

// key names a key of this run.
func (w *walk) key(name string) string { return name + "@" + w.run }

// do prints the command, runs it, and prints its reply and request count.
func (w *walk) do(command string, f func() (any, error)) any {
	before := w.requests.n.Load()
	reply, err := f()
	n := w.requests.n.Load() - before
	fmt.Printf("%-58s → ", command)
	if err != nil {
		fmt.Printf("error: %v", err)
	} else {
		fmt.Print(format(reply))
	}
	fmt.Printf("   [%d request%s]\n", n, plural(n))
	return reply
}

func (w *walk) say(format string, args ...any) { fmt.Printf("-- "+format+"\n", args...) }

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

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// countingTransport counts the HTTP requests sent to DynamoDB.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.next.RoundTrip(r)
}
