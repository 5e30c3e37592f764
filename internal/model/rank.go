package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"sort"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	// RankPrefix (keys.go) starts a count item's sort key: after every
	// member's ('s', 'z'), so reads of a key's members (and of its
	// metadata item, 0x00, with them) never meet count items.
	// RankMax is the most members a range holds once split.
	RankMax = 1000
	// RankMin is the members from which a sorted set has count items,
	// built by the write that reaches it (rankGuard).
	RankMin = 2000
	// RankStep is the most writes in one transaction of a ranked key.
	RankStep = (MaxTxItems - 1) / 3
)

// ErrRankChunk is transact's answer to a chunk of writes too big for the
// count items of its key: writeChunks makes chunks of RankStep.
var ErrRankChunk = errors.New("redimo: chunk too big for a ranked key")

// RankRange is one count item as a reader or writer knows it.
type RankRange struct {
	Lo, Hi []byte // hi nil: the last range
	N      int64
	Cv     []byte
}

// RankBelief is what a Client knows of a key's count items: ranked, or
// being built (Build, the build's token: its writers keep the count
// items as a ranked key's and journal their members, rank.go), or
// neither.
type RankBelief struct {
	Ranked bool
	Build  []byte      // the build in progress, when not Ranked
	Ranges []RankRange // nil when ranked or building and not read yet
}

// Keeps reports whether the writer of a key so believed keeps its count
// items: it is ranked or being built.
func (b *RankBelief) Keeps() bool { return b != nil && (b.Ranked || b.Build != nil) }

// FixedChunks cuts writes into chunks of n (one empty chunk for none: a
// lone type check).
func FixedChunks(writes []*Write, n int) [][]*Write {
	out := [][]*Write{writes[:min(n, len(writes))]}
	for start := n; start < len(writes); start += n {
		out = append(out, writes[start:min(start+n, len(writes))])
	}
	return out
}

func RankSK(lo []byte) []byte { return append([]byte{RankPrefix}, lo...) }

// MaxBound is the longest range bound: a count item's sort key is
// RankPrefix + lo, within DynamoDB's 1024 bytes. An index value is up to
// 1024 bytes (score, 0x00, the first 1015 bytes of the member), so a
// bound taken from one is cut to its first MaxBound bytes.
const MaxBound = 1023

// BoundAt is the bound that starts a range at ixs[i] (index values in
// order), or ok false when none can: the cut value must still be above
// ixs[i-1], so that the members before i are exactly those below it.
func BoundAt(ixs [][]byte, i int) (b []byte, ok bool) {
	b = ixs[i][:min(len(ixs[i]), MaxBound)]
	return b, i == 0 || bytes.Compare(ixs[i-1], b) < 0
}

// Find is the index of the range holding ix.
func Find(ranges []RankRange, ix []byte) int {
	return sort.Search(len(ranges), func(i int) bool { return bytes.Compare(ranges[i].Lo, ix) > 0 }) - 1
}

// RankDeltas is what g's writes change in each range of ranges.
func RankDeltas(g *Group, ranges []RankRange) map[int]int64 {
	d := map[int]int64{}
	for _, w := range g.Writes {
		if w.Action.ConditionCheck != nil {
			continue
		}
		if w.Prev != nil {
			d[Find(ranges, w.Prev)]--
		}
		if w.Ix != nil && w.Action.Delete == nil {
			d[Find(ranges, w.Ix)]++
		}
	}
	return d
}

// IsRanked reports whether g's writes carry count items: its writer
// believes its key ranked (its metadata condition requires rk) or being
// built (it requires that build).
func IsRanked(g *Group) bool {
	return g.Typ == TypeZSet && g.Rank.Keeps()
}

// Building is the token of the build g's writer believes in progress
// (nil: none).
func Building(g *Group) []byte {
	if g.Typ != TypeZSet || g.Rank == nil || g.Rank.Ranked {
		return nil
	}
	return g.Rank.Build
}

// RankCond is what a count-item action (rankWrites) requires of its item:
// two actions on one count item merge only when it is the same.
func RankCond(w *Write) string {
	u := w.Action.Update
	return aws.ToString(u.ConditionExpression) + "\x00" + string(BytesAttr(u.ExpressionAttributeValues, ":hi"))
}

// RankMerged is one action for the count-item actions ws of one count
// item with the same condition (write combining, combine.go): it adds the
// sum of their changes.
func RankMerged(ws []*Write) types.TransactWriteItem {
	var d int64
	for _, w := range ws {
		v, _ := w.Action.Update.ExpressionAttributeValues[":d"].(*types.AttributeValueMemberN)
		if v != nil {
			n, _ := strconv.ParseInt(v.Value, 10, 64)
			d += n
		}
	}
	u := *ws[0].Action.Update
	values := Item{}
	for k, v := range u.ExpressionAttributeValues {
		values[k] = v
	}
	values[":d"] = Num(d)
	u.ExpressionAttributeValues = values
	return types.TransactWriteItem{Update: &u}
}

// SameBounds reports whether a and b cut the index values alike.
func SameBounds(a, b []RankRange) bool {
	return slices.EqualFunc(a, b, func(x, y RankRange) bool {
		return bytes.Equal(x.Lo, y.Lo) && bytes.Equal(x.Hi, y.Hi) && (x.Hi == nil) == (y.Hi == nil)
	})
}

func DecodeRange(it Item) RankRange {
	r := RankRange{Lo: BytesAttr(it, AttrSK)[1:], Hi: BytesAttr(it, AttrHi), Cv: BytesAttr(it, AttrCV)}
	if r.Lo == nil {
		r.Lo = []byte{}
	}
	if v, ok := it[AttrCard].(*types.AttributeValueMemberN); ok {
		r.N, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	return r
}

// MaxIX is the longest index value: score, 0x00, the first
// InlineMemberLen bytes of the member.
const MaxIX = 9 + InlineMemberLen

// Before is the greatest index value below b (ok false when none is: b
// is empty), so that "ix <= before(b)", which a key condition can say,
// means "ix < b", which BETWEEN cannot: b itself, or b-1 followed by
// 0xFF up to the longest index value.
func Before(b []byte) ([]byte, bool) {
	n := len(b)
	switch {
	case n == 0:
		return nil, false
	case b[n-1] == 0:
		return b[:n-1], n > 1
	}
	out := append(bytes.Clone(b[:n-1]), b[n-1]-1)
	for len(out) < MaxIX {
		out = append(out, 0xFF)
	}
	return out, true
}

// NearHigh guesses whether x lies in the upper half of the range [lo, hi),
// reading the bytes after the bounds' common prefix as numbers. The last
// range (hi nil) is guessed as wide as the one before it, which starts at
// prev (nil: none; then the count goes from lo).
func NearHigh(prev, lo, hi, x []byte) bool {
	a, b := lo, hi
	if hi == nil {
		if prev == nil {
			return false
		}
		a, b = prev, lo
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	at := func(v []byte) float64 {
		var w [8]byte
		if p < len(v) {
			copy(w[:], v[p:])
		}
		return float64(binary.BigEndian.Uint64(w[:]))
	}
	l, h, v := at(a), at(b), at(x)
	if h <= l {
		return false
	}
	if hi == nil { // [lo, lo + (lo - prev)): x past its middle
		return bytes.HasPrefix(x, b[:p]) && v-h > (h-l)/2 || !bytes.HasPrefix(x, b[:p])
	}
	return (v-l)/(h-l) > 0.5
}
