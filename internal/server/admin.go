package server

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// serverCommands are COMMAND, INFO, CONFIG (config.go) and TIME: what clients and
// tools (redis-cli, redis-benchmark) ask about the server.
func serverCommands() []*Command {
	srv := keylessCommand("server")
	command := srv("command", -1, "loading stale", "2.8.13", "Returns detailed information about all commands.", func(c *call) resp.Value {
		all := Commands()
		out := make([]resp.Value, len(all))
		for i, cmd := range all {
			out[i] = cmd.info()
		}
		return resp.Arr(out...)
	})
	command.subs = map[string]*Command{}
	for _, sub := range []*Command{
		srv("command|count", 2, "loading stale", "2.8.13", "Returns a count of commands.", func(c *call) resp.Value {
			return resp.Int(int64(len(table)))
		}),
		srv("command|list", -2, "loading stale", "7.0.0", "Returns a list of command names.", func(c *call) resp.Value {
			// FILTERBY MODULE name (redimo has no modules) | ACLCAT
			// category | PATTERN glob (ignoring case), as Redis.
			keep := func(*Command) bool { return true }
			switch args := c.rest(2); {
			case len(args) == 0:
			case len(args) != 3 || !strings.EqualFold(args[0], "filterby"):
				return resp.Err(msgSyntax)
			case strings.EqualFold(args[1], "module"):
				keep = func(*Command) bool { return false }
			case strings.EqualFold(args[1], "aclcat"):
				keep = func(cmd *Command) bool { return slices.Contains(cmd.aclCategories(), strings.ToLower(args[2])) }
			case strings.EqualFold(args[1], "pattern"):
				keep = func(cmd *Command) bool { return redimo.Match(strings.ToLower(args[2]), cmd.Name) }
			default:
				return resp.Err(msgSyntax)
			}
			var names []string
			for _, cmd := range Commands() {
				if keep(cmd) {
					names = append(names, cmd.Name)
				}
			}
			return resp.Strings(names)
		}),
		srv("command|info", -2, "loading stale", "2.8.13", "Returns information about one, multiple or all commands.", func(c *call) resp.Value {
			names := c.rest(2)
			if len(names) == 0 {
				for _, cmd := range Commands() {
					names = append(names, cmd.Name)
				}
			}
			out := make([]resp.Value, len(names))
			for i, n := range names {
				if cmd := findCommand(n); cmd != nil {
					out[i] = cmd.info()
				} else {
					out[i] = resp.Nil() // Redis: a null bulk string ($-1, RESP3 _)
				}
			}
			return resp.Arr(out...)
		}),
		srv("command|docs", -2, "loading stale", "7.0.0", "Returns documentary information about one, multiple or all commands.", func(c *call) resp.Value {
			var cmds []*Command
			if len(c.args) == 2 {
				cmds = Commands()
			}
			for _, n := range c.rest(2) {
				if cmd := findCommand(n); cmd != nil {
					cmds = append(cmds, cmd)
				}
			}
			var kv []resp.Value
			for _, cmd := range cmds {
				kv = append(kv, resp.Bulk(cmd.Name), cmd.docs())
			}
			return resp.MapOf(kv...)
		}),
		srv("command|help", 2, "loading stale", "5.0.0", "Returns helpful text about the different subcommands.", func(c *call) resp.Value {
			return help("COMMAND", "(no subcommand)", "COUNT", "LIST", "INFO [<command-name> ...]", "DOCS [<command-name> ...]", "HELP")
		}),
	} {
		command.subs[strings.TrimPrefix(sub.Name, "command|")] = sub
	}

	config := srv("config", -2, "", "2.0.0", "A container for server configuration commands.", nil)
	config.subs = map[string]*Command{
		"get":       srv("config|get", -3, "admin noscript loading stale", "2.0.0", "Returns the effective values of configuration parameters.", configGet),
		"set":       srv("config|set", -4, "admin noscript loading stale", "2.0.0", "Sets configuration parameters in-flight.", configSet),
		"resetstat": srv("config|resetstat", 2, "admin noscript loading stale", "2.0.0", "Resets the server's statistics.", configResetstat),
		"help": srv("config|help", 2, "loading stale", "5.0.0", "Returns helpful text about the different subcommands.", func(c *call) resp.Value {
			return help("CONFIG", "GET <pattern> [<pattern> ...]", "SET <directive> <value> [<directive> <value> ...]", "RESETSTAT", "HELP")
		}),
	}

	return []*Command{
		command, config,
		srv("info", -1, "loading stale", "1.0.0", "Returns information and statistics about the server.", info),
		srv("time", 1, "loading stale fast", "2.6.0", "Returns the server time.", func(c *call) resp.Value {
			now := time.Now()
			return resp.Arr(resp.Bulk(itoa(now.Unix())), resp.Bulk(itoa(int64(now.Nanosecond()/1000))))
		}),
	}
}

// findCommand finds a command or "container|subcommand" by name.
func findCommand(name string) *Command {
	name = strings.ToLower(name)
	if parent, sub, ok := strings.Cut(name, "|"); ok {
		if cmd := table[parent]; cmd != nil && cmd.subs != nil {
			return cmd.subs[sub]
		}
		return nil
	}
	return table[name]
}

func (cmd *Command) subcommands() []*Command {
	var out []*Command
	for _, s := range cmd.subs {
		out = append(out, s)
	}
	sortCommands(out)
	return out
}

// info is the command's COMMAND INFO entry: name, arity, flags, first
// key, last key, step, ACL categories, tips, key specs (none listed),
// subcommands.
func (cmd *Command) info() resp.Value {
	flags := make([]resp.Value, len(cmd.Flags))
	for i, f := range cmd.Flags {
		flags[i] = resp.Simple(f)
	}
	var cats []resp.Value
	for _, c := range cmd.aclCategories() {
		cats = append(cats, resp.Simple("@"+c))
	}
	var subs []resp.Value
	for _, s := range cmd.subcommands() {
		subs = append(subs, s.info())
	}
	return resp.Arr(
		resp.Bulk(cmd.Name), resp.Int(int64(cmd.Arity)),
		resp.Value{Kind: resp.Set, Elems: flags},
		resp.Int(int64(cmd.FirstKey)), resp.Int(int64(cmd.LastKey)), resp.Int(int64(cmd.Step)),
		resp.Value{Kind: resp.Set, Elems: cats},
		// Tips, key specs (none listed) and subcommands: sets in RESP3,
		// as Redis's addReplySetLen.
		resp.Value{Kind: resp.Set}, resp.Value{Kind: resp.Set}, resp.Value{Kind: resp.Set, Elems: subs},
	)
}

// aclCategories are the command's ACL categories, without their "@".
func (cmd *Command) aclCategories() []string {
	cats := []string{cmd.category()}
	for _, f := range cmd.Flags {
		switch f {
		case "write", "fast":
			cats = append(cats, f)
		case "readonly":
			cats = append(cats, "read")
		}
	}
	return cats
}

func (cmd *Command) category() string {
	switch cmd.Group {
	case "set", "connection":
		return cmd.Group
	case "sorted-set":
		return "sortedset"
	case "generic":
		return "keyspace"
	case "transactions":
		return "transaction"
	}
	return "slow"
}

// docs is the command's COMMAND DOCS entry: summary, since, group and
// the subcommands' entries (no argument specs).
func (cmd *Command) docs() resp.Value {
	kv := []resp.Value{
		resp.Bulk("summary"), resp.Bulk(cmd.Summary),
		resp.Bulk("since"), resp.Bulk(cmd.Since),
		resp.Bulk("group"), resp.Bulk(cmd.Group),
	}
	if cmd.subs != nil {
		var subs []resp.Value
		for _, s := range cmd.subcommands() {
			subs = append(subs, resp.Bulk(s.Name), s.docs())
		}
		kv = append(kv, resp.Bulk("subcommands"), resp.MapOf(subs...))
	}
	return resp.MapOf(kv...)
}

// configResetstat is CONFIG RESETSTAT: as Redis's, it zeroes what INFO
// commandstats and INFO stats count (and the Prometheus counters built
// on them, which Prometheus reads as a counter reset).
func configResetstat(c *call) resp.Value {
	s := c.srv
	s.stats.reset()
	s.commands.Store(0)
	s.accepted.Store(0)
	s.rejected.Store(0)
	return resp.Simple("OK")
}

// info is INFO [section ...]: sections server, clients, stats, keyspace
// (db0:keys=N,expires=M,avg_ttl=0, read from the key index at most every
// keyspaceTTL; avg_ttl is not computed; not among the default sections,
// unlike Redis's: see below) and redimo.
func info(c *call) resp.Value {
	s := c.srv
	s.mu.Lock()
	clients := len(s.conns)
	s.mu.Unlock()
	exe, _ := os.Executable()
	up := time.Since(s.started)
	sections := []struct {
		name     string
		lines    [][2]string
		optional bool // only when asked for by name, "all" or "everything", as in Redis
	}{
		{"Server", [][2]string{
			{"redis_version", RedisVersion},
			{"redis_mode", "standalone"},
			{"redimo_server", "redimo-server (github.com/redimo-go/redimo)"},
			{"os", runtime.GOOS + " " + runtime.GOARCH},
			{"arch_bits", fmt.Sprint(32 << (^uint(0) >> 63))},
			{"go_version", runtime.Version()},
			{"process_id", fmt.Sprint(os.Getpid())},
			{"run_id", s.runID},
			{"tcp_port", fmt.Sprint(s.cfg.Port)},
			{"server_time_usec", fmt.Sprint(time.Now().UnixMicro())},
			{"uptime_in_seconds", fmt.Sprint(int64(up.Seconds()))},
			{"uptime_in_days", fmt.Sprint(int64(up.Hours() / 24))},
			{"executable", exe},
		}, false},
		{"Clients", [][2]string{
			{"connected_clients", fmt.Sprint(clients)},
			{"cluster_connections", "0"},
			{"maxclients", fmt.Sprint(s.cfg.MaxClients)},
			{"blocked_clients", fmt.Sprint(s.blockedClients.Load())},
			{"tracking_clients", fmt.Sprint(s.trackingClients.Load())},
			{"clients_in_timeout_table", fmt.Sprint(s.timeoutClients.Load())},
		}, false},
		{"Stats", [][2]string{
			{"total_connections_received", fmt.Sprint(s.accepted.Load())},
			{"total_commands_processed", fmt.Sprint(s.commands.Load())},
			{"rejected_connections", fmt.Sprint(s.rejected.Load())},
		}, false},
		{"Commandstats", s.commandstatsLines(), true},
		// Redis lists Keyspace by default; here counting it reads the
		// whole key index of the 16 databases (256 Query pages at least),
		// and clients send INFO on connect (ioredis's ready check), so it
		// comes only when asked for by name, "all" or "everything".
		{"Keyspace", nil, true},
		{"Redimo", s.cfg.Info, false},
	}
	want := map[string]bool{}
	for _, a := range c.rest(1) {
		want[strings.ToLower(a)] = true
	}
	all := want["all"] || want["everything"]
	def := len(want) == 0 || want["default"]
	var b strings.Builder
	for _, sec := range sections {
		if !all && !(def && !sec.optional) && !want[strings.ToLower(sec.name)] {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("# " + sec.name + "\r\n")
		if sec.name == "Keyspace" {
			sts, err := s.stats.keyspace.get(c.ctx, s.dbs[:])
			if err != nil {
				return c.fail(err)
			}
			for n, st := range sts {
				if st.Keys > 0 { // Redis lists the databases that have keys
					sec.lines = append(sec.lines, [2]string{fmt.Sprintf("db%d", n), fmt.Sprintf("keys=%d,expires=%d,avg_ttl=0", st.Keys, st.Expires)})
				}
			}
		}
		for _, l := range sec.lines {
			b.WriteString(l[0] + ":" + l[1] + "\r\n")
		}
	}
	return resp.Verb(b.String())
}
