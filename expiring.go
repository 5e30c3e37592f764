package redimo

// Sets whose members expire one by one.

import (
	"context"
	"iter"
	"math"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
)

// ExpiringSet is a set whose members each have their own expiry: Redis
// cannot expire single members of a set, and users emulate it with a sorted
// set scored by expiry time; ExpiringSet is that pattern made native. Create
// one with Client.ExpiringSet; it is safe for concurrent use.
//
// It is stored as a sorted set whose scores are expiry times in Unix
// milliseconds (ZRANGE on the key shows them). Reads never return or count
// an expired member, even before it is deleted. Every Add and Rem also
// deletes up to 25 expired members, in the same transaction, so storage is
// reclaimed as the set is written, and the key (like any sorted set) keeps
// an exact cardinality; Sweep deletes them all. DynamoDB's TTL attribute is
// deliberately not used: its deletions bypass the transactions that keep
// the cardinality exact. The clock is Options.Now.
//
// Deprecated: member expiry on a plain set (SAddEx, SExpire and their
// kin, memberttl.go) does the same on any set or sorted set, which every
// set command and Redis client then sees. ExpiringSet stays, unchanged,
// for the data it has stored (a sorted set scored by expiry time, which
// member expiry does not read as expiries); to move a key, read its
// members with Members and TTL and write them with SAddEx.
type ExpiringSet struct {
	c   *Client
	key string
}

// ExpiringSet returns a handle on the expiring set at key. It does no I/O.
func (c *Client) ExpiringSet(key string) *ExpiringSet { return &ExpiringSet{c: c, key: key} }

func (e *ExpiringSet) now() float64 { return float64(e.c.opts.Now().UnixMilli()) }

// Add adds members that expire after ttl, or gives members already there a
// new expiry of now+ttl, and returns how many were not live members before
// (an expired member added again counts as new). Expiry times are whole
// milliseconds: ttl is rounded up to one.
//
// Cost: one Query of up to 25 expired members, then ⌈n/99⌉
// TransactWriteItems as ZAdd (the expired members' deletions ride in the
// first one); members already present cost one more TransactWriteItems.
func (e *ExpiringSet) Add(ctx context.Context, ttl time.Duration, members ...string) (_ int64, err error) {
	ctx, traced := e.c.command(ctx, "ExpiringSet.Add")
	defer traced.end(&err)
	if err := e.c.checkKeyMembers("EXPADD", e.key, members); err != nil {
		return 0, err
	}
	if ttl <= 0 {
		return 0, argError("EXPADD", "ttl", ttl.String(), ErrOutOfRange)
	}
	now := e.now()
	ms := ttl.Milliseconds()
	if ttl%time.Millisecond != 0 {
		ms++ // else a ttl under 1 ms would add a member already expired
	}
	exp := now + float64(ms)
	var writes []*model.Write
	for _, m := range model.Dedupe(members) {
		writes = append(writes, e.addWrite(m, exp, now))
	}
	return e.write(ctx, "EXPADD", writes, now)
}

// addWrite creates member with expiry exp; when it exists, a CAS update of
// its expiry counts 1 if the old expiry had passed at now, else 0.
func (e *ExpiringSet) addWrite(member string, exp, now float64) *model.Write {
	w := e.c.putMember(e.key, model.TypeZSet, member, model.ZsetIX(exp, member))
	var retry func(cur model.Item) (*model.Write, error)
	retry = func(cur model.Item) (*model.Write, error) {
		if cur == nil {
			return e.addWrite(member, exp, now), nil
		}
		prev := model.BytesAttr(cur, model.AttrIX)
		next := e.c.setIX(e.key, model.TypeZSet, member, prev, model.ZsetIX(exp, member))
		if model.ScoreOfIX(prev) > now {
			next.Count = 0
		}
		if string(prev) == string(model.ZsetIX(exp, member)) {
			return nil, nil // same expiry already: nothing to write, and it was live
		}
		next.Retry = retry
		return next, nil
	}
	w.Retry = retry
	return w
}

// write runs writes with up to model.SweepBatch expired members' deletions added
// to them (members the writes touch excepted).
func (e *ExpiringSet) write(ctx context.Context, cmd string, writes []*model.Write, now float64) (int64, error) {
	touched := map[string]bool{}
	for _, w := range writes {
		touched[w.Member] = true
	}
	expired, err := e.expired(ctx, now, model.SweepBatch)
	if err != nil {
		return 0, wrap(cmd, err)
	}
	var sweep []*model.Write
	for _, m := range expired {
		if !touched[m] {
			sweep = append(sweep, e.deleteIf(m, now, false, false))
		}
	}
	applied, err := e.c.transactChunks(ctx, e.key, model.TypeZSet, append(sweep, writes...))
	return model.Counted(applied), wrap(cmd, err)
}

// expired returns up to limit members whose expiry is at or before now
// (limit 0: all).
func (e *ExpiringSet) expired(ctx context.Context, now float64, limit int) ([]string, error) {
	if all, small, _, _, err := e.c.smallZRead(ctx, e.key); err != nil || small { // smallz.go
		var out []string
		for _, z := range all {
			if z.Score <= now && (limit == 0 || len(out) < limit) {
				out = append(out, z.Member)
			}
		}
		return out, err
	}
	return e.c.queryMembers(ctx, e.c.scoreQuery(e.key, math.Inf(-1), now), model.TypeZSet, limit, limit)
}

// live is the query of the members not expired at now.
func (e *ExpiringSet) live(now float64) *dynamodb.QueryInput {
	return e.c.scoreQuery(e.key, math.Nextafter(now, math.Inf(1)), math.Inf(1))
}

// Rem removes members and returns how many were live members (removing an
// expired member counts 0, as it was already gone).
//
// Cost: as Add.
func (e *ExpiringSet) Rem(ctx context.Context, members ...string) (_ int64, err error) {
	ctx, traced := e.c.command(ctx, "ExpiringSet.Rem")
	defer traced.end(&err)
	if err := e.c.checkKeyMembers("EXPREM", e.key, members); err != nil {
		return 0, err
	}
	now := e.now()
	var writes []*model.Write
	for _, m := range model.Dedupe(members) {
		writes = append(writes, e.remWrite(m, now))
	}
	return e.write(ctx, "EXPREM", writes, now)
}

// remWrite deletes member, counting 1 only if it was live. Its expiry is
// not known in advance: the first attempt assumes live and is conditioned
// on it; when that fails, the item read back decides.
func (e *ExpiringSet) remWrite(member string, now float64) *model.Write {
	return e.deleteIf(member, now, true, true)
}

// deleteIf deletes member on condition that it is live (count 1) or expired
// (count 0) at now. With follow, a failed condition retries with the other
// one; without, the write is dropped (sweeps leave a renewed member alone).
func (e *ExpiringSet) deleteIf(member string, now float64, live, follow bool) *model.Write {
	w := e.c.deleteMember(e.key, model.TypeZSet, member)
	d := w.Action.Delete
	// For one member, ix order is expiry order, and model.ScoreBoundAfter(now)
	// lies between every ix with expiry <= now and every ix with expiry > now.
	w.Need, w.IXBound = model.NeedLowerIX, model.ScoreBoundAfter(now)
	if live {
		w.Need = model.NeedHigherIX
	} else {
		w.Count = 0
	}
	d.ReturnValuesOnConditionCheckFailure = "ALL_OLD"
	if follow {
		w.Retry = func(cur model.Item) (*model.Write, error) {
			if cur == nil {
				return nil, nil
			}
			return e.deleteIf(member, now, model.ScoreOfIX(model.BytesAttr(cur, model.AttrIX)) > now, true), nil
		}
	}
	return w
}

// IsMember reports whether member is a live member.
//
// Cost: one BatchGetItem of the member and the key's metadata item.
func (e *ExpiringSet) IsMember(ctx context.Context, member string) (_ bool, err error) {
	ctx, traced := e.c.command(ctx, "ExpiringSet.IsMember")
	defer traced.end(&err)
	_, ok, err := e.TTL(ctx, member)
	return ok, err
}

// TTL returns the time member has left; ok is false when it is not a live
// member. Cost: as IsMember.
func (e *ExpiringSet) TTL(ctx context.Context, member string) (_ time.Duration, _ bool, err error) {
	ctx, traced := e.c.command(ctx, "ExpiringSet.TTL")
	defer traced.end(&err)
	if err := e.c.checkKeyMembers("EXPTTL", e.key, []string{member}); err != nil {
		return 0, false, err
	}
	found, err := e.c.view().probe(ctx, e.key, model.TypeZSet, []string{member}, true)
	if err != nil {
		return 0, false, wrap("EXPTTL", err)
	}
	it, ok := found[member]
	if !ok {
		return 0, false, nil
	}
	left := model.ScoreOfIX(model.BytesAttr(it, model.AttrIX)) - e.now()
	if left <= 0 {
		return 0, false, nil
	}
	return msDuration(int64(min(left, math.MaxInt64/2))), true, nil // clamped before the conversion
}

// Card returns the number of live members.
//
// Cost: a Query with Select COUNT over the live members (1 read unit per
// 4 KB of them, about 80 short members) and, in parallel, a GetItem of the
// metadata item (type and key expiry). The key's metadata count (ZCARD) would be one
// GetItem but also counts expired members not yet deleted.
func (e *ExpiringSet) Card(ctx context.Context) (_ int64, err error) {
	ctx, traced := e.c.command(ctx, "ExpiringSet.Card")
	defer traced.end(&err)
	if err := checkKey("EXPCARD", e.key); err != nil {
		return 0, err
	}
	var n int64
	var m model.Meta
	err = e.c.leased(ctx, e.key, func() (err error) {
		m, err = e.c.typedRead(ctx, e.key, model.TypeZSet, func() (bool, error) {
			var err error
			n, err = e.c.queryCount(ctx, e.live(e.now()))
			return n > 0, err
		})
		return err
	})
	if m.Typ == model.TypeNone {
		n = 0
	}
	if m.SmallZ != nil { // a small sorted set (smallz.go): its live members are in m
		n = int64(len(liveEntries(m.SmallZ, e.now())))
	}
	return n, wrap("EXPCARD", err)
}

// Members returns an iterator over the live members, soonest to expire
// first.
//
// Cost: one GetItem of the metadata item, then one Query of the index per
// 1 MB of live members.
func (e *ExpiringSet) Members(ctx context.Context) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := checkKey("EXPMEMBERS", e.key); err != nil {
			yield("", err)
			return
		}
		m, err := e.c.typedMeta(ctx, e.key, model.TypeZSet)
		if err != nil || m.Typ == model.TypeNone {
			if err != nil {
				yield("", wrap("EXPMEMBERS", err))
			}
			return
		}
		if m.SmallZ != nil { // a small sorted set (smallz.go)
			for _, z := range liveEntries(m.SmallZ, e.now()) {
				if !yield(z.Member, nil) {
					return
				}
			}
			return
		}
		for it, err := range e.c.query(ctx, e.live(e.now()), 0) {
			if err != nil {
				yield("", wrap("EXPMEMBERS", err))
				return
			}
			m, t, _ := model.MemberOf(it)
			if t != model.TypeZSet {
				yield("", ErrWrongType)
				return
			}
			if !yield(m, nil) {
				return
			}
		}
	}
}

// RandMember returns a random live member; ok is false when there is none.
//
// Cost: Card's Query, then a Query reading up to a random rank among the
// live members: O(Card) items at most, 1 read unit per ~80.
func (e *ExpiringSet) RandMember(ctx context.Context) (_ string, _ bool, err error) {
	ctx, traced := e.c.command(ctx, "ExpiringSet.RandMember")
	defer traced.end(&err)
	n, err := e.Card(ctx)
	if err != nil || n == 0 {
		return "", false, err
	}
	pick := rand.Int64N(n)
	var i int64
	for m, err := range e.Members(ctx) {
		if err != nil {
			return "", false, err
		}
		if i == pick {
			return m, true, nil
		}
		i++
	}
	return "", false, nil // the members expired meanwhile
}

// Sweep deletes every expired member and returns how many it deleted.
// Writes sweep as they go (see ExpiringSet), so Sweep is only needed for a
// set that is no longer written.
//
// Cost: a Query of the expired members, then ⌈expired/99⌉ TransactWriteItems.
func (e *ExpiringSet) Sweep(ctx context.Context) (_ int64, err error) {
	ctx, traced := e.c.command(ctx, "ExpiringSet.Sweep")
	defer traced.end(&err)
	if err := checkKey("EXPSWEEP", e.key); err != nil {
		return 0, err
	}
	now := e.now()
	expired, err := e.expired(ctx, now, 0)
	if err != nil || len(expired) == 0 {
		return 0, wrap("EXPSWEEP", err)
	}
	writes := make([]*model.Write, len(expired))
	for i, m := range expired {
		writes[i] = e.deleteIf(m, now, false, false) // a member renewed meanwhile stays
		writes[i].Count = 1
	}
	applied, err := e.c.transactChunks(ctx, e.key, model.TypeZSet, writes)
	return model.Counted(applied), wrap("EXPSWEEP", err)
}

// liveEntries is the entries of a small sorted set (in order) that have
// not expired at now: those scored after it.
func liveEntries(entries []model.ZEntry, now float64) []model.ZEntry {
	i := 0
	for i < len(entries) && entries[i].Score <= now {
		i++
	}
	return entries[i:]
}
