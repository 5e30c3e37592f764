package redimo

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzScoreEncoding: for any two non-NaN floats, the encoding round-trips
// (bit for bit, -0 as +0), preserves order, and the index value of (score,
// member) lies in the score's BETWEEN range and orders like (score, member).
func FuzzScoreEncoding(f *testing.F) {
	for _, s := range [][2]float64{{0, math.Copysign(0, -1)}, {1e308, -1e308}, {5e-324, -5e-324}, {0.1, 0.2}, {math.Inf(1), math.Inf(-1)}, {1, 1}} {
		f.Add(math.Float64bits(s[0]), math.Float64bits(s[1]), "a", "b")
	}
	f.Fuzz(func(t *testing.T, abits, bbits uint64, ma, mb string) {
		a, b := math.Float64frombits(abits), math.Float64frombits(bbits)
		if math.IsNaN(a) || math.IsNaN(b) {
			return
		}
		for _, x := range []float64{a, b} {
			want := x
			if x == 0 {
				want = 0
			}
			if got := decodeScore(encodeScore(x)); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("round trip %v → %v", x, got)
			}
			if got := scoreOfIX(zsetIX(x, ma)); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("ix round trip %v → %v", x, got)
			}
			ix := zsetIX(x, ma)
			if bytes.Compare(ix, scoreBound(x)) < 0 || bytes.Compare(ix, scoreBoundAfter(x)) > 0 {
				t.Fatalf("ix of %v outside its BETWEEN range", x)
			}
		}
		ea, eb := encodeScore(a), encodeScore(b)
		switch {
		case a < b && ea >= eb, a > b && ea <= eb, a == b && ea != eb:
			t.Fatalf("order: %v vs %v encoded %x vs %x", a, b, ea, eb)
		}
		want := 0
		switch {
		case a < b:
			want = -1
		case a > b:
			want = 1
		default:
			want = bytes.Compare([]byte(ma), []byte(mb))
		}
		if got := bytes.Compare(zsetIX(a, ma), zsetIX(b, mb)); got != want {
			t.Fatalf("(%v,%q) vs (%v,%q): compare %d, want %d", a, ma, b, mb, got, want)
		}
		if a < b && bytes.Compare(zsetIX(b, mb), scoreBoundAfter(a)) <= 0 {
			t.Fatalf("a greater score falls inside the range of %v", a)
		}
	})
}

// FuzzMemberKey: sort keys of members never collide with the metadata
// item, with each other, or across types, and decode back.
func FuzzMemberKey(f *testing.F) {
	for _, s := range []string{"", "\x00", "a", "\xff\xfe", "héllo", "#pk", ":v"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, typ := range []keyType{typeSet, typeZSet} {
			sk := memberSK(typ, a)
			if bytes.Equal(sk, metaSK) {
				t.Fatal("member sort key equals the metadata item's")
			}
			m, gotTyp, ok := memberOf(item{attrSK: bin(sk)})
			if !ok || m != a || gotTyp != typ {
				t.Fatalf("round trip %q → %q %v %v", a, m, gotTyp, ok)
			}
			if a != b && bytes.Equal(sk, memberSK(typ, b)) {
				t.Fatal("distinct members share a sort key")
			}
		}
		if bytes.Equal(memberSK(typeSet, a), memberSK(typeZSet, b)) {
			t.Fatal("a set member and a zset member share a sort key")
		}
	})
}

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
		if v, ok := parseFloat(min); ok {
			// Every way of writing v that strtod reads gives v back.
			for _, f := range []string{
				strconv.FormatFloat(v, 'g', -1, 64), strconv.FormatFloat(v, 'e', -1, 64),
				strconv.FormatFloat(v, 'x', -1, 64), " \t" + strconv.FormatFloat(v, 'f', -1, 64),
			} {
				if back, ok := parseFloat(f); !ok || back != v {
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
		bad      bool
	}{
		{"1", "2", 1, 2, false, false},
		{"(1", "2", math.Nextafter(1, 2), 2, false, false},
		{"1", "(2", 1, math.Nextafter(2, 1), false, false},
		{"-inf", "+inf", math.Inf(-1), math.Inf(1), false, false},
		{"-inf", "inf", math.Inf(-1), math.Inf(1), false, false},
		{"(inf", "+inf", 0, 0, true, false},
		{"-inf", "(-inf", 0, 0, true, false},
		{"(1", "(1", 0, 0, true, false},
		{"2", "1", 0, 0, true, false},
		{"1e400", "1e401", math.Inf(1), math.Inf(1), false, false},
		{"1e-400", "(1e-400", 0, 0, true, false},
		{"-1e400", "-1e400", math.Inf(-1), math.Inf(-1), false, false},
		// As strtod reads them (Redis 7.0 agrees, see TestZRedisBounds):
		// "" and "(" are 0, leading white space is skipped, hexadecimal
		// needs no exponent.
		{"", "1", 0, 1, false, false},
		{"(", "", 0, 0, true, false},
		{"(", "1", math.Nextafter(0, 1), 1, false, false},
		{" 1", "\t2", 1, 2, false, false},
		{"( 1", "2", math.Nextafter(1, 2), 2, false, false},
		{"0x10", "0X1p5", 16, 32, false, false},
		{"-0x.8", "0x1.", -0.5, 1, false, false},
		{"-Infinity", "INF", math.Inf(-1), math.Inf(1), false, false},
		{"(abc", "1", 0, 0, false, true},
		{"nan", "1", 0, 0, false, true},
		{"(nan", "1", 0, 0, false, true},
		{"1", "1 ", 0, 0, false, true},
		{" (1", "2", 0, 0, false, true},
		{"  ", "2", 0, 0, false, true},
		{"1_0", "2", 0, 0, false, true},
		{"0x", "2", 0, 0, false, true},
		{"0x1p", "2", 0, 0, false, true},
		{"1e", "2", 0, 0, false, true},
		{"infinit", "2", 0, 0, false, true},
		{"0b1", "2", 0, 0, false, true},
		{"((1", "2", 0, 0, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.min+".."+tc.max, func(t *testing.T) {
			lo, hi, empty, err := parseScoreRange("ZCOUNT", tc.min, tc.max)
			if tc.bad {
				require.ErrorIs(t, err, ErrNotFloat)
				require.ErrorIs(t, err, ErrInvalidArgument)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.empty, empty)
			if !empty {
				require.Equal(t, tc.lo, lo)
				require.Equal(t, tc.hi, hi)
			}
		})
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		match      bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*", "abc", true}, {"a*", "bac", false},
		{"?", "a", true}, {"?", "", false}, {"a?c", "abc", true},
		{"[abc]", "b", true}, {"[^abc]", "b", false}, {"[a-c]x", "bx", true}, {"[c-a]x", "bx", true},
		{`\*`, "*", true}, {`\*`, "a", false}, {"a[", "a", false}, {"user:*:x", "user:1:x", true},
	}
	for _, tc := range cases {
		require.Equal(t, tc.match, globMatch(tc.pattern, tc.s), "%q %q", tc.pattern, tc.s)
	}
	require.Equal(t, "user:", globPrefix("user:*"))
	require.Equal(t, "a*b", globPrefix(`a\*b?`))
}

func TestParseRank(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "1": 1, "-1": -1, "9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64, "120": 120} {
		n, ok := parseRank(s)
		require.True(t, ok, s)
		require.Equal(t, want, n, s)
	}
	// Redis's string2ll rejects all of these.
	for _, s := range []string{"", "+1", "007", "00", "-0", " 1", "1 ", "1.5", "1e3", "9223372036854775808", "-9223372036854775809", "-", "0x10"} {
		_, ok := parseRank(s)
		require.False(t, ok, "%q", s)
	}
}
