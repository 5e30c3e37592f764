package server

import "sort"

// globMatch reports whether s matches the Redis glob-style pattern ('*',
// '?', '[...]' classes with '^' and ranges, '\' escapes), as CONFIG GET
// matches parameter names.
func globMatch(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 1 && pattern[1] == '*' {
				pattern = pattern[1:]
			}
			if len(pattern) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if globMatch(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		case '[':
			if s == "" {
				return false
			}
			p := pattern[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			match := false
			for len(p) > 0 && p[0] != ']' {
				switch {
				case p[0] == '\\' && len(p) > 1:
					match = match || p[1] == s[0]
					p = p[2:]
				case len(p) > 2 && p[1] == '-':
					lo, hi := p[0], p[2]
					if lo > hi {
						lo, hi = hi, lo
					}
					match = match || s[0] >= lo && s[0] <= hi
					p = p[3:]
				default:
					match = match || p[0] == s[0]
					p = p[1:]
				}
			}
			if match == not {
				return false
			}
			if len(p) == 0 { // unterminated class: Redis treats the end as ']'
				pattern = "]"
			} else {
				pattern = p
			}
		case '\\':
			if len(pattern) > 1 {
				pattern = pattern[1:]
			}
			fallthrough
		default:
			if s == "" || pattern[0] != s[0] {
				return false
			}
		}
		pattern, s = pattern[1:], s[1:]
	}
	return s == ""
}

func sortCommands(cmds []*Command) {
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
}
