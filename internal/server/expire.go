package server

import (
	"strings"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// expireCommands are EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL and
// PERSIST.
func expireCommands() []*Command {
	cmd := func(name string, arity int, flags, since, summary string, run func(*call) resp.Value) *Command {
		return &Command{Name: name, Arity: arity, Flags: strings.Fields(flags), FirstKey: 1, LastKey: 1, Step: 1,
			Group: "generic", Since: since, Summary: summary, run: run}
	}
	// expire builds an EXPIRE-like command: at turns the argument into the
	// expiry time.
	expire := func(at func(n int64) time.Time) func(*call) resp.Value {
		return func(c *call) resp.Value {
			n, ok := parseInt(c.args[2])
			if !ok {
				return resp.Err(msgNotInt)
			}
			cond, bad := expireCondition(c.rest(3))
			if bad != "" {
				return resp.Err(bad)
			}
			set, err := c.db.ExpireAtWith(c.ctx, c.args[1], at(n), cond)
			return reply(c, set, err, resp.Bool)
		}
	}
	ttl := func(unit time.Duration) func(*call) resp.Value {
		return func(c *call) resp.Value {
			d, err := c.db.PTTL(c.ctx, c.args[1])
			return reply(c, d, err, func(d time.Duration) resp.Value {
				if d < 0 {
					return resp.Int(int64(d)) // -1, -2
				}
				if unit == time.Second {
					return resp.Int(int64((d + 500*time.Millisecond) / time.Second))
				}
				return resp.Int(d.Milliseconds())
			})
		}
	}
	return []*Command{
		cmd("expire", -3, "write fast", "1.0.0", "Sets the expiration time of a key in seconds.",
			expire(func(n int64) time.Time { return time.Now().Add(time.Duration(n) * time.Second) })),
		cmd("pexpire", -3, "write fast", "2.6.0", "Sets the expiration time of a key in milliseconds.",
			expire(func(n int64) time.Time { return time.Now().Add(time.Duration(n) * time.Millisecond) })),
		cmd("expireat", -3, "write fast", "1.2.0", "Sets the expiration time of a key to a Unix timestamp.",
			expire(func(n int64) time.Time { return time.Unix(n, 0) })),
		cmd("pexpireat", -3, "write fast", "2.6.0", "Sets the expiration time of a key to a Unix milliseconds timestamp.",
			expire(func(n int64) time.Time { return time.UnixMilli(n) })),
		cmd("ttl", 2, "readonly fast", "1.0.0", "Returns the expiration time in seconds of a key.", ttl(time.Second)),
		cmd("pttl", 2, "readonly fast", "2.6.0", "Returns the expiration time in milliseconds of a key.", ttl(time.Millisecond)),
		cmd("persist", 2, "write fast", "2.2.0", "Removes the expiration time of a key.", func(c *call) resp.Value {
			ok, err := c.db.Persist(c.ctx, c.args[1])
			return reply(c, ok, err, resp.Bool)
		}),
	}
}

// expireCondition parses EXPIRE's NX|XX|GT|LT, with Redis's errors.
func expireCondition(opts []string) (redimo.ExpireCondition, string) {
	var nx, xx, gt, lt bool
	for _, o := range opts {
		switch strings.ToUpper(o) {
		case "NX":
			nx = true
		case "XX":
			xx = true
		case "GT":
			gt = true
		case "LT":
			lt = true
		default:
			return "", "ERR Unsupported option " + o
		}
	}
	switch {
	case nx && (xx || gt || lt):
		return "", "ERR NX and XX, GT or LT options at the same time are not compatible"
	case gt && lt:
		return "", "ERR GT and LT options at the same time are not compatible"
	case nx:
		return redimo.ExpireNX, ""
	case gt: // XX GT is GT: no expiry counts as infinite
		return redimo.ExpireGT, ""
	case lt && xx:
		return redimo.ExpireXXLT, ""
	case lt:
		return redimo.ExpireLT, ""
	case xx:
		return redimo.ExpireXX, ""
	}
	return redimo.ExpireAlways, ""
}
