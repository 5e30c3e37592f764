package redimo

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
// index that lists keys (keyspace.go): kh is the first 8 bytes of the
// key's SHA-256, ks its top 4 bits (16 shards, so no one index partition
// takes every key's writes). Members never have them: the index holds
// metadata items only.
//	set member  'k' + key     's' + hash(7) + member    (absent: not in the index)
//	zset member 'k' + key     'z' + member              score(8 bytes) + 0x00 + member
//
// Set members. A set has no order, so a set member needs no index entry:
// its sort key starts with the first 7 bytes of the member's SHA-256
// (setHashLen), which spreads the members of a set uniformly over the
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
// Long keys. A key of more than inlineKeyLen (2047) bytes has the
// partition key 'K' + key[:2015] + SHA-256(key) (2048 bytes; 'R' and 'H'
// for the rate limiter's and ShardedSet's namespaces), and its metadata
// item holds the whole key in kk, for SCAN and KEYS. Keys are never
// ordered, so the full 32-byte hash keeps long keys apart.
//
// Long members. DynamoDB's sort keys (sk, and ix in the local index) hold
// at most 1024 bytes, so a member of more than inlineMemberLen (1015)
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
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attribute names. They are fixed: attributes below lists them all, and
// the tests check every request they send against it (model_test.go).
const (
	attrPK     = "pk" // partition key: the Redis key
	attrSK     = "sk" // sort key: a member or the metadata item
	attrIX     = "ix" // sorted-set member: sort key of the local secondary index
	attrType   = "t"  // metadata: "set" or "zset"
	attrCard   = "n"  // metadata: exact number of members
	attrExp    = "x"  // metadata: key expiry, Unix milliseconds (absent: none)
	attrExpTok = "xt" // metadata: a random token of the last EXPIRE or PERSIST that changed it
	attrVer    = "v"  // metadata: a fresh random token per write transaction (WATCH)
	attrKS     = "ks" // metadata: the key's shard (1 byte), partition key of the key index
	attrKH     = "kh" // metadata: the key's 8-byte hash, sort key of the key index
	attrMem    = "m"  // long member item: the whole member (see "Long members" above)
	attrKey    = "kk" // metadata of a long key: the whole key (see "Long keys" above)
	attrShards = "sh" // ShardedSet's record: its shard count
	attrAt     = "at" // rate-limit slot: Unix milliseconds of its last allowance
	attrClaim  = "cl" // rate-limit slot: a random token of the call that claimed it
	attrHi     = "hi" // count item (rank.go): upper bound of its range (absent: none)
	attrCV     = "cv" // count item: version token
	attrRanked = "rk" // metadata: the key has exact count items (rank.go)
	attrMemExp = "mx" // member: its expiry, Unix milliseconds (absent: none; memberttl.go)
	attrMemTTL = "mn" // metadata: how many stored members have mx, expired or not (absent: 0)
	// A small set's metadata item (smallset.go).
	attrSmall       = "sm" // its members
	attrSmallLen    = "sb" // the bytes its members take
	attrWriteTok    = "wt" // tokens of its last single-item writes
	attrWriteTokOld = "wo" // the tokens before those
)

// Namespaces: the first byte of a partition key (an upper-case one for a
// long key: "Long keys" above).
const (
	nsKeys    = 'k' // sets and sorted sets: metadata items and members
	nsLimiter = 'r' // RateLimiter: one item per slot (ratelimit.go)
	nsSharded = 'h' // ShardedSet: its shard-count record (sharded.go)
)

// Sort-key prefixes in the 'k' namespace: metaSK (0x00) for the metadata
// item, then one per member type (memberPrefix).
const (
	prefixSet  = 's'
	prefixZSet = 'z'
	rankPrefix = 0xFF // a sorted set's count item (rank.go): 0xFF + the lower bound of its range
)

// attributes is the whole schema: every attribute an item of the table
// can hold, its DynamoDB type and what holds it. doc.go's and the
// README's tables are checked against it, and so is every request the
// tests send (model_test.go).
var attributes = []struct{ name, typ, holds string }{
	{attrPK, "B", "partition key: namespace byte + key (keys.go)"},
	{attrSK, "B", "sort key: metaSK, or member prefix + member, or a limiter slot"},
	{attrIX, "B", "sorted-set member: sort key of the local secondary index by_ix"},
	{attrType, "S", "metadata: set or zset"},
	{attrCard, "N", "metadata: exact number of members"},
	{attrExp, "N", "metadata: key expiry, Unix ms"},
	{attrExpTok, "S", "metadata: token of the last EXPIRE/PERSIST"},
	{attrVer, "B", "metadata: version token (WATCH)"},
	{attrKS, "B", "metadata: partition key of the key index by_key"},
	{attrKH, "B", "metadata: sort key of the key index by_key"},
	{attrMem, "B", "long member: the whole member"},
	{attrKey, "B", "metadata of a long key: the whole key"},
	{attrShards, "N", "ShardedSet record: shard count"},
	{attrAt, "N", "rate-limit slot: time of its last allowance"},
	{attrClaim, "S", "rate-limit slot: token of its claimer"},
	{attrHi, "B", "count item: upper bound of its range of index values"},
	{attrCV, "B", "count item: version token"},
	{attrRanked, "N", "metadata: the key's count items exist and are exact"},
	{attrMemExp, "N", "member: its expiry, Unix ms; sort key of the local secondary index by_exp"},
	{attrMemTTL, "N", "metadata: number of stored members with an expiry"},
	{attrSmall, "BS", "metadata of a small set: its members"},
	{attrSmallLen, "N", "metadata of a small set: bytes of its members"},
	{attrWriteTok, "BS", "metadata: tokens of the last single-item writes"},
	{attrWriteTokOld, "BS", "metadata: the write tokens before those"},
}

const (
	// MaxKeyLen is the longest key, in bytes: as MaxMemberLen, what a
	// metadata item holds with room to spare. Keys longer than 2047 bytes
	// cost a little more to list (SCAN): see "Long keys" in keys.go.
	MaxKeyLen = 400_000

	// inlineKeyLen is the longest key stored whole in the partition key:
	// DynamoDB's 2048-byte limit minus the namespace byte.
	inlineKeyLen = 2047

	// MaxMemberLen is the longest member, in bytes: what one DynamoDB item
	// (400 KB, every attribute included) holds beside the keys, with room
	// to spare. Redis allows 512 MB; DynamoDB's item limit makes that
	// impossible here. Members longer than 1015 bytes cost more: see
	// "Long members" in keys.go and the README's cost table.
	MaxMemberLen = 400_000

	// inlineMemberLen is the longest member stored whole in the sort keys:
	// the 1024-byte limit of the index sort key minus the 8-byte score and
	// 1 separator byte.
	inlineMemberLen = 1015

	// setHashLen is how many bytes of a member's SHA-256 start its sort
	// key in a set, after the prefix (see "Set members" above): 7, so that
	// a set member of inlineMemberLen bytes has a sort key of 1023 bytes,
	// shorter than a long member's.
	setHashLen = 7

	// longSKLen is the length of a long member's sort key.
	longSKLen = 1 + inlineMemberLen + 8
)

// keyType is the Redis type of a key, stored in its metadata item.
type keyType string

const (
	typeNone keyType = "none"
	typeSet  keyType = "set"
	typeZSet keyType = "zset"
)

// item is one DynamoDB item.
type item = map[string]types.AttributeValue

var metaSK = []byte{0x00}

func pkValue(key string) []byte { return partition(nsKeys, key) }

// partition is the partition key of key in namespace ns ('k' for sets and
// sorted sets; ratelimit.go and sharded.go have their own): see "Long
// keys" above.
func partition(ns byte, key string) []byte {
	if len(key) <= inlineKeyLen {
		return append([]byte{ns}, key...)
	}
	h := sha256.Sum256([]byte(key))
	pk := make([]byte, 0, 1+inlineKeyLen)
	pk = append(append(pk, longNS(ns)), key[:inlineKeyLen-len(h)]...)
	return append(pk, h[:]...)
}

// longNS is the namespace byte of namespace ns's long keys: its upper case.
func longNS(ns byte) byte { return ns - 'a' + 'A' }

// isLongPK reports whether pk is a long key's partition key.
func isLongPK(pk []byte) bool { return len(pk) > 0 && pk[0] >= 'A' && pk[0] <= 'Z' }

// memberPrefix is the first byte of the sort key of a member of type t.
func memberPrefix(t keyType) byte {
	if t == typeZSet {
		return prefixZSet
	}
	return prefixSet
}

// memberSK is member's sort key: see "Set members" and "Long members" above.
func memberSK(t keyType, member string) []byte {
	if t == typeSet {
		return setMemberSK(member)
	}
	if len(member) <= inlineMemberLen {
		return append([]byte{memberPrefix(t)}, member...)
	}
	sk := make([]byte, 0, longSKLen)
	sk = append(append(sk, memberPrefix(t)), member[:inlineMemberLen]...)
	h := sha256.Sum256([]byte(member))
	return append(sk, h[:8]...)
}

// setMemberSK is the sort key of a set member: 's', the first setHashLen
// bytes of its SHA-256, then the member (its first inlineMemberLen bytes
// and the hash's next byte for a long one).
func setMemberSK(member string) []byte {
	h := sha256.Sum256([]byte(member))
	n := min(len(member), inlineMemberLen)
	sk := make([]byte, 0, 1+setHashLen+n+1)
	sk = append(append(append(sk, prefixSet), h[:setHashLen]...), member[:n]...)
	if len(member) > inlineMemberLen {
		sk = append(sk, h[setHashLen])
	}
	return sk
}

// setSKAt is the sort key of the position pos (the first setHashLen
// bytes of a member's hash, as an integer) in a set: every member whose
// hash starts at pos or after sorts at or after it.
func setSKAt(pos uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], pos)
	return append([]byte{prefixSet}, b[8-setHashLen:]...)
}

// isLongSK reports whether sk is a long member's sort key.
func isLongSK(sk []byte) bool { return len(sk) == longSKLen }

func bin(b []byte) *types.AttributeValueMemberB { return &types.AttributeValueMemberB{Value: b} }

func str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

func num(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// itemKey is the primary key of a member (or, with sk = metaSK, of the metadata item).
func itemKey(key string, sk []byte) item {
	return item{attrPK: bin(pkValue(key)), attrSK: bin(sk)}
}

func metaKey(key string) item { return itemKey(key, metaSK) }

// bytesAttr returns the bytes of a B attribute, or nil.
func bytesAttr(it item, name string) []byte {
	if v, ok := it[name].(*types.AttributeValueMemberB); ok {
		return v.Value
	}
	return nil
}

// memberOf decodes an item's sort key: its member and the type it belongs to.
// ok is false for the metadata item.
func memberOf(it item) (member string, t keyType, ok bool) {
	sk := bytesAttr(it, attrSK)
	if len(sk) == 0 || sk[0] == metaSK[0] {
		return "", typeNone, false
	}
	t = typeSet
	if sk[0] == prefixZSet {
		t = typeZSet
	}
	if isLongSK(sk) {
		// Every read fills m in (queryPages, or a read of the whole item);
		// a long member without it is a bug, not a member to return cut.
		m, ok := it[attrMem].(*types.AttributeValueMemberB)
		if !ok {
			panic("redimo: long member item read without its attribute m")
		}
		return string(m.Value), t, true
	}
	if t == typeSet {
		return string(sk[min(len(sk), 1+setHashLen):]), t, true
	}
	return string(sk[1:]), t, true
}

// meta is what a key's metadata item says. A missing item is typeNone, card 0.
type meta struct {
	typ  keyType
	card int64
	exp  int64 // expiry in Unix milliseconds; 0: none
	// ttls is how many of the card stored members have an expiry of
	// their own (memberttl.go), expired ones included: card counts them
	// until they are deleted, so reads that count subtract them.
	ttls int64
	ver  []byte // the version token (attrVer)
	// ranked: the sorted set has count items (rank.go; attrRanked).
	ranked bool
	// small: a small set's members (smallset.go); nil for any other key.
	small []string
}

// live is m as seen at now (Unix milliseconds): an expired key is missing.
func (m meta) live(now int64) meta {
	if m.expired(now) {
		return meta{typ: typeNone}
	}
	return m
}

func (m meta) expired(now int64) bool { return m.typ != typeNone && m.exp > 0 && m.exp <= now }

// decodeMeta decodes a metadata item as stored, expired or not; reads use
// Client.liveMeta.
func decodeMeta(it item) meta {
	if it == nil {
		return meta{typ: typeNone}
	}
	m := meta{typ: typeNone}
	if v, ok := it[attrType].(*types.AttributeValueMemberS); ok {
		m.typ = keyType(v.Value)
	}
	if v, ok := it[attrCard].(*types.AttributeValueMemberN); ok {
		m.card, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	if v, ok := it[attrExp].(*types.AttributeValueMemberN); ok {
		m.exp, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	if v, ok := it[attrMemTTL].(*types.AttributeValueMemberN); ok {
		m.ttls, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	m.ver = bytesAttr(it, attrVer)
	_, m.ranked = it[attrRanked]
	m.small = smallMembers(it)
	if m.card <= 0 {
		return meta{typ: typeNone}
	}
	return m
}

// encodeScore maps a float64 to 8 bytes whose unsigned order is the float's
// numeric order: -inf < ... < -0 = +0 < ... < +inf. NaN must be rejected
// before. -0 is stored as +0, as Redis does not distinguish them in order.
func encodeScore(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 → +0
	}
	b := math.Float64bits(f)
	if b&(1<<63) != 0 {
		return ^b
	}
	return b | 1<<63
}

func decodeScore(u uint64) float64 {
	if u&(1<<63) != 0 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// zsetIX is a sorted-set member's index value: score order, then member order,
// as Redis orders a sorted set. The 0x00 separator makes the 8-byte value
// encodeScore(s)+1 sort after every member with score s and before every
// member with the next score, so a score range is one BETWEEN.
// A long member's index value holds its first inlineMemberLen bytes.
func zsetIX(score float64, member string) []byte {
	member = member[:min(len(member), inlineMemberLen)]
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 9+len(member)), encodeScore(score))
	return append(append(b, 0), member...)
}

// scoreOfIX decodes the score of a sorted-set index value.
func scoreOfIX(ix []byte) float64 {
	if len(ix) < 8 {
		return 0
	}
	return decodeScore(binary.BigEndian.Uint64(ix))
}

// scoreBound is the 8-byte index value that starts score s's range.
func scoreBound(s float64) []byte { return binary.BigEndian.AppendUint64(nil, encodeScore(s)) }

// scoreBoundAfter is the 8-byte index value that ends score s's range.
func scoreBoundAfter(s float64) []byte {
	return binary.BigEndian.AppendUint64(nil, encodeScore(s)+1)
}

// checkKey rejects a key DynamoDB cannot hold.
func checkKey(cmd, key string) error {
	if len(key) > MaxKeyLen {
		return argError(cmd, "key", key, ErrKeyTooLong)
	}
	return nil
}

// checkMember rejects a member DynamoDB cannot hold.
func checkMember(cmd, member string) error {
	if len(member) > MaxMemberLen {
		return argError(cmd, "member", member, ErrMemberTooLong)
	}
	return nil
}

// checkKeyList validates the keys of a command that takes one or more: none
// is a syntax error (Redis: wrong number of arguments), and each must be a
// valid key.
func checkKeyList(cmd string, keys []string) error {
	if len(keys) == 0 {
		return argError(cmd, "keys", "", ErrSyntax)
	}
	return checkKeys(cmd, keys...)
}

func checkKeys(cmd string, keys ...string) error {
	for _, k := range keys {
		if err := checkKey(cmd, k); err != nil {
			return err
		}
	}
	return nil
}

func checkMembers(cmd string, members []string) error {
	for _, m := range members {
		if err := checkMember(cmd, m); err != nil {
			return err
		}
	}
	return nil
}

// dedupe returns members without repeats, in first-seen order.
func dedupe(members []string) []string {
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

// keyShards is the number of partitions of the key index.
const keyShards = 16

// keyHash is the position of key in the key index: the first 8 bytes of
// its SHA-256. Its top 4 bits are its shard.
func keyHash(key string) uint64 {
	h := sha256.Sum256([]byte(key))
	return binary.BigEndian.Uint64(h[:8])
}

func shardOf(h uint64) byte { return byte(h >> 60) }

// keyIndexValues are the ks and kh attribute values of key's metadata item.
func keyIndexValues(key string) (ks, kh *types.AttributeValueMemberB) {
	h := keyHash(key)
	return bin([]byte{shardOf(h)}), bin(binary.BigEndian.AppendUint64(nil, h))
}

// keyIndexSet is the part of an UpdateExpression's SET that writes key's
// key index attributes (ks, kh) and, for a long key, its whole self (kk),
// with the placeholders it uses added to names and values. Every update of
// a metadata item writes them: unchanged values cost no index write, and a
// key written before the index existed gets into it.
func keyIndexSet(key string, names map[string]string, values item) string {
	names["#ks"], names["#kh"] = attrKS, attrKH
	values[":ks"], values[":kh"] = keyIndexValues(key)
	if len(key) <= inlineKeyLen {
		return "#ks = :ks, #kh = :kh"
	}
	names["#kk"], values[":kk"] = attrKey, bin([]byte(key))
	return "#ks = :ks, #kh = :kh, #kk = :kk"
}
