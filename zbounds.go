package redimo

// Sorted-set range arguments as Redis 7.0 reads them (score bounds with
// strtod as zslParseRange, lex bounds as zslParseLexRange, ranks as
// string2ll), in the grammar internal/redisarg owns for the library and
// redimo-server alike; here they become the library's typed errors.

import (
	"github.com/redimo-go/redimo/internal/model"

	"math"

	"github.com/redimo-go/redimo/internal/redisarg"
)

// parseScoreRange parses ZRANGEBYSCORE bounds into the inclusive range
// [lo, hi]; empty when nothing can be in it. A bound that is not a number
// is ErrNotFloat naming the argument.
func parseScoreRange(cmd, min, max string) (lo, hi float64, empty bool, err error) {
	parse := func(arg, s string, up bool) (float64, bool, error) {
		f, excl, ok := redisarg.ScoreBound(s)
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

// parseLex parses a ZRANGEBYLEX bound; anything but "-", "+", "[m" and
// "(m" is ErrSyntax naming the argument.
func parseLex(cmd, arg, s string) (model.LexBound, error) {
	b, ok := redisarg.LexBound(s)
	if !ok {
		return model.LexBound{}, argError(cmd, arg, s, ErrSyntax)
	}
	return model.LexBound{Value: b.Value, Excl: b.Excl, Inf: b.Inf, Ninf: b.NegInf}, nil
}
