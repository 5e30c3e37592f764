package server

import (
	"context"
	"slices"
	"strings"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// setCommands are the SET family.
func setCommands() []*Command {
	set := keyedCommand("set")
	return []*Command{
		set("sadd", -3, "write denyoom fast", 1, 1, "1.0.0", "Adds one or more members to a set. Creates the key if it doesn't exist.", onKeyArgs(redimo.Pipeliner.SAdd, resp.Int)),
		set("srem", -3, "write fast", 1, 1, "1.0.0", "Removes one or more members from a set. Deletes the set if the last member was removed.", onKeyArgs(redimo.Pipeliner.SRem, resp.Int)),
		set("scard", 2, "readonly fast", 1, 1, "1.0.0", "Returns the number of members in a set.", onKey(redimo.Pipeliner.SCard, resp.Int)),
		set("sismember", 3, "readonly fast", 1, 1, "1.0.0", "Determines whether a member belongs to a set.", onKeyArg(redimo.Pipeliner.SIsMember, resp.Bool)),
		set("smismember", -3, "readonly fast", 1, 1, "6.2.0", "Determines whether multiple members belong to a set.", onKeyArgs(redimo.Pipeliner.SMIsMember, func(oks []bool) resp.Value {
			out := make([]resp.Value, len(oks))
			for i, ok := range oks {
				out[i] = resp.Bool(ok)
			}
			return resp.Arr(out...)
		})),
		set("smembers", 2, "readonly", 1, 1, "1.0.0", "Returns all members of a set.", onKey(redimo.Pipeliner.SMembers, resp.SetOf)),
		set("sscan", -3, "readonly", 1, 1, "2.8.0", "Iterates over members of a set (redimo: cursor 0 returns every match at once, with cursor 0).", func(c *call) resp.Value {
			return memberScan(c, "set", func(match string) ([]string, error) {
				// Every match at once: sorted, so that the reply is in byte
				// order as the other set replies (the library's SScan
				// streams in the order of the members' hashes).
				ms, err := gather(c.db.SScan(c.ctx, c.args[1], match), func(m string) []string { return []string{m} })
				slices.Sort(ms)
				return ms, err
			})
		}),
		set("srandmember", -2, "readonly", 1, 1, "1.0.0", "Get one or multiple random members from a set", srandmember),
		set("spop", -2, "write fast", 1, 1, "1.0.0", "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.", spop),
		set("smove", 4, "write fast", 1, 2, "1.0.0", "Moves a member from one set to another.", func(c *call) resp.Value {
			ok, err := c.st.SMove(c.ctx, c.args[1], c.args[2], c.args[3])
			return reply(c, ok, err, resp.Bool)
		}),
		set("sinter", -2, "readonly", 1, -1, "1.0.0", "Returns the intersect of multiple sets.", onKeys((*redimo.Client).SInter, resp.SetOf)),
		set("sintercard", -3, "readonly", 0, 0, "7.0.0", "Returns the number of members of the intersect of multiple sets.", sintercard),
		set("sunioncard", -3, "readonly", 0, 0, "8.10.0", "Returns the number of members of the union of multiple sets.", sunioncard),
		set("sdiffcard", -3, "readonly", 0, 0, "8.10.0", "Returns the number of members of the difference of multiple sets.", sdiffcard),
		set("sunion", -2, "readonly", 1, -1, "1.0.0", "Returns the union of multiple sets.", onKeys((*redimo.Client).SUnion, resp.SetOf)),
		set("sdiff", -2, "readonly", 1, -1, "1.0.0", "Returns the difference of multiple sets.", onKeys((*redimo.Client).SDiff, resp.SetOf)),
		set("sinterstore", -3, "write denyoom", 1, -1, "1.0.0", "Stores the intersect of multiple sets in a key.", onKeyArgs((*redimo.Client).SInterStore, resp.Int)),
		set("sunionstore", -3, "write denyoom", 1, -1, "1.0.0", "Stores the union of multiple sets in a key.", onKeyArgs((*redimo.Client).SUnionStore, resp.Int)),
		set("sdiffstore", -3, "write denyoom", 1, -1, "1.0.0", "Stores the difference of multiple sets in a key.", onKeyArgs((*redimo.Client).SDiffStore, resp.Int)),
	}
}

// srandmember is SRANDMEMBER key [count].
func srandmember(c *call) resp.Value {
	return withCount(c, c.db.SRandMember, func(n int64, ok bool) string {
		switch {
		case !ok:
			return msgNotInt
		case n == -1<<63:
			return "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
		}
		return ""
	}, c.db.SRandMemberN, resp.Strings)
}

// spop is SPOP key [count].
func spop(c *call) resp.Value {
	return withCount(c, c.st.SPop, func(n int64, ok bool) string {
		if !ok || n < 0 {
			return msgMustPositive
		}
		return ""
	}, c.st.SPopN, resp.SetOf)
}

// withCount runs a command of the form KEY [count]: without count, one
// member (nil when ok is false); with a count that check accepts (it
// returns the error reply's text otherwise), a list.
func withCount(c *call, one func(context.Context, string) (string, bool, error), check func(n int64, ok bool) string,
	many func(context.Context, string, int64) ([]string, error), list func([]string) resp.Value) resp.Value {
	switch len(c.args) {
	case 2:
		m, ok, err := one(c.ctx, c.args[1])
		return reply(c, m, err, func(m string) resp.Value { return bulkOrNil(m, ok) })
	case 3:
		n, ok := parseInt(c.args[2])
		if msg := check(n, ok); msg != "" {
			return resp.Err(msg)
		}
		ms, err := many(c.ctx, c.args[1], n)
		return reply(c, ms, err, list)
	}
	return resp.Err(msgSyntax)
}

// sintercard is SINTERCARD numkeys key [key ...] [LIMIT limit].
func sintercard(c *call) resp.Value { return setCard(c, c.db.SInterCard) }

// sunioncard is Redis 8.10's SUNIONCARD numkeys key [key ...] [LIMIT limit].
func sunioncard(c *call) resp.Value { return setCard(c, c.db.SUnionCard) }

// sdiffcard is Redis 8.10's SDIFFCARD numkeys key [key ...] [LIMIT limit].
func sdiffcard(c *call) resp.Value { return setCard(c, c.db.SDiffCard) }

// setCard parses numkeys key [key ...] [LIMIT limit], as SINTERCARD and
// Redis 8.10's SUNIONCARD and SDIFFCARD do, and replies count's answer.
func setCard(c *call, count func(context.Context, int64, ...string) (int64, error)) resp.Value {
	keys, opts, bad := numKeys(c.args, 1)
	if bad.Kind != 0 {
		return bad
	}
	var limit int64
	for i := 0; i < len(opts); i += 2 {
		if !strings.EqualFold(opts[i], "limit") || i+1 >= len(opts) {
			return resp.Err(msgSyntax)
		}
		n, ok := parseInt(opts[i+1])
		if !ok || n < 0 {
			return resp.Err("ERR LIMIT can't be negative")
		}
		limit = n
	}
	n, err := count(c.ctx, limit, keys...)
	return reply(c, n, err, resp.Int)
}

// numKeys splits args at position at (a numkeys argument) into the keys
// that follow it and the options after them, with Redis 7.0's errors.
func numKeys(args []string, at int) (keys, opts []string, bad resp.Value) {
	n, ok := parseInt(args[at])
	if !ok || n < 1 {
		return nil, nil, resp.Err("ERR numkeys should be greater than 0")
	}
	if n > int64(len(args)-at-1) {
		return nil, nil, resp.Err("ERR Number of keys can't be greater than number of args")
	}
	return args[at+1 : at+1+int(n)], args[at+1+int(n):], resp.Value{}
}

func bulkOrNil(s string, ok bool) resp.Value {
	if !ok {
		return resp.Nil()
	}
	return resp.Bulk(s)
}
