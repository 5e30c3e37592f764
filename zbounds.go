package redimo

// Parsing of sorted-set range arguments exactly as Redis 7.0 reads them:
// score bounds with C's strtod (zslParseRange), lex bounds as
// zslParseLexRange, ranks as string2ll.

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The forms C's strtod reads whole, as Redis's range parsing uses it:
// decimal and hexadecimal floats (a hexadecimal one needs no binary
// exponent) and "inf"/"infinity" in any case, each with an optional sign.
var (
	decimalFloat = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	hexFloat     = regexp.MustCompile(`^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?$`)
	infFloat     = regexp.MustCompile(`^(?i)[+-]?(inf|infinity)$`)
)

// parseFloat parses a score bound as Redis's zslParseRange reads it with
// strtod: leading white space is skipped, the rest must be one number
// (decimal, hexadecimal, "inf", "-infinity"), out-of-range values become
// ±inf or 0, the empty string is 0, and NaN is rejected.
func parseFloat(s string) (float64, bool) {
	if s == "" {
		return 0, true // strtod reads nothing and stops at the terminator
	}
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	switch {
	case infFloat.MatchString(s) && s[0] == '-':
		return math.Inf(-1), true
	case infFloat.MatchString(s):
		return math.Inf(1), true
	case decimalFloat.MatchString(s):
	case hexFloat.MatchString(s):
		if !strings.ContainsAny(s, "pP") {
			s += "p0" // Go requires the exponent strtod does not
		}
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) { // overflow gives ±inf and an error
		return 0, false
	}
	return f, true
}

// rankPattern is what Redis's string2ll accepts: no sign but '-', no
// leading zeros, no spaces.
var rankPattern = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)

// parseRank parses a ZRANGE rank as Redis does (string2ll, int64).
func parseRank(s string) (int64, bool) {
	if !rankPattern.MatchString(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// parseScoreRange parses ZRANGEBYSCORE bounds into the inclusive range
// [lo, hi]; empty when nothing can be in it.
func parseScoreRange(cmd, min, max string) (lo, hi float64, empty bool, err error) {
	parse := func(arg, s string, up bool) (float64, bool, error) {
		excl := strings.HasPrefix(s, "(")
		if excl {
			s = s[1:]
		}
		f, ok := parseFloat(s)
		if !ok {
			return 0, false, argError(cmd, arg, s, ErrNotFloat)
		}
		if !excl {
			return f, false, nil
		}
		if (up && math.IsInf(f, -1)) || (!up && math.IsInf(f, 1)) {
			return f, true, nil // nothing is above (+inf or below (-inf
		}
		if up {
			return math.Nextafter(f, math.Inf(-1)), false, nil
		}
		return math.Nextafter(f, math.Inf(1)), false, nil
	}
	lo, e1, err := parse("min", min, false)
	if err != nil {
		return 0, 0, false, err
	}
	hi, e2, err := parse("max", max, true)
	if err != nil {
		return 0, 0, false, err
	}
	return lo, hi, e1 || e2 || lo > hi, nil
}

// lexBound is a parsed ZRANGEBYLEX bound.
type lexBound struct {
	value     string
	excl      bool
	inf, ninf bool // "+", "-"
}

func parseLex(cmd, arg, s string) (lexBound, error) {
	switch {
	case s == "+":
		return lexBound{inf: true}, nil
	case s == "-":
		return lexBound{ninf: true}, nil
	case strings.HasPrefix(s, "["):
		return lexBound{value: s[1:]}, nil
	case strings.HasPrefix(s, "("):
		return lexBound{value: s[1:], excl: true}, nil
	}
	return lexBound{}, argError(cmd, arg, s, ErrSyntax)
}
