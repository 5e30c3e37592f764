package server

import (
	"strconv"
	"strings"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/redisarg"
	"github.com/redimo-go/redimo/internal/resp"
)

// keyspaceCommands are the commands on the whole keyspace: SCAN, KEYS,
// DBSIZE, RANDOMKEY, FLUSHDB, FLUSHALL, TOUCH and OBJECT. Keys are listed
// from the library's key index (eventually consistent; see
// redimo.Client.Scan).
func keyspaceCommands() []*Command {
	k := keyedCommand("generic")
	object := k("object", -2, "", 0, 0, "2.2.3", "A container for object introspection commands.", nil)
	object.subs = map[string]*Command{
		"encoding": k("object|encoding", 3, "readonly", 2, 2, "2.2.3", "Returns the internal encoding of a Redis object (redimo: the one Redis 7.2 would use for the key's members, under CONFIG SET's thresholds).", func(c *call) resp.Value {
			enc, ok, err := c.st.ObjectEncodingWith(c.ctx, c.args[2], c.srv.encodingLimits())
			return reply(c, enc, err, func(s string) resp.Value { return bulkOrNil(s, ok) })
		}),
		"help": k("object|help", 2, "loading stale", 0, 0, "6.2.0", "Returns helpful text about the different subcommands.", func(c *call) resp.Value {
			return help("OBJECT",
				"ENCODING <key>",
				"    Return the kind of internal representation used in order to store the value",
				"    associated with a <key>.",
				"HELP",
				"    Prints this help.")
		}),
	}
	return []*Command{
		k("scan", -2, "readonly", 0, 0, "2.8.0", "Iterates over the key names in the database.", scan),
		k("keys", 2, "readonly", 0, 0, "1.0.0", "Returns all key names that match a pattern.", onKey((*redimo.Client).Keys, resp.Strings)),
		k("dbsize", 1, "readonly fast", 0, 0, "1.0.0", "Returns the number of keys in the database.", func(c *call) resp.Value {
			n, err := c.db.DBSize(c.ctx)
			return reply(c, n, err, resp.Int)
		}),
		k("randomkey", 1, "readonly", 0, 0, "1.0.0", "Returns a random key name from the database.", func(c *call) resp.Value {
			key, ok, err := c.db.RandomKey(c.ctx)
			return reply(c, key, err, func(s string) resp.Value { return bulkOrNil(s, ok) })
		}),
		k("flushdb", -1, "write", 0, 0, "1.0.0", "Removes all keys from the current database (redimo: key by key, ASYNC runs as SYNC).", flush),
		k("flushall", -1, "write", 0, 0, "1.0.0", "Removes all keys from all databases (redimo: key by key, ASYNC runs as SYNC).", flush),
		k("touch", -2, "readonly fast", 1, -1, "3.2.1", "Returns the number of existing keys out of those specified (redimo keeps no access time).", onKeys((*redimo.Client).Touch, resp.Int)),
		object,
		k("move", 3, "write fast", 1, 1, "1.0.0", "Moves a key to another database (redimo: refused).", func(c *call) resp.Value {
			return resp.Err("ERR MOVE is not supported by redimo-server: databases are key namespaces of one DynamoDB table, and a key cannot move between them atomically")
		}),
		k("swapdb", 3, "write fast", 0, 0, "4.0.0", "Swaps two Redis databases (redimo: refused).", func(c *call) resp.Value {
			return resp.Err("ERR SWAPDB is not supported by redimo-server: databases are key namespaces of one DynamoDB table, and cannot be swapped")
		}),
		k("rename", 3, "write", 1, 2, "1.0.0", "Renames a key and overwrites the destination (redimo: not atomic).", func(c *call) resp.Value {
			return reply(c, resp.OK, c.db.Rename(c.ctx, c.args[1], c.args[2]), func(v resp.Value) resp.Value { return v })
		}),
		k("renamenx", 3, "write fast", 1, 2, "1.0.0", "Renames a key only when the target key name doesn't exist (redimo: not atomic).", onKeyArg((*redimo.Client).RenameNX, resp.Bool)),
		k("copy", -3, "write denyoom", 1, 2, "6.2.0", "Copies the value of a key to a new key (redimo: not atomic; DB only the selected database).", copyCmd),
	}
}

// copyCmd is COPY source destination [DB destination-db] [REPLACE].
func copyCmd(c *call) resp.Value {
	replace := false
	for j := 3; j < len(c.args); j++ {
		more := len(c.args) - 1 - j
		switch {
		case strings.EqualFold(c.args[j], "replace"):
			replace = true
		case strings.EqualFold(c.args[j], "db") && more >= 1:
			j++
			n, ok := parseInt(c.args[j])
			switch {
			case !ok:
				return resp.Err(msgNotInt)
			case n < 0 || n > redimo.MaxDB:
				return resp.Err("ERR DB index is out of range")
			case n != int64(c.sess.db.Load()):
				return resp.Err("ERR COPY to another database is not supported by redimo-server")
			}
		default:
			return resp.Err(msgSyntax)
		}
	}
	ok, err := c.db.Copy(c.ctx, c.args[1], c.args[2], replace)
	return reply(c, ok, err, resp.Bool)
}

// scan is SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]: the
// cursor is a position in the key index, resumable on any server.
func scan(c *call) resp.Value {
	cursor, ok := redisarg.Cursor(c.args[1])
	if !ok {
		return resp.Err(msgInvalidCursor)
	}
	o, bad := scanOptions(c.args[2:], true)
	if bad.Kind != 0 {
		return bad
	}
	if o.match == "*" {
		o.match = ""
	}
	keys, next, err := c.db.ScanType(c.ctx, cursor, o.match, o.count, o.typ)
	if err != nil {
		return c.fail(err)
	}
	return resp.Arr(resp.Bulk(strconv.FormatUint(next, 10)), resp.Strings(keys))
}

// flush is FLUSHDB and FLUSHALL [ASYNC|SYNC].
func flush(c *call) resp.Value {
	switch {
	case len(c.args) > 2:
		return resp.Err(msgSyntax)
	case len(c.args) == 2 && !strings.EqualFold(c.args[1], "async") && !strings.EqualFold(c.args[1], "sync"):
		return resp.Err(msgSyntax)
	}
	dbs := []*redimo.Client{c.db}
	if c.cmd.Name == "flushall" {
		dbs = c.srv.dbs[:]
	}
	for _, db := range dbs {
		if err := db.FlushDB(c.ctx); err != nil {
			return c.fail(err)
		}
	}
	return resp.OK
}
