package redisarg

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// The cases were checked against redis-server 7.0.15 (ZADD, ZCOUNT,
// ZRANGE and ZRANGEBYLEX).

func TestFloat(t *testing.T) {
	for s, want := range map[string]float64{
		"1": 1, "+1.5": 1.5, ".5": 0.5, "5.": 5, "0x10": 16, "0x1p3": 8, "5e-324": 5e-324, "infinity": math.Inf(1),
		"-INF": math.Inf(-1), "inf": math.Inf(1), "+Inf": math.Inf(1), "1e308": 1e308, "-0": 0, "0e5": 0, "0x0": 0,
	} {
		got, ok := Float(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"", " 1", "1 ", "x", "1e400", "-1e400", "1e-400", "nan", "NaN", "-nan", "1_0", "0x", "1e", "--1", "(1", "0x1.8p", "infinit"} {
		_, ok := Float(s)
		require.False(t, ok, s)
	}
}

func TestScoreBound(t *testing.T) {
	type bound struct {
		f    float64
		excl bool
	}
	for s, want := range map[string]bound{
		"1": {1, false}, "(1.5": {1.5, true}, "-inf": {math.Inf(-1), false}, "+inf": {math.Inf(1), false},
		"inf": {math.Inf(1), false}, "(-inf": {math.Inf(-1), true}, " 1": {1, false}, "( 1": {1, true},
		"1e400": {math.Inf(1), false}, "": {0, false}, "(": {0, true}, "0x10": {16, false}, "1e-400": {0, false},
		"-Infinity": {math.Inf(-1), false}, "-0x.8": {-0.5, false},
	} {
		f, excl, ok := ScoreBound(s)
		require.True(t, ok, s)
		require.Equal(t, want, bound{f, excl}, s)
	}
	for _, s := range []string{"x", "nan", "(nan", "1 ", "[1", "((1", " ", " (1", "1_0", "0x", "0x1p", "0b1"} {
		_, _, ok := ScoreBound(s)
		require.False(t, ok, s)
	}
}

func TestStrtod(t *testing.T) {
	for _, tc := range []struct {
		s           string
		f           float64
		over, under bool
	}{
		{"1", 1, false, false}, {"1e400", math.Inf(1), true, false}, {"-1e400", math.Inf(-1), true, false},
		{"1e-400", 0, false, true}, {"0x1p-2000", 0, false, true}, {"0e-400", 0, false, false}, {"0x0p-9999", 0, false, false},
		{"inf", math.Inf(1), false, false},
	} {
		f, over, under, ok := Strtod(tc.s)
		require.True(t, ok, tc.s)
		require.Equal(t, tc.f, f, tc.s)
		require.Equal(t, tc.over, over, tc.s)
		require.Equal(t, tc.under, under, tc.s)
	}
}

func TestInt(t *testing.T) {
	for s, want := range map[string]int64{
		"0": 0, "1": 1, "-1": -1, "120": 120, "9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64,
	} {
		got, ok := Int(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "-", "-0", "01", "007", "00", "+1", " 1", "1 ", "1.0", "1.5", "1e3", "9223372036854775808",
		"-9223372036854775809", "99999999999999999999", "0x10", "١"} {
		_, ok := Int(s)
		require.False(t, ok, s)
	}
}

func TestLexBound(t *testing.T) {
	for s, want := range map[string]Lex{
		"-": {NegInf: true}, "+": {Inf: true}, "[a": {Value: "a"}, "(a": {Value: "a", Excl: true},
		"[": {}, "(": {Excl: true}, "[-": {Value: "-"}, "(+x": {Value: "+x", Excl: true},
	} {
		got, ok := LexBound(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "a", "+x", "-a", " [a", "inf"} {
		_, ok := LexBound(s)
		require.False(t, ok, s)
	}
}

func TestCursor(t *testing.T) {
	for s, want := range map[string]uint64{
		"0": 0, "": 0, "+7": 7, "007": 7, "18446744073709551615": math.MaxUint64, "-1": math.MaxUint64, "-0": 0,
	} {
		got, ok := Cursor(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"-", "+", "x", "1x", "18446744073709551616", "1.0"} {
		_, ok := Cursor(s)
		require.False(t, ok, s)
	}
}
