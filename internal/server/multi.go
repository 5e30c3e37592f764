package server

import (
	"errors"
	"fmt"
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
// What a transaction can hold (txCommands): SADD SREM SCARD SISMEMBER
// SMISMEMBER SMEMBERS SMOVE SPOP ZADD ZINCRBY ZREM ZCARD ZSCORE ZMSCORE
// ZRANGE (and ZREVRANGE, Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX) ZCOUNT
// ZLEXCOUNT ZRANK ZREVRANK ZREMRANGEBYSCORE ZREMRANGEBYRANK
// ZREMRANGEBYLEX ZPOPMIN ZPOPMAX ZMPOP BZPOPMIN BZPOPMAX BZMPOP (not blocking, as in
// Redis) DEL UNLINK EXISTS TYPE EXPIRE PEXPIRE EXPIREAT PEXPIREAT PERSIST
// TTL PTTL EXPIRETIME PEXPIRETIME, and the commands that read no key
// (PING, ECHO, TIME, CLIENT, COMMAND, CONFIG GET). Any other command is
// refused when queued, with an error naming it.

// multiState is a session's transaction state.
type multiState struct {
	on     bool // between MULTI and EXEC/DISCARD
	dirty  bool // a command was refused while queueing: EXEC aborts
	queued []queuedCommand
	watch  *redimo.Watch   // nil: nothing watched
	wdb    int32           // the database of the watched keys
	writes map[string]bool // keys of the queued write commands
}

type queuedCommand struct {
	cmd  *Command
	args []string
	// stored: a read-only command the transaction does not model, run
	// against the stored keys (no earlier queued command writes them).
	stored bool
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

// txCommands are the keyed commands a transaction can hold: they run on
// call.st, which EXEC sets to its transaction.
var txCommands = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`sadd srem scard sismember smismember smembers smove zadd zincrby zrem zcard
		zscore zmscore zrange zrevrange zrangebyscore zrevrangebyscore zrangebylex zrevrangebylex zcount zlexcount zrank zrevrank
		zremrangebyscore zremrangebyrank zremrangebylex spop zpopmin zpopmax zmpop bzpopmin bzpopmax bzmpop del unlink exists type expire pexpire
		expireat pexpireat persist ttl pttl expiretime pexpiretime`) {
		txCommands[n] = true
	}
}

// inTx reports whether a transaction can hold cmd: one of txCommands, or
// a command that reads no key (its reply does not depend on the data).
func inTx(cmd *Command) bool {
	name, _, _ := strings.Cut(cmd.Name, "|")
	switch name {
	case "ping", "echo", "time", "client", "command", "hello", "unwatch":
		return true
	case "config":
		return cmd.Name == "config|get"
	}
	return txCommands[cmd.Name]
}

// readsStored reports whether cmd is a read-only command on keys at known
// positions, which EXEC can run against the stored keys when no earlier
// command of the transaction writes them (ZRANGE, SINTER, ZRANK, ...).
func readsStored(cmd *Command) bool {
	return cmd.has("readonly") && cmd.FirstKey > 0 && (cmd.Group == "set" || cmd.Group == "sorted-set" || cmd.Group == "generic")
}

// txList is the list of commands a transaction holds, for errors.
const txList = "SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SMOVE SPOP ZADD ZINCRBY ZREM ZCARD ZSCORE ZMSCORE ZRANGE " +
	"ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX ZREVRANGEBYLEX ZCOUNT ZLEXCOUNT ZRANK ZREVRANK ZREMRANGEBYSCORE " +
	"ZREMRANGEBYRANK ZREMRANGEBYLEX ZPOPMIN " +
	"ZPOPMAX ZMPOP BZPOPMIN BZPOPMAX BZMPOP DEL UNLINK EXISTS TYPE EXPIRE PEXPIRE EXPIREAT PEXPIREAT PERSIST TTL PTTL " +
	"EXPIRETIME PEXPIRETIME, commands that read no key, and other read-only commands on keys no earlier command of the transaction writes"

// queue queues the command when inside MULTI and reports whether it did;
// refusal is set when the command was refused instead.
func (m *multiState) queue(cmd *Command, args []string) (queued bool, refusal resp.Value) {
	if !m.on || direct[cmd.Name] {
		return false, resp.Value{}
	}
	name := strings.ToUpper(strings.ReplaceAll(cmd.Name, "|", " "))
	keys := commandKeys(cmd, args)
	q := queuedCommand{cmd: cmd, args: append([]string(nil), args...)}
	switch {
	case inTx(cmd):
	case readsStored(cmd):
		for _, k := range keys {
			if m.writes[k] {
				return false, m.refuse(cmd, resp.Err("ERR "+name+" cannot be queued in a redimo transaction after a write to its key: "+
					"EXEC runs as one atomic DynamoDB transaction, which holds "+txList))
			}
		}
		q.stored = true
	default:
		return false, m.refuse(cmd, resp.Err("ERR "+name+" cannot be queued in a redimo transaction: "+
			"EXEC runs as one atomic DynamoDB transaction, which holds "+txList))
	}
	if cmd.has("write") {
		if m.writes == nil {
			m.writes = map[string]bool{}
		}
		for _, k := range keys {
			m.writes[k] = true
		}
	}
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
			if q.stored { // its keys were read (Prefetch): the commit checks them
				out[i] = c.srv.run(c.ctx, c.sess, q.cmd, q.args, nil)
			} else {
				out[i] = c.srv.run(c.ctx, c.sess, q.cmd, q.args, p)
			}
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
