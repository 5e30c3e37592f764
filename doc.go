// Package redimo gives Go programs the Redis SET and SORTED SET commands,
// with Redis's semantics, stored in one Amazon DynamoDB table: Redis's data
// structures with DynamoDB's durability and serverless scaling, and no
// server of its own in the data path.
//
//	cfg, _ := config.LoadDefaultConfig(ctx)
//	rdb := redimo.NewClient(dynamodb.NewFromConfig(cfg)) // table "redimo"
//	if err := rdb.CreateTable(ctx); err != nil { ... }   // once; a no-op afterwards
//	added, err := rdb.SAdd(ctx, "visitors:2026-11-22", "u1", "u2") // 2, nil
//	n, err := rdb.SCard(ctx, "visitors:2026-11-22")                // 2, nil
//
// Method names and shapes follow github.com/redis/go-redis: context first,
// plain return values plus error. A Redis nil reply is a comma-ok boolean
// (SPop returns member, ok, err). Errors are testable with errors.Is:
// ErrWrongType, ErrInvalidArgument (inside an *ArgError naming the
// argument), and DynamoDB's own errors wrapped with the command's name.
// Every command checks its input before any request: a rejected command
// writes nothing. Setup mistakes come back as a *SetupError naming the fix:
// errors.Is(err, ErrTableNotFound) (create the table with CreateTable),
// ErrNoCredentials, ErrNoRegion, ErrUnreachable; CheckTable finds them at
// start.
//
// For DynamoDB Local, give the SDK an endpoint, static credentials and no
// response checksum validation (ExampleNewClient). Options.Metrics reports
// every DynamoDB request with its command and the capacity units it
// consumed (ExampleOptions_metrics).
//
// # Guarantees
//
//   - A write of up to 99 members is one TransactWriteItems: all or nothing.
//     Larger writes go in transactions of 99 members, each atomic. A move
//     between sorted sets (ZMOVE, BZMOVE, ZMOVEMEMBER) deletes and puts
//     each member: up to 49 members are one transaction.
//   - Counts are exact under any concurrency: SADD/SREM/ZADD replies, SCARD
//     and ZCARD, because every transaction that adds or removes members also
//     updates the key's metadata item, and each member write is conditional.
//   - Reads are strongly consistent unless Options.EventuallyConsistent.
//   - A lost response never double-applies a write: each transaction
//     carries an idempotency token that the SDK's retries reuse.
//   - TxPipelined (and Tx.TxPipelined inside Watch) runs several commands
//     as one TransactWriteItems, as Redis's MULTI/EXEC: each answers seeing
//     the earlier ones' writes, and the commit is conditioned on every key
//     read, written or watched being unchanged since read (ErrTxFailed for
//     a watched key; ErrTxTooBig beyond 100 items or 4 MB, nothing
//     written).
//
// # The table
//
// One table (default "redimo"), created by CreateTable with on-demand
// billing, or by your own infrastructure code with this schema:
//
//	attribute  type  role
//	pk         B     partition key: 'k' + the Redis key (database n ≥ 1 of
//	                 WithDB: byte n + the key)
//	sk         B     sort key: 0x00 for the key's metadata item, 's' + the
//	                 first 7 bytes of the member's SHA-256 + member for a
//	                 set member (no index entry: random picks query the
//	                 table from a random hash; internal/model/keys.go), 'z' + member for a
//	                 sorted-set member
//	ix         B     sorted-set member only: sort key of the local secondary
//	                 index "by_ix" on (pk, ix), projecting mx: the
//	                 order-preserving score encoding + 0x00 + member
//	t, n             metadata item: type ("set", "zset") and exact cardinality
//	ks, kh     B     metadata item only: partition and sort key of the global
//	                 secondary index "by_key" on (ks, kh), projecting t, x, mn,
//	                 which lists keys (SCAN, KEYS, DBSIZE, RANDOMKEY,
//	                 FLUSHDB): kh is the first 8 bytes of the key's SHA-256,
//	                 ks its top 4 bits (16 index partitions; in database
//	                 n ≥ 1, ks is the two bytes n, shard)
//	x, xt, v         metadata item: expiry, expiry token, version token (WATCH)
//	m          B     a member over 1015 bytes: the whole member (sk and ix
//	                 then hold its first 1015 bytes and a hash; see internal/model/keys.go)
//	kk         B     the metadata item of a key over 2047 bytes: the whole
//	                 key (pk is then 'K' + its first 2015 bytes + SHA-256)
//	hi, cv     B     a sorted set's count item (sk 0xFF + the lower bound of a
//	                 range of index values, n its member count): upper
//	                 bound, version token (rank.go)
//	rk         N     metadata item: the key's count items exist and are exact
//	rb, rj     B, M  metadata item, while count items are built (rank.go):
//	                 the build's token, and its journal (a member's range
//	                 when the build began, by the first write after)
//	mx         N     a member with an expiry of its own (SEXPIRE, ZEXPIRE,
//	                 SADDEX): Unix ms; sort key of the local secondary index
//	                 "by_exp" on (pk, mx), keys only, which holds those members
//	                 only (memberttl.go)
//	mn         N     metadata item: how many stored members have mx
//	sm, sb     BS, N metadata item of a small set (at most 99 members within
//	                 about 640 bytes): its members and their bytes; such a
//	                 set has no member items (smallset.go)
//	zm         B     metadata item of a small sorted set (at most 99
//	                 members, entries within about 640 bytes): its members
//	                 and scores in order; no member items, no index
//	                 entries (smallz.go)
//	wt, w.*    N, B  metadata item: wt (1) marks an item holding write
//	                 tokens; w.<writer><lane> is one writer lane's last
//	                 single-item write token, by which a resent write knows
//	                 itself (smallset.go)
//	cs         N     metadata item of a set or sorted set converted from
//	                 small: when (ms)
//	gc         N     metadata item of a deleted key kept for its write
//	                 tokens: Unix seconds after which DynamoDB's TTL may
//	                 delete it
//	sh         N     a ShardedSet's record (pk 'h' + key, sk 0x00): shard count
//	at, cl     N, S  a RateLimiter slot (pk 'r' + key, sk the 2-byte slot):
//	                 time of its last allowance, token of its claimer
//
// Binary attributes make keys and members binary-safe, as in Redis: any
// bytes (invalid UTF-8 included) up to MaxKeyLen and MaxMemberLen bytes
// (400,000: DynamoDB's item limit). A local secondary index limits one key
// to 10 GB of items.
//
// Every exported method's doc comment says which Redis command it mirrors,
// where it differs, and its cost in DynamoDB requests and capacity units.
package redimo
