package server

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// The cases were checked against redis-server 7.0.15 (ZADD and ZCOUNT).

func TestParseFloat(t *testing.T) {
	for s, want := range map[string]float64{
		"1": 1, "+1.5": 1.5, ".5": 0.5, "5.": 5, "0x10": 16, "0x1p3": 8, "5e-324": 5e-324, "infinity": math.Inf(1),
		"-INF": math.Inf(-1), "inf": math.Inf(1), "1e308": 1e308, "-0": 0, "0e5": 0, "0x0": 0,
	} {
		got, ok := parseFloat(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"", " 1", "1 ", "x", "1e400", "-1e400", "1e-400", "nan", "NaN", "1_0", "0x", "1e", "--1", "(1", "0x1.8p"} {
		_, ok := parseFloat(s)
		require.False(t, ok, s)
	}
}

func TestScoreBound(t *testing.T) {
	for s, want := range map[string]string{
		"1": "1", "(1.5": "(1.5", "-inf": "-inf", "+inf": "+inf", "inf": "+inf", "(-inf": "(-inf", " 1": "1",
		"1e400": "+inf", "": "0", "(": "(0", "0x10": "16", "1e-400": "0", "0.1": "0.1",
	} {
		got, ok := scoreBound(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"x", "nan", "(nan", "1 ", "[1", "((1", " "} {
		_, ok := scoreBound(s)
		require.False(t, ok, s)
	}
}
