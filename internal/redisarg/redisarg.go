// Package redisarg reads command arguments as Redis 7.0 reads them: numbers
// with C's strtod (scores, increments, weights, range bounds, timeouts),
// integers with string2ll, and ZRANGEBYLEX bounds as zslParseLexRange.
//
// SCAN cursors are read with strtoul (Cursor).
//
// It is the one grammar for both the library, whose range methods take
// Redis's bound strings ("(1.5", "-inf", "[a"), and redimo-server, which
// reads every argument from the wire. It is internal rather than exported
// by redimo: the library's API takes Go values (float64, int64) except
// where Redis's bound syntax is the value, and a Go caller has no use for
// Redis's number grammar of its own.
package redisarg

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The forms C's strtod reads whole: decimal and hexadecimal floats (a
// hexadecimal one needs no binary exponent) and "inf"/"infinity" in any
// case, each with an optional sign. NaN is not among them: Redis refuses it
// everywhere it reads a number.
var (
	decimalFloat = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	hexFloat     = regexp.MustCompile(`^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?$`)
	infFloat     = regexp.MustCompile(`^(?i)[+-]?(inf|infinity)$`)
)

// Strtod parses all of s as C's strtod, without skipping leading white
// space. An overflow is ±Inf with overflow set; an underflow to zero sets
// underflow. ok is false when s is not one number (NaN included).
func Strtod(s string) (f float64, overflow, underflow, ok bool) {
	switch {
	case infFloat.MatchString(s):
		if s[0] == '-' {
			return math.Inf(-1), false, false, true
		}
		return math.Inf(1), false, false, true
	case decimalFloat.MatchString(s):
	case hexFloat.MatchString(s):
		if !strings.ContainsAny(s, "pP") {
			s += "p0" // Go requires the exponent strtod does not
		}
	default:
		return 0, false, false, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) { // overflow gives ±Inf and an error
		return 0, false, false, false
	}
	if math.IsInf(f, 0) {
		return f, true, false, true
	}
	if f == 0 { // zero, or an underflow if the mantissa has a non-zero digit
		mant, exp, digits := strings.TrimLeft(s, "+-"), "eE", "123456789"
		if len(mant) > 1 && (mant[1] == 'x' || mant[1] == 'X') {
			mant, exp, digits = mant[2:], "pP", "123456789abcdefABCDEF"
		}
		if i := strings.IndexAny(mant, exp); i >= 0 {
			mant = mant[:i]
		}
		underflow = strings.ContainsAny(mant, digits)
	}
	return f, false, underflow, true
}

// Float parses a score, increment or weight as Redis's
// getDoubleFromObject: no leading white space, no overflow, no underflow
// to zero, not NaN ("inf" is fine).
func Float(s string) (float64, bool) {
	if s == "" || IsSpace(s[0]) {
		return 0, false
	}
	f, over, under, ok := Strtod(s)
	return f, ok && !over && !under
}

// BoundFloat parses the number of a score range bound (after any '(') as
// Redis's zslParseRange reads it with strtod: leading white space is
// skipped, the rest must be one number, out-of-range values become ±Inf or
// 0, and the empty string is 0 (strtod reads nothing and stops at the
// terminator).
func BoundFloat(s string) (float64, bool) {
	if s == "" {
		return 0, true
	}
	f, _, _, ok := Strtod(strings.TrimLeft(s, " \t\n\v\f\r")) // all spaces: nothing parsed
	return f, ok
}

// ScoreBound parses a ZRANGEBYSCORE-style bound: "(1.5" is exclusive,
// anything else inclusive, the number as BoundFloat reads it.
func ScoreBound(s string) (f float64, excl, ok bool) {
	excl = strings.HasPrefix(s, "(")
	if excl {
		s = s[1:]
	}
	f, ok = BoundFloat(s)
	return f, excl, ok
}

// Int parses s as Redis's string2ll: an optional '-' and decimal digits,
// no leading zeros, white space or '+', within int64.
func Int(s string) (int64, bool) {
	if s == "" || len(s) > 20 {
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case neg && u <= 1<<63:
		return int64(-u), true // -(1<<63) wraps to itself
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

// Cursor parses a SCAN cursor as Redis 7.0's strtoul: an unsigned 64-bit
// decimal with an optional sign, a leading '-' wrapping around; "" is 0.
func Cursor(s string) (uint64, bool) {
	if s == "" {
		return 0, true
	}
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if s[i] < '0' || s[i] > '9' || u > (^uint64(0)-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if s == "" { // strtoul parses no digits: the sign is left over
		return 0, false
	}
	if neg {
		u = -u
	}
	return u, true
}

// Lex is a ZRANGEBYLEX bound: "-" (NegInf), "+" (Inf), or "[" (inclusive)
// or "(" (exclusive) followed by the member.
type Lex struct {
	Value       string
	Excl        bool
	Inf, NegInf bool
}

// LexBound parses a ZRANGEBYLEX bound as Redis's zslParseLexRangeItem.
func LexBound(s string) (Lex, bool) {
	switch {
	case s == "+":
		return Lex{Inf: true}, true
	case s == "-":
		return Lex{NegInf: true}, true
	case strings.HasPrefix(s, "["):
		return Lex{Value: s[1:]}, true
	case strings.HasPrefix(s, "("):
		return Lex{Value: s[1:], Excl: true}, true
	}
	return Lex{}, false
}

// IsSpace reports whether c is white space as C's isspace in the "C"
// locale.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
