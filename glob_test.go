package redimo

// The glob matcher of SSCAN/ZSCAN MATCH against Redis's own: a line-by-line
// port of stringmatchlen (util.c, Redis 7.0) is checked against a real
// redis-server (SSCAN ... MATCH over a set of candidate strings), and
// model.GlobMatch against the port, on random and fuzzed patterns.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
)

// redisGlob is Redis 7.0's stringmatchlen(pattern, s, nocase=0) ported
// line by line, the C string's NUL terminator included. signedChars
// selects how a class range compares bytes: as C chars are on x86 (signed)
// or on ARM (unsigned). SCAN's "match everything" shortcut for "*" is not
// part of it.
func redisGlob(pattern, s string, signedChars bool) bool {
	skip := false
	return stringmatchlen([]byte(pattern+"\x00"), len(pattern), []byte(s), len(s), signedChars, &skip, 0)
}

func stringmatchlen(pat []byte, plen int, str []byte, slen int, signed bool, skipLonger *bool, nesting int) bool {
	char := func(b byte) int {
		if signed {
			return int(int8(b))
		}
		return int(b)
	}
	if nesting > 1000 {
		return false
	}
	pi, si := 0, 0
	for plen > 0 && slen > 0 {
		switch pat[pi] {
		case '*':
			for plen > 0 && pat[pi+1] == '*' {
				pi++
				plen--
			}
			if plen == 1 {
				return true
			}
			for slen > 0 {
				if stringmatchlen(pat[pi+1:], plen-1, str[si:], slen, signed, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
				si++
				slen--
			}
			*skipLonger = true
			return false
		case '?':
			si++
			slen--
		case '[':
			pi++
			plen--
			not := pat[pi] == '^'
			if not {
				pi++
				plen--
			}
			match := false
			for {
				if pat[pi] == '\\' && plen >= 2 {
					pi++
					plen--
					if pat[pi] == str[si] {
						match = true
					}
				} else if pat[pi] == ']' {
					break
				} else if plen == 0 {
					pi--
					plen++
					break
				} else if plen >= 3 && pat[pi+1] == '-' {
					start, end, c := char(pat[pi]), char(pat[pi+2]), char(str[si])
					if start > end {
						start, end = end, start
					}
					pi += 2
					plen -= 2
					if c >= start && c <= end {
						match = true
					}
				} else if pat[pi] == str[si] {
					match = true
				}
				pi++
				plen--
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			si++
			slen--
		case '\\':
			if plen >= 2 {
				pi++
				plen--
			}
			fallthrough
		default:
			if pat[pi] != str[si] {
				return false
			}
			si++
			slen--
		}
		pi++
		plen--
		if slen == 0 {
			for pat[pi] == '*' {
				pi++
				plen--
			}
			break
		}
	}
	return plen == 0 && slen == 0
}

// scanMatch is what SSCAN MATCH pattern returns for member s on Redis:
// the pattern "*" skips the matcher.
func scanMatch(pattern, s string, signedChars bool) bool {
	return pattern == "*" || redisGlob(pattern, s, signedChars)
}

// globDifference names the documented ways model.GlobMatch differs from Redis's
// matcher for (pattern, s), or "" when it must agree.
func globDifference(pattern, s string) string {
	if s == "" && pattern != "" && strings.Trim(pattern, "*") == "" {
		return "a pattern of two or more stars matches the empty member (Redis: only \"\" and \"*\" do, redis/redis#15643)"
	}
	if redisGlob(pattern, s, true) != redisGlob(pattern, s, false) {
		return "class ranges compare bytes ≥ 0x80 unsigned (Redis compares C chars: signed on x86, unsigned on ARM)"
	}
	return ""
}

// Candidate members and the bytes random patterns are made of: every
// metacharacter, the class syntax, and bytes ≥ 0x80.
var (
	globAlphabet   = []string{"a", "b", "c", "*", "?", "[", "]", "^", "-", `\`, "\xff", "\x80", "é"}
	globCandidates = func() []string {
		out := []string{"", "é", "\x80", "a\xffb", "abc", "aaaa", "abab", "a-b", `a\b`, "[a]", "*a*", "]", "^", "?"}
		base := []string{"a", "b", "-", "*", "\xff"}
		for _, x := range base {
			out = append(out, x)
			for _, y := range base {
				out = append(out, x+y)
				for _, z := range []string{"a", "b", "\xff"} {
					out = append(out, x+y+z)
				}
			}
		}
		return model.Dedupe(out)
	}()
)

func randomPattern(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(9) {
		b.WriteString(globAlphabet[r.IntN(len(globAlphabet))])
	}
	return b.String()
}

// TestGlobMatchRedis runs SSCAN MATCH on a real redis-server for thousands
// of random patterns over a set of candidate members: the port must agree
// with the server on every one, and model.GlobMatch with the port except for the
// named differences.
func TestGlobMatchRedis(t *testing.T) {
	rdb := zRedis(t)
	ctx := context.Background()
	key := "glob:" + randomHex(4)
	long := strings.Repeat("a", 1010)
	members := append(slices.Clone(globCandidates), long)
	require.NoError(t, rdb.SAdd(ctx, key, anys(members...)...).Err())
	defer rdb.Del(ctx, key)

	patterns := []string{"", "*", "**", "***", "*?", "?*", "[a-\xff]", "[\xff-a]", "[\x80-\xff]", "[a-]", "[a-]b]", "[]a]", "[^]", "[^", "[", `\`, `[\`, `a\`, `\*`, `[\]]`, `[a\-c]`, "[^a-b]*",
		strings.Repeat("*a", 999) + "*", strings.Repeat("*a", 1000), strings.Repeat("*a", 1000) + "*", strings.Repeat("*a", 1001), strings.Repeat("*a", 1001) + "*"}
	r := rand.New(rand.NewPCG(5, 5))
	for range 4000 {
		patterns = append(patterns, randomPattern(r))
	}
	signed := runtime.GOARCH == "amd64" || runtime.GOARCH == "386" // the C char of the redis-server we talk to
	skipped := map[string]int{}
	for _, pat := range model.Dedupe(patterns) {
		var got []string
		for cursor := uint64(0); ; {
			// Not rdb.SScan: it leaves out MATCH for the empty pattern.
			reply, err := rdb.Do(ctx, "SSCAN", key, cursor, "MATCH", pat, "COUNT", 10000).Slice()
			require.NoError(t, err)
			for _, m := range reply[1].([]any) {
				got = append(got, m.(string))
			}
			if cursor, err = strconv.ParseUint(reply[0].(string), 10, 64); err != nil || cursor == 0 {
				require.NoError(t, err)
				break
			}
		}
		for _, s := range members {
			redisSays := slices.Contains(got, s)
			require.Equal(t, redisSays, scanMatch(pat, s, signed), "the port of stringmatchlen disagrees with redis-server on pattern %s, member %s", shortQ(pat), shortQ(s))
			if why := globDifference(pat, s); why != "" {
				skipped[why]++
				continue
			}
			require.Equal(t, redisSays, model.GlobMatch(pat, s), "globMatch disagrees with redis-server on pattern %s, member %s", shortQ(pat), shortQ(s))
		}
	}
	for why, n := range skipped {
		t.Logf("not compared (documented difference) %d times: %s", n, why)
	}
	t.Logf("%d patterns × %d members compared with SSCAN MATCH on redis-server", len(model.Dedupe(patterns)), len(members))
}

// shortQ quotes s, shortened in the middle when long.
func shortQ(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%q...(%d bytes)...%q", s[:16], len(s), s[len(s)-16:])
	}
	return strconv.Quote(s)
}

func TestGlobMatchTable(t *testing.T) {
	cases := []struct {
		pattern, s string
		match      bool
	}{
		{"", "", true}, {"", "a", false}, {"*", "", true}, {"?", "", false}, {"a*", "", false}, {"*a", "", false},
		{"a*", "a", true}, {"a**", "a", true}, {"*a*", "a", true}, {"*a*", "bab", true}, {"*a*", "bbb", false},
		{"[a-]", "-", false}, {"[a-]", "]", true}, {"[a-]b]", "]", true}, {"[a-]b]", "c", false}, {"[a-]b]", "b", true},
		{"[]a]", "]", false}, {"[]a]", "a", false}, {"[]a]", "]a]", false}, {"[]a]", "a]", false},
		{"[^", "x", true}, {"[^", "", false}, {"[ab", "b", true}, {"[ab", "bb", false},
		{`\`, `\`, true}, {`a\`, `a\`, true}, {`[\`, `\`, true}, {`[\]]`, "]", true}, {`[a\-c]`, "b", false}, {`[a\-c]`, "-", true},
		{"[a-\xff]", "\x80", true}, {"[\xff-a]", "b", true},
		{strings.Repeat("*a", 1000), strings.Repeat("a", 1000), true},
		{strings.Repeat("*a", 1001), strings.Repeat("a", 1001), false}, // Redis's matcher stops at 1000 levels
		{strings.Repeat("*a", 1000) + "*", strings.Repeat("a", 1001), true},
		{strings.Repeat(`\*a`, 1001), strings.Repeat("*a", 1001), true}, // escaped stars are no runs
	}
	for _, tc := range cases {
		require.Equal(t, tc.match, model.GlobMatch(tc.pattern, tc.s), "%s %s", shortQ(tc.pattern), shortQ(tc.s))
		if globDifference(tc.pattern, tc.s) == "" {
			require.Equal(t, tc.match, scanMatch(tc.pattern, tc.s, false), "port: %s %s", shortQ(tc.pattern), shortQ(tc.s))
		}
	}
}

// A pattern that makes a naive backtracking matcher take exponential time
// is matched in linear-times-pattern time, as Redis bounds it.
func TestGlobMatchPathological(t *testing.T) {
	s := strings.Repeat("a", model.InlineMemberLen)
	start := time.Now()
	for _, p := range []string{strings.Repeat("*a", 40) + "*b", strings.Repeat("*?", 200) + "b", strings.Repeat("*[ab]", 100) + "c"} {
		require.False(t, model.GlobMatch(p, s), p)
	}
	require.Less(t, time.Since(start), 2*time.Second)
}

// FuzzGlob: model.GlobMatch never panics, agrees with the port of Redis's
// matcher (except for the documented differences), and a pattern with no
// metacharacters, or with every byte escaped, matches exactly itself.
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{{"*", ""}, {"a*b", "axxb"}, {"[a-c]?", "bz"}, {"[^a]", "\xff"}, {`\*`, "*"}, {"[a-", "-"},
		{"*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaa"}, {"[a-\xff]", "\x80"}, {"user:*:x", "user:1:x"}, {"**", ""}, {"[]]", "]"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		got := model.GlobMatch(pattern, s)
		if globDifference(pattern, s) == "" {
			if want := scanMatch(pattern, s, false); got != want {
				t.Fatalf("globMatch(%q, %q) = %v, Redis's matcher %v", pattern, s, got, want)
			}
		}
		if !strings.ContainsAny(s, `*?[\`) {
			if !model.GlobMatch(s, s) || model.GlobMatch(s, s+"x") || (s != "" && model.GlobMatch(s, s[1:])) {
				t.Fatalf("literal pattern %q does not match exactly itself", s)
			}
		}
		var escaped strings.Builder
		for i := 0; i < len(s); i++ {
			escaped.WriteByte('\\')
			escaped.WriteByte(s[i])
		}
		if !model.GlobMatch(escaped.String(), s) || model.GlobMatch(escaped.String(), s+"x") {
			t.Fatalf("escaped pattern %q does not match exactly %q", escaped.String(), s)
		}
		if prefix := model.GlobPrefix(pattern); got && !strings.HasPrefix(s, prefix) {
			t.Fatalf("%q matches %q but does not start with the pattern's literal prefix %q", pattern, s, prefix)
		}
	})
}
