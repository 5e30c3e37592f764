package server

import (
	"context"
	"strings"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// maxMemberExpiry is the latest member expiry, in Unix milliseconds, that
// Redis's field-expiry commands accept (HFE_MAX_ABS_TIME_MSEC: 2^48 - 1).
const maxMemberExpiry = 1<<48 - 1

// memberTTLCommands are member expiry: Redis 8.12's SEXPIRE family,
// Garnet's ZEXPIRE family with ZPERSIST and ZCOLLECT, Dragonfly's SADDEX.
// Their grammar is HEXPIRE's: key [time [NX|XX|GT|LT]] MEMBERS n member...
func memberTTLCommands() []*Command {
	set, zset := keyedCommand("set"), keyedCommand("sorted-set")
	type expireFn = func(*redimo.Client, context.Context, string, time.Time, redimo.ExpireCondition, ...string) ([]int64, error)
	type readFn = func(*redimo.Client, context.Context, string, ...string) ([]int64, error)
	expire := func(f expireFn, unit int64, relative bool) func(*call) resp.Value {
		return func(c *call) resp.Value {
			n, ok := parseInt(c.args[2])
			if !ok {
				return resp.Err(msgNotInt)
			}
			now := c.db.Options().Now().UnixMilli()
			at, ok := expireMs(n, unit, relative, now)
			if n < 0 || !ok || at > maxMemberExpiry {
				return resp.Err("ERR invalid expire time, must be >= 0 and <= 281474976710655")
			}
			from := 3
			cond := redimo.ExpireAlways
			if len(c.args) > 3 && !strings.EqualFold(c.args[3], "MEMBERS") {
				switch strings.ToUpper(c.args[3]) {
				case "NX", "XX", "GT", "LT":
					cond = redimo.ExpireCondition(strings.ToUpper(c.args[3]))
					from = 4
				}
			}
			members, bad := membersArg(c.args, from)
			if bad != "" {
				return resp.Err(bad)
			}
			codes, err := f(c.db, c.ctx, c.args[1], time.UnixMilli(at), cond, members...)
			return reply(c, codes, err, intArray)
		}
	}
	read := func(f readFn) func(*call) resp.Value {
		return func(c *call) resp.Value {
			members, bad := membersArg(c.args, 2)
			if bad != "" {
				return resp.Err(bad)
			}
			codes, err := f(c.db, c.ctx, c.args[1], members...)
			return reply(c, codes, err, intArray)
		}
	}
	collect := func(f func(*redimo.Client, context.Context, ...string) error) func(*call) resp.Value {
		return func(c *call) resp.Value {
			return reply(c, struct{}{}, f(c.db, c.ctx, c.rest(1)...), func(struct{}) resp.Value { return resp.OK })
		}
	}
	const w, r = "write fast", "readonly fast"
	// The set family and the sorted-set one: the same commands, S or Z.
	family := func(prefix, what, by string, add func(string, int, string, int, int, string, string, func(*call) resp.Value) *Command,
		exp, pexp expireFn, ttl, pttl, et, pet, persist readFn) []*Command {
		name := strings.ToLower(prefix)
		return []*Command{
			add(name+"expire", -6, w, 1, 1, "8.12.0", by+"Sets the expiration time of "+what+" members in seconds.", expire(exp, 1000, true)),
			add(name+"pexpire", -6, w, 1, 1, "8.12.0", by+"Sets the expiration time of "+what+" members in milliseconds.", expire(pexp, 1, true)),
			add(name+"expireat", -6, w, 1, 1, "8.12.0", by+"Sets the expiration time of "+what+" members to a Unix timestamp.", expire(exp, 1000, false)),
			add(name+"pexpireat", -6, w, 1, 1, "8.12.0", by+"Sets the expiration time of "+what+" members to a Unix milliseconds timestamp.", expire(pexp, 1, false)),
			add(name+"ttl", -5, r, 1, 1, "8.12.0", by+"Returns the time to live of "+what+" members in seconds.", read(ttl)),
			add(name+"pttl", -5, r, 1, 1, "8.12.0", by+"Returns the time to live of "+what+" members in milliseconds.", read(pttl)),
			add(name+"expiretime", -5, r, 1, 1, "8.12.0", by+"Returns the expiration time of "+what+" members as a Unix timestamp.", read(et)),
			add(name+"pexpiretime", -5, r, 1, 1, "8.12.0", by+"Returns the expiration time of "+what+" members as a Unix milliseconds timestamp.", read(pet)),
			add(name+"persist", -5, w, 1, 1, "8.12.0", by+"Removes the expiration time of "+what+" members.", read(persist)),
		}
	}
	cmds := append(family("S", "set", "", set, (*redimo.Client).SExpireAt, (*redimo.Client).SPExpireAt, (*redimo.Client).STTL,
		(*redimo.Client).SPTTL, (*redimo.Client).SExpireTime, (*redimo.Client).SPExpireTime, (*redimo.Client).SPersist),
		family("Z", "sorted-set", "Garnet: ", zset, (*redimo.Client).ZExpireAt, (*redimo.Client).ZPExpireAt, (*redimo.Client).ZTTL,
			(*redimo.Client).ZPTTL, (*redimo.Client).ZExpireTime, (*redimo.Client).ZPExpireTime, (*redimo.Client).ZPersist)...)
	return append(cmds,
		set("saddex", -4, "write denyoom fast", 1, 1, "8.12.0", "Adds members to a set with a time to live in seconds (Dragonfly's SADDEX).", saddex),
		set("scollect", -2, w, 1, -1, "8.12.0", "Deletes the expired members of sets now (ZCOLLECT for sets).", collect((*redimo.Client).SCollect)),
		zset("zcollect", -2, w, 1, -1, "8.12.0", "Garnet: Deletes the expired members of sorted sets now.", collect((*redimo.Client).ZCollect)),
	)
}

// membersArg parses "MEMBERS n member..." at args[from:], with the errors
// Redis's HEXPIRE gives for its FIELDS.
func membersArg(args []string, from int) ([]string, string) {
	if from >= len(args) || !strings.EqualFold(args[from], "MEMBERS") {
		return nil, "ERR Mandatory argument MEMBERS is missing or not at the right position"
	}
	if from+1 >= len(args) {
		return nil, msgSyntax
	}
	n, ok := parseInt(args[from+1])
	if !ok || n <= 0 {
		return nil, "ERR Parameter `numMembers` should be greater than 0"
	}
	members := args[from+2:]
	if int64(len(members)) != n {
		return nil, "ERR The `numMembers` parameter must match the number of arguments"
	}
	return members, ""
}

// saddex is Dragonfly's SADDEX key [KEEPTTL] seconds member...
func saddex(c *call) resp.Value {
	from, keep := 2, false
	if strings.EqualFold(c.args[2], "KEEPTTL") {
		from, keep = 3, true
	}
	if len(c.args) < from+2 {
		return resp.Err("ERR wrong number of arguments for 'saddex' command")
	}
	n, ok := parseInt(c.args[from])
	if !ok || n <= 0 || n > maxMemberExpiry/1000 {
		return resp.Err("ERR invalid expire time in 'saddex' command")
	}
	added, err := c.db.SAddEx(c.ctx, c.args[1], time.Duration(n)*time.Second, keep, c.rest(from+1)...)
	return reply(c, added, err, resp.Int)
}

func intArray(codes []int64) resp.Value {
	out := make([]resp.Value, len(codes))
	for i, n := range codes {
		out[i] = resp.Int(n)
	}
	return resp.Arr(out...)
}
