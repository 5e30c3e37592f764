package server

import (
	"math"
	"strings"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/redisarg"
	"github.com/redimo-go/redimo/internal/resp"
)

// zpopCommands are ZMPOP and the blocking pops. A blocking pop waits in
// its connection's goroutine: other connections go on, and a client that
// disconnects cancels the wait (the connection's context ends; a member
// popped for it meanwhile goes to the next waiter or back into its key).
// The connections of one database share its Client, whose waiters on a
// key are served together, first come first served, by one pop (the
// library's zpop.go): ten blocked BZPOPMIN and a ZADD of ten members are
// ten replies a few DynamoDB requests after the ZADD.
func zpopCommands() []*Command {
	z := keyedCommand("sorted-set")
	return []*Command{
		z("zmpop", -4, "write", 0, 0, "7.0.0", "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.", func(c *call) resp.Value {
			return zmpop(c, 1, false)
		}),
		z("bzmpop", -5, "write blocking", 0, 0, "7.0.0", "Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.", func(c *call) resp.Value {
			return zmpop(c, 2, true)
		}),
		z("bzpopmin", -3, "write noscript blocking fast", 1, -2, "5.0.0", "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.", func(c *call) resp.Value {
			return bzpop(c, redimo.PopMin)
		}),
		z("bzpopmax", -3, "write noscript blocking fast", 1, -2, "5.0.0", "Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.", func(c *call) resp.Value {
			return bzpop(c, redimo.PopMax)
		}),
	}
}

// parseTimeout parses a blocking command's timeout in seconds as Redis
// 7.0's getTimeoutFromObjectOrReply: a long double times 1000, truncated
// to milliseconds (so 0.0001 is 0: wait forever). A value out of the
// range of a long long converts, as on x86-64, to its most negative value:
// "timeout is negative". (Redis 7.0 has no "timeout is out of range":
// 9223372036854775 seconds waits forever.)
func parseTimeout(s string) (time.Duration, resp.Value) {
	if s == "" || redisarg.IsSpace(s[0]) {
		return 0, resp.Err("ERR timeout is not a float or out of range")
	}
	f, _, _, ok := redisarg.Strtod(s)
	if !ok {
		return 0, resp.Err("ERR timeout is not a float or out of range")
	}
	ms := math.Trunc(f * 1000)
	if ms < 0 || ms >= math.MaxInt64 {
		return 0, resp.Err("ERR timeout is negative")
	}
	if ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, resp.Value{} // beyond what a Duration holds: forever
	}
	return time.Duration(ms) * time.Millisecond, resp.Value{}
}

// bzpop is BZPOPMIN/BZPOPMAX key [key ...] timeout: [key, member, score],
// or a null array when the timeout passes. Inside MULTI it does not wait
// (the library's, in transaction mode).
func bzpop(c *call, order redimo.PopOrder) resp.Value {
	timeout, bad := parseTimeout(c.args[len(c.args)-1])
	if bad.Kind != 0 {
		return bad
	}
	pop := c.st.BZPopMin
	if order == redimo.PopMax {
		pop = c.st.BZPopMax
	}
	ctx, done := c.blocking(timeout)
	defer done()
	z, ok, err := pop(ctx, timeout, c.args[1:len(c.args)-1]...)
	switch {
	case err != nil:
		return c.fail(err)
	case !ok:
		return resp.NilArray()
	}
	return resp.Arr(resp.Bulk(z.Key), resp.Bulk(z.Member), resp.Dbl(z.Score))
}

// zmpop is ZMPOP numkeys key [key ...] MIN|MAX [COUNT count] (at = 1) and
// BZMPOP timeout numkeys ... (at = 2), checked in Redis 7.0's order:
// numkeys, MIN|MAX, COUNT, then BZMPOP's timeout.
func zmpop(c *call, at int, blocking bool) resp.Value {
	n, ok := parseInt(c.args[at])
	if !ok || n < 1 {
		return resp.Err("ERR numkeys should be greater than 0")
	}
	if n > int64(len(c.args)-at-2) { // MIN|MAX must follow the keys
		return resp.Err(msgSyntax)
	}
	keys := c.args[at+1 : at+1+int(n)]
	where := at + 1 + int(n)
	var order redimo.PopOrder
	switch strings.ToUpper(c.args[where]) {
	case "MIN":
		order = redimo.PopMin
	case "MAX":
		order = redimo.PopMax
	default:
		return resp.Err(msgSyntax)
	}
	count := int64(-1)
	for j := where + 1; j < len(c.args); j++ {
		more := len(c.args) - 1 - j
		if count == -1 && strings.EqualFold(c.args[j], "count") && more > 0 {
			j++
			count, ok = parseInt(c.args[j])
			if !ok || count < 1 {
				return resp.Err("ERR count should be greater than 0")
			}
			continue
		}
		return resp.Err(msgSyntax)
	}
	if count == -1 {
		count = 1
	}
	var (
		key string
		zs  []redimo.Z
		err error
	)
	if blocking { // inside MULTI it does not wait (the library's, in transaction mode)
		timeout, bad := parseTimeout(c.args[1])
		if bad.Kind != 0 {
			return bad
		}
		ctx, done := c.blocking(timeout)
		defer done()
		key, zs, err = c.st.BZMPop(ctx, timeout, order, count, keys...)
	} else {
		key, zs, err = c.st.ZMPop(c.ctx, order, count, keys...)
	}
	if err != nil {
		return c.fail(err)
	}
	if len(zs) == 0 {
		return resp.NilArray()
	}
	pairs := make([]resp.Value, len(zs))
	for i, z := range zs {
		pairs[i] = resp.Arr(resp.Bulk(z.Member), resp.Dbl(z.Score))
	}
	return resp.Arr(resp.Bulk(key), resp.Arr(pairs...))
}
