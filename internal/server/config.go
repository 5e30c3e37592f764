package server

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/resp"
)

// CONFIG GET and CONFIG SET read and write the parameters of params, as
// Redis 7.0 names, parses and reports them. What CONFIG SET sets is
// remembered by the Server for the life of the process (no config file,
// no CONFIG REWRITE). The encoding thresholds decide what OBJECT ENCODING
// answers (encodingLimits); the others change nothing: redimo has no
// persistence and no memory limit of its own. The
// parameters the server does act on (port, maxclients, timeout,
// databases) are set by its flags and refused by CONFIG SET as Redis
// refuses an immutable one.

// paramKind is how a parameter's value is parsed (Redis 7.0's config.c).
type paramKind int

const (
	paramFixed   paramKind = iota // reported, not settable: "can't set immutable config"
	paramSize                     // an integer from 0 to LONG_MAX, as string2ll parses it
	paramMemory                   // bytes, with an optional unit (memtoull): k, kb, m, mb, g, gb
	paramMemSize                  // a paramMemory from 0 to LONG_MAX (a listpack's largest value)
	paramBool                     // yes or no, in any case
	paramSave                     // save's "seconds changes [seconds changes ...]" or ""
)

// param is one parameter. An alias (zset-max-ziplist-entries) is a param
// of its own, as in Redis 7.0 (CONFIG GET lists both, and CONFIG SET of a
// name and its alias in one call is no "duplicate parameter"), sharing
// its value with the parameter it names (key).
type param struct {
	name string
	key  string // the name its value is stored under
	kind paramKind
	def  string
	// fixed reports a paramFixed parameter's value.
	fixed func(*Server) string
}

// params are the parameters CONFIG GET reports and CONFIG SET accepts,
// in the order CONFIG GET lists them. set-max-listpack-entries and
// set-max-listpack-value are Redis 7.2's (7.0 refuses them as unknown).
var params = func() []*param {
	size := func(name, def string) *param { return &param{name: name, key: name, kind: paramSize, def: def} }
	alias := func(name string, of *param) *param { a := *of; a.name = name; return &a }
	fixed := func(name string, f func(*Server) string) *param {
		return &param{name: name, key: name, kind: paramFixed, fixed: f}
	}
	zsetEntries := size("zset-max-listpack-entries", "128")
	memSize := func(name, def string) *param { return &param{name: name, key: name, kind: paramMemSize, def: def} }
	zsetValue := memSize("zset-max-listpack-value", "64")
	return []*param{
		{name: "appendonly", key: "appendonly", kind: paramBool, def: "no"},
		fixed("databases", func(*Server) string { return "16" }),
		fixed("maxclients", func(s *Server) string { return itoa(int64(s.cfg.MaxClients)) }),
		{name: "maxmemory", key: "maxmemory", kind: paramMemory, def: "0"},
		fixed("port", func(s *Server) string { return itoa(int64(s.cfg.Port)) }),
		{name: "save", key: "save", kind: paramSave, def: ""},
		size("set-max-intset-entries", "512"),
		size("set-max-listpack-entries", "128"),
		memSize("set-max-listpack-value", "64"),
		fixed("timeout", func(s *Server) string { return itoa(int64(s.cfg.IdleTimeout / time.Second)) }),
		zsetEntries, zsetValue,
		alias("zset-max-ziplist-entries", zsetEntries),
		alias("zset-max-ziplist-value", zsetValue),
	}
}()

// lookupParam finds a parameter by name, ignoring case, as Redis.
func lookupParam(name string) *param {
	name = strings.ToLower(name)
	for _, p := range params {
		if p.name == name {
			return p
		}
	}
	return nil
}

// settings are the values CONFIG SET gave, by param key; the zero value
// holds none (every parameter at its default).
type settings struct {
	mu   sync.Mutex
	vals map[string]string
}

// paramValue is the parameter's current value, as CONFIG GET reports it.
func (s *Server) paramValue(p *param) string {
	if p.kind == paramFixed {
		return p.fixed(s)
	}
	s.settings.mu.Lock()
	defer s.settings.mu.Unlock()
	if v, ok := s.settings.vals[p.key]; ok {
		return v
	}
	return p.def
}

// encodingLimits are the encoding thresholds CONFIG SET gave (or their
// defaults), for OBJECT ENCODING (redimo.Client.ObjectEncodingWith).
func (s *Server) encodingLimits() redimo.EncodingLimits {
	get := func(name string) int64 {
		n, _ := strconv.ParseInt(s.paramValue(lookupParam(name)), 10, 64) // stored as parse returned it
		return n
	}
	return redimo.EncodingLimits{
		SetMaxIntsetEntries:    get("set-max-intset-entries"),
		SetMaxListpackEntries:  get("set-max-listpack-entries"),
		SetMaxListpackValue:    get("set-max-listpack-value"),
		ZSetMaxListpackEntries: get("zset-max-listpack-entries"),
		ZSetMaxListpackValue:   get("zset-max-listpack-value"),
	}
}

// configGet is CONFIG GET pattern [pattern ...]: each parameter that one
// of the glob patterns matches, once, named as asked when the pattern is
// a plain name (as Redis 7.0).
func configGet(c *call) resp.Value {
	var kv []resp.Value
	for _, p := range params {
		for _, pat := range c.rest(2) {
			if redimo.Match(strings.ToLower(pat), p.name) {
				name := p.name
				if !strings.ContainsAny(pat, "*?[\\") {
					name = pat // a name, not a pattern: Redis replies it as asked
				}
				kv = append(kv, resp.Bulk(name), resp.Bulk(c.srv.paramValue(p)))
				break
			}
		}
	}
	return resp.MapOf(kv...)
}

// configSet is CONFIG SET name value [name value ...], checked as Redis
// 7.0's configSetCommand: every name first (the first unknown, immutable
// or repeated one is the error), then every value; nothing is set unless
// all are good, and then all are, at once.
func configSet(c *call) resp.Value {
	args := c.rest(2)
	if len(args)%2 != 0 {
		return resp.Err(msgSyntax)
	}
	failed := func(name, why string) resp.Value {
		return resp.Err("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why)
	}
	set := make([]*param, len(args)/2)
	for i := range set {
		name := args[2*i]
		p := lookupParam(name)
		switch {
		case p == nil:
			return resp.Err("ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'")
		case p.kind == paramFixed:
			return failed(name, "can't set immutable config")
		}
		for _, q := range set[:i] {
			if q == p {
				return failed(name, "duplicate parameter")
			}
		}
		set[i] = p
	}
	vals := make([]string, len(set))
	for i, p := range set {
		v, why := p.parse(args[2*i+1])
		if why != "" {
			return failed(p.name, why) // Redis names the parameter here, not the argument
		}
		vals[i] = v
	}
	s := &c.srv.settings
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vals == nil {
		s.vals = map[string]string{}
	}
	for i, p := range set {
		s.vals[p.key] = vals[i]
	}
	return resp.OK
}

// parse checks a value for the parameter as Redis 7.0 does, returning it
// as CONFIG GET will report it, or Redis's reason for refusing it.
func (p *param) parse(v string) (string, string) {
	switch p.kind {
	case paramSize:
		n, ok := parseInt(v)
		if !ok {
			return "", "argument couldn't be parsed into an integer"
		}
		if n < 0 {
			return "", "argument must be between 0 and 9223372036854775807 inclusive"
		}
		return itoa(n), ""
	case paramMemory, paramMemSize:
		n, ok := memtoull(v)
		if !ok {
			return "", "argument must be a memory value"
		}
		if p.kind == paramMemSize && n > math.MaxInt64 {
			return "", "argument must be between 0 and 9223372036854775807 inclusive"
		}
		return strconv.FormatUint(n, 10), ""
	case paramBool:
		switch strings.ToLower(v) {
		case "yes", "no":
			return strings.ToLower(v), ""
		}
		return "", "argument must be 'yes' or 'no'"
	case paramSave:
		if v == "" {
			return "", ""
		}
		// Split on single spaces (sdssplitlen), each field read by strtoll.
		fields := strings.Split(v, " ")
		if len(fields)%2 != 0 {
			return "", "Invalid save parameters"
		}
		out := make([]string, len(fields))
		for j, f := range fields {
			n, ok := strtoll(f)
			if !ok || (j%2 == 0 && n < 1) || (j%2 == 1 && n < 0) {
				return "", "Invalid save parameters"
			}
			out[j] = itoa(n)
		}
		return strings.Join(out, " "), ""
	}
	return "", "can't set immutable config"
}

// memtoull parses a memory value as Redis 7.0's memtoull: digits, then
// nothing, b, k, kb, m, mb, g or gb in any case (k is 1000, kb 1024).
// As there, digits beyond the range of an unsigned long long are its
// largest value (strtoull), and the unit's product wraps around.
func memtoull(s string) (uint64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	mul := uint64(1)
	switch strings.ToLower(s[i:]) {
	case "", "b":
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i == 0 {
		return 0, true // strtoull of "" is 0, unrefused
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil {
		n = math.MaxUint64 // only a range error: s[:i] is digits
	}
	return n * mul, true
}

// strtoll is C's strtoll(s, &end, 10) accepted only when end reaches the
// end of s: leading white space and a sign allowed; "" is 0.
func strtoll(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if t == "" {
		return 0, s == ""
	}
	n, err := strconv.ParseInt(t, 10, 64)
	return n, err == nil
}
