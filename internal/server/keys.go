package server

import (
	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// keyCommands are the commands on keys of any type.
//
// The expiry commands (EXPIRE, TTL, ...) go in a family of their own: see
// families.
func keyCommands() []*Command {
	k := keyedCommand("generic")
	return []*Command{
		k("del", -2, "write", 1, -1, "1.0.0", "Deletes one or more keys.", onKeys(redimo.Pipeliner.Del, resp.Int)),
		k("unlink", -2, "write fast", 1, -1, "4.0.0", "Deletes one or more keys (as DEL: redimo has no background deletion).", onKeys(redimo.Pipeliner.Del, resp.Int)),
		k("exists", -2, "readonly fast", 1, -1, "1.0.0", "Determines whether one or more keys exist.", onKeys(redimo.Pipeliner.Exists, resp.Int)),
		k("type", 2, "readonly fast", 1, 1, "1.0.0", "Determines the type of value stored at a key.", onKey(redimo.Pipeliner.Type, resp.Simple)),
	}
}
