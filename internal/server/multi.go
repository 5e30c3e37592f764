package server

import (
	"strings"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// MULTI, EXEC, DISCARD, WATCH and UNWATCH.
//
// Between MULTI and EXEC a session queues its commands (Do replies
// +QUEUED); a command refused at that point (unknown, wrong number of
// arguments, no AUTH) makes EXEC fail with EXECABORT, as in Redis. EXEC
// runs the queued commands one after another, in order, with blocking
// commands answering at once; it is NOT atomic: another client's command
// can run between two of them, and when one fails on DynamoDB (an error
// reply that is not the client's, such as throttling) those before it stay
// applied. WATCH is optimistic (redimo.Watch): EXEC replies nil when a
// watched key changed since WATCH, checked by reading the keys' version
// tokens just before the queued commands run; a write landing between
// that read and the commands is not detected.

// multiState is a session's transaction state.
type multiState struct {
	on     bool // between MULTI and EXEC/DISCARD
	dirty  bool // a command was refused while queueing: EXEC aborts
	queued []queuedCommand
	watch  *redimo.Watch // nil: nothing watched
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

// queue queues the command when inside MULTI and reports whether it did.
func (m *multiState) queue(cmd *Command, args []string) bool {
	if !m.on || direct[cmd.Name] {
		return false
	}
	m.queued = append(m.queued, queuedCommand{cmd: cmd, args: append([]string(nil), args...)})
	return true
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
		tx("exec", 1, "noscript loading stale skip-slowlog", 0, 0, "1.2.0", "Executes all commands in a transaction (redimo: one after another, not atomically).", exec),
		tx("watch", -2, "noscript loading stale fast allow-busy", 1, -1, "2.2.0", "Monitors changes to keys to determine the execution of a transaction.", func(c *call) resp.Value {
			if c.sess.multi.on {
				return resp.Err("ERR WATCH inside MULTI is not allowed")
			}
			keys := c.rest(1)
			var err error
			if w := c.sess.multi.watch; w != nil {
				err = w.Add(c.ctx, keys...)
			} else {
				c.sess.multi.watch, err = c.db.WatchKeys(c.ctx, keys...)
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
// when a watched key changed, else the replies of the queued commands.
func exec(c *call) resp.Value {
	m := &c.sess.multi
	if !m.on {
		return resp.Err("ERR EXEC without MULTI")
	}
	queued, dirty, watch := m.queued, m.dirty, m.watch
	m.reset()
	if dirty {
		return resp.Err("EXECABORT Transaction discarded because of previous errors.")
	}
	if watch != nil {
		changed, err := watch.Changed(c.ctx)
		if err != nil {
			return c.fail(err)
		}
		if changed {
			return resp.NilArray()
		}
	}
	out := make([]resp.Value, len(queued))
	for i, q := range queued {
		out[i] = c.srv.run(c.ctx, c.sess, q.cmd, q.args, true)
	}
	return resp.Arr(out...)
}
