package redimo

// Commands on keys of any type (DEL, EXISTS, TYPE) and the reads of
// metadata items and member lists that every command family shares.

import (
	"context"
	"iter"
	"slices"
	"strings"

	"github.com/redimo-go/redimo/internal/model"
)

// nowMs is the clock (Options.Now) in Unix milliseconds.
func (c *Client) nowMs() int64 { return c.opts.Now().UnixMilli() }

// The answers to "is this key live, and of this type?", each named for
// what it returns (inside a transaction, the snapshot answers: seam.go):
//
//	storedMeta   the metadata item as stored, expired or not: one GetItem
//	getMeta      live: an expired key is missing
//	typedMeta    live, and ErrWrongType when of another type (a key of
//	             another type whose members have all expired is missing)
//	liveMetaOf   live and settled: missing when every member it stores
//	             has expired (a request only for keys whose members all
//	             have an expiry)
//	metas        getMeta of many keys (BatchGetItem); typedMetas typed
//	liveMeta, ofType, settle, exact (memberttl.go): the same steps on a
//	             metadata item already read
//	typedRead    typedMeta in parallel with a read of members

// liveMeta decodes a metadata item as reads see it: an expired key is missing.
func (c *Client) liveMeta(it model.Item) model.Meta { return model.DecodeMeta(it).Live(c.nowMs()) }

// getMeta reads key's metadata item as reads see it (an expired key is
// missing): one GetItem, 1 read unit (0.5 when eventually consistent).
func (c *Client) getMeta(ctx context.Context, key string) (model.Meta, error) {
	m, err := c.storedMeta(ctx, key, nil)
	return m.Live(c.nowMs()), err
}

// liveMetaOf is getMeta of a key that exists for Redis: missing when
// every member it stores has expired (settle, memberttl.go).
func (c *Client) liveMetaOf(ctx context.Context, key string) (model.Meta, error) {
	m, err := c.getMeta(ctx, key)
	if err != nil {
		return model.Meta{}, err
	}
	return c.settle(ctx, key, m)
}

// storedMeta reads key's metadata item as stored, expired or not, with the
// consistency given (nil: as Options say).
func (c *Client) storedMeta(ctx context.Context, key string, consistent *bool) (model.Meta, error) {
	if c.tx != nil {
		return c.tx.metaOf(ctx, key)
	}
	it, err := c.getItem(ctx, model.MetaKey(key), consistent, model.MetaProjection.Expr, model.MetaProjection.Names)
	if err != nil {
		return model.Meta{}, err
	}
	return model.DecodeMeta(it), nil
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
		consistent = c.consistent()
	}
	items, err := c.batchGetWith(ctx, req, consistent, projection, names)
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
func (c *Client) metas(ctx context.Context, keys []string) ([]model.Meta, error) {
	if c.tx != nil {
		out := make([]model.Meta, len(keys))
		for i, k := range keys {
			var err error
			if out[i], err = c.tx.metaOf(ctx, k); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	items, err := c.metaItems(ctx, keys, nil, model.MetaProjection.Expr, model.MetaProjection.Names)
	return model.MapSlice(items, c.liveMeta), err // a nil item: typeNone
}

// typedRead runs read while it reads key's metadata item, in parallel (one
// more request, no more latency), for reads that do not otherwise see the
// metadata: the type and the key's expiry decide what read found. When the
// key is missing or expired, m.typ is model.TypeNone and read's outcome must be
// ignored by the caller. read reports whether it found members: with
// Options.DisableKeyExpiry, the metadata is read only when it found none.
func (c *Client) typedRead(ctx context.Context, key string, typ model.KeyType, read func() (bool, error)) (m model.Meta, err error) {
	if c.opts.DisableKeyExpiry {
		found, err := read()
		if err != nil || found {
			return model.Meta{Typ: typ}, err
		}
		return c.typedMeta(ctx, key, typ)
	}
	return c.typedReadParallel(ctx, key, typ, read)
}

// typedReadParallel is typedRead reading the metadata item in parallel whatever the
// options: for reads that cannot see the type of what they found (a Select
// COUNT query of the index counts set members as well).
func (c *Client) typedReadParallel(ctx context.Context, key string, typ model.KeyType, read func() (bool, error)) (m model.Meta, err error) {
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

// typedMetas is metas failing with ErrWrongType when a key holds another
// type than one of allowed.
func (c *Client) typedMetas(ctx context.Context, keys []string, allowed ...model.KeyType) ([]model.Meta, error) {
	ms, err := c.metas(ctx, keys)
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

// memberItems yields the member items of key of type typ whose member starts
// with prefix, across pages: a sorted set's in member order, a set's in the
// order of their hashes ("Set members" in keys.go).
func (c *Client) memberItems(ctx context.Context, key string, typ model.KeyType, prefix string) iter.Seq2[model.Item, error] {
	if c.tx != nil {
		return c.tx.scan(ctx, key, typ, prefix)
	}
	items := c.query(ctx, model.MemberQuery(key, typ, prefix), 0)
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

// members returns every member of key of type typ, in member (byte) order:
// a set's are sorted after the read, which returns them in the order of
// their hashes.
func (c *Client) members(ctx context.Context, key string, typ model.KeyType) ([]string, error) {
	var out []string
	for it, err := range c.memberItems(ctx, key, typ, "") {
		if err != nil {
			return nil, err
		}
		m, _, _ := model.MemberOf(it)
		out = append(out, m)
	}
	if typ == model.TypeSet {
		slices.Sort(out)
	}
	return out, nil
}

// Del removes keys of any type and returns how many existed, as Redis's DEL.
// No keys at all is ErrSyntax, as Redis's arity error.
//
// Each key is deleted member by member through the same transactions as
// SREM/ZREM, so a concurrent writer never leaves a count wrong; a key of up
// to 99 members goes in one atomic transaction, a bigger one in chunks of 99.
//
// Cost per existing key: 1 GetItem + Query of its members (1 read unit per
// 4 KB) + ⌈members/99⌉ TransactWriteItems (2 write units per member and
// for the metadata item). A missing key costs 1 read unit.
//
// [DEL]: https://redis.io/docs/latest/commands/del/
func (c *Client) Del(ctx context.Context, keys ...string) (int64, error) {
	if err := checkKeyList("DEL", keys); err != nil {
		return 0, err
	}
	var n int64
	for _, key := range model.Dedupe(keys) {
		deleted, err := c.del(ctx, key)
		if err != nil {
			return n, wrap("DEL", err)
		}
		if deleted {
			n++
		}
	}
	return n, nil
}

func (c *Client) del(ctx context.Context, key string) (bool, error) {
	m, err := c.storedMeta(ctx, key, nil)
	if err != nil || m.Typ == model.TypeNone {
		return false, err
	}
	if m.Expired(c.nowMs()) { // already gone for Redis; reclaim its items
		return false, c.purge(ctx, key, m)
	}
	// Every stored member goes, expired ones too (memberttl.go): those
	// are swept, and the key existed only if a live one was deleted.
	var writes []*model.Write
	now := c.nowMs()
	for it, err := range c.memberItems(withExpired(ctx), key, m.Typ, "") {
		if err != nil {
			return false, err
		}
		member, _, _ := model.MemberOf(it)
		switch x := model.MemberExp(it); {
		case x == 0:
			writes = append(writes, c.deleteMember(key, m.Typ, member))
		case x <= now:
			w := c.sweepWrite(key, m.Typ, model.BytesAttr(it, model.AttrSK), x)
			w.Member = member
			writes = append(writes, w)
		default:
			writes = append(writes, model.PinDelete(c.deleteMember(key, m.Typ, member), x))
		}
	}
	applied, err := c.transactChunksFrom(ctx, key, m.Typ, writes, m)
	if err == nil && m.Ranked {
		err = c.rankDrop(ctx, key)
	}
	return model.Counted(applied) > 0, err
}

// Exists returns how many of keys exist, counting a key named twice twice,
// as Redis's EXISTS. No keys at all is ErrSyntax, as Redis's arity error.
//
// Cost: one BatchGetItem per 100 distinct keys, 1 read unit per key
// (0.5 when eventually consistent).
//
// [EXISTS]: https://redis.io/docs/latest/commands/exists/
func (c *Client) Exists(ctx context.Context, keys ...string) (int64, error) {
	if err := checkKeyList("EXISTS", keys); err != nil {
		return 0, err
	}
	ms, err := c.metas(ctx, keys)
	if err != nil {
		return 0, wrap("EXISTS", err)
	}
	var n int64
	for i, m := range ms {
		if m, err = c.settle(ctx, keys[i], m); err != nil { // members all expired: missing
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
func (c *Client) Type(ctx context.Context, key string) (string, error) {
	if err := checkKey("TYPE", key); err != nil {
		return "", err
	}
	m, err := c.liveMetaOf(ctx, key)
	if err != nil {
		return "", wrap("TYPE", err)
	}
	return string(m.Typ), nil
}
