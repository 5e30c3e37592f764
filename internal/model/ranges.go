package model

import (
	"math"

	"github.com/redimo-go/redimo/internal/redisarg"
)

// ParseRank parses a ZRANGE rank as Redis does (string2ll, int64).
func ParseRank(s string) (int64, bool) { return redisarg.Int(s) }

// LexBound is a parsed ZRANGEBYLEX bound.
type LexBound struct {
	Value     string
	Excl      bool
	Inf, Ninf bool // "+", "-"
}

// Source is one input key of set algebra on sorted sets.
type Source struct {
	Key    string
	M      Meta
	Weight float64
	Count  bool // AggregateCount: each member scores weight, whatever its score
}

// Weighted is score × weight, with Redis's rule that inf × 0 is 0.
func Weighted(score, weight float64) float64 {
	if v := score * weight; !math.IsNaN(v) {
		return v
	}
	return 0
}

// KeyReads are the member items of the keys a command has read whole, so
// that a key named twice (ZUNION 2 z z) is read once.
type KeyReads map[string][]Item

// Score is the score a member item of s contributes before its weight: 1
// for a set member or with AggregateCount.
func (s Source) Score(it Item) float64 {
	if s.Count || s.M.Typ == TypeSet {
		return 1
	}
	return ScoreOfIX(BytesAttr(it, AttrIX))
}
