// Package model is redimo's data model: everything a command needs that
// neither sends a request nor holds a Client. It sits below the commands
// (the root package), which import it; it imports nothing of redimo's, so
// the compiler keeps the layers: a value here cannot reach up into a
// command, a Client or the table.
//
//	keys.go      the encodings of keys, members and scores in items; the
//	             metadata item (Meta) and its projections; key and member
//	             checks; the key index's shard and hash; long members
//	meta.go      the metadata item's writes: MetaWrite builds every
//	             action on it (conditions on type, count, expiry, version,
//	             ranks; the dead mark; write tokens kept by deletions)
//	small.go     small sets in one item: their members in the metadata
//	             item, the size threshold, write tokens per writer lane
//	             (WriteToken, HoldsToken, StaleTokens), conversion
//	smallz.go    small sorted sets in one item: their entries (score and
//	             member, in order) in one binary attribute, the size
//	             threshold, the items they stand for
//	glob.go      Redis's glob patterns (MATCH, KEYS)
//	ranges.go    score and lex bounds, ZUNION/ZINTER's aggregation
//	write.go     writes as data: a Write is one member item's change with
//	             its condition as data (Need), rendered once into its
//	             DynamoDB action (Write.Rendered); Group, the writes of one
//	             command on one key; what a cancelled transaction's reasons
//	             say; which errors are retried
//	snapshot.go  EXEC's snapshot of a key (TxKey, TxMember): what a
//	             transaction read, and how a Write changes it (Write.Holds,
//	             Write.ApplyTo judge and apply a Write as DynamoDB would)
//	rank.go      the count items of ranked sorted sets: ranges, steps,
//	             how deltas fall into ranges
//	expiry.go    member and key expiry: the decisions of the EXPIRE
//	             families and what their replies count
//	random.go    the buckets of SRANDMEMBER and SPOP
//	price.go     the cost model: what a request costs at DynamoDB's
//	             documented rates
package model
