package server

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// maxMemberExpiry is the latest member expiry, in Unix milliseconds, that
// Redis's field-expiry commands accept (HFE_MAX_ABS_TIME_MSEC: 2^48 - 1).
const maxMemberExpiry = 1<<48 - 1

// memberExpireConditions are the conditions HEXPIRE's grammar takes, one
// at most.
var memberExpireConditions = map[string]redimo.ExpireCondition{
	"NX": redimo.ExpireNX, "XX": redimo.ExpireXX, "GT": redimo.ExpireGT, "LT": redimo.ExpireLT,
}

// memberTTLCommands are member expiry: Redis 8.12's SEXPIRE family and
// SADDEX, Garnet's ZEXPIRE family with ZPERSIST and ZCOLLECT, Dragonfly's
// SADDEX (saddex tells the two SADDEX forms apart).
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
				if named, ok := memberExpireConditions[strings.ToUpper(c.args[3])]; ok {
					cond, from = named, 4
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
		set("saddex", -4, "write denyoom fast", 1, 1, "8.12.0", "Adds one or more members to a set, and optionally sets their expiration (Redis 8.12; Dragonfly's SADDEX key [KEEPTTL] seconds member... also taken).", saddex),
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

// saddex is SADDEX in Redis 8.12's form, SADDEX key [MNX | MXX] [EX
// seconds | PX ms | EXAT s | PXAT ms | KEEPTTL] MEMBERS n member...
// (keywords in any order, Redis's errors, reply 1 or 0), or in
// Dragonfly's, SADDEX key [KEEPTTL] seconds member... (reply: how many
// were new). The call is Dragonfly's when its third argument, or its
// fourth after KEEPTTL, is an integer: 8.12 takes only keywords there
// (it answers "unknown argument" to an integer), so no 8.12 command is
// read as Dragonfly's, and a Dragonfly command has no other reading.
func saddex(c *call) resp.Value {
	if dragonflySaddex(c.args) {
		return saddexDragonfly(c)
	}
	args, bad := saddexArgs(c.args, c.db.Options().Now().UnixMilli())
	if bad != "" {
		return resp.Err(bad)
	}
	ok, err := c.st.SAddExArgs(c.ctx, c.args[1], args)
	return reply(c, ok, err, resp.Bool)
}

// dragonflySaddex reports whether args are Dragonfly's SADDEX.
func dragonflySaddex(args []string) bool {
	at := 2
	if len(args) > 3 && strings.EqualFold(args[2], "KEEPTTL") {
		at = 3
	}
	_, isInt := parseInt(args[at])
	return isInt
}

// saddexDragonfly is Dragonfly's SADDEX key [KEEPTTL] seconds member...
func saddexDragonfly(c *call) resp.Value {
	from, keep := 2, false
	if strings.EqualFold(c.args[2], "KEEPTTL") {
		from, keep = 3, true
	}
	if len(c.args) < from+2 {
		return resp.Err("ERR wrong number of arguments for 'saddex' command")
	}
	n, _ := parseInt(c.args[from])
	if n <= 0 || n > maxMemberExpiry/1000 {
		return resp.Err("ERR invalid expire time in 'saddex' command")
	}
	added, err := c.st.SAddEx(c.ctx, c.args[1], time.Duration(n)*time.Second, keep, c.rest(from+1)...)
	return reply(c, added, err, resp.Int)
}

// saddexArgs parses Redis 8.12's SADDEX, whose keywords come in any
// order, with its error replies, checked in its order (the arguments left
// to right, then a missing MEMBERS); nowMs is the time EX and PX count
// from. EX 0, PX 0 and a PXAT not after now are accepted, as in Redis: a
// time not in the future deletes the members named.
func saddexArgs(args []string, nowMs int64) (redimo.SAddExArgs, string) {
	var out redimo.SAddExArgs
	if len(args) < 5 { // Redis 8.12's arity is -5; Dragonfly's form needs -4
		return out, "ERR wrong number of arguments for 'saddex' command"
	}
	const onlyOneTime = "ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified"
	timed, haveMembers := false, false
	for i := 2; i < len(args); i++ {
		switch arg := strings.ToUpper(args[i]); arg {
		case "MEMBERS":
			if haveMembers {
				return out, "ERR MEMBERS keyword specified multiple times"
			}
			if i+1 >= len(args) {
				return out, "ERR wrong number of arguments for 'saddex' command"
			}
			n, ok := parseInt(args[i+1])
			if !ok || n < 1 || n > math.MaxInt32 {
				return out, "ERR invalid number of members"
			}
			if int64(i+2)+n > int64(len(args)) {
				return out, "ERR wrong number of arguments"
			}
			out.Members, haveMembers = args[i+2:i+2+int(n)], true
			i += 1 + int(n)
		case "EX", "PX", "EXAT", "PXAT":
			if timed {
				return out, onlyOneTime
			}
			if i+1 >= len(args) {
				return out, "ERR missing expire time"
			}
			timed = true
			i++
			n, ok := parseInt(args[i])
			if !ok {
				return out, msgNotInt
			}
			if n < 0 {
				return out, "ERR invalid expire time, must be >= 0"
			}
			unit := int64(1000)
			if arg[0] == 'P' {
				unit = 1
			}
			at, ok := expireMs(n, unit, !strings.HasSuffix(arg, "AT"), nowMs)
			if !ok || at > maxMemberExpiry {
				return out, "ERR invalid expire time in 'saddex' command"
			}
			out.ExpireAt = time.UnixMilli(at)
		case "KEEPTTL":
			if timed {
				return out, onlyOneTime
			}
			timed, out.KeepTTL = true, true
		case "MNX", "MXX":
			if out.Mode != redimo.SAddExAlways {
				return out, "ERR Only one of MXX or MNX arguments can be specified"
			}
			out.Mode = redimo.SAddExCondition(arg)
		default:
			return out, "ERR unknown argument: " + args[i]
		}
	}
	if !haveMembers {
		return out, "ERR missing MEMBERS argument"
	}
	return out, ""
}

func intArray(codes []int64) resp.Value {
	out := make([]resp.Value, len(codes))
	for i, n := range codes {
		out[i] = resp.Int(n)
	}
	return resp.Arr(out...)
}
