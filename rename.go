package redimo

// RENAME, RENAMENX and COPY: a key's members copied to another key, in
// the same transactions as every write (chunks of 99 members).

import (
	"context"
	"time"

	"github.com/redimo-go/redimo/internal/model"
)

// Rename renames key to newkey, as Redis's RENAME: newkey, of any type, is
// replaced; key's expiry goes with it. A missing key is ErrNoSuchKey.
//
// Not atomic, unlike Redis: newkey is deleted, key's members are written
// to it in transactions of 99, its expiry set, then key is deleted. A
// reader may see the steps in between, a concurrent writer of either key
// may mix with them, and a failure midway leaves them half done.
//
// Cost: 1 GetItem of key, DEL's cost for newkey when it exists, a Query of
// key's members (1 read unit per 4 KB), ⌈N/99⌉ TransactWriteItems to
// write them, 1 UpdateItem for the expiry, and DEL's cost for key:
// about 4 write units per member.
//
// [RENAME]: https://redis.io/docs/latest/commands/rename/
func (c *Client) Rename(ctx context.Context, key, newkey string) (err error) {
	ctx, traced := c.command(ctx, "Rename")
	defer traced.end(&err)
	_, err = c.rename(ctx, "RENAME", key, newkey, false)
	return err
}

// RenameNX is Rename when newkey does not exist, as Redis's RENAMENX: it
// returns false, and does nothing, when newkey exists.
//
// Cost: as Rename, plus 1 GetItem of newkey.
//
// [RENAMENX]: https://redis.io/docs/latest/commands/renamenx/
func (c *Client) RenameNX(ctx context.Context, key, newkey string) (_ bool, err error) {
	ctx, traced := c.command(ctx, "RenameNX")
	defer traced.end(&err)
	return c.rename(ctx, "RENAMENX", key, newkey, true)
}

func (c *Client) rename(ctx context.Context, cmd, key, newkey string, nx bool) (bool, error) {
	if err := checkKeys(cmd, key, newkey); err != nil {
		return false, err
	}
	m, err := c.liveMetaOf(ctx, key)
	switch {
	case err != nil:
		return false, wrap(cmd, err)
	case m.Typ == model.TypeNone:
		return false, ErrNoSuchKey
	case key == newkey:
		return !nx, nil // Redis: OK for RENAME, 0 for RENAMENX
	}
	if nx {
		dst, err := c.liveMetaOf(ctx, newkey)
		if err != nil || dst.Typ != model.TypeNone {
			return false, wrap(cmd, err)
		}
	}
	if err := c.copyKey(ctx, key, newkey, m); err != nil {
		return false, wrap(cmd, err)
	}
	_, err = c.del(ctx, key)
	return err == nil, wrap(cmd, err)
}

// Copy copies source's members (and expiry) to destination, as Redis's
// COPY; without replace it returns false, and does nothing, when
// destination exists; false too when source is missing. The same key on
// both sides is ErrSameKey. Not atomic, as Rename.
//
// Cost: as Rename without the deletion of source: about 2 write units per
// member.
//
// [COPY]: https://redis.io/docs/latest/commands/copy/
func (c *Client) Copy(ctx context.Context, source, destination string, replace bool) (_ bool, err error) {
	ctx, traced := c.command(ctx, "Copy")
	defer traced.end(&err)
	if err := checkKeys("COPY", source, destination); err != nil {
		return false, err
	}
	if source == destination {
		return false, argError("COPY", "destination", destination, ErrSameKey)
	}
	ms, err := c.view().metas(ctx, []string{source, destination})
	for i, k := range []string{source, destination} {
		if err == nil {
			ms[i], err = c.settle(ctx, k, ms[i], false) // members all expired: missing
		}
	}
	switch {
	case err != nil:
		return false, wrap("COPY", err)
	case ms[0].Typ == model.TypeNone, ms[1].Typ != model.TypeNone && !replace:
		return false, nil
	}
	return true, wrap("COPY", c.copyKey(ctx, source, destination, ms[0]))
}

// copyKey replaces dst by a copy of src, whose metadata is m.
func (c *Client) copyKey(ctx context.Context, src, dst string, m model.Meta) error {
	if _, err := c.del(ctx, dst); err != nil {
		return err
	}
	var writes []*model.Write
	for it, err := range c.view().memberItems(ctx, src, m.Typ, "") {
		if err != nil {
			return err
		}
		member, _, _ := model.MemberOf(it)
		w := c.putMember(dst, m.Typ, member, model.BytesAttr(it, model.AttrIX))
		if x := model.MemberExp(it); x != 0 { // a member's expiry goes with it (memberttl.go)
			model.SetMemberExp(w.Action.Put.Item, x)
			w.Ttl = 1
		}
		writes = append(writes, w)
	}
	if _, err := c.transactChunks(ctx, dst, m.Typ, writes); err != nil {
		return err
	}
	if m.Exp > 0 {
		_, err := c.PExpireAt(ctx, dst, time.UnixMilli(m.Exp))
		return err
	}
	return nil
}
