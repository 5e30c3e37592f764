package server

import (
	"iter"
	"strings"

	"github.com/redimo-go/redimo/internal/redisarg"
	"github.com/redimo-go/redimo/internal/resp"
)

// SCAN, SSCAN and ZSCAN's arguments, and the one-key scans' reply.

const msgInvalidCursor = "ERR invalid cursor"

// scanOpts are a scan's options.
type scanOpts struct {
	match, typ string
	count      int64
}

// scanOptions parses [MATCH pattern] [COUNT count], and [TYPE type] when
// withType (SCAN); a non-zero bad is the error reply.
func scanOptions(opts []string, withType bool) (o scanOpts, bad resp.Value) {
	for i := 0; i < len(opts); i += 2 {
		more := len(opts) - i - 1
		switch {
		case strings.EqualFold(opts[i], "count") && more >= 1:
			n, ok := parseInt(opts[i+1])
			if !ok {
				return o, resp.Err(msgNotInt)
			}
			if n < 1 {
				return o, resp.Err(msgSyntax)
			}
			o.count = n
		case strings.EqualFold(opts[i], "match") && more >= 1:
			o.match = opts[i+1]
		case withType && strings.EqualFold(opts[i], "type") && more >= 1:
			o.typ = opts[i+1]
			if o.typ == "" {
				o.typ = "\x00" // no type has an empty name: nothing matches
			}
		default:
			return o, resp.Err(msgSyntax)
		}
	}
	return o, resp.Value{}
}

// memberScan is SSCAN or ZSCAN key cursor [MATCH pattern] [COUNT count] on
// a key of type typ. The library's scan has no resumable cursor, so cursor
// 0 answers every matching member at once (all's elements) with the next
// cursor 0 (COUNT is checked, then ignored: Redis too may return more than
// COUNT); another cursor, which redimo never hands out, answers none.
// Redis looks the key up before it reads the options.
func memberScan(c *call, typ string, all func(match string) ([]string, error)) resp.Value {
	cursor, ok := redisarg.Cursor(c.args[2])
	if !ok {
		return resp.Err(msgInvalidCursor)
	}
	o, bad := scanOptions(c.args[3:], false)
	if bad.Kind != 0 || cursor != 0 {
		t, err := c.db.Type(c.ctx, c.args[1])
		switch {
		case err != nil:
			return c.fail(err)
		case t == "none":
			return scanReply(nil)
		case t != typ:
			return resp.Err(msgWrongType)
		case bad.Kind != 0:
			return bad
		}
		return scanReply(nil)
	}
	elems, err := all(o.match)
	return reply(c, elems, err, scanReply)
}

// gather collects the elements each value of seq gives, up to the first
// error.
func gather[T any](seq iter.Seq2[T, error], elems func(T) []string) ([]string, error) {
	var out []string
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, elems(v)...)
	}
	return out, nil
}

func scanReply(elems []string) resp.Value { return resp.Arr(resp.Bulk("0"), resp.Strings(elems)) }
