// Command redimo runs Redis set and sorted-set commands against a redimo
// DynamoDB table from the shell, printing the replies the way redis-cli
// does, and creates the table.
//
//	redimo [flags] COMMAND [arg ...]    run one command: redimo SADD visitors u1 u2
//	redimo [flags]                      run commands read from stdin, one a line
//	redimo [flags] create-table         create the table (and its index) if missing
//
// It runs the same command table as redimo-server, in-process: every
// command redimo-server knows works here (SADD, SMEMBERS, ZADD, DEL, ...),
// with the same replies and errors. Lines read from stdin are split as
// redis-cli splits them ("quoted args", \x41 escapes).
//
// Output is redis-cli's for a terminal — `(integer) 2`, `1) "a"`,
// `(nil)`, `(error) ERR ...` — or with --raw its plain form. The exit
// status is 1 when a command's reply is an error, 2 for bad flags.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/redimo-go/redimo/internal/connect"
	"github.com/redimo-go/redimo/internal/resp"
	"github.com/redimo-go/redimo/internal/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("redimo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var db connect.Flags
	db.Register(fs)
	raw := fs.Bool("raw", false, "print replies as redis-cli --raw does (strings unquoted, one element a line)")
	resp3 := fs.Bool("3", false, "render replies as a RESP3 client receives them (doubles, maps, sets)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: redimo [flags] COMMAND [arg ...]
       redimo [flags] create-table
       redimo [flags] < commands.txt

Runs Redis set and sorted-set commands on a redimo DynamoDB table and prints
the replies as redis-cli does. Exit status 1 when a reply is an error.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	client, info, err := db.Client(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "redimo:", err)
		return 1
	}
	if fs.NArg() == 1 && strings.EqualFold(fs.Arg(0), "create-table") {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		if err := client.CreateTable(cctx); err != nil {
			fmt.Fprintln(stderr, "redimo: create-table:", err)
			return 1
		}
		fmt.Fprintf(stdout, "OK (table %s)\n", db.Table)
		return 0
	}

	srv := server.New(server.Config{Client: client, Info: info})
	sess := srv.NewSession()
	proto := 2
	if *resp3 { // as redis-cli -3: the session speaks RESP3
		proto = 3
		srv.Do(ctx, sess, []string{"HELLO", "3"})
	}
	code := 0
	do := func(args []string) {
		v := srv.Do(ctx, sess, args)
		v = resp.Normalize(v, proto)
		if *raw {
			fmt.Fprint(stdout, resp.RenderRaw(v))
		} else {
			fmt.Fprint(stdout, resp.Render(v))
		}
		if v.IsError() {
			code = 1
		}
	}
	if fs.NArg() > 0 {
		do(fs.Args())
		return code
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64*1024), resp.MaxBulkLen)
	for sc.Scan() && ctx.Err() == nil {
		args, ok := resp.SplitArgs(sc.Text())
		switch {
		case !ok:
			fmt.Fprintln(stdout, "Invalid argument(s)")
			code = 1
		case len(args) > 0:
			do(args)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(stderr, "redimo: reading stdin:", err)
		return 1
	}
	return code
}
