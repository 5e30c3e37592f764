package server

import (
	"strings"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// zmoveCommands are Redis 8.12's moves between sorted sets, ZMOVE, BZMOVE
// and ZMOVEMEMBER: the library's, so inside MULTI they run in the
// transaction (BZMOVE without waiting). Each replies with the members
// moved, as ZMPOP's element array ([member, score] pairs: the score a bulk
// string in RESP2, a double in RESP3), or a null array when none moved.
func zmoveCommands() []*Command {
	z := keyedCommand("sorted-set")
	return []*Command{
		z("zmove", -4, "write denyoom", 1, 2, "8.12.0", "Moves highest- or lowest-scoring members, or a score range of members, from one sorted set to another, preserving scores. Deletes the source sorted set if the last member was moved.", zmove),
		z("bzmove", -5, "write denyoom blocking", 1, 2, "8.12.0", "Moves highest- or lowest-scoring members from one sorted set to another, preserving scores. Blocks until a member is available otherwise. Deletes the source sorted set if the last member was moved.", bzmove),
		z("zmovemember", -6, "write denyoom", 1, 2, "8.12.0", "Moves specified members from one sorted set to another, preserving scores. Can restrict moves to members absent from or present in the destination. Deletes the source sorted set if the last member was moved.", zmovemember),
	}
}

// movedReply is a move's reply: [member, score] pairs, or a null array.
func movedReply(zs []redimo.Z) resp.Value {
	if len(zs) == 0 {
		return resp.NilArray()
	}
	pairs := make([]resp.Value, len(zs))
	for i, z := range zs {
		pairs[i] = resp.Arr(resp.Bulk(z.Member), resp.Dbl(z.Score))
	}
	return resp.Arr(pairs...)
}

// moveCount parses the optional COUNT count of args (the words after the
// selection): one COUNT at most, count ≥ 1, anything else a syntax error.
func moveCount(args []string) (int64, resp.Value) {
	var count int64
	for j := 0; j < len(args); j++ {
		if count == 0 && strings.EqualFold(args[j], "count") && j+1 < len(args) {
			j++
			n, ok := parseInt(args[j])
			if !ok || n < 1 {
				return 0, resp.Err("ERR count should be greater than 0")
			}
			count = n
			continue
		}
		return 0, resp.Err(msgSyntax)
	}
	return count, resp.Value{}
}

// zmove is ZMOVE source destination <MIN | MAX | BYSCORE score-min
// score-max> [COUNT count], checked in order: the selection, COUNT, then
// BYSCORE's bounds.
func zmove(c *call) resp.Value {
	var args redimo.ZMoveArgs
	rest := c.args[4:]
	switch sel := strings.ToUpper(c.args[3]); sel {
	case "MIN":
		args.Order = redimo.PopMin
	case "MAX":
		args.Order = redimo.PopMax
	case "BYSCORE":
		if len(rest) < 2 {
			return resp.Err(msgSyntax)
		}
		args.ByScore, args.Min, args.Max = true, rest[0], rest[1]
		rest = rest[2:]
	default:
		return resp.Err(msgSyntax)
	}
	count, bad := moveCount(rest)
	if bad.Kind != 0 {
		return bad
	}
	args.Count = count
	if args.ByScore {
		if bad := checkScoreRange(args.Min, args.Max); bad.Kind != 0 {
			return bad
		}
	}
	zs, err := c.st.ZMove(c.ctx, c.args[1], c.args[2], args)
	return reply(c, zs, err, movedReply)
}

// bzmove is BZMOVE source destination <MIN | MAX> timeout [COUNT count],
// checked as BZMPOP: MIN | MAX, COUNT, then the timeout. Inside MULTI it
// does not wait (the library's, in transaction mode).
func bzmove(c *call) resp.Value {
	var args redimo.ZMoveArgs
	switch sel := strings.ToUpper(c.args[3]); sel {
	case "MIN":
		args.Order = redimo.PopMin
	case "MAX":
		args.Order = redimo.PopMax
	default: // BYSCORE too: not a blocking selection
		return resp.Err(msgSyntax)
	}
	count, bad := moveCount(c.args[5:])
	if bad.Kind != 0 {
		return bad
	}
	args.Count = count
	timeout, bad := parseTimeout(c.args[4])
	if bad.Kind != 0 {
		return bad
	}
	ctx, done := c.blocking(timeout)
	defer done()
	zs, err := c.st.BZMove(ctx, timeout, c.args[1], c.args[2], args)
	return reply(c, zs, err, movedReply)
}

// zmovemember is ZMOVEMEMBER source destination [NX | XX] MEMBERS
// num-members member [member ...]: num-members must be positive and match
// the members given.
func zmovemember(c *call) resp.Value {
	var args redimo.ZMoveMemberArgs
	i := 3
	switch strings.ToUpper(c.args[i]) {
	case "NX":
		args.NX = true
		i++
	case "XX":
		args.XX = true
		i++
	}
	if i+1 >= len(c.args) || !strings.EqualFold(c.args[i], "MEMBERS") {
		return resp.Err(msgSyntax)
	}
	n, ok := parseInt(c.args[i+1])
	if !ok || n < 1 {
		return resp.Err("ERR Parameter `num-members` should be greater than 0")
	}
	if n != int64(len(c.args)-i-2) {
		return resp.Err("ERR The `num-members` parameter must match the number of arguments")
	}
	args.Members = c.args[i+2:]
	zs, err := c.st.ZMoveMember(c.ctx, c.args[1], c.args[2], args)
	return reply(c, zs, err, movedReply)
}
