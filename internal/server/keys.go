package server

import (
	"github.com/redimo-go/redimo/internal/resp"
)

// keyCommands are the commands on keys of any type.
//
// The expiry commands (EXPIRE, TTL, ...) go in a family of their own: see
// families.
func keyCommands() []*Command {
	del := func(c *call) resp.Value {
		n, err := c.st.Del(c.ctx, c.rest(1)...)
		return reply(c, n, err, resp.Int)
	}
	return []*Command{
		{Name: "del", Arity: -2, Flags: []string{"write"}, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "1.0.0",
			Summary: "Deletes one or more keys.", run: del},
		{Name: "unlink", Arity: -2, Flags: []string{"write", "fast"}, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "4.0.0",
			Summary: "Deletes one or more keys (as DEL: redimo has no background deletion).", run: del},
		{Name: "exists", Arity: -2, Flags: []string{"readonly", "fast"}, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "1.0.0",
			Summary: "Determines whether one or more keys exist.", run: func(c *call) resp.Value {
				n, err := c.st.Exists(c.ctx, c.rest(1)...)
				return reply(c, n, err, resp.Int)
			}},
		{Name: "type", Arity: 2, Flags: []string{"readonly", "fast"}, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.0.0",
			Summary: "Determines the type of value stored at a key.", run: func(c *call) resp.Value {
				t, err := c.st.Type(c.ctx, c.args[1])
				return reply(c, t, err, resp.Simple)
			}},
	}
}
