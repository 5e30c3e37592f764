package redimo

// Is this key live, and of this type? Every answer the commands use, in
// this one file (inside a transaction, the snapshot answers: view.go).
// A key is live when its metadata item exists, its expiry has not passed
// and, when every member it stores has an expiry of its own, one of them
// is still live.

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/redimo-go/redimo/internal/model"
)

// The answers, each named for what it returns:
//
//	metaOf   the metadata item as stored, expired or not: one GetItem
//	getMeta      live: an expired key is missing
//	typedMeta    live, and ErrWrongType when of another type (a key of
//	             another type whose members have all expired is missing)
//	liveMetaOf   live and settled: missing when every member it stores
//	             has expired (a request only for keys whose members all
//	             have an expiry)
//	metas        getMeta of many keys (BatchGetItem); typedMetas typed
//	typedRead    typedMeta in parallel with a read of members
//	liveCount    SCARD/ZCARD: the number of live members
//
// and on a metadata item already read: liveMeta (decoded, live), ofType
// (of one of some types, or ErrWrongType), settle (missing when no member
// is live; with counted, its exact live count), liveCard (the count).

// nowMs is the clock (Options.Now) in Unix milliseconds.
func (c *Client) nowMs() int64 { return c.opts.Now().UnixMilli() }

// liveMeta decodes a metadata item as reads see it: an expired key is missing.
func (c *Client) liveMeta(it model.Item) model.Meta { return model.DecodeMeta(it).Live(c.nowMs()) }

// getMeta reads key's metadata item as reads see it (an expired key is
// missing): one GetItem, 1 read unit (0.5 when eventually consistent).
func (c *Client) getMeta(ctx context.Context, key string) (model.Meta, error) {
	m, err := c.view().metaOf(ctx, key, nil)
	return m.Live(c.nowMs()), err
}

// liveMetaOf is getMeta of a key that exists for Redis: missing when
// every member it stores has expired (settle).
func (c *Client) liveMetaOf(ctx context.Context, key string) (model.Meta, error) {
	m, err := c.getMeta(ctx, key)
	if err != nil {
		return model.Meta{}, err
	}
	return c.settle(ctx, key, m, false)
}

// metaOf reads key's metadata item as stored, expired or not, with the
// consistency given (nil: as Options say).
func (t table) metaOf(ctx context.Context, key string, consistent *bool) (model.Meta, error) {
	c := t.c
	it, err := c.st.GetItem(ctx, model.MetaKey(key), consistent, model.MetaProjection.Expr, model.MetaProjection.Names)
	if err != nil {
		return model.Meta{}, err
	}
	m := model.DecodeMeta(it)
	c.noteEncoding(key, m) // what SADD's first write needs (smallset.go)
	return m, nil
}

// readLease is how long a read of a key may take and still trust the
// items it read together. reclaim deletes no item of a key marked dead (a
// DEL, a purge) until this long after the mark returned: a read that
// answered within it, having read the key live, read every member before
// any such deletion, though DynamoDB reads the items of a BatchGetItem or a
// Query one by one (read-committed, not one snapshot) and a request of a
// read sent with another can be served later (TestDelLease).
const readLease = 500 * time.Millisecond

// leased runs read, a read of key that judges the member items it reads by
// the metadata item read with them, and returns its outcome when it took
// at most c.readCheck (readLease: reclaim waits that long). A slower read
// (a retried or throttled request, a stalled process, a key of many pages)
// may have met a DEL's or a purge's deletions after finding the key live:
// it runs again between two strongly consistent reads of the metadata
// item, and stands when both show the key in the same life (live with the
// same type and expiry, or not live), as no reclaim can then have deleted
// from the key it read (other writes meanwhile are seen as a multi-page
// read sees them: item by item). A key that changes life under every
// attempt is ErrContention after Options.MaxAttempts, as liveCard. read
// must start afresh each time (it assigns its results).
func (c *Client) leased(ctx context.Context, key string, read func() error) error {
	start := time.Now()
	if err := read(); err != nil || time.Since(start) <= c.readCheck {
		return err
	}
	type life struct {
		typ model.KeyType
		exp int64
	}
	now := c.nowMs()
	lifeOf := func(m model.Meta) life {
		if m = m.Live(now); m.Typ == model.TypeNone {
			return life{}
		}
		return life{m.Typ, m.Exp}
	}
	for range c.opts.MaxAttempts {
		before, err := c.view().metaOf(ctx, key, aws.Bool(true))
		if err != nil {
			return err
		}
		if err := read(); err != nil {
			return err
		}
		after, err := c.view().metaOf(ctx, key, aws.Bool(true))
		if err != nil {
			return err
		}
		if lifeOf(before) == lifeOf(after) {
			return nil
		}
	}
	return ErrContention
}

// typedMeta is getMeta failing with ErrWrongType when key holds another type than typ.
func (c *Client) typedMeta(ctx context.Context, key string, typ model.KeyType) (model.Meta, error) {
	m, err := c.getMeta(ctx, key)
	if err != nil {
		return model.Meta{}, err
	}
	return c.ofType(ctx, key, m, typ)
}

// metaItems reads the metadata items of keys with the consistency (nil:
// as Options say) and projection given (BatchGetItem: 100 keys a request,
// in parallel); result[i] is keys[i]'s, nil when it has none.
func (c *Client) metaItems(ctx context.Context, keys []string, consistent *bool, projection *string, names map[string]string) ([]model.Item, error) {
	unique := model.Dedupe(keys)
	req := make([]model.Item, len(unique))
	for i, k := range unique {
		req[i] = model.MetaKey(k)
	}
	if consistent == nil {
		consistent = c.st.Consistent()
	}
	items, err := c.st.BatchGetWith(ctx, req, consistent, projection, names)
	if err != nil {
		return nil, err
	}
	byPK := make(map[string]model.Item, len(items))
	for _, it := range items {
		byPK[string(model.BytesAttr(it, model.AttrPK))] = it
	}
	out := make([]model.Item, len(keys))
	for i, k := range keys {
		out[i] = byPK[string(model.PkValue(k))]
	}
	return out, nil
}

// metas reads the metadata items of keys with BatchGetItem (100 keys a
// request, in parallel); result[i] belongs to keys[i].
func (t table) metas(ctx context.Context, keys []string) ([]model.Meta, error) {
	c := t.c
	items, err := c.metaItems(ctx, keys, nil, model.MetaProjection.Expr, model.MetaProjection.Names)
	ms := model.MapSlice(items, c.liveMeta) // a nil item: typeNone
	for i, m := range ms {
		c.noteEncoding(keys[i], m) // for the probes that follow (setProbe)
	}
	return ms, err
}

// typedRead runs read while it reads key's metadata item, in parallel (one
// more request, no more latency), for reads that do not otherwise see the
// metadata: the type and the key's expiry decide what read found. When the
// key is missing or expired, m.typ is model.TypeNone and read's outcome must be
// ignored by the caller. A member found is no sign of a live key, with
// Options.DisableKeyExpiry too: a DEL marks the key dead in one write and
// reclaims its members after (TestDelWholeWithoutKeyExpiry), and a count
// of the index counts set members as well.
func (c *Client) typedRead(ctx context.Context, key string, typ model.KeyType, read func() (bool, error)) (m model.Meta, err error) {
	done := make(chan struct{})
	var merr error
	ctx = c.labelled(ctx)
	go func() {
		defer close(done)
		m, merr = c.typedMeta(ctx, key, typ)
	}()
	_, err = read()
	<-done
	switch {
	case merr != nil:
		return m, merr
	case m.Typ == model.TypeNone:
		return m, nil
	}
	return m, err
}

// typedReadLazy is typedRead reading the metadata item only when read
// found nothing: for reads whose finds are judged otherwise (a pop's
// write checks the type and liveness it then relies on).
func (c *Client) typedReadLazy(ctx context.Context, key string, typ model.KeyType, read func() (bool, error)) (m model.Meta, err error) {
	found, err := read()
	if err != nil || found {
		return model.Meta{Typ: typ}, err
	}
	return c.typedMeta(ctx, key, typ)
}

// typedMetas is metas failing with ErrWrongType when a key holds another
// type than one of allowed.
func (c *Client) typedMetas(ctx context.Context, keys []string, allowed ...model.KeyType) ([]model.Meta, error) {
	ms, err := c.view().metas(ctx, keys)
	if err != nil {
		return nil, err
	}
	for i, m := range ms {
		if ms[i], err = c.ofType(ctx, keys[i], m, allowed...); err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// liveCard is the number of live members of a key whose metadata item
// reads m: m.card when no member has an expiry (no request); otherwise
// m.card minus a COUNT of the expired ones, then the metadata item read
// again: a changed version token means a write committed meanwhile, and
// the count starts again from what it holds. A count that holds is noted
// (seenCounts) for the next SCARD/ZCARD of the key.
//
// Cost with member expiries: a Query of by_exp per 1 MB of expired
// members not yet deleted (1 read unit per 4 KB) and a GetItem (1 read unit).
func (c *Client) liveCard(ctx context.Context, key string, m model.Meta) (int64, error) {
	for range c.opts.MaxAttempts {
		if m.TTLs <= 0 || m.Typ == model.TypeNone {
			c.seenCounts.forget(key)
			return m.Card, nil
		}
		now := c.nowMs()
		expired, err := c.queryCount(withExpired(ctx), c.expiredQuery(key, now))
		if err != nil {
			return 0, err
		}
		again, err := c.view().metaOf(ctx, key, aws.Bool(true))
		if err != nil {
			return 0, err
		}
		if string(again.Ver) == string(m.Ver) && again.Typ == m.Typ {
			c.seenCounts.note(key, seenCount{ver: m.Ver, at: now, expired: expired})
			return m.Card - expired, nil
		}
		m = again.Live(c.nowMs())
	}
	return 0, ErrContention
}

// liveCount is SCARD/ZCARD: the live count of key, which must be of type
// typ. For a key with member expiries whose count this Client validated
// last time (seenCounts: its version token v, the time t and the number e
// of members expired at t), it counts only the members that expired since
// t, then reads the metadata item: when it still holds v, no write
// committed since t, so the stored members are those of t and e plus the
// new ones are exactly the expired ones. 2 requests of one page each
// while the key is not written, however many expired members wait to be
// deleted (a page holds ~25,000 members expiring between two calls).
// Otherwise 1 GetItem, then liveCard's.
func (t table) liveCount(ctx context.Context, key string, typ model.KeyType) (int64, error) {
	c := t.c
	if seen, ok := c.seenCounts.get(key); ok {
		now := c.nowMs()
		var newly int64
		if now > seen.at {
			n, err := c.queryCount(withExpired(ctx), c.expiredSince(key, seen.at, now))
			if err != nil {
				return 0, err
			}
			newly = n
		}
		stored, err := c.view().metaOf(ctx, key, aws.Bool(true))
		if err != nil {
			return 0, err
		}
		m := stored.Live(now)
		if now >= seen.at && string(stored.Ver) == string(seen.ver) && (m.Typ == typ || m.Typ == model.TypeNone) {
			if m.Typ == model.TypeNone {
				return 0, nil
			}
			seen.at, seen.expired = now, seen.expired+newly
			c.seenCounts.note(key, seen)
			return m.Card - seen.expired, nil
		}
		c.seenCounts.forget(key)
		if m.Typ != typ && m.Typ != model.TypeNone {
			if m, err = c.settle(ctx, key, m, false); err != nil || m.Typ != model.TypeNone {
				return 0, errors.Join(err, ErrWrongType)
			}
			return 0, nil
		}
		return c.liveCard(ctx, key, m)
	}
	m, err := c.typedMeta(ctx, key, typ)
	if err != nil {
		return 0, err
	}
	return c.liveCard(ctx, key, m)
}

// seenCount is a live count liveCard validated: at time at (Unix ms) the
// key's version token was ver and expired of its stored members had
// expired.
type seenCount struct {
	ver         []byte
	at, expired int64
}

// keyCache is what a Client last learned of some keys (a validated live
// count, or that a set is made of member items), at most maxKeyCache keys
// (then it starts again). What it holds is a hint: a stale entry costs a
// request, never an answer.
type keyCache[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

const maxKeyCache = 10_000

func (v *keyCache[V]) get(key string) (V, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s, ok := v.m[key]
	return s, ok
}

func (v *keyCache[V]) note(key string, s V) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil || len(v.m) >= maxKeyCache {
		v.m = map[string]V{}
	}
	v.m[key] = s
}

func (v *keyCache[V]) forget(key string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.m, key)
}

// settle is the live view of a key whose metadata item reads m: missing
// when every member it stores has expired. Only keys all of whose members
// have an expiry pay a request for it, unless counted asks for the count
// of its live members too (liveCard; a request for any key with member
// expiries): then m.Card is exact.
func (c *Client) settle(ctx context.Context, key string, m model.Meta, counted bool) (model.Meta, error) {
	if m.Typ == model.TypeNone || m.TTLs <= 0 || (!counted && m.TTLs < m.Card) {
		return m, nil
	}
	n, err := c.liveCard(ctx, key, m)
	if err != nil {
		return model.Meta{}, err
	}
	if n <= 0 {
		return model.Meta{Typ: model.TypeNone}, nil
	}
	m.Card = n
	return m, nil
}

// ofType checks that m, the metadata of key, is of one of types (or
// missing): a key of another type whose members have all expired is a
// missing key (settle; no request unless every member it stores has an
// expiry), any other ErrWrongType.
func (c *Client) ofType(ctx context.Context, key string, m model.Meta, types ...model.KeyType) (model.Meta, error) {
	if m.Typ == model.TypeNone || slices.Contains(types, m.Typ) {
		return m, nil
	}
	m, err := c.settle(ctx, key, m, false)
	if err == nil && m.Typ != model.TypeNone {
		err = ErrWrongType
	}
	return m, err
}

// members returns every member of key of type typ, in member (byte) order:
// a set's are sorted after the read, which returns them in the order of
// their hashes. It reads the key whole (wholeItems): a key gone since the
// caller judged it has no members, one of another type now is
// ErrWrongType (each key at its own moment).
func (c *Client) members(ctx context.Context, key string, typ model.KeyType) ([]string, error) {
	its, now, err := c.wholeItems(ctx, key, typ)
	switch {
	case err != nil:
		return nil, err
	case now != typ && now != model.TypeNone:
		return nil, ErrWrongType
	}
	out := model.MapSlice(its, func(it model.Item) string { m, _, _ := model.MemberOf(it); return m })
	if typ == model.TypeSet {
		slices.Sort(out)
	}
	return out, nil
}

// wholeItems reads the member items of key, which its caller judged of
// type typ, with its metadata item: one Query, the metadata item first
// (keyItems), no more requests than the members' alone. It returns them
// with the type the metadata item shows now (model.TypeNone and no items
// for a key gone since: deleted or expired), and is leased: a read slower
// than the lease is checked. Inside a transaction, the snapshot's members
// and typ.
func (c *Client) wholeItems(ctx context.Context, key string, typ model.KeyType) (its []model.Item, now model.KeyType, err error) {
	err = c.leased(ctx, key, func() error {
		its, now = its[:0], typ
		for it, err := range c.view().keyItems(ctx, key, typ) {
			if err != nil {
				return err
			}
			if _, _, ok := model.MemberOf(it); ok {
				if now == typ {
					its = append(its, it)
				}
				continue
			}
			if now = c.liveMeta(it).Typ; now != typ { // the metadata item
				its = nil
			}
		}
		return nil
	})
	return its, now, err
}
