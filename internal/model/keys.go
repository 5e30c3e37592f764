package model

// Every encoding of keys, members and scores lives in this file.
//
// All three key attributes are DynamoDB Binary (B) values, compared as
// unsigned bytes, which is exactly how Redis compares strings (memcmp). So
// keys and members are binary-safe, as in Redis: invalid UTF-8 is stored as
// it is, never mangled into U+FFFD, and lexicographic ranges
// (ZRANGEBYLEX) are key-condition ranges.
//
//	item        pk            sk                        ix (local secondary index sort key)
//	metadata    'k' + key     0x00                      (absent: not in the index)
//
// Metadata items also carry ks and kh, the keys of the global secondary
// index that lists keys (keys.go): kh is the first 8 bytes of the
// key's SHA-256, ks its top 4 bits (16 shards, so no one index partition
// takes every key's writes). Members never have them: the index holds
// metadata items only.
//	set member  'k' + key     's' + hash(7) + member    (absent: not in the index)
//	zset member 'k' + key     'z' + member              score(8 bytes) + 0x00 + member
//
// Set members. A set has no order, so a set member needs no index entry:
// its sort key starts with the first 7 bytes of the member's SHA-256
// (SetHashLen), which spreads the members of a set uniformly over the
// sort keys of its partition, and random picks (SRANDMEMBER, SPOP:
// randmember.go) query the table itself from a random point. Writing a
// set member therefore writes one item and no index entry. The price:
// a Query returns a set's members in the order of their hashes, not in
// byte order (SMEMBERS and the set algebra sort what they return), and a
// pattern's literal prefix cannot select members (SSCAN reads the whole
// set and filters).
//
// The 'k' prefix lets the empty key exist (DynamoDB key values cannot be
// empty); the 's'/'z' prefixes keep every member, the empty one included,
// distinct from the metadata item and from members of the other type.
//
// Long keys. A key of more than InlineKeyLen (2047) bytes has the
// partition key 'K' + key[:2015] + SHA-256(key) (2048 bytes; 'R' and 'H'
// for the rate limiter's and ShardedSet's namespaces), and its metadata
// item holds the whole key in kk, for SCAN and KEYS. Keys are never
// ordered, so the full 32-byte hash keeps long keys apart.
//
// Long members. DynamoDB's sort keys (sk, and ix in the local index) hold
// at most 1024 bytes, so a member of more than InlineMemberLen (1015)
// bytes is stored with its first 1015 bytes where a short member has all
// of it, and whole in the attribute m:
//
//	long zset member  'z' + member[:1015] + hash(8)              (1024 bytes)
//	long set member   's' + hash(7) + member[:1015] + hash[7]    (1024 bytes)
//
// where hash is SHA-256(member), and m = member. A short member's sk has
// at most 1016 bytes (1023 in a set), a long one's exactly 1024, so they
// never collide; two long members collide only if they share their first
// 1015 bytes and 64 bits of SHA-256 (then the second is refused with
// ErrMemberCollision, never mistaken for the first). In a sorted set,
// order is kept wherever the first 1015 bytes differ, which covers every
// pair but long members sharing those bytes (and, in the index, the same
// score): queryPages puts such a run in member order (longmember.go). The
// short member equal to the shared prefix sorts before them, as it should.

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"regexp"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attribute names. They are fixed: attributes below lists them all, and
// the tests check every request they send against it (model_test.go).
const (
	AttrPK     = "pk" // partition key: the Redis key
	AttrSK     = "sk" // sort key: a member or the metadata item
	AttrIX     = "ix" // sorted-set member: sort key of the local secondary index
	AttrType   = "t"  // metadata: "set" or "zset"
	AttrCard   = "n"  // metadata: exact number of members
	AttrExp    = "x"  // metadata: key expiry, Unix milliseconds (absent: none)
	AttrExpTok = "xt" // metadata: a random token of the last EXPIRE or PERSIST that changed it
	AttrVer    = "v"  // metadata: a fresh random token per write transaction (WATCH)
	AttrKS     = "ks" // metadata: the key's shard (1 byte), partition key of the key index
	AttrKH     = "kh" // metadata: the key's 8-byte hash, sort key of the key index
	AttrMem    = "m"  // long member item: the whole member (see "Long members" above)
	AttrKey    = "kk" // metadata of a long key: the whole key (see "Long keys" above)
	AttrShards = "sh" // ShardedSet's record: its shard count
	AttrAt     = "at" // rate-limit slot: Unix milliseconds of its last allowance
	AttrClaim  = "cl" // rate-limit slot: a random token of the call that claimed it
	AttrHi     = "hi" // count item (rank.go): upper bound of its range (absent: none)
	AttrCV     = "cv" // count item: version token
	AttrRanked = "rk" // metadata: the key has exact count items (rank.go)
	AttrBuild  = "rb" // metadata: token of the count items' build in progress (rank.go)
	AttrJourn  = "rj" // metadata: the build's journal, member → its range before the build (rank.go)
	AttrMemExp = "mx" // member: its expiry, Unix milliseconds (absent: none; memberttl.go)
	AttrMemTTL = "mn" // metadata: how many stored members have mx, expired or not (absent: 0)
	// A small set's metadata item (small.go).
	AttrSmall    = "sm" // its members
	AttrSmallLen = "sb" // the bytes its members take
	// A small sorted set's metadata item (smallz.go): its members and
	// scores, encoded in one binary value.
	AttrSmallZ = "zm"
	// Write tokens (small.go): the marker that a metadata item holds
	// some, each writer lane's attribute (its name AttrLanePrefix + the
	// lane), and the time after which an item that holds nothing else may
	// go (DynamoDB's TTL attribute).
	AttrWriteTok   = "wt" // metadata: holds write tokens (1)
	AttrLanePrefix = "w." // metadata: w.<writer><lane>, one writer lane's last write token
	AttrGC         = "gc" // metadata of a deleted key kept for its write tokens: Unix seconds after which it may go
	// AttrConverted is when a small set became a set of member items
	// (Unix ms; small.go: ConvertedSince).
	AttrConverted = "cs"
)

// Namespaces: the first byte of a partition key (an upper-case one for a
// long key: "Long keys" above).
const (
	NsKeys    = 'k' // sets and sorted sets: metadata items and members
	NsLimiter = 'r' // RateLimiter: one item per slot (ratelimit.go)
	NsSharded = 'h' // ShardedSet: its shard-count record (sharded.go)
)

// Sort-key prefixes in the 'k' namespace: MetaSK (0x00) for the metadata
// item, then one per member type (MemberPrefix).
const (
	PrefixSet  = 's'
	PrefixZSet = 'z'
	RankPrefix = 0xFF // a sorted set's count item (rank.go): 0xFF + the lower bound of its range
)

// Attributes is the whole schema: every attribute an item of the table
// can hold, its DynamoDB type and what holds it. doc.go's and the
// README's tables are checked against it, and so is every request the
// tests send (model_test.go).
var Attributes = []struct{ Name, Typ, Holds string }{
	{AttrPK, "B", "partition key: namespace byte + key (keys.go)"},
	{AttrSK, "B", "sort key: metaSK, or member prefix + member, or a limiter slot"},
	{AttrIX, "B", "sorted-set member: sort key of the local secondary index by_ix"},
	{AttrType, "S", "metadata: set or zset"},
	{AttrCard, "N", "metadata: exact number of members"},
	{AttrExp, "N", "metadata: key expiry, Unix ms"},
	{AttrExpTok, "S", "metadata: token of the last EXPIRE/PERSIST"},
	{AttrVer, "B", "metadata: version token (WATCH)"},
	{AttrKS, "B", "metadata: partition key of the key index by_key"},
	{AttrKH, "B", "metadata: sort key of the key index by_key"},
	{AttrMem, "B", "long member: the whole member"},
	{AttrKey, "B", "metadata of a long key: the whole key"},
	{AttrShards, "N", "ShardedSet record: shard count"},
	{AttrAt, "N", "rate-limit slot: time of its last allowance"},
	{AttrClaim, "S", "rate-limit slot: token of its claimer"},
	{AttrHi, "B", "count item: upper bound of its range of index values"},
	{AttrCV, "B", "count item: version token"},
	{AttrRanked, "N", "metadata: the key's count items exist and are exact"},
	{AttrBuild, "B", "metadata: token of the count items' build in progress"},
	{AttrJourn, "M", "metadata: the build's journal: a member's range when the build began"},
	{AttrMemExp, "N", "member: its expiry, Unix ms; sort key of the local secondary index by_exp"},
	{AttrMemTTL, "N", "metadata: number of stored members with an expiry"},
	{AttrSmall, "BS", "metadata of a small set: its members"},
	{AttrSmallLen, "N", "metadata of a small set: bytes of its members"},
	{AttrSmallZ, "B", "metadata of a small sorted set: its members and scores"},
	{AttrWriteTok, "N", "metadata: 1 when the item holds write tokens"},
	{AttrLanePrefix, "B", "metadata: w.<writer><lane>, a writer lane's last write token"},
	{AttrGC, "N", "metadata of a deleted key kept for its write tokens: when it may go (DynamoDB TTL)"},
	{AttrConverted, "N", "metadata of a set converted from small: when (Unix ms)"},
}

const (
	// InlineKeyLen is the longest key stored whole in the partition key:
	// DynamoDB's 2048-byte limit minus the namespace byte.
	InlineKeyLen = 2047

	// InlineMemberLen is the longest member stored whole in the sort keys:
	// the 1024-byte limit of the index sort key minus the 8-byte score and
	// 1 separator byte.
	InlineMemberLen = 1015

	// SetHashLen is how many bytes of a member's SHA-256 start its sort
	// key in a set, after the prefix (see "Set members" above): 7, so that
	// a set member of InlineMemberLen bytes has a sort key of 1023 bytes,
	// shorter than a long member's.
	SetHashLen = 7

	// LongSKLen is the length of a long member's sort key.
	LongSKLen = 1 + InlineMemberLen + 8
)

// KeyType is the Redis type of a key, stored in its metadata item.
type KeyType string

const (
	TypeNone KeyType = "none"
	TypeSet  KeyType = "set"
	TypeZSet KeyType = "zset"
)

// Item is one DynamoDB item.
type Item = map[string]types.AttributeValue

var MetaSK = []byte{0x00}

func PkValue(key string) []byte { return Partition(NsKeys, key) }

// Partition is the partition key of key in namespace ns ('k' for sets and
// sorted sets; ratelimit.go and sharded.go have their own): see "Long
// keys" above.
func Partition(ns byte, key string) []byte {
	if len(key) <= InlineKeyLen {
		return append([]byte{ns}, key...)
	}
	h := sha256.Sum256([]byte(key))
	pk := make([]byte, 0, 1+InlineKeyLen)
	pk = append(append(pk, LongNS(ns)), key[:InlineKeyLen-len(h)]...)
	return append(pk, h[:]...)
}

// LongNS is the namespace byte of namespace ns's long keys: its upper case.
func LongNS(ns byte) byte { return ns - 'a' + 'A' }

// IsLongPK reports whether pk is a long key's partition key.
func IsLongPK(pk []byte) bool { return len(pk) > 0 && pk[0] >= 'A' && pk[0] <= 'Z' }

// MemberPrefix is the first byte of the sort key of a member of type t.
func MemberPrefix(t KeyType) byte {
	if t == TypeZSet {
		return PrefixZSet
	}
	return PrefixSet
}

// MemberSK is member's sort key: see "Set members" and "Long members" above.
func MemberSK(t KeyType, member string) []byte {
	if t == TypeSet {
		return SetMemberSK(member)
	}
	if len(member) <= InlineMemberLen {
		return append([]byte{MemberPrefix(t)}, member...)
	}
	sk := make([]byte, 0, LongSKLen)
	sk = append(append(sk, MemberPrefix(t)), member[:InlineMemberLen]...)
	h := sha256.Sum256([]byte(member))
	return append(sk, h[:8]...)
}

// SetMemberSK is the sort key of a set member: 's', the first SetHashLen
// bytes of its SHA-256, then the member (its first InlineMemberLen bytes
// and the hash's next byte for a long one).
func SetMemberSK(member string) []byte {
	h := sha256.Sum256([]byte(member))
	n := min(len(member), InlineMemberLen)
	sk := make([]byte, 0, 1+SetHashLen+n+1)
	sk = append(append(append(sk, PrefixSet), h[:SetHashLen]...), member[:n]...)
	if len(member) > InlineMemberLen {
		sk = append(sk, h[SetHashLen])
	}
	return sk
}

// SetSKAt is the sort key of the position pos (the first SetHashLen
// bytes of a member's hash, as an integer) in a set: every member whose
// hash starts at pos or after sorts at or after it.
func SetSKAt(pos uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], pos)
	return append([]byte{PrefixSet}, b[8-SetHashLen:]...)
}

// IsLongSK reports whether sk is a long member's sort key.
func IsLongSK(sk []byte) bool { return len(sk) == LongSKLen }

func Bin(b []byte) *types.AttributeValueMemberB { return &types.AttributeValueMemberB{Value: b} }

func Str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

func Num(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// ItemKey is the primary key of a member (or, with sk = MetaSK, of the metadata item).
func ItemKey(key string, sk []byte) Item {
	return Item{AttrPK: Bin(PkValue(key)), AttrSK: Bin(sk)}
}

func MetaKey(key string) Item { return ItemKey(key, MetaSK) }

// BytesAttr returns the bytes of a B attribute, or nil.
func BytesAttr(it Item, name string) []byte {
	if v, ok := it[name].(*types.AttributeValueMemberB); ok {
		return v.Value
	}
	return nil
}

// MemberOf decodes an item's sort key: its member and the type it belongs to.
// ok is false for the metadata item.
func MemberOf(it Item) (member string, t KeyType, ok bool) {
	sk := BytesAttr(it, AttrSK)
	if len(sk) == 0 || sk[0] == MetaSK[0] {
		return "", TypeNone, false
	}
	t = TypeSet
	if sk[0] == PrefixZSet {
		t = TypeZSet
	}
	if IsLongSK(sk) {
		// Every read fills m in (queryPages, or a read of the whole item);
		// a long member without it is a bug, not a member to return cut.
		m, ok := it[AttrMem].(*types.AttributeValueMemberB)
		if !ok {
			panic("redimo: long member item read without its attribute m")
		}
		return string(m.Value), t, true
	}
	if t == TypeSet {
		return string(sk[min(len(sk), 1+SetHashLen):]), t, true
	}
	return string(sk[1:]), t, true
}

// Meta is what a key's metadata item says. A missing item is TypeNone, card 0.
type Meta struct {
	Typ  KeyType
	Card int64
	Exp  int64 // expiry in Unix milliseconds; 0: none
	// TTLs is how many of the card stored members have an expiry of
	// their own (memberttl.go), expired ones included: card counts them
	// until they are deleted, so reads that count subtract them.
	TTLs int64
	Ver  []byte // the version token (attrVer)
	// Ranked: the sorted set has count items (rank.go; AttrRanked).
	Ranked bool
	// Small: a small set's members (small.go); nil for any other key.
	Small []string
	// SmallZ: a small sorted set's members in order (smallz.go); nil
	// for any other key.
	SmallZ []ZEntry
	// Converted: when a small set or sorted set became member items
	// (Unix ms; 0: never, or not read).
	Converted int64
	// Tokens: the item holds write tokens (AttrWriteTok), which a
	// deletion keeps (MetaWrite.DeleteKey).
	Tokens bool
}

// Live is m as seen at now (Unix milliseconds): an expired key is missing.
func (m Meta) Live(now int64) Meta {
	if m.Expired(now) {
		return Meta{Typ: TypeNone}
	}
	return m
}

func (m Meta) Expired(now int64) bool { return m.Typ != TypeNone && m.Exp > 0 && m.Exp <= now }

// DecodeMeta decodes a metadata item as stored, expired or not; reads use
// Client.liveMeta.
func DecodeMeta(it Item) Meta {
	if it == nil {
		return Meta{Typ: TypeNone}
	}
	m := Meta{Typ: TypeNone}
	if v, ok := it[AttrType].(*types.AttributeValueMemberS); ok {
		m.Typ = KeyType(v.Value)
	}
	if v, ok := it[AttrCard].(*types.AttributeValueMemberN); ok {
		m.Card, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	if v, ok := it[AttrExp].(*types.AttributeValueMemberN); ok {
		m.Exp, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	if v, ok := it[AttrMemTTL].(*types.AttributeValueMemberN); ok {
		m.TTLs, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	m.Ver = BytesAttr(it, AttrVer)
	_, m.Ranked = it[AttrRanked]
	m.Small = SmallMembers(it)
	m.SmallZ = SmallZOf(it)
	if v, ok := it[AttrConverted].(*types.AttributeValueMemberN); ok {
		m.Converted, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	_, m.Tokens = it[AttrWriteTok]
	if m.Card <= 0 {
		return Meta{Typ: TypeNone}
	}
	return m
}

// EncodeScore maps a float64 to 8 bytes whose unsigned order is the float's
// numeric order: -inf < ... < -0 = +0 < ... < +inf. NaN must be rejected
// before. -0 is stored as +0, as Redis does not distinguish them in order.
func EncodeScore(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 → +0
	}
	b := math.Float64bits(f)
	if b&(1<<63) != 0 {
		return ^b
	}
	return b | 1<<63
}

func DecodeScore(u uint64) float64 {
	if u&(1<<63) != 0 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// ZsetIX is a sorted-set member's index value: score order, then member order,
// as Redis orders a sorted set. The 0x00 separator makes the 8-byte value
// EncodeScore(s)+1 sort after every member with score s and before every
// member with the next score, so a score range is one BETWEEN.
// A long member's index value holds its first InlineMemberLen bytes.
func ZsetIX(score float64, member string) []byte {
	member = member[:min(len(member), InlineMemberLen)]
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 9+len(member)), EncodeScore(score))
	return append(append(b, 0), member...)
}

// ScoreOfIX decodes the score of a sorted-set index value.
func ScoreOfIX(ix []byte) float64 {
	if len(ix) < 8 {
		return 0
	}
	return DecodeScore(binary.BigEndian.Uint64(ix))
}

// ScoreBound is the 8-byte index value that starts score s's range.
func ScoreBound(s float64) []byte { return binary.BigEndian.AppendUint64(nil, EncodeScore(s)) }

// ScoreBoundAfter is the 8-byte index value that ends score s's range.
func ScoreBoundAfter(s float64) []byte {
	return binary.BigEndian.AppendUint64(nil, EncodeScore(s)+1)
}

// KeyShards is the number of partitions of the key index.
const KeyShards = 16

// KeyHash is the position of key in the key index: the first 8 bytes of
// its SHA-256. Its top 4 bits are its shard.
func KeyHash(key string) uint64 {
	h := sha256.Sum256([]byte(key))
	return binary.BigEndian.Uint64(h[:8])
}

func ShardOf(h uint64) byte { return byte(h >> 60) }

// KeyIndexValues are the ks and kh attribute values of key's metadata item.
func KeyIndexValues(key string) (ks, kh *types.AttributeValueMemberB) {
	h := KeyHash(key)
	return Bin([]byte{ShardOf(h)}), Bin(binary.BigEndian.AppendUint64(nil, h))
}

// KeyIndexSet is the part of an UpdateExpression's SET that writes key's
// key index attributes (ks, kh) and, for a long key, its whole self (kk),
// with the placeholders it uses added to names and values. Every update of
// a metadata item writes them: unchanged values cost no index write, and a
// key written before the index existed gets into it.
func KeyIndexSet(key string, names map[string]string, values Item) string {
	names["#ks"], names["#kh"] = AttrKS, AttrKH
	values[":ks"], values[":kh"] = KeyIndexValues(key)
	if len(key) <= InlineKeyLen {
		return "#ks = :ks, #kh = :kh"
	}
	names["#kk"], values[":kk"] = AttrKey, Bin([]byte(key))
	return "#ks = :ks, #kh = :kh, #kk = :kk"
}

// Dedupe returns members without repeats, in first-seen order.
func Dedupe(members []string) []string {
	seen := make(map[string]struct{}, len(members))
	out := make([]string, 0, len(members))
	for _, m := range members {
		if _, ok := seen[m]; !ok {
			seen[m] = struct{}{}
			out = append(out, m)
		}
	}
	return out
}

var MetaProjection = struct {
	Expr  *string
	Names map[string]string
}{aws.String("#pk, #t, #n, #x, #mn, #v, #rk, #rb, #sm, #zm, #cs, #wt"), map[string]string{"#pk": AttrPK, "#t": AttrType, "#n": AttrCard, "#x": AttrExp, "#mn": AttrMemTTL, "#v": AttrVer, "#rk": AttrRanked, "#rb": AttrBuild, "#sm": AttrSmall, "#zm": AttrSmallZ, "#cs": AttrConverted, "#wt": AttrWriteTok}}

// MemberQuery is the Query of the member items of key of type typ whose
// member may start with prefix (every member, for a set: see SkPrefix).
func MemberQuery(key string, typ KeyType, prefix string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		KeyConditionExpression:   aws.String("#pk = :pk AND begins_with(#sk, :p)"),
		ExpressionAttributeNames: map[string]string{"#pk": AttrPK, "#sk": AttrSK},
		ExpressionAttributeValues: Item{
			":pk": Bin(PkValue(key)), ":p": Bin(SkPrefix(typ, prefix)),
		},
	}
}

var VersionProjection = struct {
	Expr  *string
	Names map[string]string
}{aws.String("#pk, #t, #n, #x, #v, #xt, #mn, #wt"), map[string]string{"#pk": AttrPK, "#t": AttrType, "#n": AttrCard,
	"#x": AttrExp, "#v": AttrVer, "#xt": AttrExpTok, "#mn": AttrMemTTL, "#wt": AttrWriteTok}}

var Compared = regexp.MustCompile(`(#[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)`)

// Edited is a copy of *p changed by edit.
func Edited[T any](p *T, edit func(*T)) *T {
	x := *p
	edit(&x)
	return &x
}

// LimiterPK is the partition key of a rate-limit key: 'r' + key, apart from
// Redis keys ('k' + key).
func LimiterPK(key string) []byte { return Partition(NsLimiter, key) }

// SkPrefix is the sort-key prefix shared by every member of type t that
// starts with prefix. A set's members share none but the type's (their
// sort keys start with a hash: "Set members" in keys.go), so for a set it
// is the prefix of every member, whatever prefix.
func SkPrefix(t KeyType, prefix string) []byte {
	if t == TypeSet {
		return []byte{PrefixSet}
	}
	return append([]byte{MemberPrefix(t)}, prefix[:min(len(prefix), InlineMemberLen)]...)
}

// RunKey is what a run of long members shares in the order the query in
// reads, or nil when it is not in such a run: for the local index the
// whole index value when it is as long as an index value gets, for the
// table the sort key's first 1+InlineMemberLen bytes of a long member of
// a sorted set. A set's members have no order to restore (they come in
// the order of their hashes): never in a run.
func RunKey(in *dynamodb.QueryInput, it Item) []byte {
	if in.IndexName != nil {
		if ix := BytesAttr(it, AttrIX); len(ix) == 9+InlineMemberLen {
			return ix
		}
		return nil
	}
	if sk := BytesAttr(it, AttrSK); IsLongSK(sk) && sk[0] != PrefixSet {
		return sk[:1+InlineMemberLen]
	}
	return nil
}

// WithEntry is a copy of m with k set to v (actions may share their maps).
func WithEntry[V any](m map[string]V, k string, v V) map[string]V {
	out := make(map[string]V, len(m)+1)
	for mk, mv := range m {
		out[mk] = mv
	}
	out[k] = v
	return out
}

// Collides reports whether now, what a failed condition found under w's
// sort key, is another member than w's.
func Collides(w *Write, now Item) bool {
	if now == nil || len(w.Member) <= InlineMemberLen {
		return false
	}
	m, ok := now[AttrMem].(*types.AttributeValueMemberB)
	return ok && string(m.Value) != w.Member
}

// WriteBytes estimates what w adds to a TransactWriteItems request, for
// DynamoDB's 4 MB limit on one.
func WriteBytes(key string, w *Write) int {
	n := 2*len(key) + 256 // pk twice (item and condition values), names, token share
	if len(w.Member) > InlineMemberLen {
		return n + 2*(1+InlineMemberLen+8) + len(w.Member) // sk, ix, m (or :lm)
	}
	return n + 2*(len(w.Member)+9)
}

// MaxTxBytes is how much of DynamoDB's 4 MB TransactWriteItems limit a
// transaction fills at most, by WriteBytes, leaving room for the metadata
// actions and estimates that fall short.
const MaxTxBytes = 3_500_000

// Scanned is a key found in the key index, with its type and expiry.
type Scanned struct {
	Key string
	M   Meta
	Pk  []byte // a long key's partition key, until its key is read
}

// DecodeScanned decodes an entry of the key index.
func DecodeScanned(it Item) Scanned {
	s := Scanned{M: DecodeMeta(WithCard(it))}
	if pk := BytesAttr(it, AttrPK); IsLongPK(pk) {
		s.Pk = pk
	} else {
		s.Key = string(pk[1:])
	}
	return s
}

// WithCard marks an index entry as a live key for DecodeMeta (the index
// does not project the count, which changes on every write).
func WithCard(it Item) Item {
	it[AttrCard] = Num(1)
	return it
}

func MapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// SweepBatch is how many expired members a write removes on the way.
const SweepBatch = 25
