package redimo

// The member-expiry commands: the SEXPIRE and ZEXPIRE families, STTL and
// ZTTL, SPERSIST and ZPERSIST, SCOLLECT and ZCOLLECT. How member expiry is
// stored and kept exact is in memberexp.go.

import (
	"context"
	"time"

	"github.com/redimo-go/redimo/internal/model"
)

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
func (c *Client) SExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "SExpire")
	defer traced.end(&err)
	return c.memberExpire(ctx, "SEXPIRE", model.TypeSet, key, c.expiryIn(d), cond, members)
}

// SPExpire is SExpire, as Redis's SPEXPIRE (milliseconds).
func (c *Client) SPExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "SPExpire")
	defer traced.end(&err)
	return c.memberExpire(ctx, "SPEXPIRE", model.TypeSet, key, c.expiryIn(d), cond, members)
}

// SExpireAt is SExpire to the time t, as Redis's SEXPIREAT.
func (c *Client) SExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "SExpireAt")
	defer traced.end(&err)
	return c.memberExpireAt(ctx, "SEXPIREAT", model.TypeSet, key, t, cond, members)
}

// SPExpireAt is SExpireAt, as Redis's SPEXPIREAT.
func (c *Client) SPExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "SPExpireAt")
	defer traced.end(&err)
	return c.memberExpireAt(ctx, "SPEXPIREAT", model.TypeSet, key, t, cond, members)
}

// ZExpire is SExpire for members of the sorted set at key, as Garnet's
// ZEXPIRE.
func (c *Client) ZExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "ZExpire")
	defer traced.end(&err)
	return c.memberExpire(ctx, "ZEXPIRE", model.TypeZSet, key, c.expiryIn(d), cond, members)
}

// ZPExpire is ZExpire, as Garnet's ZPEXPIRE (milliseconds).
func (c *Client) ZPExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "ZPExpire")
	defer traced.end(&err)
	return c.memberExpire(ctx, "ZPEXPIRE", model.TypeZSet, key, c.expiryIn(d), cond, members)
}

// ZExpireAt is ZExpire to the time t, as Garnet's ZEXPIREAT.
func (c *Client) ZExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "ZExpireAt")
	defer traced.end(&err)
	return c.memberExpireAt(ctx, "ZEXPIREAT", model.TypeZSet, key, t, cond, members)
}

// ZPExpireAt is ZExpireAt, as Garnet's ZPEXPIREAT.
func (c *Client) ZPExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "ZPExpireAt")
	defer traced.end(&err)
	return c.memberExpireAt(ctx, "ZPEXPIREAT", model.TypeZSet, key, t, cond, members)
}

// STTL returns each member's remaining time to live in seconds (rounded
// up), MemberNoExpiry, or MemberMissing, as Redis's STTL.
//
// Cost: one BatchGetItem of the members and the metadata item.
func (c *Client) STTL(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "STTL")
	defer traced.end(&err)
	return c.memberTTLs(ctx, "STTL", model.TypeSet, key, members, model.TtlSeconds)
}

// SPTTL is STTL in milliseconds, as Redis's SPTTL.
func (c *Client) SPTTL(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "SPTTL")
	defer traced.end(&err)
	return c.memberTTLs(ctx, "SPTTL", model.TypeSet, key, members, model.TtlMillis)
}

// SExpireTime returns each member's expiry as Unix seconds, MemberNoExpiry
// or MemberMissing, as Redis's SEXPIRETIME.
func (c *Client) SExpireTime(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "SExpireTime")
	defer traced.end(&err)
	return c.memberTTLs(ctx, "SEXPIRETIME", model.TypeSet, key, members, model.ExpSeconds)
}

// SPExpireTime is SExpireTime in Unix milliseconds, as Redis's SPEXPIRETIME.
func (c *Client) SPExpireTime(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "SPExpireTime")
	defer traced.end(&err)
	return c.memberTTLs(ctx, "SPEXPIRETIME", model.TypeSet, key, members, model.ExpMillis)
}

// ZTTL is STTL for a sorted set, as Garnet's ZTTL.
func (c *Client) ZTTL(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "ZTTL")
	defer traced.end(&err)
	return c.memberTTLs(ctx, "ZTTL", model.TypeZSet, key, members, model.TtlSeconds)
}

// ZPTTL is SPTTL for a sorted set, as Garnet's ZPTTL.
func (c *Client) ZPTTL(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "ZPTTL")
	defer traced.end(&err)
	return c.memberTTLs(ctx, "ZPTTL", model.TypeZSet, key, members, model.TtlMillis)
}

// ZExpireTime is SExpireTime for a sorted set, as Garnet's ZEXPIRETIME.
func (c *Client) ZExpireTime(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "ZExpireTime")
	defer traced.end(&err)
	return c.memberTTLs(ctx, "ZEXPIRETIME", model.TypeZSet, key, members, model.ExpSeconds)
}

// ZPExpireTime is SPExpireTime for a sorted set, as Garnet's ZPEXPIRETIME.
func (c *Client) ZPExpireTime(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "ZPExpireTime")
	defer traced.end(&err)
	return c.memberTTLs(ctx, "ZPEXPIRETIME", model.TypeZSet, key, members, model.ExpMillis)
}

// SPersist removes members' expiries: per member MemberExpirySet (removed),
// MemberNoExpiry, or MemberMissing, as Redis's HPERSIST for a set.
//
// Cost: as SExpire.
func (c *Client) SPersist(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "SPersist")
	defer traced.end(&err)
	return c.memberExpire(ctx, "SPERSIST", model.TypeSet, key, model.PersistAt, ExpireAlways, members)
}

// ZPersist is SPersist for a sorted set, as Garnet's ZPERSIST.
func (c *Client) ZPersist(ctx context.Context, key string, members ...string) (_ []int64, err error) {
	ctx, traced := c.command(ctx, "ZPersist")
	defer traced.end(&err)
	return c.memberExpire(ctx, "ZPERSIST", model.TypeZSet, key, model.PersistAt, ExpireAlways, members)
}

// SCollect deletes the expired members of the set at key now, as Garnet's
// ZCOLLECT for sets (reads never need it: expired members are invisible;
// it frees their storage and makes SCARD one request again).
//
// Cost: a Query of by_exp per 1 MB of expired members and ⌈n/99⌉
// TransactWriteItems.
func (c *Client) SCollect(ctx context.Context, keys ...string) (err error) {
	ctx, traced := c.command(ctx, "SCollect")
	defer traced.end(&err)
	return c.collect(ctx, "SCOLLECT", model.TypeSet, keys)
}

// ZCollect is SCollect for sorted sets, as Garnet's ZCOLLECT.
func (c *Client) ZCollect(ctx context.Context, keys ...string) (err error) {
	ctx, traced := c.command(ctx, "ZCollect")
	defer traced.end(&err)
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
		return nil, argError(cmd, "condition", cond.String(), ErrSyntax)
	}
	if err := c.requireMemberTTL(ctx, cmd); err != nil {
		return nil, err
	}
	unique := model.Dedupe(members)
	found, err := c.view().probe(ctx, key, typ, unique, true)
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

func (c *Client) memberTTLs(ctx context.Context, cmd string, typ model.KeyType, key string, members []string, f func(exp, now int64) int64) ([]int64, error) {
	if err := c.checkKeyMembers(cmd, key, members); err != nil {
		return nil, err
	}
	found, err := c.view().probe(ctx, key, typ, model.Dedupe(members), true)
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
