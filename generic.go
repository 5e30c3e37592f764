package redimo

// Commands on keys of any type (DEL, EXISTS, TYPE) and the reads of
// metadata items and member lists that every command family shares.

import (
	"context"
	"slices"

	"github.com/redimo-go/redimo/internal/model"
)

// members returns every member of key of type typ, in member (byte) order:
// a set's are sorted after the read, which returns them in the order of
// their hashes.
func (c *Client) members(ctx context.Context, key string, typ model.KeyType) ([]string, error) {
	var out []string
	for it, err := range c.view().memberItems(ctx, key, typ, "") {
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
// Each key goes at once for every reader, whatever its size: one write
// marks its metadata item dead, as an expiry does, and its member items
// are reclaimed after, in transactions of 99 that keep the stored count
// equal to the member items (a purge, tx.go). A DEL cut short after the
// mark (a crash, a timeout) has deleted the key: the next client to write
// it, or DEL or FLUSHDB it, reclaims what is left. A small set (its one
// item) goes in one write.
//
// Cost per existing key: 1 GetItem + 1 UpdateItem (1 write unit) + Query
// of its members (1 read unit per 4 KB) + ⌈members/99⌉ TransactWriteItems
// (2 write units per member and for the metadata item). A missing key
// costs 1 read unit.
//
// [DEL]: https://redis.io/docs/latest/commands/del/
func (c *Client) Del(ctx context.Context, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "Del")
	defer traced.end(&err)
	if err := checkKeyList("DEL", keys); err != nil {
		return 0, err
	}
	var n int64
	for _, key := range model.Dedupe(keys) {
		deleted, err := c.del(ctx, key)
		if deleted {
			n++
		}
		if err != nil {
			return n, wrap("DEL", err)
		}
	}
	return n, nil
}

func (c *Client) del(ctx context.Context, key string) (deleted bool, err error) {
	err = c.st.Attempts(ctx, false, func() (bool, error) {
		m, err := c.view().metaOf(ctx, key, nil)
		if err != nil || m.Typ == model.TypeNone {
			return true, err
		}
		if m.Expired(c.nowMs()) { // already gone for Redis; reclaim its items
			return true, c.view().purge(ctx, key, m)
		}
		if m.Small != nil {
			var handled bool
			deleted, handled, err = c.smallDel(ctx, key)
			return handled, err // not handled: it changed meanwhile, read it again
		}
		// A key whose members have all expired is missing (memberttl.go):
		// it is swept, and DEL replies 0, as Redis's.
		live, err := c.settle(ctx, key, m, false)
		if err != nil {
			return true, err
		}
		if live.Typ == model.TypeNone {
			return true, c.view().purge(ctx, key, m)
		}
		var changed bool
		deleted, changed, err = c.view().drop(ctx, key, m)
		return !changed, err
	})
	return deleted, err
}

// Exists returns how many of keys exist, counting a key named twice twice,
// as Redis's EXISTS. No keys at all is ErrSyntax, as Redis's arity error.
//
// Cost: one BatchGetItem per 100 distinct keys, 1 read unit per key
// (0.5 when eventually consistent).
//
// [EXISTS]: https://redis.io/docs/latest/commands/exists/
func (c *Client) Exists(ctx context.Context, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "Exists")
	defer traced.end(&err)
	if err := checkKeyList("EXISTS", keys); err != nil {
		return 0, err
	}
	ms, err := c.view().metas(ctx, keys)
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
func (c *Client) Type(ctx context.Context, key string) (_ string, err error) {
	ctx, traced := c.command(ctx, "Type")
	defer traced.end(&err)
	if err := checkKey("TYPE", key); err != nil {
		return "", err
	}
	m, err := c.liveMetaOf(ctx, key)
	if err != nil {
		return "", wrap("TYPE", err)
	}
	return string(m.Typ), nil
}
