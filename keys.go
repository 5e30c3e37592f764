package redimo

// The key commands: on keys of any type (DEL, EXISTS, TYPE) and on the
// whole keyspace (SCAN, KEYS, DBSIZE, RANDOMKEY, FLUSHDB, TOUCH, OBJECT
// ENCODING). A key's expiry is expire.go's; RENAME and COPY, rename.go's.
//
// Keys are listed from the key index, a global secondary index over the
// metadata items only (members never carry its keys ks and kh; see
// internal/model/keys.go): 16 partitions, each ordered by an 8-byte hash of the key. A
// SCAN cursor is the hash to resume from, so cursors are plain numbers,
// as Redis clients expect, and need no state on any server. The index is
// eventually consistent (DynamoDB's global secondary indexes cannot be
// read strongly): a key created or deleted a moment ago may be missing
// from, or still in, a listing.

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/redisarg"
)

// Match reports whether s matches the Redis glob-style pattern, as the
// MATCH option of SSCAN and ZSCAN (and KEYS, CONFIG GET) does: '*' any run
// of bytes, '?' one byte, '[abc]' '[^abc]' '[a-z]' classes, '\x' the byte x.
func Match(pattern, s string) bool { return model.GlobMatch(pattern, s) }

// DefaultScanCount is how many keys Scan examines when count is 0 (Redis's
// default COUNT).
const DefaultScanCount = 10

// keyIndexQuery is the Query of shard's part of the key index from hash
// from on.
func (c *Client) keyIndexQuery(shard byte, from uint64) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		IndexName:                aws.String(c.opts.KeyIndexName),
		ConsistentRead:           aws.Bool(false), // a global index cannot be read strongly
		KeyConditionExpression:   aws.String("#ks = :ks AND #kh >= :from"),
		ExpressionAttributeNames: map[string]string{"#ks": model.AttrKS, "#kh": model.AttrKH},
		ExpressionAttributeValues: model.Item{
			":ks": model.Bin([]byte{shard}), ":from": model.Bin(binary.BigEndian.AppendUint64(nil, from)),
		},
	}
}

// scanFrom reads up to count entries of the key index from hash cursor on
// (across shards) and returns them, with the cursor after them (0 at the
// end). Expired and dead keys are returned too: callers filter.
func (c *Client) scanFrom(ctx context.Context, cursor uint64, count int) ([]model.Scanned, uint64, error) {
	out, next, err := c.scanIndex(ctx, cursor, count)
	if err == nil {
		out, err = c.longKeys(ctx, out)
	}
	return out, next, err
}

// longKeys reads the whole key of each long key among found from its
// metadata item (the key index has only its partition key): one
// BatchGetItem per 100 long keys, none without. A key deleted since the
// index listed it is left out.
func (c *Client) longKeys(ctx context.Context, found []model.Scanned) ([]model.Scanned, error) {
	var req []model.Item
	for _, s := range found {
		if s.Pk != nil {
			req = append(req, model.Item{model.AttrPK: model.Bin(s.Pk), model.AttrSK: model.Bin(model.MetaSK)})
		}
	}
	if req == nil {
		return found, nil
	}
	items, err := c.st.BatchGet(ctx, req, aws.String("#pk, #kk"), map[string]string{"#pk": model.AttrPK, "#kk": model.AttrKey})
	if err != nil {
		return nil, err
	}
	whole := make(map[string]string, len(items))
	for _, it := range items {
		if k := model.BytesAttr(it, model.AttrKey); k != nil {
			whole[string(model.BytesAttr(it, model.AttrPK))] = string(k)
		}
	}
	kept := found[:0]
	for _, s := range found {
		if s.Pk != nil {
			k, ok := whole[string(s.Pk)]
			if !ok {
				continue
			}
			s.Key, s.Pk = k, nil
		}
		kept = append(kept, s)
	}
	return kept, nil
}

// scanIndex is scanFrom before longKeys.
func (c *Client) scanIndex(ctx context.Context, cursor uint64, count int) ([]model.Scanned, uint64, error) {
	var out []model.Scanned
	for {
		shard := model.ShardOf(cursor)
		var last uint64
		for it, err := range c.query(ctx, c.keyIndexQuery(shard, cursor), count-len(out)) {
			if err != nil {
				return nil, 0, err
			}
			last = binary.BigEndian.Uint64(model.BytesAttr(it, model.AttrKH))
			out = append(out, model.DecodeScanned(it))
		}
		if len(out) >= count {
			if last == ^uint64(0) {
				return out, 0, nil
			}
			return out, last + 1, nil // the next read may find this shard done: harmless
		}
		if shard == model.KeyShards-1 {
			return out, 0, nil
		}
		cursor = uint64(shard+1) << 60
	}
}

// dropEmptied leaves out of found the keys whose members have all
// expired (memberttl.go): those the index shows with member expiries
// (mn) are read (one BatchGetItem per 100) and settled.
func (c *Client) dropEmptied(ctx context.Context, found []model.Scanned) ([]model.Scanned, error) {
	var keys []string
	for _, s := range found {
		if s.M.TTLs > 0 {
			keys = append(keys, s.Key)
		}
	}
	if len(keys) == 0 {
		return found, nil
	}
	ms, err := c.view().metas(ctx, keys)
	if err != nil {
		return nil, err
	}
	gone := map[string]bool{}
	for i, k := range keys {
		m, err := c.settle(ctx, k, ms[i], false)
		if err != nil {
			return nil, err
		}
		gone[k] = m.Typ == model.TypeNone
	}
	kept := found[:0]
	for _, s := range found {
		if !gone[s.Key] {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

// Scan returns keys matching match (a glob; "" matches all) among about
// count (0: DefaultScanCount) keys examined from cursor (0 to start), and
// the cursor to continue from (0 when done), as Redis's SCAN: a key that
// exists for the whole iteration is returned at least once (it may be
// returned more than once). Keys are in the order of a hash of their name.
//
// The listing is eventually consistent: a key created or deleted in the
// last second may be missing from it or still in it. Keys of a table
// created by a redimo older than the key index are listed once they are
// written again.
//
// Cost: one Query of the key index per shard crossed (16 in all), reading
// count entries: ~1 read unit per 100 keys examined (eventually
// consistent, model.Projected entries of ~40 bytes). No member is read.
//
// [SCAN]: https://redis.io/docs/latest/commands/scan/
func (c *Client) Scan(ctx context.Context, cursor uint64, match string, count int64) (_ []string, _ uint64, err error) {
	ctx, traced := c.command(ctx, "Scan")
	defer traced.end(&err)
	return c.ScanType(ctx, cursor, match, count, "")
}

// ScanType is Scan returning only keys of model.KeyType ("set" or "zset", in
// any case; "" for any; another type matches no key), as SCAN ... TYPE.
//
// Cost: as Scan.
//
// [SCAN]: https://redis.io/docs/latest/commands/scan/
func (c *Client) ScanType(ctx context.Context, cursor uint64, match string, count int64, keyType string) (_ []string, _ uint64, err error) {
	ctx, traced := c.command(ctx, "ScanType")
	defer traced.end(&err)
	if count < 0 {
		return nil, 0, argError("SCAN", "count", strconv.FormatInt(count, 10), ErrOutOfRange)
	}
	if count == 0 {
		count = DefaultScanCount
	}
	found, next, err := c.scanFrom(ctx, cursor, int(min(count, 1<<20)))
	if err != nil {
		return nil, 0, wrap("SCAN", err)
	}
	if found, err = c.dropEmptied(ctx, found); err != nil {
		return nil, 0, wrap("SCAN", err)
	}
	keys := []string{}
	now := c.nowMs()
	keyType = strings.ToLower(keyType) // Redis compares type names ignoring case
	for _, s := range found {
		if s.M.Live(now).Typ == model.TypeNone || (keyType != "" && string(s.M.Typ) != keyType) {
			continue
		}
		if match == "" || model.GlobMatch(match, s.Key) {
			keys = append(keys, s.Key)
		}
	}
	return keys, next, nil
}

// Keys returns every key matching pattern (a glob), as Redis's KEYS, in
// the order of a hash of their names. Eventually consistent, as Scan.
//
// Cost: as Scan over the whole key index: ~1 read unit per 100 keys.
//
// [KEYS]: https://redis.io/docs/latest/commands/keys/
func (c *Client) Keys(ctx context.Context, pattern string) (_ []string, err error) {
	ctx, traced := c.command(ctx, "Keys")
	defer traced.end(&err)
	if pattern == "" { // matches the empty key only (Scan's "" is no MATCH)
		n, err := c.Exists(ctx, "")
		if err != nil || n == 0 {
			return []string{}, wrap("KEYS", err)
		}
		return []string{""}, nil
	}
	out := []string{}
	cursor := uint64(0)
	for {
		keys, next, err := c.Scan(ctx, cursor, pattern, 1000)
		if err != nil {
			return nil, wrap("KEYS", err)
		}
		out = append(out, keys...)
		if next == 0 {
			return out, nil
		}
		cursor = next
	}
}

// DBSize returns the number of keys, as Redis's DBSIZE: the keys SCAN
// lists. Keys that expired are not counted (Redis deletes them in the
// background), nor keys whose members all expired. The count is
// eventually consistent, as Scan.
//
// Cost: as Keyspace.
//
// [DBSIZE]: https://redis.io/docs/latest/commands/dbsize/
func (c *Client) DBSize(ctx context.Context) (_ int64, err error) {
	ctx, traced := c.command(ctx, "DBSize")
	defer traced.end(&err)
	st, err := c.keyStats(ctx)
	if err != nil {
		return 0, wrap("DBSIZE", err)
	}
	return st.Keys, nil
}

// RandomKey returns a random key; ok is false when there is none, as
// Redis's RANDOMKEY. The key is the first live one after a random point of
// the key index: every key can come, not with exactly equal chances (a
// key after a wide gap in the hashes comes more often), as Redis's own
// pick is not exactly uniform either.
//
// Cost: usually one Query of the key index reading a few entries; more
// when it meets expired keys or an empty shard.
//
// [RANDOMKEY]: https://redis.io/docs/latest/commands/randomkey/
func (c *Client) RandomKey(ctx context.Context) (_ string, _ bool, err error) {
	ctx, traced := c.command(ctx, "RandomKey")
	defer traced.end(&err)
	start := rand.Uint64()
	now := c.nowMs()
	cursor, wrapped := start, false
	for {
		found, next, err := c.scanFrom(ctx, cursor, 8)
		if err == nil {
			found, err = c.dropEmptied(ctx, found)
		}
		if err != nil {
			return "", false, wrap("RANDOMKEY", err)
		}
		for _, s := range found {
			if wrapped && model.KeyHash(s.Key) >= start {
				return "", false, nil // went round: every key is expired
			}
			if s.M.Live(now).Typ != model.TypeNone {
				return s.Key, true, nil
			}
		}
		if next == 0 {
			if wrapped {
				return "", false, nil
			}
			wrapped = true
		}
		cursor = next
	}
}

// FlushDB deletes every key, as Redis's FLUSHDB (and FLUSHALL: redimo has
// one database). Keys are deleted one by one as DEL does, several at a
// time; it is not atomic: keys written meanwhile may stay. Keys of a
// table created by a redimo older than the key index, never written
// since, are not deleted.
//
// A RateLimiter's slots and a ShardedSet's shard-count record are not
// keys and stay: a ShardedSet reopened after it keeps its shard count.
//
// Cost: the key listing of Keys, then DEL's cost for every key: every
// item of the database's keys is read and deleted.
//
// [FLUSHDB]: https://redis.io/docs/latest/commands/flushdb/
func (c *Client) FlushDB(ctx context.Context) (err error) {
	ctx, traced := c.command(ctx, "FlushDB")
	defer traced.end(&err)
	cursor := uint64(0)
	for {
		found, next, err := c.scanFrom(ctx, cursor, 1000)
		if err != nil {
			return wrap("FLUSHDB", err)
		}
		if err := c.view().each(len(found), func(i int) error {
			_, err := c.del(ctx, found[i].Key)
			return err
		}); err != nil {
			return wrap("FLUSHDB", err)
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

// Touch returns how many of keys exist, counting a key named twice twice,
// as Redis's TOUCH (redimo keeps no access times: it is EXISTS).
//
// Cost: as Exists.
//
// [TOUCH]: https://redis.io/docs/latest/commands/touch/
func (c *Client) Touch(ctx context.Context, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "Touch")
	defer traced.end(&err)
	if len(keys) == 0 {
		return 0, argError("TOUCH", "keys", "", ErrSyntax)
	}
	n, err := c.Exists(ctx, keys...)
	if err != nil {
		return 0, wrap("TOUCH", err)
	}
	return n, nil
}

// DefaultEncodingLimits are Redis 7.2's defaults: 512, 128, 64, 128, 64.
func DefaultEncodingLimits() EncodingLimits {
	return EncodingLimits{
		SetMaxIntsetEntries: 512, SetMaxListpackEntries: 128, SetMaxListpackValue: 64,
		ZSetMaxListpackEntries: 128, ZSetMaxListpackValue: 64,
	}
}

// ObjectEncoding is ObjectEncodingWith under DefaultEncodingLimits.
//
// [OBJECT ENCODING]: https://redis.io/docs/latest/commands/object-encoding/
func (c *Client) ObjectEncoding(ctx context.Context, key string) (_ string, _ bool, err error) {
	ctx, traced := c.command(ctx, "ObjectEncoding")
	defer traced.end(&err)
	return c.ObjectEncodingWith(ctx, key, DefaultEncodingLimits())
}

// ObjectEncodingWith returns the encoding Redis 7.2 reports for a key
// holding the members key holds now, under lim, as OBJECT ENCODING; ok is
// false when the key is missing. A set is "intset" when every member is
// an integer as Redis reads one (string2ll: "12", not "012" or "+1") and
// there are at most SetMaxIntsetEntries (at most 2^30, as Redis caps
// it), else "listpack" when there are at most SetMaxListpackEntries and
// none is longer than SetMaxListpackValue bytes, else "hashtable"; a
// sorted set is "listpack" within ZSetMaxListpackEntries and
// ZSetMaxListpackValue, else "skiplist". redimo stores every key the same
// way: the answer is what Redis would hold, for clients and tests that
// look at it.
//
// Where it differs: Redis converts one way only (intset to listpack or
// hashtable, listpack to hashtable or skiplist) and keeps the large
// encoding when the key shrinks or its thresholds are raised; it also
// picks a large encoding at once for a key created by one command naming
// more members than a threshold, duplicates included. redimo answers
// from how it stores a set (smallset.go): a set of member items is
// "hashtable", as a Redis set that outgrew the compact encodings; a small
// set (its members in one item) gets the encoding Redis gives a key made
// by adding these members one at a time under lim, and so does a sorted
// set. So a set that Redis keeps compact but redimo holds as member items
// (more than 99 members, or more than about 640 bytes of them, or one
// that was converted and shrank since) is "hashtable" here. Inside a
// transaction the snapshot's members decide, as for a small set.
//
// Cost: one GetItem (1 read unit); for a key small enough for a compact
// encoding (or, with member expiries, a COUNT of the expired ones first),
// a Query of its members (1 read unit per 4 KB), stopped at the first
// member that rules the compact encodings out.
func (c *Client) ObjectEncodingWith(ctx context.Context, key string, lim EncodingLimits) (_ string, _ bool, err error) {
	ctx, traced := c.command(ctx, "ObjectEncodingWith")
	defer traced.end(&err)
	if err := checkKey("OBJECT", key); err != nil {
		return "", false, err
	}
	m, err := c.liveMetaOf(ctx, key)
	if err == nil {
		m, err = c.settle(ctx, key, m, true)
	}
	if err != nil {
		return "", false, wrap("OBJECT", err)
	}
	if m.Typ == model.TypeSet && c.view().itemSet(m) { // member items (smallset.go)
		return "hashtable", true, nil
	}
	var (
		large            string
		entries, value   int64
		ints, intEntries = m.Typ == model.TypeSet, min(lim.SetMaxIntsetEntries, 1<<30)
	)
	switch m.Typ {
	case model.TypeSet:
		large, entries, value = "hashtable", lim.SetMaxListpackEntries, lim.SetMaxListpackValue
	case model.TypeZSet:
		large, entries, value = "skiplist", lim.ZSetMaxListpackEntries, lim.ZSetMaxListpackValue
		intEntries = -1
	default:
		return "", false, nil
	}
	compact := max(entries, intEntries)
	if m.Card > compact {
		return large, true, nil
	}
	var n int64
	fits := true // every member so far within value
	for it, err := range c.view().memberItems(ctx, key, m.Typ, "") {
		if err != nil {
			return "", false, wrap("OBJECT", err)
		}
		member, _, _ := model.MemberOf(it)
		n++
		if ints {
			_, ints = redisarg.Int(member)
		}
		fits = fits && int64(len(member)) <= value
		if !ints && (!fits || n > entries) || n > compact {
			return large, true, nil
		}
	}
	switch {
	case n == 0: // every member expired meanwhile
		return "", false, nil
	case ints && n <= intEntries:
		return "intset", true, nil
	case fits && n <= entries:
		return "listpack", true, nil
	}
	return large, true, nil
}

// KeyspaceStats are the figures of INFO's Keyspace section.
type KeyspaceStats struct {
	Keys    int64 // keys, as DBSize counts them
	Expires int64 // keys with an expiry
}

// Keyspace returns the number of keys and of keys with an expiry, as the
// db0 line of Redis's INFO keyspace (Redis's avg_ttl is not computed),
// counting the keys DBSize counts. Eventually consistent, as Scan.
//
// Cost: 16 Queries of the key index in parallel, reading every entry
// (~40 bytes each): ~1 read unit per 100 keys. Keys with member expiries
// are read as Scan reads them, to leave out those whose members all
// expired: one BatchGetItem per 100, and SCARD's count for those whose
// every member has an expiry.
//
// [INFO]: https://redis.io/docs/latest/commands/info/
func (c *Client) Keyspace(ctx context.Context) (_ KeyspaceStats, err error) {
	ctx, traced := c.command(ctx, "Keyspace")
	defer traced.end(&err)
	st, err := c.keyStats(ctx)
	if err != nil {
		return KeyspaceStats{}, wrap("INFO", err)
	}
	return st, nil
}

// keyStats counts the live keys of the key index, and those with an
// expiry, shard by shard in parallel.
func (c *Client) keyStats(ctx context.Context) (KeyspaceStats, error) {
	var (
		mu     sync.Mutex
		st     KeyspaceStats
		unsure []model.Scanned // keys with member expiries: maybe all expired
	)
	now := c.nowMs()
	err := c.st.Parallel(model.KeyShards, func(i int) error {
		shard := byte(i)
		var part KeyspaceStats
		var maybe []model.Scanned
		for it, err := range c.query(ctx, c.keyIndexQuery(shard, uint64(shard)<<60), 0) {
			if err != nil {
				return err
			}
			switch s := model.DecodeScanned(it); {
			case s.M.Live(now).Typ == model.TypeNone:
			case s.M.TTLs > 0:
				maybe = append(maybe, s)
			default:
				part.Keys++
				part.Expires += min(s.M.Exp, 1)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		st.Keys, st.Expires, unsure = st.Keys+part.Keys, st.Expires+part.Expires, append(unsure, maybe...)
		return nil
	})
	if err == nil {
		unsure, err = c.longKeys(ctx, unsure)
	}
	if err == nil {
		unsure, err = c.dropEmptied(ctx, unsure)
	}
	for _, s := range unsure {
		st.Keys++
		st.Expires += min(s.M.Exp, 1)
	}
	return st, err
}

// Del removes keys of any type and returns how many existed, as Redis's DEL.
// No keys at all is ErrSyntax, as Redis's arity error.
//
// Each key goes at once for every reader, whatever its size: one write
// marks its metadata item dead, as an expiry does, and its member items
// are reclaimed after, in transactions of 99 that keep the stored count
// equal to the member items (a purge, tx.go). A DEL cut short after the
// mark (a crash, a timeout) has deleted the key: the next client to write
// it, or DEL or FLUSHDB it, reclaims what is left. A small set (its one
// item) goes in one write. The reclaim deletes nothing until 0.5 s after the
// mark (readLease: a read that found the key live just before the mark
// may still be reading its members), so DEL of a key of member items
// answers after 0.5 s at least.
//
// Cost per existing key: 1 GetItem + 1 UpdateItem (1 write unit) + Query
// of its members (1 read unit per 4 KB) + ⌈members/99⌉ TransactWriteItems
// (2 write units per member and for the metadata item). A missing key
// costs 1 read unit.
//
// [DEL]: https://redis.io/docs/latest/commands/del/
func (c *Client) Del(ctx context.Context, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "Del")
	defer traced.end(&err)
	if err := checkKeyList("DEL", keys); err != nil {
		return 0, err
	}
	// The keys go several at a time, as FLUSHDB's (view.each): each
	// reclaim waits out the read lease.
	keys = model.Dedupe(keys)
	var n atomic.Int64
	err = c.view().each(len(keys), func(i int) error {
		deleted, err := c.del(ctx, keys[i])
		if deleted {
			n.Add(1)
		}
		return err
	})
	return n.Load(), wrap("DEL", err)
}

func (c *Client) del(ctx context.Context, key string) (deleted bool, err error) {
	err = c.st.Attempts(ctx, false, func() (bool, error) {
		m, err := c.view().metaOf(ctx, key, nil)
		if err != nil || m.Typ == model.TypeNone {
			return true, err
		}
		if m.Expired(c.nowMs()) { // already gone for Redis; reclaim its items
			return true, c.view().purge(ctx, key, m)
		}
		if m.Small != nil || m.SmallZ != nil {
			var handled bool
			deleted, handled, err = c.smallDel(ctx, key)
			return handled, err // not handled: it changed meanwhile, read it again
		}
		// A key whose members have all expired is missing (memberttl.go):
		// it is swept, and DEL replies 0, as Redis's.
		live, err := c.settle(ctx, key, m, false)
		if err != nil {
			return true, err
		}
		if live.Typ == model.TypeNone {
			return true, c.view().purge(ctx, key, m)
		}
		var changed bool
		deleted, changed, err = c.view().drop(ctx, key, m)
		return !changed, err
	})
	return deleted, err
}

// Exists returns how many of keys exist, counting a key named twice twice,
// as Redis's EXISTS. No keys at all is ErrSyntax, as Redis's arity error.
//
// Cost: one BatchGetItem per 100 distinct keys, 1 read unit per key
// (0.5 when eventually consistent).
//
// [EXISTS]: https://redis.io/docs/latest/commands/exists/
func (c *Client) Exists(ctx context.Context, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "Exists")
	defer traced.end(&err)
	if err := checkKeyList("EXISTS", keys); err != nil {
		return 0, err
	}
	ms, err := c.view().metas(ctx, keys)
	if err != nil {
		return 0, wrap("EXISTS", err)
	}
	var n int64
	for i, m := range ms {
		if m, err = c.settle(ctx, keys[i], m, false); err != nil { // members all expired: missing
			return 0, wrap("EXISTS", err)
		}
		if m.Typ != model.TypeNone {
			n++
		}
	}
	return n, nil
}

// Type returns the type of the value at key: "set", "zset", or "none" when
// the key does not exist, as Redis's TYPE.
//
// Cost: one GetItem, 1 read unit (0.5 when eventually consistent).
//
// [TYPE]: https://redis.io/docs/latest/commands/type/
func (c *Client) Type(ctx context.Context, key string) (_ string, err error) {
	ctx, traced := c.command(ctx, "Type")
	defer traced.end(&err)
	if err := checkKey("TYPE", key); err != nil {
		return "", err
	}
	m, err := c.liveMetaOf(ctx, key)
	if err != nil {
		return "", wrap("TYPE", err)
	}
	return string(m.Typ), nil
}
