package redimo

import (
	"github.com/redimo-go/redimo/internal/model"

	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/redisarg"
)

// FuzzScoreBound: the bound parser never panics, accepts what it formats,
// and exclusive bounds exclude exactly the bound.
func FuzzScoreBound(f *testing.F) {
	for _, s := range []string{"1", "(1", "-inf", "+inf", "(inf", "nan", "(abc", "", "(", "1e400", "0x1p-2", "1_0", " 1", "0x10", "-0x.8", "infinity", "1e-400"} {
		f.Add(s, "+inf")
	}
	f.Fuzz(func(t *testing.T, min, max string) {
		lo, hi, empty, err := parseScoreRange("ZCOUNT", min, max)
		if err != nil {
			require.ErrorIs(t, err, ErrNotFloat)
			return
		}
		if math.IsNaN(lo) || math.IsNaN(hi) {
			t.Fatalf("NaN bound from %q %q", min, max)
		}
		if !empty && lo > hi {
			t.Fatal("non-empty range with lo > hi")
		}
		if v, ok := redisarg.BoundFloat(min); ok {
			// Every way of writing v that strtod reads gives v back.
			for _, f := range []string{
				strconv.FormatFloat(v, 'g', -1, 64), strconv.FormatFloat(v, 'e', -1, 64),
				strconv.FormatFloat(v, 'x', -1, 64), " \t" + strconv.FormatFloat(v, 'f', -1, 64),
			} {
				if back, ok := redisarg.BoundFloat(f); !ok || back != v {
					t.Fatalf("%v formatted %q parses back as %v %v", v, f, back, ok)
				}
			}
		}
	})
}

func TestParseScoreRange(t *testing.T) {
	cases := []struct {
		min, max string
		lo, hi   float64
		empty    bool
	}{
		{"1", "2", 1, 2, false},
		{"(1", "2", math.Nextafter(1, 2), 2, false},
		{"1", "(2", 1, math.Nextafter(2, 1), false},
		{"-inf", "+inf", math.Inf(-1), math.Inf(1), false},
		{"-inf", "inf", math.Inf(-1), math.Inf(1), false},
		{"(inf", "+inf", 0, 0, true},
		{"-inf", "(-inf", 0, 0, true},
		{"(1", "(1", 0, 0, true},
		{"2", "1", 0, 0, true},
		{"1e400", "1e401", math.Inf(1), math.Inf(1), false},
		{"1e-400", "(1e-400", 0, 0, true},
		{"-1e400", "-1e400", math.Inf(-1), math.Inf(-1), false},
		// As strtod reads them (Redis 7.0 agrees, see TestZRedisBounds):
		// "" and "(" are 0, leading white space is skipped, hexadecimal
		// needs no exponent.
		{"", "1", 0, 1, false},
		{"(", "", 0, 0, true},
		{"(", "1", math.Nextafter(0, 1), 1, false},
		{" 1", "\t2", 1, 2, false},
		{"( 1", "2", math.Nextafter(1, 2), 2, false},
		{"0x10", "0X1p5", 16, 32, false},
		{"-0x.8", "0x1.", -0.5, 1, false},
		{"-Infinity", "INF", math.Inf(-1), math.Inf(1), false},
	}
	for _, tc := range cases {
		t.Run(tc.min+".."+tc.max, func(t *testing.T) {
			lo, hi, empty, err := parseScoreRange("ZCOUNT", tc.min, tc.max)
			require.NoError(t, err)
			require.Equal(t, tc.empty, empty)
			if !empty {
				require.Equal(t, tc.lo, lo)
				require.Equal(t, tc.hi, hi)
			}
		})
	}
	// What strtod refuses is ErrNotFloat, for either bound.
	for _, bad := range [][2]string{
		{"(abc", "1"}, {"nan", "1"}, {"(nan", "1"}, {"1", "1 "}, {" (1", "2"}, {"  ", "2"}, {"1_0", "2"},
		{"0x", "2"}, {"0x1p", "2"}, {"1e", "2"}, {"infinit", "2"}, {"0b1", "2"}, {"((1", "2"},
	} {
		_, _, _, err := parseScoreRange("ZCOUNT", bad[0], bad[1])
		require.ErrorIs(t, err, ErrNotFloat, "%q", bad)
		require.ErrorIs(t, err, ErrInvalidArgument, "%q", bad)
	}
}

func TestParseRank(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "1": 1, "-1": -1, "9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64, "120": 120} {
		n, ok := model.ParseRank(s)
		require.True(t, ok, s)
		require.Equal(t, want, n, s)
	}
	// Redis's string2ll rejects all of these.
	for _, s := range []string{"", "+1", "007", "00", "-0", " 1", "1 ", "1.5", "1e3", "9223372036854775808", "-9223372036854775809", "-", "0x10"} {
		_, ok := model.ParseRank(s)
		require.False(t, ok, "%q", s)
	}
}
