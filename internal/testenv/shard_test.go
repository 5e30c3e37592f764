package testenv

import (
	"slices"
	"testing"
)

func TestShares(t *testing.T) {
	names := []string{"TestA", "TestB", "TestC", "TestD", "TestE", "TestF", "TestG"}
	weights := map[string]float64{"TestC": 10, "TestF": 6, "TestA": 5}
	// The slowest go first, each to the lightest share (ties to the lower
	// one); unweighted names count half a second.
	want := [][]string{{"TestC"}, {"TestF", "TestE"}, {"TestA", "TestB", "TestD", "TestG"}}
	if got := Shares(names, weights, 3, 0); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("shares %v, want %v", got, want)
	}
	// Every process deals the same shares, whatever order it found the
	// names in.
	reversed := slices.Clone(names)
	slices.Reverse(reversed)
	if got := Shares(reversed, weights, 3, 0); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("shares of the names reversed %v, want %v", got, want)
	}
	if got := Shares(names, nil, 1, 0); !slices.Equal(got[0], names) {
		t.Fatalf("one share %v, want every name", got)
	}
	// Work beside the last share: it is dealt as much less.
	want = [][]string{{"TestC"}, {"TestF", "TestB", "TestD", "TestE", "TestG"}, {"TestA"}}
	if got := Shares(names, weights, 3, 4); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("shares with 4 s beside the last %v, want %v", got, want)
	}
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "0/2", "3/2", "a/b", "1/0"} {
		if _, _, err := parseShard(bad); err == nil {
			t.Errorf("parseShard(%q): no error", bad)
		}
	}
	if i, n, err := parseShard("2/3"); err != nil || i != 2 || n != 3 {
		t.Errorf("parseShard(2/3) = %d, %d, %v", i, n, err)
	}
}
