package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// Command is one entry of the command table, with what COMMAND INFO and
// COMMAND DOCS report about it.
type Command struct {
	Name     string // lower case; "client|setname" for a subcommand
	Arity    int    // as Redis's: n exactly n words (the name counts), -n at least n
	Flags    []string
	FirstKey int // position of the first key, 0 when none
	LastKey  int // position of the last key, -1 for the last argument
	Step     int
	Group    string // "set", "sorted-set", "generic", "connection", "server", "transactions"
	Since    string // the Redis version that added it
	Summary  string
	run      func(*call) resp.Value
	subs     map[string]*Command // a container's subcommands (CLIENT, COMMAND, CONFIG)
}

// keyedCommand returns the constructor of a command family's entries
// whose keys are args[first..last] (last -1: the last argument), one in
// every step of 1, in Redis's command group.
func keyedCommand(group string) func(name string, arity int, flags string, first, last int, since, summary string, run func(*call) resp.Value) *Command {
	return func(name string, arity int, flags string, first, last int, since, summary string, run func(*call) resp.Value) *Command {
		return &Command{Name: name, Arity: arity, Flags: strings.Fields(flags), FirstKey: first, LastKey: last, Step: 1,
			Group: group, Since: since, Summary: summary, run: run}
	}
}

// keylessCommand returns the constructor of a command family's entries
// that name no key, in Redis's command group.
func keylessCommand(group string) func(name string, arity int, flags, since, summary string, run func(*call) resp.Value) *Command {
	keyed := keyedCommand(group)
	return func(name string, arity int, flags, since, summary string, run func(*call) resp.Value) *Command {
		c := keyed(name, arity, flags, 0, 0, since, summary, run)
		c.Step = 0
		return c
	}
}

// call is one command being run.
type call struct {
	ctx  context.Context
	srv  *Server
	sess *Session
	db   *redimo.Client
	// st runs the commands a transaction can hold: db, or inside EXEC the
	// transaction being built (multi.go).
	st   redimo.Pipeliner
	args []string // args[0] is the command's name as the client sent it
	cmd  *Command
	// queued: the command runs inside EXEC (a blocking pop does not
	// block there, nor count in INFO's blocked_clients).
	queued bool
}

// families lists the command families; each file adds one (expire.go the
// expiry commands, zpop.go the sorted-set queue commands, zmove.go the
// moves between sorted sets, multi.go MULTI/EXEC, keyspace.go SCAN and
// kin).
func families() [][]*Command {
	return [][]*Command{connectionCommands(), serverCommands(), keyCommands(), expireCommands(), setCommands(), zsetCommands(), memberTTLCommands(), zpopCommands(), zmoveCommands(), multiCommands(), keyspaceCommands()}
}

// table maps a lower-case command name to its command.
var table map[string]*Command

func init() { table = buildTable() }

func buildTable() map[string]*Command {
	t := map[string]*Command{}
	for _, f := range families() {
		for _, c := range f {
			if t[c.Name] != nil {
				panic("server: command " + c.Name + " defined twice")
			}
			t[c.Name] = c
		}
	}
	return t
}

// Commands returns the command table, sorted by name.
func Commands() []*Command {
	out := make([]*Command, 0, len(table))
	for _, c := range table {
		out = append(out, c)
	}
	sortCommands(out)
	return out
}

// Do runs one command (args[0] is its name) for sess and returns its
// reply, as Redis's processCommand: an unknown command, then a wrong
// number of arguments, then a missing AUTH is refused before anything
// runs.
func (s *Server) Do(ctx context.Context, sess *Session, args []string) resp.Value {
	if len(args) == 0 {
		return resp.Err("ERR empty command")
	}
	s.commands.Add(1)
	cmd, refusal := lookup(args)
	if cmd == nil {
		return sess.multi.refuse(nil, refusal) // inside MULTI: EXEC will abort
	}
	if cmd.Arity > 0 && len(args) != cmd.Arity || cmd.Arity < 0 && len(args) < -cmd.Arity {
		s.stats.reject(cmd.Name)
		return sess.multi.refuse(cmd, resp.Err(fmt.Sprintf("ERR wrong number of arguments for '%s' command", cmd.Name)))
	}
	if !sess.Authenticated() && !cmd.has("no-auth") {
		s.stats.reject(cmd.Name)
		return sess.multi.refuse(cmd, resp.Err(msgNoAuth))
	}
	if queued, refusal := sess.multi.queue(cmd, args); queued {
		return resp.Simple("QUEUED")
	} else if refusal.Kind != 0 {
		s.stats.reject(cmd.Name)
		return refusal
	}
	return s.run(ctx, sess, cmd, args, nil)
}

// run runs a command that passed Do's checks; tx is set for the commands
// EXEC runs: they run in that transaction, and do not block.
func (s *Server) run(ctx context.Context, sess *Session, cmd *Command, args []string, tx redimo.Pipeliner) resp.Value {
	start := time.Now()
	sess.mu.Lock()
	sess.lastCmd, sess.lastAt = cmd.Name, start
	sess.mu.Unlock()
	if cmd.has("blocking") && tx == nil {
		// A blocked wait ends when its client disconnects (it runs under
		// the connection's context, not commandContext's: its own timeout
		// bounds it) and when Shutdown starts (it then replies as at its
		// timeout: see fail).
		if conn, ok := ctx.Value(connKey{}).(context.Context); ok {
			ctx = conn
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.blocked, cancel)
		defer stop()
	}
	t := &tally{} // Record adds the command's DynamoDB requests to it
	db := s.dbs[sess.db.Load()]
	st := tx
	if st == nil {
		st = db
	} else if p, ok := tx.(*redimo.Pipeline); ok {
		db = p.Client // every command of EXEC runs in its transaction
	}
	v := cmd.run(&call{ctx: context.WithValue(ctx, tallyKey{}, t), srv: s, sess: sess, db: db, st: st, args: args, cmd: cmd, queued: tx != nil})
	elapsed := time.Since(start)
	sess.track.after(cmd, args, tx != nil)
	s.latency.WithLabelValues(strings.ReplaceAll(cmd.Name, "|", " ")).Observe(elapsed.Seconds())
	if share, ok := ctx.Value(runShareKey{}).(*runShare); ok && tx == nil {
		// One of pipelined commands run at once: its time is its share
		// of the run's, settled when the run ends (stats.go).
		share.add(cmd.Name, elapsed)
		elapsed = 0
	}
	s.stats.record(cmd.Name, elapsed, v.IsError(), t)
	return v
}

// lookup finds the command (or subcommand) args name; when there is none,
// refusal is Redis's error.
func lookup(args []string) (cmd *Command, refusal resp.Value) {
	cmd = table[strings.ToLower(args[0])]
	if cmd == nil {
		var b strings.Builder
		for _, a := range args[1:] {
			if b.Len() >= 128 {
				break
			}
			fmt.Fprintf(&b, "'%s' ", truncate(a, 128-b.Len()))
		}
		return nil, resp.Err(fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", truncate(args[0], 128), b.String()))
	}
	if cmd.subs == nil || len(args) < 2 {
		return cmd, resp.Value{} // a container alone fails its arity check
	}
	if sub := cmd.subs[strings.ToLower(args[1])]; sub != nil {
		return sub, resp.Value{}
	}
	return nil, resp.Err(fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", truncate(args[1], 128), strings.ToUpper(cmd.Name)))
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func (c *Command) has(flag string) bool {
	for _, f := range c.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// Redis's error replies.
const (
	msgSyntax       = "ERR syntax error"
	msgNotInt       = "ERR value is not an integer or out of range"
	msgNotFloat     = "ERR value is not a valid float"
	msgOutOfRange   = "ERR value is out of range"
	msgMustPositive = "ERR value is out of range, must be positive"
	msgWrongType    = "WRONGTYPE Operation against a key holding the wrong kind of value"
	msgNoAuth       = "NOAUTH Authentication required."
	msgWrongPass    = "WRONGPASS invalid username-password pair or user is disabled."
)

// fail turns a library error into Redis's error reply. Errors that are not
// the client's (DynamoDB's, contention) are logged.
func (c *call) fail(err error) resp.Value {
	switch {
	case errors.Is(err, redimo.ErrWrongType):
		return resp.Err(msgWrongType)
	case errors.Is(err, redimo.ErrNoMemberExpiry):
		return resp.Err("ERR " + err.Error())
	case errors.Is(err, redimo.ErrNoSuchKey):
		return resp.Err("ERR no such key")
	case errors.Is(err, redimo.ErrSameKey):
		return resp.Err("ERR source and destination objects are the same")
	case errors.Is(err, redimo.ErrKeyTooLong), errors.Is(err, redimo.ErrMemberTooLong):
		return resp.Err("ERR " + err.Error())
	case errors.Is(err, redimo.ErrNotFloat):
		return resp.Err(msgNotFloat)
	case errors.Is(err, redimo.ErrNotInteger):
		return resp.Err(msgNotInt)
	case errors.Is(err, redimo.ErrOutOfRange):
		return resp.Err(msgOutOfRange)
	case errors.Is(err, redimo.ErrSyntax):
		return resp.Err(msgSyntax)
	case errors.Is(err, redimo.ErrTxTooBig): // SADDEX MNX|MXX beyond one transaction
		return resp.Err("ERR " + err.Error())
	case errors.Is(err, redimo.ErrInvalidArgument):
		return resp.Err("ERR " + err.Error())
	case c.cmd.has("blocking") && !c.queued && c.srv.blocked.Err() != nil && errors.Is(err, context.Canceled):
		// Shutdown ended the wait before any member came: Redis's reply
		// at the timeout (every blocking command's is nil).
		return resp.NilArray()
	case c.ctx.Err() != nil:
		return resp.Err("ERR command cancelled: " + c.ctx.Err().Error())
	}
	c.srv.cfg.Logger.Warn("command failed", "cmd", strings.ToUpper(c.args[0]), "client", c.sess.addr, "err", err)
	return resp.Err("ERR " + err.Error())
}

// reply is the reply of a command returning v and err.
func reply[T any](c *call, v T, err error, conv func(T) resp.Value) resp.Value {
	if err != nil {
		return c.fail(err)
	}
	return conv(v)
}

// The adapters below make a command's run from a library method (a method
// expression such as redimo.Pipeliner.SAdd) whose parameters are the
// command's arguments as they come, and the conversion of its result.

// onKey runs f(key) for KEY-only commands: args[1].
func onKey[R, T any](f func(R, context.Context, string) (T, error), conv func(T) resp.Value) func(*call) resp.Value {
	return func(c *call) resp.Value {
		v, err := f(receiver[R](c), c.ctx, c.args[1])
		return reply(c, v, err, conv)
	}
}

// onKeyArg runs f(args[1], args[2]).
func onKeyArg[R, T any](f func(R, context.Context, string, string) (T, error), conv func(T) resp.Value) func(*call) resp.Value {
	return func(c *call) resp.Value {
		v, err := f(receiver[R](c), c.ctx, c.args[1], c.args[2])
		return reply(c, v, err, conv)
	}
}

// onKeyArgs runs f(args[1], args[2:]...): a key and members, or a
// destination and keys.
func onKeyArgs[R, T any](f func(R, context.Context, string, ...string) (T, error), conv func(T) resp.Value) func(*call) resp.Value {
	return func(c *call) resp.Value {
		v, err := f(receiver[R](c), c.ctx, c.args[1], c.rest(2)...)
		return reply(c, v, err, conv)
	}
}

// onKeys runs f(args[1:]...).
func onKeys[R, T any](f func(R, context.Context, ...string) (T, error), conv func(T) resp.Value) func(*call) resp.Value {
	return func(c *call) resp.Value {
		v, err := f(receiver[R](c), c.ctx, c.rest(1)...)
		return reply(c, v, err, conv)
	}
}

// receiver is what runs a command given as a method expression: c.st
// (the database, or inside EXEC the transaction) for redimo.Pipeliner's
// methods, c.db for the Client's own.
func receiver[R any](c *call) R {
	if r, ok := any(c.st).(R); ok {
		return r
	}
	return any(c.db).(R)
}

// rest returns args[from:] (the keys or members of a variadic command).
func (c *call) rest(from int) []string { return c.args[from:] }

// sortCommands orders commands by name.
func sortCommands(cmds []*Command) {
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
}
