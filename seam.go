package redimo

// The seam between the commands and where they read and write.
//
// Every command is written once, on *Client. A Client reads the table and
// writes with transact (tx.go). Inside a transaction (exec.go), the same
// command runs on a Client in transaction mode (Pipeline.tc, Client.tx
// set): the few functions below, where the commands read a key's metadata
// or members and hand over their writes, answer from the transaction's
// snapshot and apply the writes to it, as Kvrocks runs EXEC's commands
// with its storage in transaction mode and go-redis's Pipeline shares
// cmdable with Client. Nothing else may reach the table from a Client in
// transaction mode: its store refuses every request (failingAPI{model.ErrOutsideTx}), so a
// command that would bypass the seam fails loudly instead of writing
// outside the transaction.
//
// The seam, on the Client side, each a branch on c.tx at its top:
//
//	reads   storedMeta, metas (type, count, expiry of keys: liveness and
//	        type checks all rest on them), probe (member items),
//	        memberItems and SScan's query (members in order), liveCount
//	        (SCARD/ZCARD), read and count (sorted-set ranges), rank
//	writes  transactChunksFrom and transactPurging (member writes, judged
//	        on the snapshot by write.need), expireAt and removeExpiry (the
//	        key's expiry), purge (a key that expired meanwhile), drop (DEL
//	        of a key of member items)
//	others  the reads only DynamoDB needs step aside: the count items
//	        (rankSeek, ZCOUNT/ZLEXCOUNT from them, ZRANDMEMBER's), the
//	        random buckets of SRANDMEMBER/SPOP (the snapshot is drawn from
//	        whole), the blocking wait (block), the table's description
//	        (memberTTL asks the base Client)

import (
	"context"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/redimo-go/redimo/internal/model"
)

// inTx is c in transaction mode for p.
func (c *Client) inTx(p *Pipeline) *Client {
	t := &Client{opts: c.opts, shared: c.shared, tx: p}
	t.st = t.storeOver(failingAPI{model.ErrOutsideTx})
	return t
}

// frozen is c with its clock stopped at now: every command of a
// transaction, the snapshot's reads of expiries and the sweeps and purges
// they make run at the moment the transaction started, as Redis freezes
// time during EXEC (a key or member that expires meanwhile is live for the
// whole transaction). Each attempt of the transaction freezes anew.
func (c *Client) frozen() *Client {
	at := c.opts.Now()
	f := *c
	f.opts.Now = func() time.Time { return at }
	return &f
}

// apply is transact inside the transaction: each group's key must be of
// its type (else ErrWrongType, as EXEC answers), each write's condition is judged on
// the snapshot, a failed one is dropped or replaced by its retry as
// transact does with the items DynamoDB returns, and the writes that hold
// change the snapshot. A required write that fails abandons them all; an
// error leaves the snapshot as it was.
func (p *Pipeline) apply(ctx context.Context, groups []*model.Group) (model.TxResult, error) {
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
		if keys[i], err = p.typed(ctx, g.Key, g.Typ); err != nil {
			return model.TxResult{}, err
		}
	}
	for gi, g := range groups {
		k := keys[gi]
		names := make([]string, len(g.Writes))
		for i, w := range g.Writes {
			names[i] = w.Member
		}
		ms := p.members(ctx, g.Key, k, g.Typ, names)
		if ms == nil && len(names) > 0 {
			return model.TxResult{}, p.err
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
func (p *Pipeline) metaOf(ctx context.Context, key string) (model.Meta, error) {
	k := p.key(ctx, key)
	if k == nil {
		return model.Meta{}, p.err
	}
	if k.Typ == model.TypeNone {
		return model.Meta{Typ: model.TypeNone}, nil
	}
	return model.Meta{Typ: k.Typ, Card: k.Card, Exp: k.Exp}, nil
}

// probe is Client.probe inside the transaction.
func (p *Pipeline) probe(ctx context.Context, key string, typ model.KeyType, members []string) (map[string]model.Item, error) {
	k, err := p.typed(ctx, key, typ)
	if err != nil {
		return nil, err
	}
	found := map[string]model.Item{}
	if k.Typ == model.TypeNone {
		return found, nil
	}
	ms := p.members(ctx, key, k, typ, members)
	if ms == nil {
		return nil, p.err
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
func (p *Pipeline) scan(ctx context.Context, key string, typ model.KeyType, prefix string) iter.Seq2[model.Item, error] {
	return func(yield func(model.Item, error) bool) {
		k, err := p.typed(ctx, key, typ)
		if err != nil {
			yield(nil, err)
			return
		}
		mks, err := p.present(ctx, key, k)
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
func (p *Pipeline) setExpiry(ctx context.Context, key string, at int64, cond ExpireCondition) (bool, error) {
	k := p.key(ctx, key)
	switch {
	case k == nil:
		return false, p.err
	case k.Typ == model.TypeNone, !cond.holds(k.Exp, at):
		return false, nil
	}
	k.Exp, k.ExpSet = at, true
	return true, nil
}

// purge is Client.purge inside the transaction, for a key that expired
// since the transaction read it: the commit deletes its items.
func (p *Pipeline) purge(ctx context.Context, key string) error {
	k := p.keys[key]
	if k == nil || k.Typ == model.TypeNone {
		return nil
	}
	if k.Typ == k.Orig.Typ && !p.loadAll(ctx, key, k) {
		return p.err
	}
	k.Gone()
	return nil
}

// read is Client.read inside the transaction: the range r selects (keep,
// direction, offset, count) from the snapshot's sorted set.
func (p *Pipeline) read(ctx context.Context, key string, r zrange) ([]Z, error) {
	k, err := p.typed(ctx, key, model.TypeZSet)
	if err != nil || r.empty || r.count == 0 || k.Typ == model.TypeNone {
		return nil, err
	}
	all, err := p.sorted(ctx, key, k)
	if err != nil {
		return nil, err
	}
	if r.rev {
		slices.Reverse(all)
	}
	var out []Z
	skip := r.offset
	for _, z := range all {
		switch {
		case r.keep != nil && !r.keep(z):
		case skip > 0:
			skip--
		case r.count >= 0 && int64(len(out)) >= r.count:
			return out, nil
		default:
			out = append(out, z)
		}
	}
	return out, nil
}

// rank is Client.rank inside the transaction: member's place in the
// snapshot's sorted set.
func (p *Pipeline) rank(ctx context.Context, key, member string, rev bool) (RankScore, bool, error) {
	k, err := p.typed(ctx, key, model.TypeZSet)
	if err != nil || k.Typ == model.TypeNone {
		return RankScore{}, false, err
	}
	all, err := p.sorted(ctx, key, k)
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
