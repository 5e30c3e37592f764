package model

// Small sets in one item (issue 26; the commands are in the root
// package's smallset.go, which says why): the members of a small set are
// the binary set AttrSmall of its metadata item, AttrSmallLen the bytes
// they take, and every single-item write of it adds a random token to
// AttrWriteTok (moved to AttrWriteTokOld when full), by which a resent
// write recognises itself.

import (
	"crypto/rand"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	// SmallItemBytes is the item size a small set keeps within: 1 KB,
	// one write unit per write.
	SmallItemBytes = 1024
	// SmallOverhead is what a small set's metadata item holds besides its
	// members and partition key, at most: the sort key, type, count,
	// version, key-index attributes, expiry and its token, the byte count
	// and 2·SmallTokens write tokens, with their attribute names.
	SmallOverhead = 384
	// SmallMaxMembers is the most members a small set holds: its
	// conversion is one transaction of them and the metadata item.
	SmallMaxMembers = MaxTxItems - 1
	// SmallMaxWrite is the most members one SADD or SREM names to write
	// a small set in one UpdateItem: each is a condition of its own, and
	// DynamoDB takes at most 300 operators in a condition. A command
	// naming more takes the member-item path (converting the set).
	SmallMaxWrite = 64
	// SmallTokens is how many write tokens AttrWriteTok holds before the
	// next write moves them to AttrWriteTokOld.
	SmallTokens = 16
	// smallTokenLen is a write token's length in bytes.
	smallTokenLen = 8
)

// SmallBudget is how many bytes of members key's small set may hold (0 or
// less: the key is too long for the small encoding).
func SmallBudget(key string) int { return SmallItemBytes - SmallOverhead - len(PkValue(key)) }

// SmallMembers returns the members of a small set's metadata item, nil
// when it is not one.
func SmallMembers(it Item) []string {
	bs, ok := it[AttrSmall].(*types.AttributeValueMemberBS)
	if !ok {
		return nil
	}
	out := make([]string, len(bs.Value))
	for i, b := range bs.Value {
		out[i] = string(b)
	}
	return out
}

// SmallBytes is the bytes members take in a small set.
func SmallBytes(members []string) int {
	n := 0
	for _, m := range members {
		n += len(m)
	}
	return n
}

// SmallFit reports whether a small set of key holding have can also hold
// add (distinct, new): within SmallMaxMembers and SmallBudget, and no
// empty member (DynamoDB sets hold no empty value).
func SmallFit(key string, have, add []string) bool {
	return len(have)+len(add) <= SmallMaxMembers && !slices.Contains(add, "") &&
		SmallBytes(have)+SmallBytes(add) <= SmallBudget(key)
}

// HoldsToken reports whether a metadata item holds the write token tok.
func HoldsToken(it Item, tok []byte) bool {
	for _, a := range []string{AttrWriteTok, AttrWriteTokOld} {
		if bs, ok := it[a].(*types.AttributeValueMemberBS); ok && slices.ContainsFunc(bs.Value, func(b []byte) bool { return string(b) == string(tok) }) {
			return true
		}
	}
	return false
}

// binSet is members as a binary-set value.
func binSet(members []string) *types.AttributeValueMemberBS {
	bs := make([][]byte, len(members))
	for i, m := range members {
		bs[i] = []byte(m)
	}
	return &types.AttributeValueMemberBS{Value: bs}
}

// requireEach requires cond(placeholder) of each member.
func (m *MetaWrite) requireEach(members []string, cond func(v string) string) *MetaWrite {
	for i, x := range members {
		v := ":m" + strconv.Itoa(i)
		m.Value(v, Bin([]byte(x))).Require(cond(v))
	}
	return m
}

// RequireSmall requires the key to be a small set (or, with false, not
// to be one).
func (m *MetaWrite) RequireSmall(small bool) *MetaWrite {
	if small {
		return m.Require("attribute_exists(#sm)")
	}
	return m.Require("attribute_not_exists(#sm)")
}

// RequireAbsentMembers requires none of members in the small set (true
// of a key that is none).
func (m *MetaWrite) RequireAbsentMembers(members []string) *MetaWrite {
	return m.requireEach(members, func(v string) string { return "NOT contains(#sm, " + v + ")" })
}

// RequirePresentMembers requires all of members in the small set.
func (m *MetaWrite) RequirePresentMembers(members []string) *MetaWrite {
	return m.requireEach(members, func(v string) string { return "contains(#sm, " + v + ")" })
}

// RequireRoom requires key's small set (if any) to have room for add.
func (m *MetaWrite) RequireRoom(key string, add []string) *MetaWrite {
	m.Value(":roomn", Num(int64(SmallMaxMembers-len(add)))).Value(":roomb", Num(int64(SmallBudget(key)-SmallBytes(add))))
	return m.Require("attribute_not_exists(#sm) OR (#n <= :roomn AND #sb <= :roomb)")
}

// AddSmall adds members (distinct, absent: RequireAbsentMembers) to the
// small set, and to its count and byte count.
func (m *MetaWrite) AddSmall(members []string) *MetaWrite {
	m.add("#sm :sm", ":sm", binSet(members))
	m.add("#sb :sbd", ":sbd", Num(int64(SmallBytes(members))))
	return m.AddCard(int64(len(members)))
}

// RemoveSmall removes members (distinct, present: RequirePresentMembers)
// from the small set, its count and byte count.
func (m *MetaWrite) RemoveSmall(members []string) *MetaWrite {
	m.values[":sm"] = binSet(members)
	m.dels = append(m.dels, "#sm :sm")
	m.add("#sb :sbd", ":sbd", Num(-int64(SmallBytes(members))))
	return m.AddCard(-int64(len(members)))
}

// Tombstone makes the write empty the key but keep its item: the type,
// count, members, expiry and key-index attributes go (the key is missing
// and out of the key index), the write tokens stay, so that a write of
// the small set resent after a lost response still finds its token in
// the item that remains (a deleted item would hold none). A later SADD
// fills the item again; the empty item costs storage only (about 300
// bytes).
func (m *MetaWrite) Tombstone() *MetaWrite {
	m.removes = append(m.removes, "#t", "#n", "#sm", "#sb", "#ks", "#kh", "#kk", "#x", "#xt", "#mn", "#rk")
	return m.set("#v = :v", ":v", Bin(VersionToken()))
}

// Unsmall removes the small set's members and byte count: its members
// are items now (the conversion).
func (m *MetaWrite) Unsmall() *MetaWrite {
	m.removes = append(m.removes, "#sm", "#sb")
	return m
}

// WriteToken makes the write carry a fresh write token, which it requires
// absent: a resend of the write once applied fails, and the item it
// returns holds the token (HoldsToken). old is the item as last seen
// (nil: unknown): when its AttrWriteTok is full, the tokens move to
// AttrWriteTokOld.
func (m *MetaWrite) WriteToken(old Item) (tok []byte) {
	tok = make([]byte, smallTokenLen)
	_, _ = rand.Read(tok)
	m.Value(":tk", Bin(tok)).Value(":tks", &types.AttributeValueMemberBS{Value: [][]byte{tok}}).Value(":full", Num(SmallTokens))
	m.Require("NOT contains(#wt, :tk)").Require("NOT contains(#wo, :tk)")
	if bs, ok := old[AttrWriteTok].(*types.AttributeValueMemberBS); ok && len(bs.Value) >= SmallTokens {
		m.sets = append(m.sets, "#wo = #wt", "#wt = :tks")
		m.Require("size(#wt) >= :full")
		return tok
	}
	m.adds = append(m.adds, "#wt :tks")
	m.Require("attribute_not_exists(#wt) OR size(#wt) < :full")
	return tok
}
