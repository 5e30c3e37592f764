package model

// Small sorted sets in one item (the root package's smallz.go says why
// and how they are written): the members and scores of a small sorted
// set are one binary attribute of its metadata item, AttrSmallZ, in
// order (score, then member bytes), each entry its score's 8 bytes
// (EncodeScore, so -0 is 0 as in the index), the member's length
// (uvarint) and the member.

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ZEntry is one member of a small sorted set with its score.
type ZEntry struct {
	Member string
	Score  float64
}

// CompareZ orders entries as a sorted set does: by score, then member.
func CompareZ(a, b ZEntry) int {
	if c := cmp.Compare(EncodeScore(a.Score), EncodeScore(b.Score)); c != 0 {
		return c
	}
	return cmp.Compare(a.Member, b.Member)
}

// SmallZBytes is the size of entries encoded.
func SmallZBytes(entries []ZEntry) int {
	n := 0
	for _, e := range entries {
		n += 8 + uvarintLen(uint64(len(e.Member))) + len(e.Member)
	}
	return n
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// EncodeSmallZ encodes entries (in CompareZ order, distinct members).
func EncodeSmallZ(entries []ZEntry) []byte {
	b := make([]byte, 0, SmallZBytes(entries))
	for _, e := range entries {
		b = binary.BigEndian.AppendUint64(b, EncodeScore(e.Score))
		b = binary.AppendUvarint(b, uint64(len(e.Member)))
		b = append(b, e.Member...)
	}
	return b
}

// SmallZOf returns the entries of a small sorted set's metadata item, in
// order; nil when it is not one.
func SmallZOf(it Item) []ZEntry {
	v, ok := it[AttrSmallZ].(*types.AttributeValueMemberB)
	if !ok {
		return nil
	}
	b := v.Value
	out := make([]ZEntry, 0, 8)
	for len(b) >= 9 {
		score := DecodeScore(binary.BigEndian.Uint64(b))
		n, k := binary.Uvarint(b[8:])
		if k <= 0 || uint64(len(b)-8-k) < n {
			break // not written by EncodeSmallZ
		}
		out = append(out, ZEntry{Member: string(b[8+k : 8+k+int(n)]), Score: score})
		b = b[8+k+int(n):]
	}
	return out
}

// SmallZFit reports whether entries fit a small sorted set of key: at
// most SmallMaxMembers (its conversion is one transaction), members no
// longer than InlineMemberLen, and within SmallBudget(key) bytes.
func SmallZFit(key string, entries []ZEntry) bool {
	if len(entries) > SmallMaxMembers || SmallZBytes(entries) > SmallBudget(key) {
		return false
	}
	return !slices.ContainsFunc(entries, func(e ZEntry) bool { return len(e.Member) > InlineMemberLen })
}

// SetSmallZ stores entries (in order, not empty) as the small sorted
// set's members, and their number as its count.
func (m *MetaWrite) SetSmallZ(entries []ZEntry) *MetaWrite {
	m.set("#zm = :zm", ":zm", Bin(EncodeSmallZ(entries)))
	return m.SetCard(int64(len(entries)))
}

// SmallZItem is the member item a small sorted set's entry stands for,
// as a Query of member items would return it.
func SmallZItem(key string, e ZEntry) Item {
	it := ItemKey(key, MemberSK(TypeZSet, e.Member))
	it[AttrIX] = Bin(ZsetIX(e.Score, e.Member))
	return it
}

// SmallZItems are the member items of entries, in member (sort-key)
// order.
func SmallZItems(key string, entries []ZEntry) []Item {
	out := make([]Item, len(entries))
	for i, e := range entries {
		out[i] = SmallZItem(key, e)
	}
	slices.SortFunc(out, func(a, b Item) int {
		return bytes.Compare(BytesAttr(a, AttrSK), BytesAttr(b, AttrSK))
	})
	return out
}
