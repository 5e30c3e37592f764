package server

// Pipelines: the commands a client sends without waiting for replies wait
// in its connection's queue. Consecutive ones that are independent run at
// the same time, so their writes share DynamoDB transactions (the library's
// write combining) and their reads overlap; their replies are written in
// the order the commands came, and equal what running them one by one
// gives. Two commands are independent when they touch different keys, or
// when both are member writes of one type on the same key (SADD, SREM; or
// ZADD, ZINCRBY, ZREM) naming different members: each one's reply depends
// only on its own members, so their order cannot show (redis-benchmark's
// `-P 16 -t sadd` is that case: one key, random members). Everything else
// (connection and server commands, MULTI and what follows it until EXEC
// or DISCARD, commands whose keys cannot be told from the command table,
// blocking commands) runs alone, in order.

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

// memberWrite returns, for a member write (SADD, SREM, ZADD, ZINCRBY,
// ZREM), its type family ("set" or "zset") and the members it names; ok is
// false for any other command or a malformed one.
func memberWrite(args []string) (family string, members []string, ok bool) {
	if len(args) < 3 {
		return "", nil, false
	}
	switch strings.ToLower(args[0]) {
	case "sadd", "srem":
		return "set", args[2:], true
	case "zrem":
		return "zset", args[2:], true
	case "zincrby":
		if len(args) != 4 {
			return "", nil, false
		}
		return "zset", args[3:], true
	case "zadd":
		i := 2
		for i < len(args) {
			switch strings.ToUpper(args[i]) {
			case "NX", "XX", "GT", "LT", "CH", "INCR":
				i++
				continue
			}
			break
		}
		rest := args[i:]
		if len(rest) == 0 || len(rest)%2 != 0 {
			return "", nil, false
		}
		for j := 1; j < len(rest); j += 2 {
			members = append(members, rest[j])
		}
		return "zset", members, true
	}
	return "", nil, false
}

// runKeys is what the commands of a run touch: per key, either the whole
// key ("" family), or the members written by member writes of one family.
type runKeys map[string]*keyUse

type keyUse struct {
	family  string // "" when a command uses the whole key
	members map[string]bool
	// removes: a removal (SREM, ZREM) was recorded, which may delete the
	// key; an addition after it may create the key anew (without its
	// expiry), so it cannot run with it.
	removes bool
}

// add records args's use of its keys and reports whether it is
// independent of the commands recorded before; when it is not, nothing
// is recorded.
func (u runKeys) add(args []string, keys []string) bool {
	family, members, isWrite := memberWrite(args)
	removes := isWrite && (strings.EqualFold(args[0], "srem") || strings.EqualFold(args[0], "zrem"))
	for _, k := range keys {
		prev := u[k]
		if prev == nil {
			continue
		}
		if !isWrite || len(keys) != 1 || prev.family == "" || prev.family != family || (prev.removes && !removes) {
			return false
		}
		for _, m := range members {
			if prev.members[m] {
				return false
			}
		}
	}
	for _, k := range keys {
		if !isWrite || len(keys) != 1 {
			u[k] = &keyUse{}
			continue
		}
		if u[k] == nil {
			u[k] = &keyUse{family: family, members: map[string]bool{}}
		}
		for _, m := range members {
			u[k].members[m] = true
		}
		u[k].removes = u[k].removes || removes
	}
	return true
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
