package redimo

// Small sorted sets in one item (issue 34): what smallset.go does for
// sets, for sorted sets.
//
// A sorted set whose members and scores fit in a small item lives in its
// metadata item: the entries (score and member, in order) are one binary
// attribute (zm, internal/model/smallz.go) beside the type, count,
// expiry and version token, and the key has no member items and no
// index entries. ZADD, ZINCRBY, ZREM, ZPOPMIN, ZPOPMAX and ZMPOP (and the
// blocking pops, which run them) are then one conditional UpdateItem of
// that item, no transaction: 1 write unit; ZSCORE, ZRANK, ZRANGE and
// ZCARD one GetItem of it.
//
// The threshold is small sets' (smallset.go): the item stays within 1 KB,
// one write unit a write, where a member item costs ZADD 4 write units
// (the member, its index entry and the metadata item, transactional)
// and a re-score 8. An entry takes its member's bytes plus 9 or 10 (the
// score and the member's length), so model.SmallBudget(key), about 640
// bytes for a key of typical length, holds 30 entries of 10-byte
// members, at most model.SmallMaxMembers (99) of any size: queues,
// per-user windows and small boards. Past it the key converts to member
// items (below). Redis keeps a sorted set in a listpack up to 128
// entries of 64 bytes; OBJECT ENCODING answers from those limits either
// way (keys.go).
//
// Compare-and-swap. A write's effect on a sorted set cannot be a
// condition per member, as a set's NOT contains: scores change. So every
// write is planned in Go from the entries as last seen (the command's own
// semantics, the same decision functions the member-item path runs:
// zaddDecide, incrDecide) and sent as one UpdateItem storing the new
// entries, on condition that the version token is the one seen (every
// change of the key stores a new one) and the key is a live small sorted
// set. ZINCRBY adds in float64 in Go, as Redis does, never in DynamoDB's
// decimal arithmetic. Each write returns the item as it left it
// (ReturnValues ALL_NEW, no capacity) and this Client keeps it
// (Client.zitems), so the next write of the key plans from it without a
// read; a refused write returns the item as it is now
// (ReturnValuesOnConditionCheckFailure) and the command plans again from
// it. A write that would change nothing answers only from an exact
// view: a strongly consistent read, or a refusal, never the kept item.
// A key this Client has not seen is assumed missing by writes that may
// create it (ZADD, ZINCRBY: the write creates it, on condition that no
// key is there), and read first (GetItem, strongly consistent) by the
// others.
//
// Lost responses: the writes go through smallUpdate, with a write token
// in this Client's writer lane (model.WriteToken; smallset.go): a resend
// of a write that applied finds its token and replies as that write.
// Emptying the key (the last member removed or popped) keeps the item
// with its tokens (model.Tombstone), as a small set's.
//
// Conversion. A write whose entries would not fit first converts the key
// (smallset.go's convert: one TransactWriteItems writing each member
// item with its index entry and removing zm, on condition of the version
// token seen), then takes the member-item path. Every other writer of
// member items requires the metadata item to hold no small encoding
// (metaAction) and converts the key when it does (transact), so every
// command not taught the small encoding (ZMOVE, the *STORE commands,
// member expiry, ZREMRANGEBY*, RENAME's destination, ...) stays exact;
// MULTI/EXEC converts a small sorted set it reads (exec.go). A key never
// converts back while it lives.
//
// Reads. Every read of a sorted set's members goes through the view
// (table.read, count, rank, probe, memberItems) or sees the metadata
// item with what it queries (ExpiringSet, ZRankAround, ZCOUNT): a key
// this Client last saw small is read with one GetItem of its metadata
// item (smallZRead); a key it has not seen is read as member items, and
// the metadata item read with them (in parallel, in the same
// BatchGetItem, or first for memberItems) tells a small key, which then answers from it
// (convertedDuring covers a conversion during the read); a key it knows
// as member items is read as before. A small key's answer is computed in
// Go (pick: the selection EXEC's snapshot runs).

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/store"
	"golang.org/x/sync/semaphore"
)

// zPlan is a command on a small sorted set: from its entries as seen (nil:
// missing), the entries after it (in order) and whether it changes any.
// The command keeps its reply in its closure: the reply of the last call
// is that of the write that applied.
type zPlan func(cur []model.ZEntry) (next []model.ZEntry, change bool, err error)

// smallZ runs plan on key's small sorted set: one UpdateItem when the
// entries as last seen are current. handled is false when key is (or
// becomes, converted: the entries would not fit) a sorted set of member
// items: the caller takes that path. read: the command needs the
// entries even on a key it may assume missing (ZREM, pops).
func (t table) smallZ(ctx context.Context, key string, read bool, plan zPlan) (handled bool, err error) {
	c := t.c
	if c.knownBig(key) || c.opts.DisableSmallSortedSets && !c.knownSmall(key) {
		// Member items, or a key this Client does not make small: should
		// it be small, transact converts it (metaAction).
		return false, nil
	}
	leave, err := c.zgate.enter(ctx, key)
	if err != nil {
		return true, err
	}
	defer leave()
	var st smallState
	fresh := false // st is exact now: read strongly consistent, or a refusal's
	if it, ok := c.zitems.get(key); ok {
		// Kept: a small sorted set or a missing key as this Client last
		// saw it. Should it now mean anything else (another type), only
		// the key as it is may say so.
		if st, err = c.classifyAs(ctx, key, it, model.TypeZSet); err != nil || st.big {
			c.zitems.forget(key)
			if st, err = c.readZState(ctx, key); err != nil {
				return true, err
			}
			fresh = true
		}
	} else if read {
		if st, err = c.readZState(ctx, key); err != nil {
			return true, err
		}
		fresh = true
	}
	fallback := false
	lost := 0 // writes refused because another writer changed the set first
	err = c.st.Attempts(ctx, false, func() (bool, error) {
		if st.big {
			fallback = true
			return true, nil
		}
		// Every write of a small sorted set is conditioned on the set's
		// version, so writers of one key in other Clients race (this
		// Client's go one at a time: zgate): the first retry goes at
		// once (it plans from the fresh item), later ones back off with
		// jitter, else they retry in lockstep and one may lose every
		// round.
		if lost >= 2 {
			if err := store.Sleep(ctx, lost-1); err != nil {
				return true, err
			}
		}
		cur := st.entries
		next, change, err := plan(cur)
		switch {
		case err != nil && fresh:
			return true, err
		case !change && fresh:
			return true, nil
		case !change || err != nil: // the entries as kept or assumed: read them
			st, err = c.readZState(ctx, key)
			fresh = true
			return false, err
		case len(next) > 0 && (!model.SmallZFit(key, next) || c.opts.DisableSmallSortedSets):
			fallback = true
			if st.known && !st.missing {
				return true, c.convert(ctx, key, st.raw)
			}
			return true, nil
		}
		var w *model.MetaWrite
		empties := len(next) == 0
		switch {
		case !st.known || st.missing:
			w = model.NewMetaWrite(key).Require("attribute_not_exists(#t)").SetType(model.TypeZSet).SetSmallZ(next)
		case empties:
			w = c.smallZExisting(key, st).Tombstone(time.Now().UnixMilli())
		default:
			w = c.smallZExisting(key, st).SetSmallZ(next)
		}
		now, err := c.smallUpdate(ctx, key, w, !empties)
		switch {
		case errors.Is(err, errApplied):
			c.seenBig(key, false)
			if now == nil {
				c.zitems.forget(key)
			} else {
				c.zitems.note(key, now)
			}
			if addsTo(cur, next) {
				c.waiters.notifyAdded(key)
			}
			return true, nil
		case err != nil:
			c.zitems.forget(key)
			return true, err
		}
		st, err = c.classifyAs(ctx, key, now, model.TypeZSet)
		if err == nil && !st.big {
			c.zitems.note(key, now) // small or missing: kept for the next write
		}
		fresh = true
		lost++
		return false, err
	})
	if fallback || err != nil {
		c.zitems.forget(key)
	}
	return err != nil || !fallback, err
}

// smallZExisting is the write of key's small sorted set as st shows it:
// on condition that it is still that set (its version token) and live.
func (c *Client) smallZExisting(key string, st smallState) *model.MetaWrite {
	return model.NewMetaWrite(key).RequireVersion(model.BytesAttr(st.raw, model.AttrVer)).
		Require("attribute_exists(#zm)").RequireLive(c.nowMs())
}

// readZState reads key's metadata item, strongly consistent, for a write.
func (c *Client) readZState(ctx context.Context, key string) (smallState, error) {
	it, err := c.st.GetItem(ctx, model.MetaKey(key), aws.Bool(true), nil, nil)
	if err != nil {
		return smallState{}, err
	}
	return c.classifyAs(ctx, key, it, model.TypeZSet)
}

// addsTo reports whether next holds a member cur does not: blocked pops
// may be served (waiters).
func addsTo(cur, next []model.ZEntry) bool {
	have := make(map[string]bool, len(cur))
	for _, e := range cur {
		have[e.Member] = true
	}
	return slices.ContainsFunc(next, func(e model.ZEntry) bool { return !have[e.Member] })
}

// zEntries is entries as a mutable map, and back in order (sortedZ).
func zEntries(cur []model.ZEntry) map[string]float64 {
	out := make(map[string]float64, len(cur))
	for _, e := range cur {
		out[e.Member] = e.Score
	}
	return out
}

func sortedZ(m map[string]float64) []model.ZEntry {
	out := make([]model.ZEntry, 0, len(m))
	for member, score := range m {
		out = append(out, model.ZEntry{Member: member, Score: score})
	}
	slices.SortFunc(out, model.CompareZ)
	return out
}

// zOf is the entries of seq as Zs.
func zOf(seq func(yield func(int, model.ZEntry) bool)) []Z {
	var out []Z
	for _, e := range seq {
		out = append(out, Z{Score: e.Score, Member: e.Member})
	}
	return out
}

// smallZRead is the read of key, a sorted set this Client last saw small
// or missing (knownSmall), by a reader that would otherwise query its
// member items: its metadata item alone (one GetItem, typed:
// ErrWrongType). small: key is a small sorted set, all its members in
// order (none when missing: read and m.Typ TypeNone); else the caller
// reads as for member items (read: m is key's live metadata, the type
// checked). A key not seen is read as member items, with the metadata
// item the reader reads beside them telling a small one (m.SmallZ) and
// a conversion during the read (convertedDuring): a fresh Client's
// first read of a key of member items costs nothing more.
func (c *Client) smallZRead(ctx context.Context, key string) (all []Z, small, read bool, m model.Meta, err error) {
	if !c.knownSmall(key) {
		return nil, false, false, model.Meta{}, nil
	}
	m, err = c.typedMeta(ctx, key, model.TypeZSet) // notes the encoding
	if err != nil || m.SmallZ == nil {
		return nil, false, true, m, err
	}
	return zsOf(m.SmallZ), true, true, m, nil
}

// readStart is when a read of key's member items began, and whether this
// Client knew key to be member items then (a key of member items does not
// turn small while it lives).
type readStart struct {
	at     time.Time
	wasBig bool
}

func (c *Client) readStart(key string) readStart {
	return readStart{at: time.Now(), wasBig: c.knownBig(key)}
}

// convertedDuring reports whether key, member items as its metadata m
// (live) shows them, may have been converted from small during a read of
// its member items that began at s: the read may have missed them
// (setProbe says why: the conversion records its time, and clocks may
// differ by conversionSkew), and the caller reads again. Only for a
// Client that did not know the key as member items when the read began:
// once per key and Client, in the minutes after a conversion.
func convertedDuring(m model.Meta, s readStart) bool {
	return !s.wasBig && m.Typ == model.TypeZSet && m.SmallZ == nil && m.Converted >= s.at.Add(-conversionSkew).UnixMilli()
}

// zsOf is entries as Zs.
func zsOf(entries []model.ZEntry) []Z {
	out := make([]Z, len(entries))
	for i, e := range entries {
		out[i] = Z{Score: e.Score, Member: e.Member}
	}
	return out
}

// smallZProbe is probe of a sorted set not known to be member items: the
// metadata item with the members (one BatchGetItem; a GetItem of the
// metadata item alone when this Client last saw key small). done is
// false when the caller must read the members (key known small turned
// out member items).
func (c *Client) smallZProbe(ctx context.Context, key string, members []string, withMeta bool) (found map[string]model.Item, done bool, err error) {
	start := time.Now()
	var it model.Item
	if c.knownSmall(key) {
		it, err = c.st.GetItem(ctx, model.MetaKey(key), nil, model.MetaProjection.Expr, model.MetaProjection.Names)
	} else {
		found, it, err = c.probeItems(ctx, key, model.TypeZSet, members, true)
	}
	if err != nil {
		return nil, true, err
	}
	m := c.liveMeta(it)
	if withMeta {
		if m, err = c.ofType(ctx, key, m, model.TypeZSet); err != nil {
			return nil, true, err
		}
	}
	c.noteEncoding(key, m)
	switch {
	case m.SmallZ != nil:
		found = map[string]model.Item{}
		for _, e := range m.SmallZ {
			if slices.Contains(members, e.Member) {
				found[e.Member] = model.SmallZItem(key, e)
			}
		}
		return found, true, nil
	case m.Typ != model.TypeZSet: // missing (or, unchecked without withMeta, of another type)
		return map[string]model.Item{}, true, nil
	case found == nil: // known small, now member items
		return nil, false, nil
	case len(found) < len(members) && m.Converted >= start.Add(-conversionSkew).UnixMilli():
		// Converted during the read (setProbe says why): read again.
		again, _, err := c.probeItems(ctx, key, model.TypeZSet, members, false)
		return again, true, err
	}
	return found, true, nil
}

// smallRank is member's rank in all (a small sorted set's members, in
// order), counted from the end with rev.
func smallRank(all []Z, member string, rev bool) (RankScore, bool, error) {
	i := slices.IndexFunc(all, func(z Z) bool { return z.Member == member })
	if i < 0 {
		return RankScore{}, false, nil
	}
	rank := int64(i)
	if rev {
		rank = int64(len(all) - 1 - i)
	}
	return RankScore{Rank: rank, Score: all[i].Score}, true, nil
}

// smallZItems is the member items of key for memberItems: its metadata
// item read first (one GetItem; no race with a conversion, which
// commits before the metadata item shows it), then, for a small sorted
// set, the member items it stands for; else query's.
func (c *Client) smallZItems(ctx context.Context, key, prefix string, query iter.Seq2[model.Item, error]) iter.Seq2[model.Item, error] {
	return func(yield func(model.Item, error) bool) {
		m, err := c.view().metaOf(ctx, key, nil) // notes the encoding
		if err != nil {
			yield(nil, err)
			return
		}
		if m = m.Live(c.nowMs()); m.SmallZ == nil {
			for it, err := range query {
				if !yield(it, err) || err != nil {
					return
				}
			}
			return
		}
		for _, it := range model.SmallZItems(key, m.SmallZ) {
			if mb, _, _ := model.MemberOf(it); strings.HasPrefix(mb, prefix) && !yield(it, nil) {
				return
			}
		}
	}
}

// keptCard is the count of key, a small sorted set, as this Client's last
// write of it left it (Client.zitems; 0: none kept, or not live).
func keptCard(c *Client, key string) int64 {
	it, ok := c.zitems.get(key)
	if !ok {
		return 0
	}
	if m := c.liveMeta(it); m.Typ == model.TypeZSet && m.SmallZ != nil {
		return m.Card
	}
	return 0
}

// keyGate admits one holder per key at a time, in the order they came
// (golang.org/x/sync/semaphore is FIFO); a waiter whose ctx ends leaves.
// smallZ holds it for its whole compare-and-swap loop: the goroutines of
// one Client writing one small sorted set would otherwise race on its
// version token, each refused write costing a write unit and one of them
// possibly losing every round (TestZConcurrency: 16 writers of one key).
type keyGate struct {
	mu   sync.Mutex
	held map[string]*gateEntry
}

type gateEntry struct {
	sem  *semaphore.Weighted
	refs int // holders and waiters
}

// enter waits for key's turn and returns the function that ends it.
func (g *keyGate) enter(ctx context.Context, key string) (leave func(), err error) {
	g.mu.Lock()
	if g.held == nil {
		g.held = map[string]*gateEntry{}
	}
	e := g.held[key]
	if e == nil {
		e = &gateEntry{sem: semaphore.NewWeighted(1)}
		g.held[key] = e
	}
	e.refs++
	g.mu.Unlock()
	done := func() {
		g.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(g.held, key)
		}
		g.mu.Unlock()
	}
	if err := e.sem.Acquire(ctx, 1); err != nil {
		done()
		return nil, err
	}
	return func() { e.sem.Release(1); done() }, nil
}
