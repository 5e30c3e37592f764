package redimo

// EXEC's storage: the view (view.go) a transaction's commands read and
// write. The first time a command touches a key, the snapshot reads its
// metadata item (strongly consistent), then the member items the command
// needs (or all of them); every write is judged on it by its condition and
// applied to it (apply), and commit (exec.go) sends what changed as one
// TransactWriteItems.

import (
	"context"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/redimo-go/redimo/internal/model"
)

// write is the table's write (tx.go) on the snapshot: build's groups,
// once, judged and applied by apply (a snapshot meets no expired key to
// purge and start again).
func (s *snapshot) write(ctx context.Context, build func() []*model.Group) (model.TxResult, error) {
	return s.apply(ctx, build())
}

// writeChunks is write for one key: the whole transaction is one
// TransactWriteItems, however many writes.
func (s *snapshot) writeChunks(ctx context.Context, key string, typ model.KeyType, writes []*model.Write, _ model.Meta) ([]*model.Write, error) {
	res, err := s.apply(ctx, []*model.Group{{Key: key, Typ: typ, Writes: writes}})
	return res.Applied, err
}

// transactions is 1: a transaction commits as one.
func (s *snapshot) transactions(string, model.KeyType, []*model.Write) int { return 1 }

// apply is transact inside the transaction: each group's key must be of
// its type (else ErrWrongType, as EXEC answers), each write's condition is judged on
// the snapshot, a failed one is dropped or replaced by its retry as
// transact does with the items DynamoDB returns, and the writes that hold
// change the snapshot. A required write that fails abandons them all; an
// error leaves the snapshot as it was.
func (s *snapshot) apply(ctx context.Context, groups []*model.Group) (model.TxResult, error) {
	type change struct {
		k   *model.TxKey
		typ model.KeyType
		m   *model.TxMember
		w   *model.Write
	}
	var changes []change
	keys := make([]*model.TxKey, len(groups))
	for i, g := range groups { // the types first, as transact's metadata conditions
		var err error
		if keys[i], err = s.typed(ctx, g.Key, g.Typ); err != nil {
			return model.TxResult{}, err
		}
	}
	for gi, g := range groups {
		k := keys[gi]
		names := make([]string, len(g.Writes))
		for i, w := range g.Writes {
			names[i] = w.Member
		}
		ms := s.members(ctx, g.Key, k, g.Typ, names)
		if ms == nil && len(names) > 0 {
			return model.TxResult{}, s.err
		}
		for i, w := range g.Writes {
			m := ms[i]
			for w != nil {
				ok, err := w.Holds(m)
				if err != nil || ok {
					if err != nil {
						return model.TxResult{}, err
					}
					break
				}
				required := w.Required
				if w.Retry == nil {
					w = nil
				} else if w, err = w.Retry(model.ItemOf(g.Key, g.Typ, names[i], m)); err != nil {
					return model.TxResult{}, err
				}
				if w == nil && required {
					return model.TxResult{Abandoned: true}, nil
				}
			}
			if w != nil {
				changes = append(changes, change{k, g.Typ, m, w})
			}
		}
	}
	var res model.TxResult
	for _, ch := range changes {
		ch.w.ApplyTo(ch.k, ch.typ, ch.m)
		res.Applied = append(res.Applied, ch.w)
	}
	return res, nil
}

// metaOf is key's metadata as the transaction sees it: live, and with
// the snapshot's count (the members expired when it was read are swept).
func (s *snapshot) metaOf(ctx context.Context, key string, _ *bool) (model.Meta, error) {
	k := s.key(ctx, key)
	if k == nil {
		return model.Meta{}, s.err
	}
	if k.Typ == model.TypeNone {
		return model.Meta{Typ: model.TypeNone}, nil
	}
	return model.Meta{Typ: k.Typ, Card: k.Card, Exp: k.Exp}, nil
}

// probe is Client.probe inside the transaction.
func (s *snapshot) probe(ctx context.Context, key string, typ model.KeyType, members []string, _ bool) (map[string]model.Item, error) {
	k, err := s.typed(ctx, key, typ)
	if err != nil {
		return nil, err
	}
	found := map[string]model.Item{}
	if k.Typ == model.TypeNone {
		return found, nil
	}
	ms := s.members(ctx, key, k, typ, members)
	if ms == nil {
		return nil, s.err
	}
	for i, m := range ms {
		if m.Present {
			found[members[i]] = model.ItemOf(key, typ, members[i], m)
		}
	}
	return found, nil
}

// scan yields the items of key's members of type typ that start with
// prefix, in the order of Client.memberItems (present), after checking
// key's type.
func (s *snapshot) memberItems(ctx context.Context, key string, typ model.KeyType, prefix string) iter.Seq2[model.Item, error] {
	return func(yield func(model.Item, error) bool) {
		k, err := s.typed(ctx, key, typ)
		if err != nil {
			yield(nil, err)
			return
		}
		mks, err := s.present(ctx, key, k)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, mk := range mks {
			if strings.HasPrefix(mk.Member, prefix) && !yield(model.ItemOf(key, typ, mk.Member, k.Mem[mk]), nil) {
				return
			}
		}
	}
}

// setExpiry is the expiry write of EXPIRE and PERSIST inside the
// transaction: key's expiry becomes at (0: none) when key exists and cond
// holds, as the conditions of expireAt's and removeExpiry's UpdateItem.
func (s *snapshot) setExpiry(ctx context.Context, key string, at int64, cond ExpireCondition, _ string) (bool, error) {
	k := s.key(ctx, key)
	switch {
	case k == nil:
		return false, s.err
	case k.Typ == model.TypeNone, !cond.holds(k.Exp, at):
		return false, nil
	}
	k.Exp, k.ExpSet = at, true
	return true, nil
}

// purge is Client.purge inside the transaction, for a key that expired
// since the transaction read it: the commit deletes its items.
func (s *snapshot) purge(ctx context.Context, key string, _ model.Meta) error {
	k := s.keys[key]
	if k == nil || k.Typ == model.TypeNone {
		return nil
	}
	if k.Typ == k.Orig.Typ && !s.loadAll(ctx, key, k) {
		return s.err
	}
	k.Gone()
	return nil
}

// read is Client.read inside the transaction: the range r selects (keep,
// direction, offset, count) from the snapshot's sorted set.
func (s *snapshot) read(ctx context.Context, key string, r zrange) ([]Z, error) {
	k, err := s.typed(ctx, key, model.TypeZSet)
	if err != nil || r.empty || r.count == 0 || k.Typ == model.TypeNone {
		return nil, err
	}
	all, err := s.sorted(ctx, key, k)
	if err != nil {
		return nil, err
	}
	return r.pick(all), nil
}

// rank is Client.rank inside the transaction: member's place in the
// snapshot's sorted set.
func (s *snapshot) rank(ctx context.Context, key, member string, rev bool) (RankScore, bool, error) {
	k, err := s.typed(ctx, key, model.TypeZSet)
	if err != nil || k.Typ == model.TypeNone {
		return RankScore{}, false, err
	}
	all, err := s.sorted(ctx, key, k)
	if err != nil {
		return RankScore{}, false, err
	}
	if rev {
		slices.Reverse(all)
	}
	for i, z := range all {
		if z.Member == member {
			return RankScore{Rank: int64(i), Score: z.Score}, true, nil
		}
	}
	return RankScore{}, false, nil
}

// keyItems is memberItems: the type checked, no metadata item.
func (s *snapshot) keyItems(ctx context.Context, key string, typ model.KeyType) iter.Seq2[model.Item, error] {
	return s.memberItems(ctx, key, typ, "")
}

// metas is metaOf of each of keys.
func (s *snapshot) metas(ctx context.Context, keys []string) ([]model.Meta, error) {
	out := make([]model.Meta, len(keys))
	for i, k := range keys {
		var err error
		if out[i], err = s.metaOf(ctx, k, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// liveCount is the snapshot's count: its members that expired were swept
// when it read the key.
func (s *snapshot) liveCount(ctx context.Context, key string, typ model.KeyType) (int64, error) {
	m, err := s.tc.typedMeta(ctx, key, typ)
	if err != nil {
		return 0, err
	}
	return m.Card, nil
}

// count is how many members read would return.
func (s *snapshot) count(ctx context.Context, key string, r zrange) (int64, error) {
	zs, err := s.read(ctx, key, r)
	return int64(len(zs)), err
}

// removeExpiry is PERSIST's write: cond holds, since the snapshot counts
// live members only.
func (s *snapshot) removeExpiry(ctx context.Context, key, _ string) (bool, model.Meta, error) {
	removed, err := s.setExpiry(ctx, key, 0, ExpireXX, "")
	return removed, model.Meta{}, err
}

// drop is DEL: the key goes from the snapshot, its items with the commit.
func (s *snapshot) drop(ctx context.Context, key string, m model.Meta) (deleted, changed bool, err error) {
	return true, false, s.purge(ctx, key, m)
}

// memberTTL is the table's: the transaction's Client has none to describe.
func (s *snapshot) memberTTL(ctx context.Context) (bool, error) {
	return s.base.view().memberTTL(ctx)
}

// uncounted is true: the snapshot's metadata does not count the members
// with expiries, and reading them costs nothing more.
func (s *snapshot) uncounted(model.Meta) bool { return true }

// itemSet is false: the snapshot reads every set as member items (use
// converts a small one), so OBJECT ENCODING judges a set by its members,
// as the set was when the transaction read it.
func (s *snapshot) itemSet(model.Meta) bool { return false }

// The table's own ways, declined: see view.
func (s *snapshot) smallAdd(context.Context, string, []string) (int64, bool, error) {
	return 0, false, nil
}
func (s *snapshot) smallRem(context.Context, string, []string) (int64, bool, error) {
	return 0, false, nil
}
func (s *snapshot) smallPop(context.Context, string, int64) ([]string, bool, *model.Meta, error) {
	return nil, false, nil, nil
}
func (s *snapshot) smallZ(context.Context, string, bool, zPlan) (bool, error) { return false, nil }
func (s *snapshot) seek(context.Context, string, *zrange) error               { return nil }
func (s *snapshot) memberGuess(context.Context, string, string) (model.Item, error) {
	return nil, nil
}
func (s *snapshot) rankedCount(zrange, func(zrange) (int64, bool, error)) (int64, bool, error) {
	return 0, false, nil
}
func (s *snapshot) rankedDraw(context.Context, string, int) ([]Z, bool, error) {
	return nil, false, nil
}
func (s *snapshot) bucketDraw(context.Context, string, model.Meta, int64, bool) ([]string, bool, error) {
	return nil, false, nil
}

// wait does not wait: a blocking pop inside a transaction pops what the
// snapshot has, as Redis's inside MULTI.
func (s *snapshot) wait(ctx context.Context, cmd string, _ time.Duration, keys []string, count int64, op blockOp) (string, []Z, error) {
	return s.tc.mpop(ctx, cmd, keys, count, op.take)
}

// each is one after another: the snapshot's maps are not shared.
func (s *snapshot) each(n int, f func(i int) error) error {
	for i := range n {
		if err := f(i); err != nil {
			return err
		}
	}
	return nil
}
