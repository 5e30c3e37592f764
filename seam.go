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
// transaction mode: its store refuses every request (failingAPI{errOutsideTx}), so a
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
//	        key's expiry), purge (a key that expired meanwhile)
//	others  the reads only DynamoDB needs step aside: the count items
//	        (rankSeek, ZCOUNT/ZLEXCOUNT from them, ZRANDMEMBER's), the
//	        random buckets of SRANDMEMBER/SPOP (the snapshot is drawn from
//	        whole), the blocking wait (block), the table's description
//	        (memberTTL asks the base Client)

import (
	"bytes"
	"context"
	"errors"
	"github.com/redimo-go/redimo/internal/model"
	"iter"
	"slices"
	"strings"
	"time"
)

// errOutsideTx is what a Client in transaction mode answers a request
// that did not go through the seam: a command a transaction cannot hold
// (SCAN, KEYS, DBSIZE, FLUSHDB, TxPipelined... called on a *Pipeline),
// never a write outside the transaction.
var errOutsideTx = errors.New("redimo: this command cannot run inside a transaction (see Pipeliner); nothing was read or written outside it")

// inTx is c in transaction mode for p.
func (c *Client) inTx(p *Pipeline) *Client {
	return &Client{store: store{db: failingAPI{errOutsideTx}, opts: c.opts}, shared: c.shared, tx: p}
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

// need is a write's condition on the member item it writes, as data.
type need uint8

const (
	needUnknown  need = iota // not judged by EXEC's writer (a bug if it meets one)
	needAbsent               // attribute_not_exists: the member is missing
	needPresent              // attribute_exists
	needIX                   // the member's index value is w.prev
	needOtherIX              // present, and its index value is not w.ix
	needLowerIX              // present, with an index value below w.ix (ZADD XX GT)
	needHigherIX             // present, with an index value above w.ix (ZADD XX LT)
	needExpiry               // present, with the expiry w.expWas (0: none)
)

// holds reports whether w's condition holds for m, as DynamoDB would judge
// w.action's condition on m's item.
func (w *write) holds(m *txMember) (bool, error) {
	switch w.need {
	case needAbsent:
		return !m.present, nil
	case needPresent:
		return m.present, nil
	case needIX:
		return m.present && bytes.Equal(m.ix, w.prev), nil
	case needOtherIX:
		return m.present && !bytes.Equal(m.ix, w.ix), nil
	case needLowerIX:
		return m.present && bytes.Compare(m.ix, w.ix) < 0, nil
	case needHigherIX:
		return m.present && bytes.Compare(m.ix, w.ix) > 0, nil
	case needExpiry:
		return m.present && m.mx == w.expWas, nil
	}
	return false, errOutsideTx
}

// itemOf is m's item as the table would return it (nil when absent).
func itemOf(key string, typ model.KeyType, member string, m *txMember) model.Item {
	if !m.present {
		return nil
	}
	it := model.ItemKey(key, model.MemberSK(typ, member))
	if typ == model.TypeZSet {
		it[model.AttrIX] = model.Bin(m.ix)
	}
	if len(member) > model.InlineMemberLen {
		it[model.AttrMem] = model.Bin([]byte(member))
	}
	if m.mx != 0 {
		it[model.AttrMemExp] = model.Num(m.mx)
	}
	return it
}

// apply is transact inside the transaction: each group's key must be of
// its type (else ErrWrongType, as EXEC answers), each write's condition is judged on
// the snapshot, a failed one is dropped or replaced by its retry as
// transact does with the items DynamoDB returns, and the writes that hold
// change the snapshot. A required write that fails abandons them all; an
// error leaves the snapshot as it was.
func (p *Pipeline) apply(ctx context.Context, groups []*group) (txResult, error) {
	type change struct {
		k   *txKey
		typ model.KeyType
		m   *txMember
		w   *write
	}
	var changes []change
	keys := make([]*txKey, len(groups))
	for i, g := range groups { // the types first, as transact's metadata conditions
		var err error
		if keys[i], err = p.typed(ctx, g.key, g.typ); err != nil {
			return txResult{}, err
		}
	}
	for gi, g := range groups {
		k := keys[gi]
		names := make([]string, len(g.writes))
		for i, w := range g.writes {
			names[i] = w.member
		}
		ms := p.members(ctx, g.key, k, g.typ, names)
		if ms == nil && len(names) > 0 {
			return txResult{}, p.err
		}
		for i, w := range g.writes {
			m := ms[i]
			for w != nil {
				ok, err := w.holds(m)
				if err != nil || ok {
					if err != nil {
						return txResult{}, err
					}
					break
				}
				required := w.required
				if w.retry == nil {
					w = nil
				} else if w, err = w.retry(itemOf(g.key, g.typ, names[i], m)); err != nil {
					return txResult{}, err
				}
				if w == nil && required {
					return txResult{abandoned: true}, nil
				}
			}
			if w != nil {
				changes = append(changes, change{k, g.typ, m, w})
			}
		}
	}
	var res txResult
	for _, ch := range changes {
		ch.w.applyTo(ch.k, ch.typ, ch.m)
		res.applied = append(res.applied, ch.w)
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
	if k.typ == model.TypeNone {
		return model.Meta{Typ: model.TypeNone}, nil
	}
	return model.Meta{Typ: k.typ, Card: k.card, Exp: k.exp}, nil
}

// probe is Client.probe inside the transaction.
func (p *Pipeline) probe(ctx context.Context, key string, typ model.KeyType, members []string) (map[string]model.Item, error) {
	k, err := p.typed(ctx, key, typ)
	if err != nil {
		return nil, err
	}
	found := map[string]model.Item{}
	if k.typ == model.TypeNone {
		return found, nil
	}
	ms := p.members(ctx, key, k, typ, members)
	if ms == nil {
		return nil, p.err
	}
	for i, m := range ms {
		if m.present {
			found[members[i]] = itemOf(key, typ, members[i], m)
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
			if strings.HasPrefix(mk.member, prefix) && !yield(itemOf(key, typ, mk.member, k.mem[mk]), nil) {
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
	case k.typ == model.TypeNone, !cond.holds(k.exp, at):
		return false, nil
	}
	k.exp, k.expSet = at, true
	return true, nil
}

// purge is Client.purge inside the transaction, for a key that expired
// since the transaction read it: the commit deletes its items.
func (p *Pipeline) purge(ctx context.Context, key string) error {
	k := p.keys[key]
	if k == nil || k.typ == model.TypeNone {
		return nil
	}
	if k.typ == k.orig.Typ && !p.loadAll(ctx, key, k) {
		return p.err
	}
	k.gone()
	return nil
}

// read is Client.read inside the transaction: the range r selects (keep,
// direction, offset, count) from the snapshot's sorted set.
func (p *Pipeline) read(ctx context.Context, key string, r zrange) ([]Z, error) {
	k, err := p.typed(ctx, key, model.TypeZSet)
	if err != nil || r.empty || r.count == 0 || k.typ == model.TypeNone {
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
	if err != nil || k.typ == model.TypeNone {
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

// applyTo makes on the snapshot's member m (of k, type typ) the change w
// makes to its item when its condition holds.
func (w *write) applyTo(k *txKey, typ model.KeyType, m *txMember) {
	switch a := w.action; {
	case a.ConditionCheck != nil: // a check (memberCheck) changes nothing
	case a.Delete != nil:
		k.remove(m)
	case a.Put != nil: // a new item: its expiry is the one it carries
		k.add(typ, m, w.ix)
		m.mx = memberExp(a.Put.Item)
	case w.need == needExpiry: // the expiry alone
		m.mx = w.expTo
		k.touched = true
	default: // a new index value, keeping the expiry unless it drops it (rewriteMember)
		k.add(typ, m, w.ix)
		if w.ttl < 0 {
			m.mx = 0
		}
	}
}
