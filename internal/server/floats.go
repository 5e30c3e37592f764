package server

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Redis reads scores with C's strtod, which accepts more than Go's
// ParseFloat in some places (hex without a 'p' exponent, leading spaces in
// range bounds, an empty bound) and less in others (underscores). These
// functions accept exactly what Redis 7.0 accepts.

var (
	decimalFloat = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	hexFloat     = regexp.MustCompile(`^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?$`)
	infFloat     = regexp.MustCompile(`^(?i)[+-]?(inf|infinity)$`)
)

// strtod parses all of s as C's strtod; overflow is ±Inf with overflow set,
// an underflow to zero sets underflow. ok is false when s is not one number
// (NaN included).
func strtod(s string) (f float64, overflow, underflow, ok bool) {
	switch {
	case infFloat.MatchString(s):
		if s[0] == '-' {
			return math.Inf(-1), false, false, true
		}
		return math.Inf(1), false, false, true
	case decimalFloat.MatchString(s):
	case hexFloat.MatchString(s):
		if !strings.ContainsAny(s, "pP") {
			s += "p0"
		}
	default:
		return 0, false, false, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
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

// parseFloat parses a score, increment or weight as Redis's
// getDoubleFromObject: no leading space, no overflow or underflow to
// zero, not NaN ("inf" is fine).
func parseFloat(s string) (float64, bool) {
	if s == "" || isSpace(s[0]) {
		return 0, false
	}
	f, over, under, ok := strtod(s)
	return f, ok && !over && !under
}

// scoreBound parses a ZRANGEBYSCORE-style bound as Redis's zslParseRange
// ("(1.5" exclusive, "-inf", leading spaces allowed, "" and "(" are 0) and
// returns it in the canonical form the library reads.
func scoreBound(s string) (string, bool) {
	excl := strings.HasPrefix(s, "(")
	if excl {
		s = s[1:]
	}
	var f float64 // strtod("") is 0 with nothing left over: a valid bound
	if s != "" {
		s = strings.TrimLeft(s, " \t\n\v\f\r")
		var ok bool
		if f, _, _, ok = strtod(s); !ok { // all spaces: nothing parsed, a space left
			return "", false
		}
	}
	var out string
	switch {
	case math.IsInf(f, 1):
		out = "+inf"
	case math.IsInf(f, -1):
		out = "-inf"
	default:
		out = strconv.FormatFloat(f, 'g', -1, 64)
	}
	if excl {
		out = "(" + out
	}
	return out, true
}

// lexBound reports whether s is a valid ZRANGEBYLEX bound: "-", "+", or
// "[" or "(" followed by the member.
func lexBound(s string) bool {
	return s == "-" || s == "+" || strings.HasPrefix(s, "[") || strings.HasPrefix(s, "(")
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
