package redimo

// Member expiry: a time to live for one member of any set or sorted set,
// as Redis 8.12's SEXPIRE family (HEXPIRE's shape: per-member replies
// −2/0/1/2, NX|XX|GT|LT) and SADDEX (saddex.go), Garnet's ZEXPIRE family
// with ZPERSIST and ZCOLLECT, and Dragonfly's SADDEX.
//
// Storage. A member with an expiry carries it in mx (Unix milliseconds);
// the metadata item counts such members in mn. Two local indexes, made by
// CreateTable, serve it: by_ix projects mx, so range reads drop expired
// members from their pages without reading the table, and by_exp (pk, mx)
// holds only the members that have an expiry (a sparse index), so the
// expired ones of a key are one Query away.
//
// Exact answers. An expired member is a missing member to every command
// from the millisecond it expires, whether or not it has been deleted:
//   - reads of members (ranges, SMEMBERS, SISMEMBER, scans, random picks,
//     algebra, counts of ranges and ranks) filter on mx in the Query or
//     the items they read;
//   - SCARD/ZCARD are the stored count minus the expired members still
//     stored (a COUNT Query of by_exp), checked against the metadata
//     item's version token read again after the Query: DynamoDB serializes
//     a GetItem with transactions, so an unchanged token means no write
//     committed in between and the difference is that of one moment. A
//     Client remembers the last count it checked so, and while the key is
//     not written counts only the members expired since (liveCount);
//   - every write's condition on an existing member also requires it not
//     to have expired; a write that meets an expired member treats it as
//     missing and deletes or replaces it in the same transaction (the
//     stored count and mn follow), so expired members go as writes meet
//     them, and all at once with ZCollect/SCollect.
//
// A key whose members have all expired is a missing key (EXISTS, TYPE,
// a write of the other type). Keys with member expiries are never ranked
// (rank.go): ranks are counted.
//
// Tables made before member expiry have neither index change; every
// command but those that set an expiry works there, since none of their
// members can carry one. The commands that would set one fail with
// ErrNoMemberExpiry, whose message gives the migration.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// tableCaps is what a table's indexes allow, learned once per table name
// and process (CreateTable, CheckTable, or the first read that needs it:
// one DescribeTable, no capacity units). Local indexes never change after
// a table's creation, so it stays true while the table lives.
type tableCaps struct {
	mu        sync.Mutex
	known     bool
	memberTTL bool // by_ix projects mx and by_exp exists
}

var capsByTable sync.Map // table name → *tableCaps

func capsOf(table string) *tableCaps {
	v, _ := capsByTable.LoadOrStore(table, &tableCaps{})
	return v.(*tableCaps)
}

func (t *tableCaps) set(memberTTL bool) {
	t.mu.Lock()
	t.known, t.memberTTL = true, memberTTL
	t.mu.Unlock()
}

// memberTTL reports whether the table has the indexes of member expiry.
func (c *Client) memberTTL(ctx context.Context) (bool, error) {
	c.caps.mu.Lock()
	known, ok := c.caps.known, c.caps.memberTTL
	c.caps.mu.Unlock()
	if known {
		return ok, nil
	}
	if c.tx != nil { // the table's description is not the transaction's
		return c.tx.base.memberTTL(ctx)
	}
	desc, err := c.describeTable(ctx)
	if err != nil {
		return false, err
	}
	_ = c.checkSchema(desc) // records the capability; other mismatches show elsewhere
	c.caps.mu.Lock()
	defer c.caps.mu.Unlock()
	return c.caps.memberTTL, nil
}

// requireMemberTTL is ErrNoMemberExpiry on a table without the indexes.
func (c *Client) requireMemberTTL(ctx context.Context, cmd string) error {
	ok, err := c.memberTTL(ctx)
	if err != nil {
		return wrap(cmd, err)
	}
	if !ok {
		return fmt.Errorf("%w: table %s was created without local indexes %s (projecting mx) and %s; "+
			"local indexes exist only from a table's creation: create a new table with CreateTable "+
			"(CLI: redimo --table NEW create-table), copy every item into it (items keep their format: "+
			"Scan the old table, BatchWriteItem into the new one), then point clients at it",
			ErrNoMemberExpiry, c.opts.TableName, c.opts.IndexName, c.opts.ExpiryIndexName)
	}
	return nil
}

// withExpired marks ctx for reads that must see expired members too (the
// purge, sweeps, RENAME's moves).
func withExpired(ctx context.Context) context.Context {
	return context.WithValue(ctx, model.AllMembersKey{}, true)
}

// filterExpired adds to a Query of member items (the table, or by_ix on a
// table that projects mx into it) a filter that drops expired members. It
// costs nothing: the filter is applied to what the Query reads anyway.
// Items without mx (members without an expiry, metadata, count items) pass.
func (c *Client) filterExpired(ctx context.Context, page *dynamodb.QueryInput) error {
	if ctx.Value(model.AllMembersKey{}) != nil {
		return nil
	}
	if page.IndexName != nil {
		if *page.IndexName != c.opts.IndexName {
			return nil
		}
		if ok, err := c.memberTTL(ctx); err != nil || !ok {
			return err
		}
	}
	cond := "(attribute_not_exists(#mxLive) OR #mxLive > :mxNow)"
	if page.FilterExpression != nil {
		cond = "(" + *page.FilterExpression + ") AND " + cond
	}
	page.FilterExpression = aws.String(cond)
	page.ExpressionAttributeNames = model.WithEntry(page.ExpressionAttributeNames, "#mxLive", model.AttrMemExp)
	page.ExpressionAttributeValues = model.WithEntry(page.ExpressionAttributeValues, ":mxNow", types.AttributeValue(model.Num(c.nowMs())))
	return nil
}

// expiredQuery is the Query of key's members that have expired at now
// (by_exp).
func (c *Client) expiredQuery(key string, now int64) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		IndexName:                 aws.String(c.opts.ExpiryIndexName),
		KeyConditionExpression:    aws.String("#pk = :pk AND #mx <= :now"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#mx": model.AttrMemExp},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":now": model.Num(now)},
		ConsistentRead:            aws.Bool(true),
	}
}

// expiredSince is expiredQuery for the members whose expiry is in (after, now].
func (c *Client) expiredSince(key string, after, now int64) *dynamodb.QueryInput {
	in := c.expiredQuery(key, now)
	in.KeyConditionExpression = aws.String("#pk = :pk AND #mx BETWEEN :after AND :now")
	in.ExpressionAttributeValues[":after"] = model.Num(after + 1)
	return in
}

// Replies of the member-expiry commands, per member, as Redis's HEXPIRE
// and HTTL.
const (
	MemberMissing   = -2 // no such member (or key)
	MemberNoExpiry  = -1 // TTL/PERSIST: the member has no expiry
	MemberNotSet    = 0  // EXPIRE: the NX|XX|GT|LT condition did not hold
	MemberExpirySet = 1  // EXPIRE: set; PERSIST: removed
	MemberDeleted   = 2  // EXPIRE: a time not in the future deleted the member
)

// SExpire gives members of the set at key a time to live of d, as Redis
// 8.12's SEXPIRE key seconds [NX|XX|GT|LT] MEMBERS n member...: per member,
// MemberMissing, MemberNotSet (cond did not hold), MemberExpirySet, or
// MemberDeleted (d ≤ 0 deletes the member, as a time in the past). The
// expiry has millisecond precision.
//
// Cost: a BatchGetItem of the members and the metadata item, then
// ⌈n/99⌉ TransactWriteItems (an expiry set costs the member's write, its
// by_ix and by_exp index entries, and the metadata item).
//
// [SEXPIRE]: https://redis.io/docs/latest/commands/sexpire/
func (c *Client) SExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) ([]int64, error) {
	return c.memberExpire(ctx, "SEXPIRE", model.TypeSet, key, c.expiryIn(d), cond, members)
}

// SPExpire is SExpire, as Redis's SPEXPIRE (milliseconds).
func (c *Client) SPExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) ([]int64, error) {
	return c.memberExpire(ctx, "SPEXPIRE", model.TypeSet, key, c.expiryIn(d), cond, members)
}

// SExpireAt is SExpire to the time t, as Redis's SEXPIREAT.
func (c *Client) SExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) ([]int64, error) {
	return c.memberExpireAt(ctx, "SEXPIREAT", model.TypeSet, key, t, cond, members)
}

// SPExpireAt is SExpireAt, as Redis's SPEXPIREAT.
func (c *Client) SPExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) ([]int64, error) {
	return c.memberExpireAt(ctx, "SPEXPIREAT", model.TypeSet, key, t, cond, members)
}

// ZExpire is SExpire for members of the sorted set at key, as Garnet's
// ZEXPIRE.
func (c *Client) ZExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) ([]int64, error) {
	return c.memberExpire(ctx, "ZEXPIRE", model.TypeZSet, key, c.expiryIn(d), cond, members)
}

// ZPExpire is ZExpire, as Garnet's ZPEXPIRE (milliseconds).
func (c *Client) ZPExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) ([]int64, error) {
	return c.memberExpire(ctx, "ZPEXPIRE", model.TypeZSet, key, c.expiryIn(d), cond, members)
}

// ZExpireAt is ZExpire to the time t, as Garnet's ZEXPIREAT.
func (c *Client) ZExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) ([]int64, error) {
	return c.memberExpireAt(ctx, "ZEXPIREAT", model.TypeZSet, key, t, cond, members)
}

// ZPExpireAt is ZExpireAt, as Garnet's ZPEXPIREAT.
func (c *Client) ZPExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) ([]int64, error) {
	return c.memberExpireAt(ctx, "ZPEXPIREAT", model.TypeZSet, key, t, cond, members)
}

// STTL returns each member's remaining time to live in seconds (rounded
// up), MemberNoExpiry, or MemberMissing, as Redis's STTL.
//
// Cost: one BatchGetItem of the members and the metadata item.
func (c *Client) STTL(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberTTLs(ctx, "STTL", model.TypeSet, key, members, model.TtlSeconds)
}

// SPTTL is STTL in milliseconds, as Redis's SPTTL.
func (c *Client) SPTTL(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberTTLs(ctx, "SPTTL", model.TypeSet, key, members, model.TtlMillis)
}

// SExpireTime returns each member's expiry as Unix seconds, MemberNoExpiry
// or MemberMissing, as Redis's SEXPIRETIME.
func (c *Client) SExpireTime(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberTTLs(ctx, "SEXPIRETIME", model.TypeSet, key, members, model.ExpSeconds)
}

// SPExpireTime is SExpireTime in Unix milliseconds, as Redis's SPEXPIRETIME.
func (c *Client) SPExpireTime(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberTTLs(ctx, "SPEXPIRETIME", model.TypeSet, key, members, model.ExpMillis)
}

// ZTTL is STTL for a sorted set, as Garnet's ZTTL.
func (c *Client) ZTTL(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberTTLs(ctx, "ZTTL", model.TypeZSet, key, members, model.TtlSeconds)
}

// ZPTTL is SPTTL for a sorted set, as Garnet's ZPTTL.
func (c *Client) ZPTTL(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberTTLs(ctx, "ZPTTL", model.TypeZSet, key, members, model.TtlMillis)
}

// ZExpireTime is SExpireTime for a sorted set, as Garnet's ZEXPIRETIME.
func (c *Client) ZExpireTime(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberTTLs(ctx, "ZEXPIRETIME", model.TypeZSet, key, members, model.ExpSeconds)
}

// ZPExpireTime is SPExpireTime for a sorted set, as Garnet's ZPEXPIRETIME.
func (c *Client) ZPExpireTime(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberTTLs(ctx, "ZPEXPIRETIME", model.TypeZSet, key, members, model.ExpMillis)
}

// SPersist removes members' expiries: per member MemberExpirySet (removed),
// MemberNoExpiry, or MemberMissing, as Redis's HPERSIST for a set.
//
// Cost: as SExpire.
func (c *Client) SPersist(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberExpire(ctx, "SPERSIST", model.TypeSet, key, model.PersistAt, ExpireAlways, members)
}

// ZPersist is SPersist for a sorted set, as Garnet's ZPERSIST.
func (c *Client) ZPersist(ctx context.Context, key string, members ...string) ([]int64, error) {
	return c.memberExpire(ctx, "ZPERSIST", model.TypeZSet, key, model.PersistAt, ExpireAlways, members)
}

// SCollect deletes the expired members of the set at key now, as Garnet's
// ZCOLLECT for sets (reads never need it: expired members are invisible;
// it frees their storage and makes SCARD one request again).
//
// Cost: a Query of by_exp per 1 MB of expired members and ⌈n/99⌉
// TransactWriteItems.
func (c *Client) SCollect(ctx context.Context, keys ...string) error {
	return c.collect(ctx, "SCOLLECT", model.TypeSet, keys)
}

// ZCollect is SCollect for sorted sets, as Garnet's ZCOLLECT.
func (c *Client) ZCollect(ctx context.Context, keys ...string) error {
	return c.collect(ctx, "ZCOLLECT", model.TypeZSet, keys)
}

func (c *Client) collect(ctx context.Context, cmd string, typ model.KeyType, keys []string) error {
	if len(keys) == 0 {
		return argError(cmd, "keys", "", ErrSyntax)
	}
	if err := checkKeys(cmd, keys...); err != nil {
		return err
	}
	for _, key := range keys {
		if err := c.sweep(ctx, key, typ); err != nil {
			return wrap(cmd, err)
		}
	}
	return nil
}

// sweep deletes key's expired members: each delete requires the member to
// hold the expiry it was listed with, and the transactions subtract what
// they delete from the stored count and mn (deleting the key with its last
// member), so concurrent sweeps and writes never double-count.
func (c *Client) sweep(ctx context.Context, key string, typ model.KeyType) error {
	ok, err := c.memberTTL(ctx)
	if err != nil || !ok {
		return err
	}
	var writes []*model.Write
	for it, err := range c.query(withExpired(ctx), c.expiredQuery(key, c.nowMs()), 0) {
		if err != nil {
			return err
		}
		sk := model.BytesAttr(it, model.AttrSK)
		if len(sk) == 0 || sk[0] != model.MemberPrefix(typ) {
			continue // a member of the other type: the key is not typ
		}
		writes = append(writes, c.sweepWrite(key, typ, sk, model.MemberExp(it)))
	}
	if len(writes) == 0 {
		return nil
	}
	_, err = c.transactChunks(withExpired(ctx), key, typ, writes)
	return err
}

// sweepWrite deletes the expired member item at sk if it still holds the
// expiry exp: −1 to the count and to mn, 0 to the reply.
func (c *Client) sweepWrite(key string, typ model.KeyType, sk []byte, exp int64) *model.Write {
	return &model.Write{
		Delta: -1, Ttl: -1, Swept: true, Need: model.NeedExpiry, ExpWas: exp,
		Action: types.TransactWriteItem{Delete: &types.Delete{
			TableName: c.table(), Key: model.Item{model.AttrPK: model.Bin(model.PkValue(key)), model.AttrSK: model.Bin(sk)},
		}},
	}
}

// expiryIn is the expiry, in Unix ms, of a time to live d from now: a
// positive d under a whole millisecond rounds up, so that a member given
// 0.5 ms exists for that long rather than being added already expired.
func (c *Client) expiryIn(d time.Duration) int64 {
	ms := d.Milliseconds()
	if d > 0 && d%time.Millisecond != 0 {
		ms++
	}
	return c.nowMs() + ms
}

func (c *Client) memberExpireAt(ctx context.Context, cmd string, typ model.KeyType, key string, t time.Time, cond ExpireCondition, members []string) ([]int64, error) {
	ms, ok := model.UnixMilli(t)
	if !ok {
		return nil, argError(cmd, "time", t.String(), ErrOutOfRange)
	}
	return c.memberExpire(ctx, cmd, typ, key, ms, cond, members)
}

// memberExpire sets (at > now), deletes (at ≤ now) or removes
// (at = model.PersistAt) the expiry of members, as decideExpiry says from what
// each holds; replies are per argument, duplicates answered as Redis does
// for its second occurrence. Whether at is in the past is decided at the
// command's start, as the callers' relative times are (a slow read does
// not turn SPEXPIRE 10 into a deletion); a member that expires meanwhile
// is found missing by its write's condition.
func (c *Client) memberExpire(ctx context.Context, cmd string, typ model.KeyType, key string, at int64, cond ExpireCondition, members []string) ([]int64, error) {
	now := c.nowMs()
	if err := c.checkKeyMembers(cmd, key, members); err != nil {
		return nil, err
	}
	if !cond.valid() {
		return nil, argError(cmd, "condition", string(cond), ErrSyntax)
	}
	if err := c.requireMemberTTL(ctx, cmd); err != nil {
		return nil, err
	}
	unique := model.Dedupe(members)
	found, err := c.probe(ctx, key, typ, unique, true)
	if err != nil {
		return nil, wrap(cmd, err)
	}
	codes := make(map[string]int64, len(unique))
	var writes []*model.Write
	for _, m := range unique {
		w := c.expiryDecision(key, typ, m, found[m], at, cond, now, codes)
		if w != nil {
			writes = append(writes, w)
		}
	}
	applied, err := c.transactChunks(ctx, key, typ, writes)
	if err != nil {
		return nil, wrap(cmd, err)
	}
	done := map[string]bool{}
	for _, w := range applied {
		done[w.Member] = true
	}
	// The first occurrence of a member gets its code; later ones see what
	// the first left, as Redis's loop over its arguments would.
	out := make([]int64, len(members))
	after := map[string]int64{} // member → expiry after the first (0: none, -1: gone)
	for i, m := range members {
		if prev, seen := after[m]; seen {
			out[i] = repeatCode(prev, at, cond, now)
			continue
		}
		code := codes[m]
		if (code == MemberExpirySet || code == MemberDeleted) && !done[m] {
			code = MemberMissing // its write did not apply: gone meanwhile
		}
		out[i] = code
		switch {
		case code == MemberDeleted || code == MemberMissing:
			after[m] = -1
		case code == MemberExpirySet && at == model.PersistAt:
			after[m] = 0
		case code == MemberExpirySet:
			after[m] = at
		default:
			after[m] = model.MemberExp(found[m])
		}
	}
	return out, nil
}

// repeatCode is the reply for a member's second occurrence, whose state
// after the first is exp (-1: gone, 0: no expiry).
func repeatCode(exp, at int64, cond ExpireCondition, now int64) int64 {
	switch {
	case exp == -1:
		return MemberMissing
	case at == model.PersistAt && exp == 0:
		return MemberNoExpiry
	case at == model.PersistAt:
		return MemberExpirySet
	case !cond.holds(exp, at):
		return MemberNotSet
	case at <= now:
		return MemberDeleted
	}
	return MemberExpirySet
}

// expiryDecision is the write that applies the expiry at to member, whose
// item is cur (nil: missing), and records its reply in codes; nil when
// nothing is to be written; at ≤ start (the command's start) deletes it.
// Its retry decides again from what the item holds then.
func (c *Client) expiryDecision(key string, typ model.KeyType, member string, cur model.Item, at int64, cond ExpireCondition, start int64, codes map[string]int64) *model.Write {
	if cur == nil || model.ExpiredAt(cur, c.nowMs()) {
		codes[member] = MemberMissing
		return nil
	}
	old := model.MemberExp(cur)
	var w *model.Write
	switch {
	case at == model.PersistAt && old == 0:
		codes[member] = MemberNoExpiry
		return nil
	case at == model.PersistAt:
		codes[member] = MemberExpirySet
		w = c.setMemberExpiry(key, typ, member, old, 0)
	case !cond.holds(old, at):
		codes[member] = MemberNotSet
		return nil
	case at <= start:
		codes[member] = MemberDeleted
		w = model.PinDelete(c.deleteMember(key, typ, member), old)
	default:
		codes[member] = MemberExpirySet
		w = c.setMemberExpiry(key, typ, member, old, at)
	}
	w.Retry = func(now model.Item) (*model.Write, error) {
		return c.expiryDecision(key, typ, member, now, at, cond, start, codes), nil
	}
	return w
}

// setMemberExpiry changes an existing member's expiry from old to at (0:
// none), on condition that it still holds old.
func (c *Client) setMemberExpiry(key string, typ model.KeyType, member string, old, at int64) *model.Write {
	update, values := "REMOVE #mx", model.Item(nil)
	if at != 0 {
		update, values = "SET #mx = :at", model.Item{":at": model.Num(at)}
	}
	w := &model.Write{Member: member, Count: 1, Known: true, Need: model.NeedPresent | model.NeedExpiry, ExpWas: old, ExpTo: at}
	switch {
	case old == 0 && at != 0:
		w.Ttl = 1
	case old != 0 && at == 0:
		w.Ttl = -1
	}
	w.Action = types.TransactWriteItem{Update: &types.Update{
		TableName: c.table(), Key: model.ItemKey(key, model.MemberSK(typ, member)),
		UpdateExpression:                    aws.String(update),
		ExpressionAttributeNames:            map[string]string{"#mx": model.AttrMemExp},
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
	return w
}

// rewriteMember makes an existing member with the index value prev and
// the expiry exp hold want and no expiry (a *STORE's new value), counting
// 1; what it finds instead decides the retry. A set member has no index
// value (prev and want are nil): only its expiry goes.
func (c *Client) rewriteMember(key string, typ model.KeyType, member string, prev, want []byte, exp int64) *model.Write {
	if typ == model.TypeSet {
		return c.dropMemberExpiry(key, member, exp)
	}
	w := &model.Write{
		Member: member, Count: 1, Ix: want, Prev: prev, Known: true, Ttl: -1, Score: model.ScoreOfIX(want),
		Need: model.NeedIX | model.NeedExpiry, ExpWas: exp,
		Action: types.TransactWriteItem{Update: &types.Update{
			TableName: c.table(), Key: model.ItemKey(key, model.MemberSK(typ, member)),
			UpdateExpression:                    aws.String("SET #ix = :want REMOVE #mx"),
			ExpressionAttributeNames:            map[string]string{"#ix": model.AttrIX, "#mx": model.AttrMemExp},
			ExpressionAttributeValues:           model.Item{":want": model.Bin(want)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
	}
	w.Retry = func(now model.Item) (*model.Write, error) {
		cur := model.BytesAttr(now, model.AttrIX)
		switch x := model.MemberExp(now); {
		case now == nil:
			return c.putMember(key, typ, member, want), nil
		case x != 0:
			return c.rewriteMember(key, typ, member, cur, want, x), nil
		case typ == model.TypeZSet && string(cur) != string(want):
			return c.setIX(key, typ, member, cur, want), nil
		}
		return nil, nil
	}
	return w
}

// dropMemberExpiry is rewriteMember for a set member: its expiry exp
// goes; gone meanwhile, it is added again.
func (c *Client) dropMemberExpiry(key, member string, exp int64) *model.Write {
	w := c.setMemberExpiry(key, model.TypeSet, member, exp, 0)
	w.Retry = func(now model.Item) (*model.Write, error) {
		switch x := model.MemberExp(now); {
		case now == nil:
			return c.putMember(key, model.TypeSet, member, nil), nil
		case x != 0:
			return c.dropMemberExpiry(key, member, x), nil
		}
		return nil, nil
	}
	return w
}

func (cond ExpireCondition) valid() bool {
	switch cond {
	case ExpireAlways, ExpireNX, ExpireXX, ExpireGT, ExpireLT:
		return true
	}
	return false
}

func (c *Client) memberTTLs(ctx context.Context, cmd string, typ model.KeyType, key string, members []string, f func(exp, now int64) int64) ([]int64, error) {
	if err := c.checkKeyMembers(cmd, key, members); err != nil {
		return nil, err
	}
	found, err := c.probe(ctx, key, typ, model.Dedupe(members), true)
	if err != nil {
		return nil, wrap(cmd, err)
	}
	now := c.nowMs()
	out := make([]int64, len(members))
	for i, m := range members {
		it, ok := found[m]
		switch {
		case !ok:
			out[i] = MemberMissing
		case model.MemberExp(it) == 0:
			out[i] = MemberNoExpiry
		default:
			out[i] = f(model.MemberExp(it), now)
		}
	}
	return out, nil
}

// onExpired is what a write whose condition met the expired item old
// becomes: what its retry does on a missing member, taking the expired
// item's place (a put conditioned on the item still being the expired one,
// counting one member less since it is stored already), or, when the
// retry writes nothing, a sweep of the expired item.
func (c *Client) onExpired(key string, typ model.KeyType, w *model.Write, old model.Item) (*model.Write, error) {
	var next *model.Write
	switch {
	case w.Action.Put != nil: // a create: what it meant to do on a missing member
		cp := *w
		next = &cp
	case w.Retry != nil:
		var err error
		if next, err = w.Retry(nil); err != nil {
			return nil, err
		}
	}
	sk := model.BytesAttr(old, model.AttrSK)
	if next == nil {
		if w.Required {
			return nil, nil
		}
		return c.sweepWrite(key, typ, sk, model.MemberExp(old)), nil
	}
	if next.Action.Put == nil {
		return nil, fmt.Errorf("redimo: internal: a write on a missing member that is not a put")
	}
	fresh, retry := *next, next.Retry
	next.Retry = func(now model.Item) (*model.Write, error) {
		if now == nil { // deleted meanwhile: a plain create again
			f := fresh
			return &f, nil
		}
		if retry == nil {
			return nil, nil
		}
		return retry(now)
	}
	put := *next.Action.Put
	put.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	next.Action = types.TransactWriteItem{Put: &put}
	// On condition that the expired item is still as met, which was
	// counted and had an expiry.
	next.Need, next.ExpWas = model.NeedExpiry, model.MemberExp(old)
	next.Delta--
	next.Ttl--
	next.Replaces = true
	return next, nil
}

// ErrNoMemberExpiry is returned by the commands that give members an
// expiry when the table was created without the local indexes member
// expiry needs (a table made before redimo had it); see Options.ExpiryIndexName.
var ErrNoMemberExpiry = errors.New("redimo: table has no member-expiry indexes")
