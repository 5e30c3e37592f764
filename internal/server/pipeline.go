package server

// Pipelines: the commands a client sends without waiting for replies wait
// in its connection's queue. Consecutive ones that are independent (data
// commands on keys no other command of the run touches) run at the same
// time, so their writes share DynamoDB transactions (the library's write
// combining) and their reads overlap; their replies are written in the
// order the commands came, and equal what running them one by one gives:
// no command of a run can see another's effect, as they touch different
// keys. Everything else (connection and server commands, MULTI and what
// follows it until EXEC or DISCARD, commands whose keys cannot be told from
// the command table, blocking commands) runs alone, in order.

import (
	"strings"
)

// maxRun bounds the commands of a connection that run at once.
const maxRun = 64

// movableKeys are data commands whose key positions the command table does
// not give (a numkeys argument says where the keys are): they run alone.
var movableKeys = map[string]bool{"zunionstore": true, "zinterstore": true, "zdiffstore": true}

// independentKeys returns the keys of a data command that may run beside
// others, and false for a command that must run alone.
func independentKeys(args []string) ([]string, bool) {
	if len(args) == 0 {
		return nil, false
	}
	cmd, _ := lookup(args)
	switch {
	case cmd == nil, cmd.FirstKey <= 0, movableKeys[cmd.Name], cmd.has("blocking"),
		!cmd.has("write") && !cmd.has("readonly"),
		cmd.Arity > 0 && len(args) != cmd.Arity, cmd.Arity < 0 && len(args) < -cmd.Arity:
		return nil, false
	}
	last := cmd.LastKey
	if last < 0 {
		last += len(args)
	}
	step := max(cmd.Step, 1)
	var keys []string
	for i := cmd.FirstKey; i <= last && i < len(args); i += step {
		keys = append(keys, args[i])
	}
	return keys, len(keys) > 0
}

// pipeline tracks what the commands of a run touch.
type pipeline struct {
	inMulti bool // between MULTI and EXEC/DISCARD: one at a time
}

// note updates the MULTI state after a command of the connection.
func (p *pipeline) note(args []string) {
	if len(args) == 0 {
		return
	}
	switch strings.ToLower(args[0]) {
	case "multi":
		p.inMulti = true
	case "exec", "discard":
		p.inMulti = false
	}
}
