package server

import (
	"context"
	"strings"

	"github.com/redimo-go/redimo/internal/resp"
)

// setCommands are the SET family.
func setCommands() []*Command {
	set := keyedCommand("set")
	return []*Command{
		set("sadd", -3, "write denyoom fast", 1, 1, "1.0.0", "Adds one or more members to a set. Creates the key if it doesn't exist.", func(c *call) resp.Value {
			n, err := c.st.SAdd(c.ctx, c.args[1], c.rest(2)...)
			return reply(c, n, err, resp.Int)
		}),
		set("srem", -3, "write fast", 1, 1, "1.0.0", "Removes one or more members from a set. Deletes the set if the last member was removed.", func(c *call) resp.Value {
			n, err := c.st.SRem(c.ctx, c.args[1], c.rest(2)...)
			return reply(c, n, err, resp.Int)
		}),
		set("scard", 2, "readonly fast", 1, 1, "1.0.0", "Returns the number of members in a set.", func(c *call) resp.Value {
			n, err := c.st.SCard(c.ctx, c.args[1])
			return reply(c, n, err, resp.Int)
		}),
		set("sismember", 3, "readonly fast", 1, 1, "1.0.0", "Determines whether a member belongs to a set.", func(c *call) resp.Value {
			ok, err := c.st.SIsMember(c.ctx, c.args[1], c.args[2])
			return reply(c, ok, err, resp.Bool)
		}),
		set("smismember", -3, "readonly fast", 1, 1, "6.2.0", "Determines whether multiple members belong to a set.", func(c *call) resp.Value {
			oks, err := c.st.SMIsMember(c.ctx, c.args[1], c.rest(2)...)
			return reply(c, oks, err, func(oks []bool) resp.Value {
				out := make([]resp.Value, len(oks))
				for i, ok := range oks {
					out[i] = resp.Bool(ok)
				}
				return resp.Arr(out...)
			})
		}),
		set("smembers", 2, "readonly", 1, 1, "1.0.0", "Returns all members of a set.", func(c *call) resp.Value {
			ms, err := c.st.SMembers(c.ctx, c.args[1])
			return reply(c, ms, err, resp.SetOf)
		}),
		set("sscan", -3, "readonly", 1, 1, "2.8.0", "Iterates over members of a set (redimo: cursor 0 returns every match at once, with cursor 0).", sscan),
		set("srandmember", -2, "readonly", 1, 1, "1.0.0", "Get one or multiple random members from a set", srandmember),
		set("spop", -2, "write fast", 1, 1, "1.0.0", "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.", spop),
		set("smove", 4, "write fast", 1, 2, "1.0.0", "Moves a member from one set to another.", func(c *call) resp.Value {
			ok, err := c.st.SMove(c.ctx, c.args[1], c.args[2], c.args[3])
			return reply(c, ok, err, resp.Bool)
		}),
		set("sinter", -2, "readonly", 1, -1, "1.0.0", "Returns the intersect of multiple sets.", func(c *call) resp.Value {
			ms, err := c.db.SInter(c.ctx, c.rest(1)...)
			return reply(c, ms, err, resp.SetOf)
		}),
		set("sintercard", -3, "readonly", 0, 0, "7.0.0", "Returns the number of members of the intersect of multiple sets.", sintercard),
		set("sunioncard", -3, "readonly", 0, 0, "8.10.0", "Returns the number of members of the union of multiple sets.", sunioncard),
		set("sdiffcard", -3, "readonly", 0, 0, "8.10.0", "Returns the number of members of the difference of multiple sets.", sdiffcard),
		set("sunion", -2, "readonly", 1, -1, "1.0.0", "Returns the union of multiple sets.", func(c *call) resp.Value {
			ms, err := c.db.SUnion(c.ctx, c.rest(1)...)
			return reply(c, ms, err, resp.SetOf)
		}),
		set("sdiff", -2, "readonly", 1, -1, "1.0.0", "Returns the difference of multiple sets.", func(c *call) resp.Value {
			ms, err := c.db.SDiff(c.ctx, c.rest(1)...)
			return reply(c, ms, err, resp.SetOf)
		}),
		set("sinterstore", -3, "write denyoom", 1, -1, "1.0.0", "Stores the intersect of multiple sets in a key.", func(c *call) resp.Value {
			n, err := c.db.SInterStore(c.ctx, c.args[1], c.rest(2)...)
			return reply(c, n, err, resp.Int)
		}),
		set("sunionstore", -3, "write denyoom", 1, -1, "1.0.0", "Stores the union of multiple sets in a key.", func(c *call) resp.Value {
			n, err := c.db.SUnionStore(c.ctx, c.args[1], c.rest(2)...)
			return reply(c, n, err, resp.Int)
		}),
		set("sdiffstore", -3, "write denyoom", 1, -1, "1.0.0", "Stores the difference of multiple sets in a key.", func(c *call) resp.Value {
			n, err := c.db.SDiffStore(c.ctx, c.args[1], c.rest(2)...)
			return reply(c, n, err, resp.Int)
		}),
	}
}

// sscan is SSCAN key cursor [MATCH pattern] [COUNT count]. The library's
// scan has no resumable cursor, so cursor 0 answers every matching member
// at once with the next cursor 0 (COUNT is checked, then ignored: Redis
// too may return more than COUNT); another cursor, which redimo never
// hands out, answers none.
func sscan(c *call) resp.Value {
	key := c.args[1]
	cursor, ok := parseCursor(c.args[2])
	if !ok {
		return resp.Err("ERR invalid cursor")
	}
	match, bad := scanOptions(c.args[3:])
	if bad.Kind != 0 {
		// Redis looks the key up before it reads the options.
		t, err := c.db.Type(c.ctx, key)
		switch {
		case err != nil:
			return c.fail(err)
		case t == "none":
			return scanReply(nil)
		case t != "set":
			return resp.Err(msgWrongType)
		}
		return bad
	}
	if cursor != 0 {
		_, err := c.db.SCard(c.ctx, key) // the type check
		return reply(c, []string(nil), err, scanReply)
	}
	var ms []string
	for m, err := range c.db.SScan(c.ctx, key, match) {
		if err != nil {
			return c.fail(err)
		}
		ms = append(ms, m)
	}
	return scanReply(ms)
}

func scanReply(ms []string) resp.Value { return resp.Arr(resp.Bulk("0"), resp.Strings(ms)) }

// parseCursor parses a scan cursor as Redis 7.0's strtoul: an unsigned
// 64-bit decimal, a leading '-' wrapping around.
func parseCursor(s string) (uint64, bool) {
	if s == "" {
		return 0, true
	}
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if s[i] < '0' || s[i] > '9' || u > (^uint64(0)-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if s == "" { // strtoul parses no digits: the sign is left over
		return 0, false
	}
	if neg {
		u = -u
	}
	return u, true
}

// scanOptions parses [MATCH pattern] [COUNT count]; a non-zero bad is the
// error reply.
func scanOptions(opts []string) (match string, bad resp.Value) {
	for i := 0; i < len(opts); i += 2 {
		more := len(opts) - i - 1
		switch {
		case strings.EqualFold(opts[i], "count") && more >= 1:
			n, ok := parseInt(opts[i+1])
			if !ok {
				return "", resp.Err(msgNotInt)
			}
			if n < 1 {
				return "", resp.Err(msgSyntax)
			}
		case strings.EqualFold(opts[i], "match") && more >= 1:
			match = opts[i+1]
		default:
			return "", resp.Err(msgSyntax)
		}
	}
	return match, resp.Value{}
}

// srandmember is SRANDMEMBER key [count].
func srandmember(c *call) resp.Value {
	switch len(c.args) {
	case 2:
		m, ok, err := c.db.SRandMember(c.ctx, c.args[1])
		return reply(c, m, err, func(m string) resp.Value { return bulkOrNil(m, ok) })
	case 3:
		n, ok := parseInt(c.args[2])
		if !ok {
			return resp.Err(msgNotInt)
		}
		if n == -1<<63 {
			return resp.Err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
		}
		ms, err := c.db.SRandMemberN(c.ctx, c.args[1], n)
		return reply(c, ms, err, resp.Strings)
	}
	return resp.Err(msgSyntax)
}

// spop is SPOP key [count].
func spop(c *call) resp.Value {
	switch len(c.args) {
	case 2:
		m, ok, err := c.st.SPop(c.ctx, c.args[1])
		return reply(c, m, err, func(m string) resp.Value { return bulkOrNil(m, ok) })
	case 3:
		n, ok := parseInt(c.args[2])
		if !ok || n < 0 {
			return resp.Err(msgMustPositive)
		}
		ms, err := c.st.SPopN(c.ctx, c.args[1], n)
		return reply(c, ms, err, resp.SetOf)
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
