package model

// MaxGlobStars is the number of '*' runs followed by more pattern that
// Redis's matcher (stringmatchlen) follows: it recurses once per run and
// gives up beyond 1000 levels, so a pattern with more never matches.
const MaxGlobStars = 1000

// GlobMatch reports whether s matches the Redis glob-style pattern: '*'
// any run of bytes, '?' any one byte, '[abc]' '[^abc]' '[a-z]' a class,
// '\x' the byte x. Bytes, not runes, as Redis's stringmatchlen; an
// unclosed class runs to the end of the pattern, as there.
//
// It runs in O(len(pattern)·len(s)) time, whatever the pattern: on a '*'
// it remembers where to resume and, on a mismatch, only ever moves the
// latest '*' one byte further (a longer match of an earlier '*' cannot
// help once the rest failed from every later position: Redis's
// skipLongerMatches). A naive recursion takes exponential time on
// patterns like "*a*a*a*a*a*b".
func GlobMatch(pattern, s string) bool {
	if s == "" {
		// Redis's matcher reads no pattern at all for an empty string;
		// SCAN skips it for the pattern "*", which matches everything.
		// redimo also lets any run of stars match it (Redis matches the
		// empty string only with "" and "*": redis/redis#15643).
		for i := 0; i < len(pattern); i++ {
			if pattern[i] != '*' {
				return false
			}
		}
		return true
	}
	if TooManyStars(pattern) {
		return false
	}
	p, i := 0, 0
	starP, starI := -1, 0 // pattern after the latest '*' run, and where s resumes
	for i < len(s) {
		if p < len(pattern) && pattern[p] == '*' {
			for p < len(pattern) && pattern[p] == '*' {
				p++
			}
			if p == len(pattern) {
				return true
			}
			starP, starI = p, i
			continue
		}
		if p < len(pattern) {
			if next, ok := MatchOne(pattern, p, s[i]); ok {
				p, i = next, i+1
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starI++
		p, i = starP, starI
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// MatchOne matches byte b against the one-byte token of pattern at p ('?',
// a class, an escaped or plain byte; not '*') and returns where the next
// token starts.
func MatchOne(pattern string, p int, b byte) (next int, ok bool) {
	switch pattern[p] {
	case '?':
		return p + 1, true
	case '[':
		return MatchClass(pattern, p+1, b)
	case '\\':
		if p+1 < len(pattern) {
			return p + 2, pattern[p+1] == b
		}
	}
	return p + 1, pattern[p] == b
}

// MatchClass matches b against the class whose body starts at p (just
// after '[') and returns where the pattern goes on after the class.
func MatchClass(pattern string, p int, b byte) (next int, ok bool) {
	not := p < len(pattern) && pattern[p] == '^'
	if not {
		p++
	}
	matched := false
	for p < len(pattern) && pattern[p] != ']' {
		switch {
		case pattern[p] == '\\' && p+1 < len(pattern):
			matched = matched || pattern[p+1] == b
			p += 2
		case p+2 < len(pattern) && pattern[p+1] == '-':
			lo, hi := pattern[p], pattern[p+2]
			if lo > hi {
				lo, hi = hi, lo
			}
			matched = matched || (b >= lo && b <= hi)
			p += 3
		default:
			matched = matched || pattern[p] == b
			p++
		}
	}
	if p < len(pattern) { // skip ']'; an unclosed class ends the pattern, as in Redis
		p++
	}
	return p, matched != not
}

// TooManyStars reports whether pattern has more than MaxGlobStars runs of
// '*' followed by more pattern (outside classes and escapes).
func TooManyStars(pattern string) bool {
	runs := 0
	for p := 0; p < len(pattern); {
		switch pattern[p] {
		case '*':
			for p < len(pattern) && pattern[p] == '*' {
				p++
			}
			if p < len(pattern) {
				if runs++; runs > MaxGlobStars {
					return true
				}
			}
			continue
		case '[':
			// The class's extent does not depend on the byte matched.
			p, _ = MatchClass(pattern, p+1, 0)
			continue
		case '\\':
			if p+1 < len(pattern) {
				p++
			}
		}
		p++
	}
	return false
}

// GlobPrefix is the literal prefix of a pattern: the bytes every match
// starts with, so that a scan can read only the members with that prefix.
func GlobPrefix(pattern string) string {
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
