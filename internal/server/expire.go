package server

import (
	"math"
	"strings"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// expireCommands are EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL and
// PERSIST.
func expireCommands() []*Command {
	cmd := keyedCommand("generic")
	// expire builds an EXPIRE-like command taking seconds (unit 1000) or
	// milliseconds (unit 1), relative to now or absolute, with Redis 7.0's
	// order of checks (options, then the integer, then its range) and
	// range rules: the value in milliseconds, plus now when relative,
	// must fit an int64, or the reply is "invalid expire time" and nothing
	// is written. A negative result is in the past and deletes the key.
	expire := func(unit int64, relative bool) func(*call) resp.Value {
		return func(c *call) resp.Value {
			cond, bad := expireCondition(c.rest(3))
			if bad != "" {
				return resp.Err(bad)
			}
			n, ok := parseInt(c.args[2])
			if !ok {
				return resp.Err(msgNotInt)
			}
			at, ok := expireMs(n, unit, relative, c.db.Options().Now().UnixMilli())
			if !ok {
				return resp.Err("ERR invalid expire time in '" + c.cmd.Name + "' command")
			}
			set, err := c.st.ExpireAtWith(c.ctx, c.args[1], time.UnixMilli(at), cond)
			return reply(c, set, err, resp.Bool)
		}
	}
	// ttl builds TTL, PTTL, EXPIRETIME and PEXPIRETIME from the absolute
	// expiry in milliseconds, which holds every expiry Redis can set.
	ttl := func(unit int64, absolute bool) func(*call) resp.Value {
		return func(c *call) resp.Value {
			ms, err := c.st.PExpireTime(c.ctx, c.args[1])
			return reply(c, ms, err, func(ms int64) resp.Value {
				if ms < 0 {
					return resp.Int(ms) // -1, -2
				}
				if !absolute {
					ms = max(ms-c.db.Options().Now().UnixMilli(), 0)
				}
				if unit == 1000 {
					ms = ms/1000 + (ms%1000+500)/1000 // (ms+500)/1000 without overflow
				}
				return resp.Int(ms)
			})
		}
	}
	return []*Command{
		cmd("expire", -3, "write fast", 1, 1, "1.0.0", "Sets the expiration time of a key in seconds.", expire(1000, true)),
		cmd("pexpire", -3, "write fast", 1, 1, "2.6.0", "Sets the expiration time of a key in milliseconds.", expire(1, true)),
		cmd("expireat", -3, "write fast", 1, 1, "1.2.0", "Sets the expiration time of a key to a Unix timestamp.", expire(1000, false)),
		cmd("pexpireat", -3, "write fast", 1, 1, "2.6.0", "Sets the expiration time of a key to a Unix milliseconds timestamp.", expire(1, false)),
		cmd("ttl", 2, "readonly fast", 1, 1, "1.0.0", "Returns the expiration time in seconds of a key.", ttl(1000, false)),
		cmd("pttl", 2, "readonly fast", 1, 1, "2.6.0", "Returns the expiration time in milliseconds of a key.", ttl(1, false)),
		cmd("expiretime", 2, "readonly fast", 1, 1, "7.0.0", "Returns the expiration time of a key as a Unix timestamp.", ttl(1000, true)),
		cmd("pexpiretime", 2, "readonly fast", 1, 1, "7.0.0", "Returns the expiration time of a key as a Unix milliseconds timestamp.", ttl(1, true)),
		cmd("persist", 2, "write fast", 1, 1, "2.2.0", "Removes the expiration time of a key.", onKey(redimo.Pipeliner.Persist, resp.Bool)),
	}
}

// expireMs is the expiry in Unix milliseconds of an EXPIRE-like argument
// n in seconds (unit 1000) or milliseconds (unit 1), relative to nowMs or
// absolute, and false where Redis 7.0 answers "invalid expire time": the
// conversion to milliseconds or the addition of now overflows an int64.
func expireMs(n, unit int64, relative bool, nowMs int64) (int64, bool) {
	if n > math.MaxInt64/unit || n < math.MinInt64/unit {
		return 0, false
	}
	n *= unit
	if !relative {
		return n, true
	}
	if n > math.MaxInt64-nowMs {
		return 0, false
	}
	return n + nowMs, true
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
			return redimo.ExpireAlways, "ERR Unsupported option " + o
		}
	}
	switch {
	case nx && (xx || gt || lt):
		return redimo.ExpireAlways, "ERR NX and XX, GT or LT options at the same time are not compatible"
	case gt && lt:
		return redimo.ExpireAlways, "ERR GT and LT options at the same time are not compatible"
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
