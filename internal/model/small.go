package model

// Small sets in one item (issue 26; the commands are in the root
// package's smallset.go, which says why): the members of a small set are
// the binary set AttrSmall of its metadata item, AttrSmallLen the bytes
// they take, and every single-item write of it stores a token in its
// writer lane's attribute, by which a resent write recognises itself
// (WriteToken).

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	// SmallItemBytes is the item size a small set keeps within: 1 KB,
	// one write unit per write.
	SmallItemBytes = 1024
	// SmallOverhead is what a small set's metadata item holds besides its
	// members and partition key: the sort key, type, count, version,
	// key-index attributes, expiry and its token, the byte count, and the
	// write tokens of about eight writer lanes (27 bytes each, with their
	// names). More lanes in one TokenHorizon take the item past 1 KB: its
	// writes cost 2 write units until the stale ones are pruned.
	SmallOverhead = 384
	// SmallMaxMembers is the most members a small set holds: its
	// conversion is one transaction of them and the metadata item.
	SmallMaxMembers = MaxTxItems - 1
	// SmallMaxWrite is the most members one SADD or SREM names to write
	// a small set in one UpdateItem: each is a condition of its own, and
	// DynamoDB takes at most 300 operators in a condition. A command
	// naming more takes the member-item path (converting the set).
	SmallMaxWrite = 64
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

// RequireSmall requires the key to be a small set or small sorted set
// (smallz.go), or, with false, neither.
func (m *MetaWrite) RequireSmall(small bool) *MetaWrite {
	if small {
		return m.Require("attribute_exists(#sm) OR attribute_exists(#zm)")
	}
	return m.Require("attribute_not_exists(#sm) AND attribute_not_exists(#zm)")
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
// the item that remains (a deleted item would hold none). The item may
// go once its tokens are past TokenHorizon (AttrGC, at now, Unix
// milliseconds, plus the horizon: DynamoDB's TTL deletes it where the
// table has TTL on AttrGC, CreateTable sets it); a later write of the
// key fills it again (SetType removes AttrGC).
func (m *MetaWrite) Tombstone(now int64) *MetaWrite {
	m.removes = append(m.removes, "#t", "#n", "#sm", "#sb", "#zm", "#ks", "#kh", "#kk", "#x", "#xt", "#mn", "#rk")
	m.set("#gc = :gc", ":gc", Num((now+TokenHorizon.Milliseconds())/1000+1))
	return m.set("#v = :v", ":v", Bin(VersionToken()))
}

// DeletesKey reports whether a rendered action on a metadata item
// deletes its key: the item's Delete or its Tombstone.
func DeletesKey(a types.TransactWriteItem) bool {
	return a.Delete != nil || a.Update != nil && a.Update.ExpressionAttributeValues[":gc"] != nil
}

// DeleteKey makes the action the deletion of the key: of its item, or,
// when the item holds write tokens (tokens: Meta.Tokens as read), its
// Tombstone, so that a single-item write resent after the deletion still
// finds its token. A token is written only by the single-item writes of
// a small set or of a missing key, which the deletion's own requirements
// (the key as read) exclude between the read and the deletion.
func (m *MetaWrite) DeleteKey(tokens bool, now int64) *MetaWrite {
	if tokens {
		return m.Tombstone(now)
	}
	return m.Delete()
}

// Unsmall removes the small set's members and byte count: its members
// are items now (the conversion, at now, Unix ms, which it records:
// ConvertedSince).
func (m *MetaWrite) Unsmall(now int64) *MetaWrite {
	m.removes = append(m.removes, "#sm", "#sb", "#zm")
	return m.set("#cs = :cs", ":cs", Num(now))
}

// ConvertedSince reports whether the set whose metadata item is it was
// converted from small to member items at t (Unix ms) or later: a read
// of its members begun before t may have missed them.
func ConvertedSince(it Item, t int64) bool {
	v, ok := it[AttrConverted].(*types.AttributeValueMemberN)
	if !ok {
		return false
	}
	at, _ := strconv.ParseInt(v.Value, 10, 64)
	return at >= t
}

// Write tokens. A single-item write of a small set carries a token by
// which a resend of it (after a lost response) recognises that it applied:
// the write stores the token in the attribute of its writer lane
// (AttrLanePrefix + lane: one Client, one write in flight on the key at a
// time; LaneAttr) and requires that attribute not to hold it already. A
// lane's attribute changes only with its own next write, which its Client
// sends only once this one is settled; other writers write other lanes; a
// deletion keeps the tokens (DeleteKey); a conversion keeps them. So a
// resend meets its token whatever was written to the key in between.
//
// A token is a Client's to resend for TokenHorizon from its first send at
// most (the writer stops resending after half of it, and DynamoDB refuses
// a request whose signature is older than 15 minutes); after it, any
// writer that sees the token may remove it (StaleTokens), and an item
// that holds nothing but tokens may go (AttrGC).

// TokenHorizon is how long a write token is kept: see above.
const TokenHorizon = time.Hour

// LaneAttr is the attribute of writer lane lane of writer (a Client's
// random id).
func LaneAttr(writer string, lane int) string {
	return AttrLanePrefix + writer + strconv.Itoa(lane)
}

// NewWriterID is a random id for a Client's writer lanes.
func NewWriterID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// WriteToken makes the write carry a fresh token in the attribute lane
// (LaneAttr) and require that attribute not to hold it, and mark the item
// as holding tokens (AttrWriteTok). It removes the attributes prune
// (stale tokens of other lanes: StaleTokens) on the way. now is the time
// of its first send (Unix milliseconds), which the token records.
func (m *MetaWrite) WriteToken(lane string, prune []string, now int64) (tok []byte) {
	tok = make([]byte, 16)
	binary.BigEndian.PutUint64(tok, uint64(now))
	_, _ = rand.Read(tok[8:])
	if m.lanes == nil {
		m.lanes = map[string]string{}
	}
	m.lanes["#wme"] = lane
	m.Value(":tk", Bin(tok)).Require("attribute_not_exists(#wme) OR #wme <> :tk")
	m.set("#wme = :tk", ":tk", Bin(tok))
	m.set("#wt = :wt", ":wt", Num(1))
	for i, p := range prune {
		if p == lane || i >= 26 {
			continue
		}
		ph := "#wp" + string(rune('a'+i))
		m.lanes[ph] = p
		m.removes = append(m.removes, ph)
	}
	return tok
}

// KeptForTokens reports whether it is the metadata item of a missing key
// kept only for its write tokens (Tombstone): no data, gone by TTL.
func KeptForTokens(it Item) bool {
	_, typed := it[AttrType]
	return HasTokens(it) && !typed
}

// HasTokens reports whether a metadata item holds write tokens.
func HasTokens(it Item) bool {
	_, ok := it[AttrWriteTok]
	return ok
}

// HoldsToken reports whether a metadata item holds the write token tok in
// the attribute lane.
func HoldsToken(it Item, lane string, tok []byte) bool {
	return bytes.Equal(BytesAttr(it, lane), tok)
}

// StaleTokens is the attributes of it holding tokens first sent before
// now - TokenHorizon (Unix milliseconds), which no writer resends any
// more.
func StaleTokens(it Item, now int64) []string {
	var out []string
	for name := range it {
		if !strings.HasPrefix(name, AttrLanePrefix) {
			continue
		}
		if tok := BytesAttr(it, name); len(tok) >= 8 && int64(binary.BigEndian.Uint64(tok)) < now-TokenHorizon.Milliseconds() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
