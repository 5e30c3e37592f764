package redisarg

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// The cases were checked against redis-server 7.0.15 (ZADD, ZCOUNT,
// ZRANGE, ZRANGEBYLEX and SSCAN).

// parses checks that parse reads each of good as its value and refuses
// each of bad.
func parses[T any](t *testing.T, parse func(string) (T, bool), good map[string]T, bad []string) {
	t.Helper()
	for s, want := range good {
		got, ok := parse(s)
		require.True(t, ok, "%q", s)
		require.Equal(t, want, got, "%q", s)
	}
	for _, s := range bad {
		_, ok := parse(s)
		require.False(t, ok, "%q", s)
	}
}

func TestFloat(t *testing.T) {
	parses(t, Float, map[string]float64{
		"1": 1, "+1.5": 1.5, ".5": 0.5, "5.": 5, "0x10": 16, "0x1p3": 8, "5e-324": 5e-324, "infinity": math.Inf(1),
		"-INF": math.Inf(-1), "inf": math.Inf(1), "+Inf": math.Inf(1), "1e308": 1e308, "-0": 0, "0e5": 0, "0x0": 0,
	}, []string{"", " 1", "1 ", "x", "1e400", "-1e400", "1e-400", "nan", "NaN", "-nan", "1_0", "0x", "1e", "--1", "(1", "0x1.8p", "infinit"})
}

func TestScoreBound(t *testing.T) {
	type bound struct {
		f    float64
		excl bool
	}
	parses(t, func(s string) (bound, bool) {
		f, excl, ok := ScoreBound(s)
		return bound{f, excl}, ok
	}, map[string]bound{
		"1": {1, false}, "(1.5": {1.5, true}, "-inf": {math.Inf(-1), false}, "+inf": {math.Inf(1), false},
		"inf": {math.Inf(1), false}, "(-inf": {math.Inf(-1), true}, " 1": {1, false}, "( 1": {1, true},
		"1e400": {math.Inf(1), false}, "": {0, false}, "(": {0, true}, "0x10": {16, false}, "1e-400": {0, false},
		"-Infinity": {math.Inf(-1), false}, "-0x.8": {-0.5, false},
	}, []string{"x", "nan", "(nan", "1 ", "[1", "((1", " ", " (1", "1_0", "0x", "0x1p", "0b1"})
}

func TestStrtod(t *testing.T) {
	type result struct {
		f           float64
		over, under bool
	}
	parses(t, func(s string) (result, bool) {
		f, over, under, ok := Strtod(s)
		return result{f, over, under}, ok
	}, map[string]result{
		"1": {1, false, false}, "1e400": {math.Inf(1), true, false}, "-1e400": {math.Inf(-1), true, false},
		"1e-400": {0, false, true}, "0x1p-2000": {0, false, true}, "0e-400": {0, false, false}, "0x0p-9999": {0, false, false},
		"inf": {math.Inf(1), false, false},
	}, []string{" 1", "nan"})
}

func TestInt(t *testing.T) {
	parses(t, Int, map[string]int64{
		"0": 0, "1": 1, "-1": -1, "120": 120, "9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64,
	}, []string{"", "-", "-0", "01", "007", "00", "+1", " 1", "1 ", "1.0", "1.5", "1e3", "9223372036854775808",
		"-9223372036854775809", "99999999999999999999", "0x10", "١"})
}

func TestCursor(t *testing.T) {
	parses(t, Cursor, map[string]uint64{
		"0": 0, "": 0, "+7": 7, "007": 7, "18446744073709551615": math.MaxUint64, "-1": math.MaxUint64, "-0": 0,
	}, []string{"-", "+", "x", "1x", "18446744073709551616", "1.0"})
}

func TestLexBound(t *testing.T) {
	parses(t, LexBound, map[string]Lex{
		"-": {NegInf: true}, "+": {Inf: true}, "[a": {Value: "a"}, "(a": {Value: "a", Excl: true},
		"[": {}, "(": {Excl: true}, "[-": {Value: "-"}, "(+x": {Value: "+x", Excl: true},
	}, []string{"", "a", "+x", "-a", " [a", "inf"})
}
