package redimo

// Match reports whether s matches the Redis glob-style pattern, as the
// MATCH option of SSCAN and ZSCAN (and KEYS, CONFIG GET) does: '*' any run
// of bytes, '?' one byte, '[abc]' '[^abc]' '[a-z]' classes, '\x' the byte x.
func Match(pattern, s string) bool { return globMatch(pattern, s) }

// globMatch reports whether s matches the Redis glob-style pattern: '*'
// any run of bytes, '?' any one byte, '[abc]' '[^abc]' '[a-z]' a class,
// '\x' the byte x. Bytes, not runes, as Redis's stringmatchlen.
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
			if len(s) == 0 {
				return false
			}
			s = s[1:]
			pattern = pattern[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			rest, ok := matchClass(pattern[1:], s[0])
			if !ok {
				return false
			}
			pattern, s = rest, s[1:]
		default:
			c := pattern[0]
			if c == '\\' && len(pattern) >= 2 {
				pattern = pattern[1:]
				c = pattern[0]
			}
			if len(s) == 0 || s[0] != c {
				return false
			}
			s = s[1:]
			pattern = pattern[1:]
		}
	}
	return len(s) == 0
}

// matchClass matches b against the class that starts p (just after '[')
// and returns the pattern after the class.
func matchClass(p string, b byte) (rest string, ok bool) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	matched := false
	for len(p) > 0 && p[0] != ']' {
		switch {
		case p[0] == '\\' && len(p) >= 2:
			matched = matched || p[1] == b
			p = p[2:]
		case len(p) >= 3 && p[1] == '-':
			lo, hi := p[0], p[2]
			if lo > hi {
				lo, hi = hi, lo
			}
			matched = matched || (b >= lo && b <= hi)
			p = p[3:]
		default:
			matched = matched || p[0] == b
			p = p[1:]
		}
	}
	if len(p) > 0 { // skip ']'; an unclosed class ends the pattern, as in Redis
		p = p[1:]
	}
	return p, matched != not
}

// globPrefix is the literal prefix of a pattern: the bytes every match
// starts with, so that a scan can read only the members with that prefix.
func globPrefix(pattern string) string {
	var b []byte
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*', '?', '[':
			return string(b)
		case '\\':
			if i+1 < len(pattern) {
				i++
			}
		}
		b = append(b, pattern[i])
	}
	return string(b)
}
