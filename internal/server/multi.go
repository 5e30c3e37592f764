package server

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// MULTI, EXEC, DISCARD, WATCH and UNWATCH.
//
// Between MULTI and EXEC a session queues its commands (Do replies
// +QUEUED); a command refused at that point (unknown, wrong number of
// arguments, no AUTH, or one a transaction cannot hold) makes EXEC fail
// with EXECABORT, as in Redis. EXEC is atomic: the queued commands run
// against a snapshot of their keys (redimo.Pipeline, exec.go in the
// library), each answering as Redis would at that point of the
// transaction, and their writes commit as one TransactWriteItems,
// conditioned on every key read or written being unchanged since read and
// on the watched keys being as WATCH saw them. A watched key that changed
// makes EXEC reply nil; another key that changed makes the commands run
// again on fresh reads. A transaction needing more than 100 actions (one
// per member item written, one per key touched) is refused whole:
// EXECABORT, nothing written.
//
// What a transaction can hold (inTx): every keyed command the library's
// redimo.Pipeliner has a method for (the command named as the method, as
// SINTERSTORE is Pipeliner.SInterStore; UNLINK runs DEL; the blocking
// pops do not block, as Redis's inside MULTI), and the
// commands that read no key (PING, ECHO, TIME, CLIENT, COMMAND, CONFIG
// GET, INFO: its keyspace counts are read outside the transaction). Any other command is refused when queued, with an error naming
// what a transaction holds. Inside EXEC a command runs on the
// transaction's Client (redimo.Pipeline embeds it): the library's
// command code, written once, in transaction mode.

// multiState is a session's transaction state.
type multiState struct {
	on     bool // between MULTI and EXEC/DISCARD
	dirty  bool // a command was refused while queueing: EXEC aborts
	queued []queuedCommand
	watch  *redimo.Watch // nil: nothing watched
	wdb    int32         // the database of the watched keys
}

type queuedCommand struct {
	cmd  *Command
	args []string
}

// direct are the commands that run at once inside MULTI, as in Redis 7.0.
var direct = map[string]bool{"exec": true, "discard": true, "multi": true, "watch": true, "quit": true}

// refuse notes that cmd (nil: unknown) was refused with the error
// refusal before it ran: inside MULTI, EXEC will abort. A refused EXEC
// discards the transaction at once, as Redis's execCommandAbort.
func (m *multiState) refuse(cmd *Command, refusal resp.Value) resp.Value {
	if cmd != nil && cmd.Name == "exec" {
		m.reset()
		return resp.Err("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(refusal.Str, "ERR "))
	}
	if m.on {
		m.dirty = true
	}
	return refusal
}

// pipelined are the lower-case names of redimo.Pipeliner's methods.
var pipelined = func() map[string]bool {
	t := reflect.TypeFor[redimo.Pipeliner]()
	out := make(map[string]bool, t.NumMethod())
	for i := range t.NumMethod() {
		out[strings.ToLower(t.Method(i).Name)] = true
	}
	return out
}()

// txAlias names the Pipeliner method of the commands not named as theirs.
var txAlias = map[string]string{"unlink": "del"}

// inTx reports whether a transaction can hold cmd: a keyed command whose
// method is Pipeliner's, or a command that reads no key (its reply does
// not depend on the data).
func inTx(cmd *Command) bool {
	name, _, _ := strings.Cut(cmd.Name, "|")
	switch name {
	case "ping", "echo", "time", "client", "command", "hello", "unwatch", "info":
		// INFO reads the server's figures, and for its keyspace section
		// the key index outside the transaction (the counts do not see
		// the transaction's own writes, as Redis's would).
		return true
	case "config":
		return cmd.Name == "config|get"
	}
	method := strings.ReplaceAll(cmd.Name, "|", "")
	if m, ok := txAlias[method]; ok {
		method = m
	}
	return pipelined[method]
}

// txList is the list of the keyed commands a transaction holds, for errors.
func txList() string {
	var names []string
	for _, c := range Commands() {
		cmds := []*Command{c}
		for _, sub := range c.subs {
			cmds = append(cmds, sub)
		}
		sortCommands(cmds[1:])
		for _, x := range cmds {
			if x.FirstKey > 0 && inTx(x) {
				names = append(names, strings.ToUpper(strings.ReplaceAll(x.Name, "|", " ")))
			}
		}
	}
	return strings.Join(names, " ") + ", and the commands that read no key"
}

// queue queues the command when inside MULTI and reports whether it did;
// refusal is set when the command was refused instead.
func (m *multiState) queue(cmd *Command, args []string) (queued bool, refusal resp.Value) {
	if !m.on || direct[cmd.Name] {
		return false, resp.Value{}
	}
	if !inTx(cmd) {
		name := strings.ToUpper(strings.ReplaceAll(cmd.Name, "|", " "))
		return false, m.refuse(cmd, resp.Err("ERR "+name+" cannot be queued in a redimo transaction: "+
			"EXEC runs as one atomic DynamoDB transaction, which holds "+txList()))
	}
	q := queuedCommand{cmd: cmd, args: append([]string(nil), args...)}
	m.queued = append(m.queued, q)
	return true, resp.Value{}
}

// reset ends the transaction and unwatches every key (EXEC, DISCARD).
func (m *multiState) reset() { *m = multiState{} }

func multiCommands() []*Command {
	tx := keyedCommand("transactions")
	return []*Command{
		tx("multi", 1, "noscript loading stale fast allow-busy", 0, 0, "1.2.0", "Starts a transaction.", func(c *call) resp.Value {
			if c.sess.multi.on {
				return resp.Err("ERR MULTI calls can not be nested")
			}
			c.sess.multi.on = true
			return resp.OK
		}),
		tx("discard", 1, "noscript loading stale fast allow-busy", 0, 0, "2.0.0", "Discards a transaction.", func(c *call) resp.Value {
			if !c.sess.multi.on {
				return resp.Err("ERR DISCARD without MULTI")
			}
			c.sess.multi.reset()
			return resp.OK
		}),
		tx("exec", 1, "noscript loading stale skip-slowlog", 0, 0, "1.2.0", "Executes all commands in a transaction (redimo: as one DynamoDB transaction, refused when it needs more than 100 items).", exec),
		tx("watch", -2, "noscript loading stale fast allow-busy", 1, -1, "2.2.0", "Monitors changes to keys to determine the execution of a transaction.", func(c *call) resp.Value {
			if c.sess.multi.on {
				return resp.Err("ERR WATCH inside MULTI is not allowed")
			}
			keys := c.rest(1)
			var err error
			switch w := c.sess.multi.watch; {
			case w != nil && c.sess.multi.wdb != c.sess.db.Load():
				return resp.Err("ERR redimo-server watches keys of one database per transaction: UNWATCH first")
			case w != nil:
				err = w.Add(c.ctx, keys...)
			default:
				c.sess.multi.watch, err = c.db.WatchKeys(c.ctx, keys...)
				c.sess.multi.wdb = c.sess.db.Load()
			}
			return reply(c, resp.OK, err, func(v resp.Value) resp.Value { return v })
		}),
		tx("unwatch", 1, "noscript loading stale fast allow-busy", 0, 0, "2.2.0", "Forgets about watched keys of a transaction.", func(c *call) resp.Value {
			c.sess.multi.watch = nil
			return resp.OK
		}),
	}
}

// exec is EXEC: EXECABORT when a command was refused while queueing, nil
// when a watched key changed, else the replies of the queued commands,
// whose writes commit as one transaction.
func exec(c *call) resp.Value {
	m := &c.sess.multi
	if !m.on {
		return resp.Err("ERR EXEC without MULTI")
	}
	queued, dirty, watch, wdb := m.queued, m.dirty, m.watch, m.wdb
	m.reset()
	if dirty {
		return resp.Err("EXECABORT Transaction discarded because of previous errors.")
	}
	if watch != nil && wdb != c.sess.db.Load() {
		return resp.Err(fmt.Sprintf("EXECABORT Transaction discarded because of: keys watched in database %d, EXEC in database %d (redimo-server runs a transaction in one database)", wdb, c.sess.db.Load()))
	}
	var keys []string // read in one BatchGetItem before the commands run
	for _, q := range queued {
		keys = append(keys, commandKeys(q.cmd, q.args)...)
	}
	var out []resp.Value
	err := c.db.ExecWatched(c.ctx, watch, func(p *redimo.Pipeline) error {
		if err := p.Prefetch(c.ctx, keys...); err != nil {
			return err
		}
		out = make([]resp.Value, len(queued))
		for i, q := range queued {
			out[i] = c.srv.run(c.ctx, c.sess, q.cmd, q.args, p)
		}
		return nil
	})
	switch {
	case errors.Is(err, redimo.ErrTxFailed):
		return resp.NilArray()
	case errors.Is(err, redimo.ErrTxTooBig):
		return resp.Err("EXECABORT Transaction discarded because of: " + err.Error())
	case err != nil:
		return c.fail(err)
	}
	return resp.Arr(out...)
}

// commandKeys are the keys at cmd's key positions in args (ZMPOP's and
// BZMPOP's after numkeys).
func commandKeys(cmd *Command, args []string) []string {
	if at := map[string]int{"zmpop": 1, "bzmpop": 2}[cmd.Name]; at > 0 {
		if n, ok := parseInt(args[at]); ok && n > 0 && int(n) <= len(args)-at-1 {
			return args[at+1 : at+1+int(n)]
		}
		return nil
	}
	if cmd.FirstKey <= 0 || cmd.FirstKey >= len(args) {
		return nil
	}
	last := cmd.LastKey
	if last < 0 {
		last += len(args)
	}
	var keys []string
	for i := cmd.FirstKey; i <= last && i < len(args); i += max(cmd.Step, 1) {
		keys = append(keys, args[i])
	}
	return keys
}
