package server

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// connectionCommands are those a client sends about its connection,
// several of them when it connects.
func connectionCommands() []*Command {
	conn := keylessCommand("connection")
	client := conn("client", -2, "", "2.4.0", "A container for client connection commands.", nil)
	client.subs = map[string]*Command{}
	for _, sub := range []*Command{
		conn("client|id", 2, "noscript loading stale", "5.0.0", "Returns the unique client ID of the connection.", func(c *call) resp.Value {
			return resp.Int(c.sess.id)
		}),
		conn("client|getname", 2, "noscript loading stale", "2.6.9", "Returns the name of the connection.", func(c *call) resp.Value {
			name := c.sess.getName()
			return bulkOrNil(name, name != "")
		}),
		conn("client|setname", 3, "noscript loading stale", "2.6.9", "Sets the connection name.", func(c *call) resp.Value {
			if !validName(c.args[2]) {
				return resp.Err("ERR Client names cannot contain spaces, newlines or special characters.")
			}
			c.sess.setName(c.args[2])
			return resp.OK
		}),
		conn("client|setinfo", 4, "noscript loading stale", "7.2.0", "Sets information specific to the client or connection.", func(c *call) resp.Value {
			attr, val := strings.ToLower(c.args[2]), c.args[3]
			if attr != "lib-name" && attr != "lib-ver" {
				return resp.Err(fmt.Sprintf("ERR Unrecognized option '%s'", c.args[2]))
			}
			if !validName(val) {
				return resp.Err(fmt.Sprintf("ERR %s cannot contain spaces, newlines or special characters.", attr))
			}
			c.sess.mu.Lock()
			if attr == "lib-name" {
				c.sess.libName = val
			} else {
				c.sess.libVer = val
			}
			c.sess.mu.Unlock()
			return resp.OK
		}),
		conn("client|info", 2, "noscript loading stale", "6.2.0", "Returns information about the connection.", func(c *call) resp.Value {
			return resp.Verb(c.sess.info() + "\n")
		}),
		conn("client|list", -2, "admin noscript loading stale", "2.4.0", "Lists open connections.", func(c *call) resp.Value {
			// [TYPE type] or [ID id ...], as Redis 7.0's clientCommand;
			// every connection here is of type normal.
			keep := func(*Session) bool { return true }
			switch args := c.rest(2); {
			case len(args) == 0:
			case len(args) == 2 && strings.EqualFold(args[0], "type"):
				switch strings.ToLower(args[1]) {
				case "normal":
				case "master", "replica", "slave", "pubsub":
					keep = func(*Session) bool { return false }
				default:
					return resp.Err("ERR Unknown client type '" + args[1] + "'")
				}
			case len(args) > 1 && strings.EqualFold(args[0], "id"):
				ids := map[int64]bool{}
				for _, a := range args[1:] {
					id, err := strconv.ParseInt(a, 10, 64)
					if err != nil || id < 1 {
						return resp.Err("ERR Invalid client ID")
					}
					ids[id] = true
				}
				keep = func(s *Session) bool { return ids[s.id] }
			default:
				return resp.Err(msgSyntax)
			}
			c.srv.mu.Lock()
			var sessions []*Session
			for conn := range c.srv.conns {
				if keep(conn.sess) {
					sessions = append(sessions, conn.sess)
				}
			}
			c.srv.mu.Unlock()
			slices.SortFunc(sessions, func(a, b *Session) int { return cmp.Compare(a.id, b.id) }) // connection order, as Redis
			var b strings.Builder
			for _, s := range sessions {
				b.WriteString(s.info() + "\n")
			}
			return resp.Verb(b.String())
		}),
		conn("client|tracking", -3, "noscript loading stale", "6.0.0", "Controls server-assisted client-side caching for the connection (redimo: every key read is invalidated right after its reply).", clientTracking),
		conn("client|caching", 3, "noscript loading stale", "6.0.0", "Instructs the server whether to track the keys in the next request.", clientCaching),
		conn("client|help", 2, "loading stale", "5.0.0", "Returns helpful text about the different subcommands.", func(c *call) resp.Value {
			return help("CLIENT", "ID", "GETNAME", "SETNAME <name>", "SETINFO <LIB-NAME|LIB-VER> <value>", "INFO", "LIST", "TRACKING (ON|OFF) [OPTIN|OPTOUT] [NOLOOP]", "CACHING (YES|NO)", "HELP")
		}),
	} {
		client.subs[strings.TrimPrefix(sub.Name, "client|")] = sub
	}

	return []*Command{
		conn("ping", -1, "fast", "1.0.0", "Returns the server's liveliness response.", func(c *call) resp.Value {
			switch len(c.args) {
			case 1:
				return resp.Simple("PONG")
			case 2:
				return resp.Bulk(c.args[1])
			}
			return resp.Err("ERR wrong number of arguments for 'ping' command")
		}),
		conn("echo", 2, "fast", "1.0.0", "Returns the given string.", func(c *call) resp.Value {
			return resp.Bulk(c.args[1])
		}),
		conn("select", 2, "loading stale fast", "1.0.0", "Changes the selected database (redimo: 0 to 15, key namespaces of one table).", func(c *call) resp.Value {
			n, ok := parseInt(c.args[1])
			switch {
			case !ok:
				return resp.Err(msgNotInt)
			case n != int64(int32(n)):
				return resp.Err("ERR value is out of range, value must between -2147483648 and 2147483647")
			case n < 0 || n > redimo.MaxDB:
				return resp.Err("ERR DB index is out of range")
			}
			c.sess.db.Store(int32(n))
			return resp.OK
		}),
		conn("quit", -1, "no-auth allow-busy", "1.0.0", "Closes the connection.", func(c *call) resp.Value {
			c.sess.quit.Store(true)
			return resp.OK
		}),
		conn("auth", -2, "no-auth fast", "1.0.0", "Authenticates the connection.", auth),
		conn("hello", -1, "no-auth fast", "6.0.0", "Handshakes with the Redis server.", hello),
		client,
	}
}

// validName is Redis's validateClientName: printable ASCII, no spaces.
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return false
		}
	}
	return true
}

// authenticate checks a user and password as Redis's default user does:
// with no password configured any password is accepted (nopass).
func (c *call) authenticate(user, password string) bool {
	if user != "default" {
		return false
	}
	if c.srv.cfg.Password != "" && !c.srv.checkPassword(password) {
		return false
	}
	c.sess.authed.Store(true)
	return true
}

// auth is AUTH [username] password.
func auth(c *call) resp.Value {
	user, password := "default", ""
	switch len(c.args) {
	case 2:
		if c.srv.cfg.Password == "" {
			return resp.Err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		}
		password = c.args[1]
	case 3:
		user, password = c.args[1], c.args[2]
	default:
		return resp.Err(msgSyntax)
	}
	if !c.authenticate(user, password) {
		return resp.Err(msgWrongPass)
	}
	return resp.OK
}

// hello is HELLO [protover [AUTH username password] [SETNAME clientname]].
func hello(c *call) resp.Value {
	var proto int64
	if len(c.args) >= 2 {
		n, ok := parseInt(c.args[1])
		if !ok {
			return resp.Err("ERR Protocol version is not an integer or out of range")
		}
		if n < 2 || n > 3 {
			return resp.Err("NOPROTO unsupported protocol version")
		}
		proto = n
	}
	// Options act in order as they are read, as Redis 7.0's helloCommand:
	// an error stops at once, after what came before it.
	for j := 2; j < len(c.args); j++ {
		more := len(c.args) - 1 - j
		switch opt := c.args[j]; {
		case strings.EqualFold(opt, "auth") && more >= 2:
			if !c.authenticate(c.args[j+1], c.args[j+2]) {
				return resp.Err(msgWrongPass)
			}
			j += 2
		case strings.EqualFold(opt, "setname") && more >= 1:
			if !validName(c.args[j+1]) {
				return resp.Err("ERR Client names cannot contain spaces, newlines or special characters.")
			}
			c.sess.setName(c.args[j+1])
			j++
		default:
			return resp.Err(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", opt))
		}
	}
	if !c.sess.Authenticated() {
		return resp.Err("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
	}
	if proto != 0 {
		c.sess.proto.Store(int32(proto))
	}
	return resp.MapOf(
		resp.Bulk("server"), resp.Bulk("redis"),
		resp.Bulk("version"), resp.Bulk(RedisVersion),
		resp.Bulk("proto"), resp.Int(int64(c.sess.Proto())),
		resp.Bulk("id"), resp.Int(c.sess.id),
		resp.Bulk("mode"), resp.Bulk("standalone"),
		resp.Bulk("role"), resp.Bulk("master"),
		resp.Bulk("modules"), resp.Arr(),
	)
}

// help is the reply of a container's HELP subcommand.
func help(container string, lines ...string) resp.Value {
	out := []string{container + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"}
	out = append(out, lines...)
	vs := make([]resp.Value, len(out))
	for i, l := range out {
		vs[i] = resp.Simple(l)
	}
	return resp.Arr(vs...)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
