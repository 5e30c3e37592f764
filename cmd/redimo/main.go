// Command redimo runs Redis set and sorted-set commands against a redimo
// DynamoDB table from the shell, printing the replies the way redis-cli
// does, and creates the table.
//
//	redimo [flags] COMMAND [arg ...]    run one command: redimo SADD visitors u1 u2
//	redimo [flags]                      an interactive prompt (with history) on a terminal;
//	                                    else run commands read from stdin, one a line
//	redimo [flags] create-table         create the table (and its index) if missing
//	redimo [flags] import [import flags] redis://[user:pass@]host:port[/db]
//	                                    copy a Redis's sets and sorted sets into the table
//	                                    (import.go; redimo import -h lists its flags)
//	redimo [flags] export [export flags] redis://...
//	                                    the way back: the table's sets and sorted sets to a Redis
//	redimo help [COMMAND | @group]      the commands, or what one does
//
// It runs the same command table as redimo-server, in-process: every
// command redimo-server knows works here (SADD, SMEMBERS, ZADD, DEL, ...),
// with the same replies and errors. Lines are split as redis-cli splits
// them ("quoted args", \x41 escapes).
//
// Output is redis-cli's: on a terminal `(integer) 2`, `1) "a"`, `(nil)`,
// `(error) ERR ...`; into a pipe or file the raw form (`2`, `a`, an empty
// line), so scripts get plain values. --raw and --no-raw force either.
// --cost prints what each command cost in DynamoDB (requests, read and
// write capacity units; a transaction's write units at DynamoDB's price,
// 2 per item per KB, when DynamoDB reported fewer, as DynamoDB Local does)
// on stderr. The exit status is 1 when a command's
// reply is an error or the table cannot be used, 2 for bad flags.
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
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/chzyer/readline"
	"github.com/redimo-go/redimo"
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
	raw := fs.Bool("raw", false, "print replies raw (strings unquoted, one element a line); the default when stdout is not a terminal")
	// No backquotes in a usage: the flag package takes a quoted word for
	// the flag's argument name (it printed "-no-raw (integer) 2").
	noRaw := fs.Bool("no-raw", false, "print replies formatted, as (integer) 2 and 1) \"a\", even when stdout is not a terminal")
	resp3 := fs.Bool("3", false, "render replies as a RESP3 client receives them (doubles, maps, sets)")
	showCost := fs.Bool("cost", false, "after each reply, print its DynamoDB requests and read/write capacity units on stderr")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: redimo [flags] COMMAND [arg ...]
       redimo [flags]                  (a prompt on a terminal; else commands from stdin)
       redimo [flags] create-table
       redimo [flags] import [import flags] redis://[user:pass@]host:port[/db]
       redimo [flags] export [export flags] redis://[user:pass@]host:port[/db]
       redimo help [COMMAND | @group]

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
	if fs.NArg() > 0 && strings.EqualFold(fs.Arg(0), "help") {
		fmt.Fprint(stdout, help(fs.Args()[1:]))
		return 0
	}
	var cost tally
	if fs.NArg() > 0 && (strings.EqualFold(fs.Arg(0), "import") || strings.EqualFold(fs.Arg(0), "export")) {
		connect := func() (*redimo.Client, string, error) {
			client, _, err := db.Client(ctx, func(o *redimo.Options) { o.Metrics = cost.Add })
			if err == nil {
				err = client.CheckTable(ctx)
			}
			if err != nil {
				return nil, "", errors.New(db.Explain(err))
			}
			return client, db.Table, nil
		}
		if strings.EqualFold(fs.Arg(0), "export") {
			return runExport(ctx, fs.Args()[1:], stdout, stderr, connect, &cost.Tally)
		}
		return runImport(ctx, fs.Args()[1:], stdout, stderr, connect, &cost.Tally)
	}
	client, info, err := db.Client(ctx, func(o *redimo.Options) { o.Metrics = cost.add })
	if err != nil {
		fmt.Fprintln(stderr, "redimo:", db.Explain(err))
		return 1
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if fs.NArg() == 1 && strings.EqualFold(fs.Arg(0), "create-table") {
		if err := client.CreateTable(cctx); err != nil {
			fmt.Fprintln(stderr, "redimo:", db.Explain(err))
			return 1
		}
		fmt.Fprintf(stdout, "OK (table %s)\n", db.Table)
		return 0
	}
	// One DescribeTable first: a missing table, credentials or region is
	// told with its fix, not as the first command's error.
	if err := client.CheckTable(cctx); err != nil {
		fmt.Fprintln(stderr, "redimo:", db.Explain(err))
		return 1
	}
	cost.take()
	rawOut := !isTerminal(stdout)
	if *raw || *noRaw {
		rawOut = *raw && !*noRaw
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
		if rawOut {
			fmt.Fprint(stdout, resp.RenderRaw(v))
		} else {
			fmt.Fprint(stdout, resp.Render(v))
		}
		if *showCost {
			fmt.Fprintf(stderr, "(%s)\n", cost.take())
		}
		if v.IsError() {
			code = 1
		}
	}
	if fs.NArg() > 0 {
		do(fs.Args())
		return code
	}
	if isTerminal(stdin) {
		rl, err := readline.NewEx(&readline.Config{
			Prompt:          db.Table + "> ",
			HistoryFile:     historyFile(),
			InterruptPrompt: "^C",
			EOFPrompt:       "quit",
		})
		if err != nil {
			fmt.Fprintln(stderr, "redimo:", err)
			return 1
		}
		defer rl.Close()
		fmt.Fprintf(stdout, "redimo: table %s at %s. Type help, or a command such as SADD visitors alice bob.\n", db.Table, info[1][1])
		prompt(ctx, rl, stdout, func(args []string) { do(args) })
		return 0
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

// prompt reads commands from rl until quit, exit or Ctrl-D, running each
// with do; help is answered here. Ctrl-C clears the line, as in redis-cli.
func prompt(ctx context.Context, rl *readline.Instance, stdout io.Writer, do func([]string)) {
	for ctx.Err() == nil {
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			continue
		case err != nil: // io.EOF: Ctrl-D
			return
		}
		args, ok := resp.SplitArgs(line)
		switch {
		case !ok:
			fmt.Fprintln(stdout, "Invalid argument(s)")
		case len(args) == 0:
		case strings.EqualFold(args[0], "quit"), strings.EqualFold(args[0], "exit"):
			return
		case strings.EqualFold(args[0], "help"):
			fmt.Fprint(stdout, help(args[1:]))
		default:
			do(args)
		}
	}
}

// historyFile is where the prompt keeps its history, as redis-cli keeps
// ~/.rediscli_history: $REDIMO_HISTFILE, else ~/.redimo_history.
func historyFile() string {
	if f := os.Getenv("REDIMO_HISTFILE"); f != "" {
		return f
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".redimo_history")
}

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	fd, ok := f.(interface{ Fd() uintptr })
	return ok && readline.IsTerminal(int(fd.Fd()))
}

// help is the text of `help`, `help @group` and `help COMMAND`.
func help(args []string) string {
	var b strings.Builder
	cmds := server.Commands()
	switch {
	case len(args) == 0:
		b.WriteString(`Redis set and sorted-set commands, stored in DynamoDB. Type a command as
in redis-cli, e.g.:
  SADD visitors alice bob        add members to a set      (reply: how many were new)
  SMEMBERS visitors              list a set's members
  ZADD game 120 ann 95 bob       add scored members to a sorted set
  ZREVRANGE game 0 2 WITHSCORES  the top 3, best first
  help @set                      the commands of a group:
`)
		groups := map[string]int{}
		for _, c := range cmds {
			groups[c.Group]++
		}
		names := make([]string, 0, len(groups))
		for g := range groups {
			names = append(names, g)
		}
		sort.Strings(names)
		for _, g := range names {
			fmt.Fprintf(&b, "                                 @%s (%d)\n", g, groups[g])
		}
		b.WriteString("  help SADD                      what a command does\n  quit                           leave (or Ctrl-D)\n")
	case strings.HasPrefix(args[0], "@"):
		// redis-cli writes @sorted_set where COMMAND DOCS says sorted-set.
		group := strings.ReplaceAll(strings.ToLower(args[0][1:]), "_", "-")
		for _, c := range cmds {
			if c.Group == group && !strings.Contains(c.Name, "|") {
				fmt.Fprintf(&b, "  %-18s %s\n", strings.ToUpper(c.Name), c.Summary)
			}
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "no group %s: try help\n", args[0])
		}
	default:
		name := strings.ToLower(strings.Join(args, "|"))
		for _, c := range cmds {
			if c.Name == name {
				fmt.Fprintf(&b, "  %s\n  %s\n  group: %s, since Redis %s, %s\n", strings.ToUpper(strings.ReplaceAll(c.Name, "|", " ")),
					c.Summary, c.Group, c.Since, arity(c.Arity))
				return b.String()
			}
		}
		fmt.Fprintf(&b, "no command %s: try help\n", strings.Join(args, " "))
	}
	return b.String()
}

func arity(n int) string {
	switch {
	case n < 0:
		return fmt.Sprintf("takes at least %d argument(s)", -n-1)
	default:
		return fmt.Sprintf("takes %d argument(s)", n-1)
	}
}

// tally sums what commands cost in DynamoDB (redimo.Options.Metrics).
type tally struct{ redimo.Tally }

func (t *tally) add(ctx context.Context, r redimo.Request) {
	server.Record(ctx, r) // INFO commandstats
	t.Add(ctx, r)
}

// take returns the sums since the last take ("1 DynamoDB request, 0 RCU,
// 6 WCU") and zeroes them.
func (t *tally) take() string {
	c := t.Take()
	s := fmt.Sprintf("%d DynamoDB request%s, %g RCU, %g WCU", c.Requests, plural(c.Requests), c.ReadUnits, c.WriteUnits)
	if c.ReportedWriteUnits != c.WriteUnits {
		s += fmt.Sprintf(" (%g reported)", c.ReportedWriteUnits)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
