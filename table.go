package redimo

// The table's view (view.go): the commands' reads and writes where they
// need DynamoDB's own requests. The rest of the table's half is beside the
// machinery it runs on: live.go (metadata), tx.go (the writer), ranges.go
// and rank*.go (ranges and count items), smallset.go (small sets),
// memberexp.go (the table's description).

import (
	"context"
	"errors"
	"iter"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// probe reads which of members exist in key (of type typ) with BatchGetItem
// and returns them with their items. withMeta also reads the metadata item:
// a missing or expired key then has no members, and a key of another type
// fails with ErrWrongType. Without it, the caller knows the key is live.
// A set: setProbe (smallset.go), one request whatever its encoding. A
// probe slower than readLease is checked against the metadata item
// (leased).
func (t table) probe(ctx context.Context, key string, typ model.KeyType, members []string, withMeta bool) (found map[string]model.Item, err error) {
	err = t.c.leased(ctx, key, func() (err error) {
		found, err = t.probeOnce(ctx, key, typ, members, withMeta)
		return err
	})
	return found, err
}

// probeOnce is one try of probe.
func (t table) probeOnce(ctx context.Context, key string, typ model.KeyType, members []string, withMeta bool) (map[string]model.Item, error) {
	c := t.c
	if typ == model.TypeSet {
		return c.setProbe(ctx, key, members, withMeta)
	}
	// With the metadata item, or when key may be small: one BatchGetItem
	// of the metadata item and the members, or the metadata item alone
	// when key is known small (smallZProbe). A member item found is no
	// sign of a live key: a DEL marks the key dead in one write and
	// reclaims its members after (TestDelWholeWithoutKeyExpiry).
	if withMeta || !c.knownBig(key) {
		if found, done, err := c.smallZProbe(ctx, key, members, withMeta); done || err != nil {
			return found, err
		}
	}
	found, _, err := c.probeItems(ctx, key, typ, members, false)
	return found, err
}

// probeItems reads the items of members in key (of type typ), and with
// meta its metadata item (nil when it has none), with BatchGetItem (100
// items a request, in parallel). found holds the live members: an expired
// member is a missing one (memberttl.go).
func (c *Client) probeItems(ctx context.Context, key string, typ model.KeyType, members []string, meta bool) (found map[string]model.Item, mt model.Item, err error) {
	keys := make([]model.Item, 0, len(members)+1)
	if meta {
		keys = append(keys, model.MetaKey(key))
	}
	for _, m := range members {
		keys = append(keys, model.ItemKey(key, model.MemberSK(typ, m)))
	}
	items, err := c.st.BatchGet(ctx, keys, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	found = make(map[string]model.Item, len(items))
	now := c.nowMs()
	for _, it := range items {
		m, _, ok := model.MemberOf(it)
		switch {
		case !ok:
			mt = it
		case !model.ExpiredAt(it, now):
			found[m] = it
		}
	}
	return found, mt, nil
}

// memberItems yields the member items of key of type typ whose member starts
// with prefix, across pages: a sorted set's in member order, a set's in the
// order of their hashes ("Set members" in internal/model/keys.go).
func (t table) memberItems(ctx context.Context, key string, typ model.KeyType, prefix string) iter.Seq2[model.Item, error] {
	c := t.c
	items := c.query(ctx, model.MemberQuery(key, typ, prefix), 0)
	switch {
	case typ == model.TypeSet: // a small set's members are in its metadata item
		items = membersOnly(c.view().keyItems(ctx, key, model.TypeSet))
	case !c.knownBig(key): // so are a small sorted set's (smallz.go): read it first
		items = c.smallZItems(ctx, key, prefix, items)
	}
	if prefix == "" || (typ == model.TypeZSet && len(prefix) <= model.InlineMemberLen) {
		return items
	}
	// The sort keys hold the first 1015 bytes of a long member, and a set
	// member's starts with its hash: the query selects every member that
	// may start with prefix, and the member decides.
	return func(yield func(model.Item, error) bool) {
		for it, err := range items {
			if err == nil {
				if m, _, _ := model.MemberOf(it); !strings.HasPrefix(m, prefix) {
					continue
				}
			}
			if !yield(it, err) {
				return
			}
		}
	}
}

// drop deletes key, a live key of member items as m shows it, for DEL: in
// one write for every reader, whatever its size. The write marks the
// metadata item dead, as an expiry does, on condition that the key is
// still this live key (and, when members may expire, unchanged since it
// was judged live: changed reports otherwise, and nothing is written);
// its items are reclaimed after (reclaim), here, or by whichever client
// meets the dead key first should this one stop. Inside a transaction the
// key goes from the snapshot (Pipeline.purge), its items with the commit.
func (t table) drop(ctx context.Context, key string, m model.Meta) (deleted, changed bool, err error) {
	c := t.c
	kill := model.NewMetaWrite(key).RequireType(m.Typ).RequireLive(c.nowMs()).RequireSmall(false)
	if m.TTLs > 0 {
		kill.RequireVersion(m.Ver)
	}
	// The mark carries a write token in this Client's writer lane
	// (smallUpdate): a resend of a mark that applied, its response lost,
	// finds the key dead and its conditions fail, but the token says the
	// mark was this one. The token stays until the last item goes, and
	// after it (the deletion keeps the item as a tombstone: reclaim), so
	// a resend however late still recognises itself.
	_, err = c.smallUpdate(ctx, key, kill.Kill(), false)
	switch {
	case errors.Is(err, errApplied):
	case err != nil:
		return false, false, err
	default: // refused: the key changed since it was read
		return false, true, nil
	}
	c.seenBig(key, false) // gone: its next SADD starts it small
	m.Exp, m.Tokens = model.DeadExp, true
	return true, false, c.reclaim(ctx, key, m, time.Now().Add(readLease)) // the key went with the mark
}

// setExpiry gives key the expiry at (Unix ms, to come) when it exists, is
// live and cond (flag, its condition on #x) holds: one UpdateItem.
func (t table) setExpiry(ctx context.Context, key string, at int64, cond ExpireCondition, flag string) (bool, error) {
	c := t.c
	tok := model.Token()
	w := model.NewMetaWrite(key).RequireExists().RequireLive(c.nowMs()).SetExp(at).NewExpToken(tok)
	if flag != "" {
		w.Require(flag)
	}
	_, err := c.st.UpdateItem(ctx, w.Update(c.st.Table()))
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		// Missing, expired meanwhile, or cond does not hold; unless the
		// item holds our token: the SDK resent an update that was applied
		// and whose response was lost.
		return model.OwnUpdate(failed.Item, tok), nil
	}
	return err == nil, err
}

// removeExpiry removes key's expiry on condition that the key exists, has
// an expiry to come, and cond holds (none when ""). It reports whether it
// did, and otherwise the metadata item as the refusal found it.
func (t table) removeExpiry(ctx context.Context, key, cond string) (bool, model.Meta, error) {
	c := t.c
	tok := model.Token()
	w := model.NewMetaWrite(key).RequireExists().RequireExpiring(c.nowMs()).RemoveExp().NewExpToken(tok)
	if cond != "" {
		w.Require(cond)
	}
	_, err := c.st.UpdateItem(ctx, w.Update(c.st.Table()))
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		// Ours when the SDK resent it after a lost response.
		return model.OwnUpdate(failed.Item, tok), model.DecodeMeta(failed.Item), nil
	}
	return err == nil, model.Meta{}, err
}

// rank is member's rank in key, a sorted set, and its score, from the
// member's item and the count items (rankFrom) when the key has them,
// else counted (a slow one: leased).
func (t table) rank(ctx context.Context, key, member string, rev bool) (rs RankScore, ok bool, err error) {
	err = t.c.leased(ctx, key, func() (err error) {
		rs, ok, err = t.rankOnce(ctx, key, member, rev)
		return err
	})
	return rs, ok, err
}

// rankOnce is one try of rank.
func (t table) rankOnce(ctx context.Context, key, member string, rev bool) (RankScore, bool, error) {
	c := t.c
	if all, small, read, m, err := c.smallZRead(ctx, key); err != nil || small || (read && m.Typ == model.TypeNone) {
		rs, ok, _ := smallRank(all, member, rev)
		return rs, ok, err
	}
	start := c.readStart(key)
	it, mt, ranges, err := c.rankProbe(ctx, key, member)
	if es := model.SmallZOf(mt); es != nil && err == nil { // small (smallz.go)
		return smallRank(zsOf(es), member, rev)
	}
	if it == nil && err == nil && convertedDuring(c.liveMeta(mt), start) {
		it, mt, ranges, err = c.rankProbe(ctx, key, member) // the conversion has committed: read again
	}
	if err != nil || it == nil {
		return RankScore{}, false, err
	}
	ix := model.BytesAttr(it, model.AttrIX)
	n, err := c.rankFrom(ctx, key, mt, ranges, ix, rev)
	if err == nil && len(ix) == 9+model.InlineMemberLen {
		var before int64
		before, err = c.runBefore(ctx, key, ix, member, rev)
		n += before
	}
	return RankScore{Rank: n, Score: model.ScoreOfIX(ix)}, err == nil, err
}

// rankedCount is ranked(r): a count from the count items.
func (t table) rankedCount(r zrange, ranked func(zrange) (int64, bool, error)) (int64, bool, error) {
	return ranked(r)
}

// bucketDraw draws n members of key (m, live) from its random buckets,
// when that reads fewer units than the whole set: ok false otherwise, or
// when the draw ran out of trials.
func (t table) bucketDraw(ctx context.Context, key string, m model.Meta, n int64, distinct bool) ([]string, bool, error) {
	b := model.BucketBits(m.Card)
	// The trials of a round read about half as many buckets again as
	// they expect to need (randomFromBuckets): the whole set is read
	// instead once that reaches its read units.
	if b == 0 || 1.5*float64(model.ExpectedTrials(m.Card, b, n))*model.TrialUnits(m.Card, b) >= float64(m.Card)/model.EntriesPerUnit {
		return nil, false, nil
	}
	return t.c.randomFromBuckets(ctx, key, m.Card, b, n, distinct, map[uint64][]string{})
}

// block takes up to count members from the first of keys that has some
// (op.take), waiting for members while all are empty until the timeout
// passes (0: never; then key is "" and zs empty) or ctx ends. Inside a
// transaction it does not wait, as Redis's blocking commands inside
// MULTI. Its first try is its own, as ZMPOP's (WRONGTYPE for a first
// existing key of another type), unless waiters of this Client are
// already queued on one of keys: it then queues behind them at once,
// first come first served (a key of another type then leaves it waiting,
// as one that changed type while it waited). A waiting command is served
// by its keys' feeders (waiters.feed).
func (t table) wait(ctx context.Context, cmd string, timeout time.Duration, keys []string, count int64, op blockOp) (string, []Z, error) {
	c := t.c
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	// Registered before the first try, so that a write committed between
	// that try and the wait still wakes a feeder that serves it.
	w := &waiter{cmd: cmd, keys: model.Dedupe(keys), count: count, op: op,
		ctx: context.WithoutCancel(c.labelled(ctx)), done: make(chan blockResult, 1)}
	behind := c.waiters.add(c, w)
	if !behind {
		// Its writes go on when ctx ends (store.Detached), so what it took
		// is known: returned, or, when the caller has left meanwhile,
		// handed to the next waiter or put back.
		key, zs, err := c.mpop(ctx, cmd, keys, count, op.take)
		if ctx.Err() != nil && len(zs) > 0 {
			c.waiters.leave(w)
			c.waiters.handOn(w.ctx, key, op, zs)
			return "", nil, wrap(cmd, ctx.Err())
		}
		if err != nil || len(zs) > 0 {
			c.waiters.leave(w)
			return key, zs, err
		}
	}
	c.waiters.ready(w)
	if notice, ok := ctx.Value(waitNoticeKey{}).(func()); ok {
		notice()
	}
	for {
		select {
		case r := <-w.done:
			return r.key, r.zs, r.err
		case <-deadline:
			// Answered nil only once each of keys was read after now.
			deadline = nil
			c.waiters.expire(w)
		case <-ctx.Done():
			if r, served := c.waiters.leave(w); served {
				return r.key, r.zs, r.err
			}
			return "", nil, wrap(cmd, ctx.Err())
		}
	}
}

// uncounted reports whether m counts members with expiries (mn).
func (t table) uncounted(m model.Meta) bool { return m.TTLs > 0 }

// itemSet reports whether the set m describes is of member items, as its
// metadata item shows (smallset.go).
func (t table) itemSet(m model.Meta) bool { return m.Small == nil }

// memberGuess is what a one-member write (ZINCRBY, ZADD INCR, ZADD of
// one member) assumes of member before writing, nil for absent: the index
// value this Client last wrote to it (c.zixs); else, when this Client's
// last such write of key met an existing member (c.rescores), the item
// as an eventually consistent GetItem shows it; else nothing (absent).
// A snapshot assumes nothing: it judges writes for free.
//
// Why. Assuming the member absent, the first write is a put of it and the
// metadata action, one TransactWriteItems. On an existing member that
// transaction is cancelled, which costs its 4 write units, and the
// re-score goes in a second one (8: the member, its index entry's move,
// the metadata item). A right guess sends the re-score at once: 1
// request and 8 units from this Client's own last write, 2 requests and
// 8 units plus 0.5 read unit from a read. A wrong one costs what the
// blind attempt did: the write's condition fails, and the transaction
// writer goes on from the item the cancellation returns (tx.go), never
// from the guess. The metadata action stays in the transaction: WATCH's
// version token and EXEC's snapshot need every member change to write it
// atomically (BENCHMARKS.md, "Sorted-set re-scores").
func (t table) memberGuess(ctx context.Context, key, member string) (model.Item, error) {
	c := t.c
	if ix, ok := c.zixs.get(key + "\x00" + member); ok {
		return model.Item{model.AttrIX: model.Bin(ix)}, nil
	}
	if likely, _ := c.rescores.get(key); !likely {
		return nil, nil
	}
	it, err := c.st.GetItem(ctx, model.ItemKey(key, model.MemberSK(model.TypeZSet, member)), aws.Bool(false), nil, nil)
	if err != nil || it == nil || model.ExpiredAt(it, c.nowMs()) {
		return nil, err
	}
	if m, _, ok := model.MemberOf(it); !ok || m != member {
		return nil, nil // another long member's item (longmember.go)
	}
	return it, nil
}
