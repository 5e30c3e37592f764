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

// memberItems yields the member items of key of type typ whose member starts
// with prefix, across pages: a sorted set's in member order, a set's in the
// order of their hashes ("Set members" in internal/model/keys.go).
func (c *Client) memberItems(ctx context.Context, key string, typ model.KeyType, prefix string) iter.Seq2[model.Item, error] {
	if c.tx != nil {
		return c.tx.scan(ctx, key, typ, prefix)
	}
	items := c.query(ctx, model.MemberQuery(key, typ, prefix), 0)
	if typ == model.TypeSet { // a small set's members are in its metadata item
		items = membersOnly(c.setItems(ctx, key))
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
	if m.Small != nil {
		if deleted, ok, err := c.smallDel(ctx, key); ok {
			return deleted, err
		}
		return c.del(ctx, key) // it changed meanwhile: read it again
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
