package redimo

// Transactions: MULTI/EXEC as one TransactWriteItems.
//
// A Pipeline runs the commands of a transaction, Client's own (it embeds
// a Client whose storage view is the snapshot: view.go, snapshot.go): the first
// time a command touches a key, the Pipeline reads the key's metadata
// item (strongly consistent), then reads the member items the command
// needs (or all of them, for SMEMBERS, SPOP, DEL and the sorted-set
// ranges, ranks and pops), and keeps every change in memory: a command's
// writes are judged on the snapshot by their conditions and applied to
// it (snapshot.apply). Each command answers at once, from the
// snapshot and the transaction's own earlier writes, as Redis's commands
// inside MULTI answer at EXEC. Exec then sends one TransactWriteItems:
// every member item that changed (put, delete or re-scored, on condition
// that it is as read) and one action per key touched on its metadata
// item, conditioned on the item being exactly as read (type, count,
// expiry, and the version tokens every write stores: see metaAction and
// watch.go). A key only read gets a ConditionCheck. So the whole
// transaction commits only if no key it read or wrote changed since it
// was read: it is serializable, not only atomic. When a condition fails
// because another client wrote meanwhile, the transaction's function runs
// again from fresh reads (at most Options.MaxAttempts times); when it
// fails on a watched key, Exec returns ErrTxFailed, as Redis's EXEC
// replies nil.

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/store"
)

// ErrTxTooBig is returned by TxPipelined (and Tx.TxPipelined) when the
// transaction needs more than the 100 actions of one TransactWriteItems
// (one per member item written plus one per key touched), or more than
// its 4 MB (long members). Nothing is written.
var ErrTxTooBig = errors.New("redimo: transaction too big for one DynamoDB transaction (100 items, metadata items included, and 4 MB)")

// Pipeliner is what a transaction's function receives: the commands a
// transaction can hold, Client's (every one that does not list the
// keyspace), run in the transaction; the blocking pops do not wait, as
// Redis's inside MULTI. Each returns at once
// what Redis would answer for it inside MULTI ... EXEC: it sees the
// transaction's earlier writes; nothing is written before the function
// returns and the transaction commits. A command's own error (wrong type,
// invalid argument) fails that command alone and writes nothing for it,
// as inside Redis's EXEC; the others still commit.
type Pipeliner interface {
	SAdd(ctx context.Context, key string, members ...string) (int64, error)
	SRem(ctx context.Context, key string, members ...string) (int64, error)
	SCard(ctx context.Context, key string) (int64, error)
	SIsMember(ctx context.Context, key, member string) (bool, error)
	SMIsMember(ctx context.Context, key string, members ...string) ([]bool, error)
	SMembers(ctx context.Context, key string) ([]string, error)
	SMove(ctx context.Context, source, destination, member string) (bool, error)
	ZAdd(ctx context.Context, key string, members ...Z) (int64, error)
	ZAddArgs(ctx context.Context, key string, args ZAddArgs) (int64, error)
	ZAddArgsIncr(ctx context.Context, key string, args ZAddArgs) (float64, bool, error)
	ZIncrBy(ctx context.Context, key string, increment float64, member string) (float64, error)
	ZRem(ctx context.Context, key string, members ...string) (int64, error)
	ZCard(ctx context.Context, key string) (int64, error)
	ZScore(ctx context.Context, key, member string) (float64, bool, error)
	ZMScore(ctx context.Context, key string, members ...string) ([]float64, []bool, error)
	ZRangeArgs(ctx context.Context, z ZRangeArgs) ([]string, error)
	ZRangeArgsWithScores(ctx context.Context, z ZRangeArgs) ([]Z, error)
	ZCount(ctx context.Context, key, min, max string) (int64, error)
	ZLexCount(ctx context.Context, key, min, max string) (int64, error)
	ZRank(ctx context.Context, key, member string) (int64, bool, error)
	ZRevRank(ctx context.Context, key, member string) (int64, bool, error)
	ZRankWithScore(ctx context.Context, key, member string) (RankScore, bool, error)
	ZRevRankWithScore(ctx context.Context, key, member string) (RankScore, bool, error)
	ZRemRangeByScore(ctx context.Context, key, min, max string) (int64, error)
	ZRemRangeByRank(ctx context.Context, key string, start, stop int64) (int64, error)
	ZRemRangeByLex(ctx context.Context, key, min, max string) (int64, error)
	SPop(ctx context.Context, key string) (string, bool, error)
	SPopN(ctx context.Context, key string, count int64) ([]string, error)
	ZPopMin(ctx context.Context, key string, count ...int64) ([]Z, error)
	ZPopMax(ctx context.Context, key string, count ...int64) ([]Z, error)
	ZMPop(ctx context.Context, order PopOrder, count int64, keys ...string) (string, []Z, error)
	BZPopMin(ctx context.Context, timeout time.Duration, keys ...string) (ZWithKey, bool, error)
	BZPopMax(ctx context.Context, timeout time.Duration, keys ...string) (ZWithKey, bool, error)
	BZMPop(ctx context.Context, timeout time.Duration, order PopOrder, count int64, keys ...string) (string, []Z, error)
	ZMove(ctx context.Context, source, destination string, args ZMoveArgs) ([]Z, error)
	BZMove(ctx context.Context, timeout time.Duration, source, destination string, args ZMoveArgs) ([]Z, error)
	ZMoveMember(ctx context.Context, source, destination string, args ZMoveMemberArgs) ([]Z, error)
	Del(ctx context.Context, keys ...string) (int64, error)
	Exists(ctx context.Context, keys ...string) (int64, error)
	Type(ctx context.Context, key string) (string, error)
	Expire(ctx context.Context, key string, d time.Duration) (bool, error)
	ExpireAtWith(ctx context.Context, key string, t time.Time, cond ExpireCondition) (bool, error)
	Persist(ctx context.Context, key string) (bool, error)
	PExpireTime(ctx context.Context, key string) (int64, error)

	SScan(ctx context.Context, key, match string) iter.Seq2[string, error]
	SRandMember(ctx context.Context, key string) (member string, ok bool, err error)
	SRandMemberN(ctx context.Context, key string, count int64) ([]string, error)
	SInter(ctx context.Context, keys ...string) ([]string, error)
	SInterCard(ctx context.Context, limit int64, keys ...string) (int64, error)
	SUnion(ctx context.Context, keys ...string) ([]string, error)
	SUnionCard(ctx context.Context, limit int64, keys ...string) (int64, error)
	SDiff(ctx context.Context, keys ...string) ([]string, error)
	SDiffCard(ctx context.Context, limit int64, keys ...string) (int64, error)
	SInterStore(ctx context.Context, destination string, keys ...string) (int64, error)
	SUnionStore(ctx context.Context, destination string, keys ...string) (int64, error)
	SDiffStore(ctx context.Context, destination string, keys ...string) (int64, error)
	SAddEx(ctx context.Context, key string, d time.Duration, keepTTL bool, members ...string) (int64, error)
	SAddExArgs(ctx context.Context, key string, args SAddExArgs) (bool, error)
	SExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) ([]int64, error)
	SPExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) ([]int64, error)
	SExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) ([]int64, error)
	SPExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) ([]int64, error)
	STTL(ctx context.Context, key string, members ...string) ([]int64, error)
	SPTTL(ctx context.Context, key string, members ...string) ([]int64, error)
	SExpireTime(ctx context.Context, key string, members ...string) ([]int64, error)
	SPExpireTime(ctx context.Context, key string, members ...string) ([]int64, error)
	SPersist(ctx context.Context, key string, members ...string) ([]int64, error)

	ZRange(ctx context.Context, key string, start, stop int64) ([]string, error)
	ZRangeWithScores(ctx context.Context, key string, start, stop int64) ([]Z, error)
	ZRevRange(ctx context.Context, key string, start, stop int64) ([]string, error)
	ZRevRangeWithScores(ctx context.Context, key string, start, stop int64) ([]Z, error)
	ZRangeByScore(ctx context.Context, key string, opt *ZRangeBy) ([]string, error)
	ZRangeByScoreWithScores(ctx context.Context, key string, opt *ZRangeBy) ([]Z, error)
	ZRevRangeByScore(ctx context.Context, key string, opt *ZRangeBy) ([]string, error)
	ZRevRangeByScoreWithScores(ctx context.Context, key string, opt *ZRangeBy) ([]Z, error)
	ZRangeByLex(ctx context.Context, key string, opt *ZRangeBy) ([]string, error)
	ZRevRangeByLex(ctx context.Context, key string, opt *ZRangeBy) ([]string, error)
	ZRangeStore(ctx context.Context, dst string, z ZRangeArgs) (int64, error)
	ZScan(ctx context.Context, key, match string) iter.Seq2[Z, error]
	ZRandMember(ctx context.Context, key string, count int) ([]string, error)
	ZRandMemberWithScores(ctx context.Context, key string, count int) ([]Z, error)
	ZUnion(ctx context.Context, store ZStore) ([]string, error)
	ZUnionWithScores(ctx context.Context, store ZStore) ([]Z, error)
	ZInter(ctx context.Context, store *ZStore) ([]string, error)
	ZInterWithScores(ctx context.Context, store *ZStore) ([]Z, error)
	ZInterCard(ctx context.Context, limit int64, keys ...string) (int64, error)
	ZDiff(ctx context.Context, keys ...string) ([]string, error)
	ZDiffWithScores(ctx context.Context, keys ...string) ([]Z, error)
	ZUnionStore(ctx context.Context, destination string, store *ZStore) (int64, error)
	ZInterStore(ctx context.Context, destination string, store *ZStore) (int64, error)
	ZDiffStore(ctx context.Context, destination string, keys ...string) (int64, error)
	ZExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) ([]int64, error)
	ZPExpire(ctx context.Context, key string, d time.Duration, cond ExpireCondition, members ...string) ([]int64, error)
	ZExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) ([]int64, error)
	ZPExpireAt(ctx context.Context, key string, t time.Time, cond ExpireCondition, members ...string) ([]int64, error)
	ZTTL(ctx context.Context, key string, members ...string) ([]int64, error)
	ZPTTL(ctx context.Context, key string, members ...string) ([]int64, error)
	ZExpireTime(ctx context.Context, key string, members ...string) ([]int64, error)
	ZPExpireTime(ctx context.Context, key string, members ...string) ([]int64, error)
	ZPersist(ctx context.Context, key string, members ...string) ([]int64, error)

	ExpireWith(ctx context.Context, key string, d time.Duration, cond ExpireCondition) (bool, error)
	PExpire(ctx context.Context, key string, d time.Duration) (bool, error)
	ExpireAt(ctx context.Context, key string, t time.Time) (bool, error)
	PExpireAt(ctx context.Context, key string, t time.Time) (bool, error)
	TTL(ctx context.Context, key string) (time.Duration, error)
	PTTL(ctx context.Context, key string) (time.Duration, error)
	ExpireTime(ctx context.Context, key string) (int64, error)
	Touch(ctx context.Context, keys ...string) (int64, error)
	ObjectEncoding(ctx context.Context, key string) (string, bool, error)
	ObjectEncodingWith(ctx context.Context, key string, lim EncodingLimits) (string, bool, error)
	Rename(ctx context.Context, key, newkey string) error
	RenameNX(ctx context.Context, key, newkey string) (bool, error)
	Copy(ctx context.Context, source, destination string, replace bool) (bool, error)
}

var (
	_ Pipeliner = (*Client)(nil)
	_ Pipeliner = (*Pipeline)(nil)
)

// Pipeline is a transaction being built; see Pipeliner. It embeds the
// transaction's Client, whose commands read the snapshot and write into
// it; a method of Client that Pipeliner does not list (SCAN, KEYS,
// TxPipelined, ...) fails inside a transaction. Its methods are for one
// goroutine at a time.
type Pipeline struct {
	// Client is the transaction's Client, whose view is snap (view.go):
	// the Pipeline's commands are its own, Client's, written once.
	*Client
	snap *snapshot
}

// snapshot is EXEC's storage (view.go): the keys the transaction touched,
// as read and as its commands changed them, committed at the end as one
// TransactWriteItems (commit).
type snapshot struct {
	base  *Client // the Client the transaction reads and commits with
	tc    *Client // the transaction's Client (Pipeline.Client)
	watch *Watch
	keys  map[string]*model.TxKey
	order []string // keys in the order first touched
	err   error    // a read failed: the transaction cannot commit
}

// TxPipelined runs fn with a Pipeline and commits what it did as one
// atomic TransactWriteItems, as go-redis's TxPipelined (Redis's MULTI ...
// EXEC). fn may run more than once: when another client writes a key the
// transaction read before it commits, fn runs again on fresh reads; it
// must not act outside the Pipeline (or must tolerate being repeated).
// fn's error is returned and nothing is written.
//
// The transaction must fit one TransactWriteItems: at most 100 actions,
// one per member item written and one per key touched (read or written),
// and 4 MB, else ErrTxTooBig and nothing is written. Keys and members are read
// strongly consistent whatever Options.EventuallyConsistent says.
//
// Cost: one GetItem per key touched (its metadata item), one BatchGetItem
// per command that needs members not read yet (1 read unit per item), a
// Query of the whole key (once) for SMembers, SPop, Del, and the sorted-set
// ranges, counts, ranks, range removals and pops, then one
// TransactWriteItems (2 write units per item written, 1 per key
// only read). An empty transaction sends nothing.
//
// [MULTI]: https://redis.io/docs/latest/commands/multi/
func (c *Client) TxPipelined(ctx context.Context, fn func(p Pipeliner) error) (err error) {
	ctx, traced := c.command(ctx, "TxPipelined")
	defer traced.end(&err)
	return c.runTx(ctx, nil, func(p *Pipeline) error { return fn(p) })
}

// Tx is a transaction with watched keys, as go-redis's Tx: fn of
// Client.Watch reads through the Client (Tx embeds it) and writes with
// TxPipelined, which fails with ErrTxFailed when a watched key changed
// since Watch, up to and including the commit.
type Tx struct {
	*Client
	watch *Watch
}

// TxPipelined is Client.TxPipelined, also conditioned on the watched keys:
// when one of them changed since Watch (members added, removed or
// re-scored, the key deleted or created, its expiry changed), nothing is
// written and the error is ErrTxFailed. The check is part of the
// transaction, so a write landing just before the commit is detected.
//
// Cost: as Client.TxPipelined; each watched key is touched (one action).
func (tx *Tx) TxPipelined(ctx context.Context, fn func(p Pipeliner) error) (err error) {
	ctx, traced := tx.Client.command(ctx, "TxPipelined")
	defer traced.end(&err)
	return tx.runTx(ctx, tx.watch, func(p *Pipeline) error { return fn(p) })
}

// Watch watches keys, then runs fn, as go-redis's Client.Watch: fn
// reads what it needs and writes with tx.TxPipelined, which returns
// ErrTxFailed when a watched key changed. The usual loop retries fn on
// ErrTxFailed.
//
// Unlike Redis, a key that was missing when watched, then created and
// deleted again before the commit, is not seen as changed.
//
// Cost: one BatchGetItem per 100 keys (1 read unit per key), plus fn's.
//
// [WATCH]: https://redis.io/docs/latest/commands/watch/
func (c *Client) Watch(ctx context.Context, fn func(tx *Tx) error, keys ...string) (err error) {
	ctx, traced := c.command(ctx, "Watch")
	defer traced.end(&err)
	w, err := c.WatchKeys(ctx, keys...)
	if err != nil {
		return err
	}
	return fn(&Tx{Client: c, watch: w})
}

// ExecWatched runs fn as TxPipelined, conditioned on w's keys (nil: none)
// as Tx.TxPipelined: the transaction of Redis's EXEC after WATCH, which
// redimo-server runs. fn receives a *Pipeline.
func (c *Client) ExecWatched(ctx context.Context, w *Watch, fn func(p *Pipeline) error) (err error) {
	ctx, traced := c.command(ctx, "ExecWatched")
	defer traced.end(&err)
	return c.runTx(ctx, w, fn)
}

// runTx is the loop of TxPipelined. Once it reaches EXEC (the watched keys
// found changed, or a commit sent), w's keys are no longer watched, as
// Redis's EXEC unwatches them: a second TxPipelined in one Watch function
// is not conditioned on them.
func (c *Client) runTx(ctx context.Context, w *Watch, fn func(p *Pipeline) error) error {
	for range c.opts.MaxAttempts {
		base := c.frozen()
		s := &snapshot{base: base, watch: w, keys: map[string]*model.TxKey{}}
		s.tc = base.over(s)
		p := &Pipeline{Client: s.tc, snap: s}
		if w != nil {
			changed, err := s.touchWatched(ctx)
			switch {
			case err != nil:
				return wrap("EXEC", err)
			case changed:
				w.unwatch()
				return ErrTxFailed
			}
		}
		if err := fn(p); err != nil {
			return err
		}
		if s.err != nil {
			return wrap("EXEC", s.err)
		}
		retry, err := s.commit(ctx)
		if err != nil || !retry {
			if w != nil {
				w.unwatch()
			}
			return err
		}
		if err := store.Sleep(ctx, 1); err != nil {
			return err
		}
	}
	return ErrContention
}

// touchWatched reads the watched keys and reports whether one changed
// since it was watched.
func (s *snapshot) touchWatched(ctx context.Context) (bool, error) {
	s.watch.mu.Lock()
	seen := make(map[string]string, len(s.watch.seen))
	keys := make([]string, 0, len(seen))
	for k, v := range s.watch.seen {
		seen[k] = v
		keys = append(keys, k)
	}
	s.watch.mu.Unlock()
	slices.Sort(keys)
	if err := s.prefetch(ctx, keys...); err != nil {
		return false, err
	}
	for _, k := range keys {
		if s.base.versionOf(s.keys[k].Raw) != seen[k] {
			return true, nil
		}
	}
	return false, nil
}

// Prefetch reads the metadata items of keys not touched yet, in one
// BatchGetItem per 100 keys, instead of one GetItem each when first
// used. redimo-server calls it with every key of the queued commands.
func (p *Pipeline) Prefetch(ctx context.Context, keys ...string) error {
	return p.snap.prefetch(ctx, keys...)
}

func (s *snapshot) prefetch(ctx context.Context, keys ...string) error {
	var names []string
	for _, k := range model.Dedupe(keys) {
		if _, ok := s.keys[k]; ok || checkKey("EXEC", k) != nil {
			continue
		}
		names = append(names, k)
	}
	if len(names) == 0 {
		return nil
	}
	items, err := s.base.metaItems(ctx, names, aws.Bool(true), nil, nil)
	if err != nil {
		return err
	}
	for i, k := range names {
		if err := s.use(ctx, k, items[i]); err != nil {
			return err
		}
	}
	return nil
}

// strongGet reads items with strongly consistent BatchGetItem requests.
func (s *snapshot) strongGet(ctx context.Context, keys []model.Item) ([]model.Item, error) {
	return s.base.st.BatchGetWith(ctx, keys, aws.Bool(true), nil, nil)
}

// use records key's metadata item as read. An expired key still stored is
// purged first (it is missing for Redis) and read again.
func (s *snapshot) use(ctx context.Context, key string, raw model.Item) error {
	swept := false
	for range s.base.opts.MaxAttempts {
		m := model.DecodeMeta(raw) // an item left with no members is a missing key
		if m.TTLs > 0 && !swept && !m.Expired(s.base.nowMs()) {
			// Members with an expiry: the expired ones go first, so that
			// the snapshot's count is the live one (memberttl.go).
			if err := s.base.sweep(ctx, key, m.Typ); err != nil {
				return err
			}
			swept = true
		} else if (m.Small != nil || m.SmallZ != nil) && !m.Expired(s.base.nowMs()) {
			// A small set (smallset.go) or sorted set (smallz.go) becomes
			// member items, which the snapshot reads and the commit writes.
			if err := s.base.convert(ctx, key, raw); err != nil {
				return err
			}
		} else if !m.Expired(s.base.nowMs()) {
			k := &model.TxKey{Raw: raw, Orig: m, Typ: m.Typ, Card: m.Card, Exp: m.Exp, Mem: map[model.MemKey]*model.TxMember{}}
			if m.Typ == model.TypeNone {
				k.Exp, k.Full = 0, true
			}
			s.keys[key] = k
			s.order = append(s.order, key)
			return nil
		} else if err := s.base.view().purge(ctx, key, m); err != nil {
			return err
		}
		var err error
		if raw, err = s.base.st.GetItem(ctx, model.MetaKey(key), aws.Bool(true), nil, nil); err != nil {
			return err
		}
	}
	return ErrContention
}

// key returns key's state, reading it on first use; nil after a read
// error (recorded in s.err).
func (s *snapshot) key(ctx context.Context, key string) *model.TxKey {
	if k, ok := s.keys[key]; ok {
		return k
	}
	if s.err != nil {
		return nil
	}
	raw, err := s.base.st.GetItem(ctx, model.MetaKey(key), aws.Bool(true), nil, nil)
	if err == nil {
		err = s.use(ctx, key, raw)
	}
	if err != nil {
		s.err = err
		return nil
	}
	return s.keys[key]
}

// member returns the state of member (of type typ) of k, reading those of
// names not known yet in one BatchGetItem.
func (s *snapshot) members(ctx context.Context, key string, k *model.TxKey, typ model.KeyType, names []string) []*model.TxMember {
	var missing []string
	for _, m := range model.Dedupe(names) {
		if _, ok := k.Mem[model.MemKey{Typ: typ, Member: m}]; !ok {
			if k.Full || k.Orig.Typ != typ {
				k.Mem[model.MemKey{Typ: typ, Member: m}] = &model.TxMember{}
			} else {
				missing = append(missing, m)
			}
		}
	}
	if len(missing) > 0 && s.err == nil {
		req := make([]model.Item, len(missing))
		for i, m := range missing {
			req[i] = model.ItemKey(key, model.MemberSK(typ, m))
		}
		items, err := s.strongGet(ctx, req)
		if err != nil {
			s.err = err
			return nil
		}
		for _, m := range missing {
			k.Mem[model.MemKey{Typ: typ, Member: m}] = &model.TxMember{}
		}
		for _, it := range items {
			if m, t, ok := model.MemberOf(it); ok && t == typ {
				k.Mem[model.MemKey{Typ: typ, Member: m}] = model.ReadMember(typ, it)
			}
		}
	}
	if s.err != nil {
		return nil
	}
	out := make([]*model.TxMember, len(names))
	for i, m := range names {
		out[i] = k.Mem[model.MemKey{Typ: typ, Member: m}]
	}
	return out
}

// loadAll reads every member of k's original type not known yet; after
// it, k.full.
func (s *snapshot) loadAll(ctx context.Context, key string, k *model.TxKey) bool {
	if k.Full {
		return true
	}
	q := model.MemberQuery(key, k.Orig.Typ, "")
	q.TableName, q.ConsistentRead = s.base.st.Table(), aws.Bool(true)
	for it, err := range s.base.query(ctx, q, 0) {
		if err != nil {
			s.err = err
			return false
		}
		m, t, ok := model.MemberOf(it)
		if !ok || t != k.Orig.Typ {
			continue
		}
		if _, known := k.Mem[model.MemKey{Typ: t, Member: m}]; !known {
			k.Mem[model.MemKey{Typ: t, Member: m}] = model.ReadMember(t, it)
		}
	}
	k.Full = true
	return true
}

// typed returns k for a command on type typ: nil and ErrWrongType when k
// holds another type, nil and s.err when it could not be read (the
// command wraps it with its name).
func (s *snapshot) typed(ctx context.Context, key string, typ model.KeyType) (*model.TxKey, error) {
	if err := checkKey("EXEC", key); err != nil {
		return nil, err
	}
	k := s.key(ctx, key)
	switch {
	case k == nil:
		return nil, s.err
	case k.Typ != model.TypeNone && k.Typ != typ:
		return nil, ErrWrongType
	}
	return k, nil
}

// present returns k's members of its current type in the order a Query of
// the table returns them: a sorted set's by member, a set's by sort key
// (the order of their hashes: "Set members" in internal/model/keys.go).
func (s *snapshot) present(ctx context.Context, key string, k *model.TxKey) ([]model.MemKey, error) {
	if k.Typ == model.TypeNone {
		return nil, nil
	}
	if k.Typ == k.Orig.Typ && !s.loadAll(ctx, key, k) {
		return nil, s.err
	}
	var out []model.MemKey
	for mk, m := range k.Mem {
		if mk.Typ == k.Typ && m.Present {
			out = append(out, mk)
		}
	}
	if k.Typ == model.TypeSet { // in the order of the table's Query (internal/model/keys.go)
		sks := make(map[string]string, len(out))
		for _, mk := range out {
			sks[mk.Member] = string(model.MemberSK(model.TypeSet, mk.Member))
		}
		slices.SortFunc(out, func(a, b model.MemKey) int { return strings.Compare(sks[a.Member], sks[b.Member]) })
		return out, nil
	}
	slices.SortFunc(out, func(a, b model.MemKey) int { return strings.Compare(a.Member, b.Member) })
	return out, nil
}

// sorted is k's members with their scores, by score then member.
func (s *snapshot) sorted(ctx context.Context, key string, k *model.TxKey) ([]Z, error) {
	mks, err := s.present(ctx, key, k)
	if err != nil {
		return nil, err
	}
	zs := make([]Z, len(mks))
	for i, mk := range mks {
		zs[i] = Z{Score: k.Mem[mk].Score, Member: mk.Member}
	}
	return sortZ(zs), nil
}

// commit sends the transaction, in the writer's phases as transact's
// (tx.go): prepare each key's writes (the snapshot's diff), render them
// and the metadata actions as one TransactWriteItems, send it, judge a
// cancellation, and do the bookkeeping of what committed (Client.committed).
// retry is true when a key that is not watched changed since it was
// read: the caller runs the transaction again.
func (s *snapshot) commit(ctx context.Context) (retry bool, err error) {
	keys, err := s.prepare(ctx)
	if err != nil {
		return false, wrap("EXEC", err)
	}
	actions, at, err := s.render(keys)
	if err != nil || len(actions) == 0 {
		return false, err
	}
	if retry, err := s.judge(at, s.base.st.SendTx(ctx, actions)); err != nil || retry {
		return retry, err
	}
	for _, k := range keys {
		s.base.committed(ctx, k.keyCommit)
	}
	return false, nil
}

// execKey is a key as commit writes it.
type execKey struct {
	keyCommit
	k       *model.TxKey
	changed bool // its metadata item is written, not only checked
}

// prepare is each touched key's writes: the snapshot's diff, the count
// items of a ranked sorted set that stays one (rank.go), and the action on
// its metadata item.
func (s *snapshot) prepare(ctx context.Context) ([]execKey, error) {
	keys := make([]execKey, 0, len(s.order))
	for _, key := range s.order {
		k := s.keys[key]
		writes, dmn := s.diff(key, k)
		k.Dmn = dmn
		ek := execKey{k: k, changed: len(writes) > 0 || k.Touched || k.ExpSet || k.Exp != k.Orig.Exp || k.Typ != k.Orig.Typ}
		ek.g = &model.Group{Key: key, Typ: k.Typ, Writes: writes, NoBuild: true}
		keep := false
		if _, ok := k.Raw[model.AttrRanked]; ok && ek.changed {
			if k.Typ == model.TypeZSet && k.Orig.Typ == model.TypeZSet {
				g, cs, err := s.base.rankExec(ctx, key, writes)
				if err != nil {
					return nil, err
				}
				g.NoBuild = true
				ek.g, ek.counts, keep = g, cs, true
			} else {
				ek.unrank = true // metaWrite removes rk
			}
		}
		ek.meta = s.metaWrite(key, k, ek.changed, keep)
		keys = append(keys, ek)
	}
	return keys, nil
}

// actionOf says what an action of commit's is: the metadata action of
// key, or one of its count items' (count).
type actionOf struct {
	key         string
	meta, count bool
}

// render is commit's TransactWriteItems. When the count items of the
// ranked keys do not fit beside the rest, those keys are unranked
// instead (their next build ranks them again).
func (s *snapshot) render(keys []execKey) ([]types.TransactWriteItem, []actionOf, error) {
	total, size := 0, 0
	for _, k := range keys {
		total += len(k.g.Writes) + 1 + len(k.counts)
		for _, w := range k.g.Writes {
			size += model.WriteBytes(k.g.Key, w)
		}
	}
	if size > model.MaxTxBytes {
		return nil, nil, fmt.Errorf("%w: about %d bytes", ErrTxTooBig, size)
	}
	var actions []types.TransactWriteItem
	var at []actionOf
	for i := range keys {
		k := &keys[i]
		if total > model.MaxTxItems && len(k.counts) > 0 {
			total -= len(k.counts)
			k.counts, k.unrank = nil, true
			k.meta = s.metaWrite(k.g.Key, k.k, true, false)
		}
		for _, w := range k.g.Writes {
			actions, at = append(actions, w.Rendered(0, false)), append(at, actionOf{key: k.g.Key})
		}
		actions, at = append(actions, k.meta), append(at, actionOf{key: k.g.Key, meta: true})
	}
	for _, k := range keys {
		for _, w := range k.counts {
			actions, at = append(actions, w.Action), append(at, actionOf{key: k.g.Key, count: true})
		}
	}
	if len(actions) > model.MaxTxItems {
		return nil, nil, fmt.Errorf("%w: %d actions", ErrTxTooBig, len(actions))
	}
	return actions, at, nil
}

// judge is the verdict on commit's TransactWriteItems (err its outcome):
// a watched key changed fails the transaction (ErrTxFailed); another
// key or a count item changed, it runs again (retry).
func (s *snapshot) judge(at []actionOf, err error) (retry bool, _ error) {
	var cancelled *types.TransactionCanceledException
	if !errors.As(err, &cancelled) || len(cancelled.CancellationReasons) != len(at) {
		return false, wrap("EXEC", err)
	}
	for i, r := range cancelled.CancellationReasons {
		if aws.ToString(r.Code) != "ConditionalCheckFailed" {
			continue
		}
		retry = true
		if at[i].count {
			s.base.rankStale(at[i].key) // a range split meanwhile: read them again
		}
		if at[i].meta && s.watch != nil && s.watch.watching(at[i].key) {
			return false, ErrTxFailed
		}
	}
	if !retry {
		return false, wrap("EXEC", err)
	}
	return true, nil
}

// diff is the snapshot's changes to k's members as writes, each
// conditioned on the member as read (the metadata action pins the rest;
// a long member's write also requires its m: longmember.go), and the
// change they make to the key's count of members with expiries (mn).
func (s *snapshot) diff(key string, k *model.TxKey) (writes []*model.Write, dmn int64) {
	for mk, m := range k.Mem {
		var w *model.Write
		switch {
		case m.OrigIX == nil && m.Present:
			w = s.base.putMember(key, mk.Typ, mk.Member, m.Ix)
		case m.OrigIX != nil && !m.Present:
			w = s.base.deleteMember(key, mk.Typ, mk.Member)
		case m.OrigIX != nil && (string(m.OrigIX) != string(m.Ix) || m.Mx != m.OrigMX):
			// A new score keeps the member's expiry (mx), as ZADD's
			// outside a transaction; removed and added again, it has
			// the one its adding write gave.
			w = s.base.putMember(key, mk.Typ, mk.Member, m.Ix)
			w.Delta, w.Need, w.Prev = 0, model.NeedIX, m.OrigIX
			if mk.Typ == model.TypeSet { // no index value: the member's expiry changed
				w.Need, w.Prev = model.NeedPresent, nil
			}
		default:
			continue
		}
		if m.Present && m.Mx != 0 {
			w.Action.Put.Item[model.AttrMemExp] = model.Num(m.Mx)
			dmn++
		}
		if m.OrigIX != nil && m.OrigMX != 0 {
			dmn--
		}
		if mk.Typ == model.TypeZSet {
			w.Prev = m.OrigIX // exact: the metadata condition pins the key as read
		}
		writes = append(writes, w)
	}
	return writes, dmn
}

// metaWrite is the action on k's metadata item: conditioned on the item
// being exactly as read, it writes the key's new state (type, count,
// expiry, a fresh version token), deletes the item of a key that is gone,
// or only checks it when the key was only read. A ranked key stays ranked
// when keepRank (the transaction carries its count items), else it is
// unranked (rk removed).
func (s *snapshot) metaWrite(key string, k *model.TxKey, changed, keepRank bool) types.TransactWriteItem {
	m := model.NewMetaWrite(key).RequireAsRead(k.Raw)
	switch {
	case !changed, k.Typ == model.TypeNone && k.Raw == nil:
		return m.Action(s.base.st.Table()) // a check
	case k.Typ == model.TypeNone:
		return m.DeleteKey(model.HasTokens(k.Raw), time.Now().UnixMilli()).Action(s.base.st.Table())
	}
	m.SetType(k.Typ).SetCard(k.Card).NewVersion()
	if k.ExpSet || k.Exp != k.Orig.Exp {
		m.NewExpToken(model.Token())
	}
	if k.Exp != 0 {
		m.SetExp(k.Exp)
	} else {
		m.RemoveExp()
	}
	if _, ranked := k.Raw[model.AttrRanked]; ranked && !keepRank {
		// A transaction that does not keep a sorted set's count items
		// (rank.go; commit) unranks the key it writes; the next write that
		// adds a member builds them again, and until then ranks are counted.
		m.RemoveRanked()
	} else if _, building := k.Raw[model.AttrBuild]; building {
		// Nor the journal of a build in progress: the build is cancelled
		// (rank_build.go), the next write that adds a member claims again.
		m.RemoveBuild()
	}
	if k.Dmn != 0 {
		m.AddTTLs(k.Dmn)
	}
	return m.Action(s.base.st.Table())
}

// versionOf is a metadata item's version as Watch compares it: its
// tokens, "" when missing or expired.
func (c *Client) versionOf(it model.Item) string {
	if it == nil || c.liveMeta(it).Typ == model.TypeNone {
		return ""
	}
	var b strings.Builder
	b.WriteString("v")
	b.Write(model.BytesAttr(it, model.AttrVer))
	b.WriteByte(0)
	if s, ok := it[model.AttrExpTok].(*types.AttributeValueMemberS); ok {
		b.WriteString(s.Value)
	}
	return b.String()
}
