package redimo

// ZUNION, ZINTER, ZDIFF, their *STORE forms, ZINTERCARD and ZRANGESTORE.
// Inputs may be sorted sets or plain sets (every member scoring 1), as in
// Redis.

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/redimo-go/redimo/internal/model"
)

// sources validates a ZStore and reads its keys' metadata (one
// BatchGetItem): sets and sorted sets are accepted.
func (c *Client) sources(ctx context.Context, cmd string, store *ZStore) ([]model.Source, error) {
	if store == nil || len(store.Keys) == 0 {
		return nil, argError(cmd, "numkeys", "0", ErrSyntax)
	}
	if len(store.Weights) > 0 && len(store.Weights) != len(store.Keys) {
		return nil, argError(cmd, "WEIGHTS", strconv.Itoa(len(store.Weights))+" weights", ErrSyntax)
	}
	switch strings.ToUpper(string(store.Aggregate)) {
	case "", string(AggregateSum), string(AggregateMin), string(AggregateMax), string(AggregateCount):
	default:
		return nil, argError(cmd, "AGGREGATE", string(store.Aggregate), ErrSyntax)
	}
	for _, w := range store.Weights {
		if math.IsNaN(w) {
			return nil, argError(cmd, "weight", "NaN", ErrNotFloat)
		}
	}
	if err := checkKeys(cmd, store.Keys...); err != nil {
		return nil, err
	}
	ms, err := c.typedMetas(ctx, store.Keys, model.TypeSet, model.TypeZSet)
	if err != nil {
		return nil, wrap(cmd, err)
	}
	out := make([]model.Source, len(store.Keys))
	for i, k := range store.Keys {
		out[i] = model.Source{Key: k, M: ms[i], Weight: 1, Count: strings.EqualFold(string(store.Aggregate), string(AggregateCount))}
		if len(store.Weights) > 0 {
			out[i].Weight = store.Weights[i]
		}
	}
	return out, nil
}

// aggregate combines the score so far, a, with b, as Redis does: MIN and
// MAX keep a unless b is strictly less or greater (so of 0 and -0 the
// first stays), and inf + -inf is 0.
func aggregate(agg Aggregate, a, b float64) float64 {
	switch Aggregate(strings.ToUpper(string(agg))) {
	case AggregateMin:
		if b < a {
			return b
		}
		return a
	case AggregateMax:
		if b > a {
			return b
		}
		return a
	}
	if v := a + b; !math.IsNaN(v) {
		return v
	}
	return 0
}

// merge aggregates into acc the scores of next's members it holds (acc's
// score first, in Redis's order of the sources). A union adds next's other
// members; an intersection drops acc's members that next does not hold.
func merge(acc, next map[string]float64, agg Aggregate, union bool) {
	for m, w := range next {
		if v, ok := acc[m]; ok {
			acc[m] = aggregate(agg, v, w)
		} else if union {
			acc[m] = w
		}
	}
	if !union {
		for m := range acc {
			if _, ok := next[m]; !ok {
				delete(acc, m)
			}
		}
	}
}

// load reads all members of a source with their weighted scores.
func (c *Client) load(ctx context.Context, s model.Source, read model.KeyReads) (map[string]float64, error) {
	out := map[string]float64{}
	if s.M.Typ == model.TypeNone {
		return out, nil
	}
	its, ok := read[s.Key]
	if !ok {
		var now model.KeyType
		var err error
		if its, now, err = c.wholeItems(ctx, s.Key, s.M.Typ); err != nil {
			return nil, err
		}
		if now != s.M.Typ && now != model.TypeNone { // of the other type since: as it is now
			typ := now
			if its, now, err = c.wholeItems(ctx, s.Key, typ); err != nil {
				return nil, err
			} else if now != typ {
				return nil, ErrContention
			}
		}
		s.M.Typ = now // none: gone since, no members
		read[s.Key] = its
	}
	for _, it := range its {
		m, _, _ := model.MemberOf(it)
		out[m] = model.Weighted(s.Score(it), s.Weight)
	}
	return out, nil
}

// probeScores reads which of the members of acc a source holds, with
// their scores times the source's weight (BatchGetItem, 100 keys a
// request). Unlike load, inf × 0 stays NaN: Redis's ZINTER aggregates the
// later sources' products as they are (a NaN makes a SUM 0 and is never
// a MIN or MAX).
func (c *Client) probeScores(ctx context.Context, s model.Source, acc map[string]float64, read model.KeyReads) (map[string]float64, error) {
	found := map[string]model.Item{}
	if its, ok := read[s.Key]; ok { // read whole already: no request
		for _, it := range its {
			m, _, _ := model.MemberOf(it)
			if _, ok := acc[m]; ok {
				found[m] = it
			}
		}
	} else {
		candidates := make([]string, 0, len(acc))
		for m := range acc {
			candidates = append(candidates, m)
		}
		var err error
		if found, err = c.view().probe(ctx, s.Key, s.M.Typ, candidates, true); err != nil {
			return nil, err
		}
	}
	out := make(map[string]float64, len(found))
	for m, it := range found {
		out[m] = s.Score(it) * s.Weight
	}
	return out, nil
}

func toZ(m map[string]float64) []Z {
	out := make([]Z, 0, len(m))
	for member, score := range m {
		out = append(out, Z{Score: score, Member: member})
	}
	return sortZ(out)
}

func (c *Client) zunion(ctx context.Context, cmd string, store *ZStore) ([]Z, error) {
	srcs, err := c.sources(ctx, cmd, store)
	if err != nil {
		return nil, err
	}
	// Smallest first, as Redis aggregates (it matters to MIN and MAX of 0 and -0).
	slices.SortStableFunc(srcs, func(a, b model.Source) int { return cmp.Compare(a.M.Card, b.M.Card) })
	acc, read := map[string]float64{}, model.KeyReads{}
	for _, s := range srcs {
		scores, err := c.load(ctx, s, read)
		if err != nil {
			return nil, wrap(cmd, err)
		}
		merge(acc, scores, store.Aggregate, true)
	}
	return toZ(acc), nil
}

// inter reads the smallest source and probes the others for its members,
// smallest first, as Redis does.
func (c *Client) zinter(ctx context.Context, cmd string, store *ZStore) ([]Z, error) {
	srcs, err := c.sources(ctx, cmd, store)
	if err != nil {
		return nil, err
	}
	for _, s := range srcs {
		if s.M.Typ == model.TypeNone {
			return nil, nil
		}
	}
	order := slices.Clone(srcs)
	slices.SortStableFunc(order, func(a, b model.Source) int { return cmp.Compare(a.M.Card, b.M.Card) })
	return c.probeEach(ctx, cmd, order, func(acc, found map[string]float64) {
		merge(acc, found, store.Aggregate, false)
	})
}

// probeEach loads the first of srcs, then probes each other source for
// the members loaded (probeScores) and hands what it found to step, until
// none are left.
func (c *Client) probeEach(ctx context.Context, cmd string, srcs []model.Source, step func(acc, found map[string]float64)) ([]Z, error) {
	read := model.KeyReads{}
	acc, err := c.load(ctx, srcs[0], read)
	if err != nil {
		return nil, wrap(cmd, err)
	}
	for _, s := range srcs[1:] {
		if len(acc) == 0 {
			break
		}
		if s.M.Typ == model.TypeNone {
			continue // holds nothing (ZINTER never gets here with one)
		}
		found, err := c.probeScores(ctx, s, acc, read)
		if err != nil {
			return nil, wrap(cmd, err)
		}
		step(acc, found)
	}
	return toZ(acc), nil
}

func (c *Client) zdiff(ctx context.Context, cmd string, keys []string) ([]Z, error) {
	srcs, err := c.sources(ctx, cmd, &ZStore{Keys: keys})
	if err != nil {
		return nil, err
	}
	return c.probeEach(ctx, cmd, srcs, func(acc, found map[string]float64) {
		for m := range found {
			delete(acc, m)
		}
	})
}

// ZUnion returns the union of the sorted sets (or sets) in store, ordered
// by score then member, as Redis's ZUNION.
//
// Cost: one BatchGetItem of the metadata items and a Query of every key.
//
// [ZUNION]: https://redis.io/docs/latest/commands/zunion/
func (c *Client) ZUnion(ctx context.Context, store ZStore) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZUnion")
	defer traced.end(&err)
	zs, err := c.zunion(ctx, "ZUNION", &store)
	return members(zs), err
}

// ZUnionWithScores is ZUnion with scores.
func (c *Client) ZUnionWithScores(ctx context.Context, store ZStore) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZUnionWithScores")
	defer traced.end(&err)
	return c.zunion(ctx, "ZUNION", &store)
}

// ZInter returns the intersection of the sorted sets (or sets) in store,
// as Redis's ZINTER.
//
// Cost: one BatchGetItem of the metadata items, a Query of the smallest
// key, and BatchGetItem probes of the others for its surviving members.
//
// [ZINTER]: https://redis.io/docs/latest/commands/zinter/
func (c *Client) ZInter(ctx context.Context, store *ZStore) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZInter")
	defer traced.end(&err)
	zs, err := c.zinter(ctx, "ZINTER", store)
	return members(zs), err
}

// ZInterWithScores is ZInter with scores.
func (c *Client) ZInterWithScores(ctx context.Context, store *ZStore) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZInterWithScores")
	defer traced.end(&err)
	return c.zinter(ctx, "ZINTER", store)
}

// ZInterCard returns the size of the intersection of keys, at most limit
// when limit > 0, as Redis's ZINTERCARD. Cost: as ZInter.
//
// [ZINTERCARD]: https://redis.io/docs/latest/commands/zintercard/
func (c *Client) ZInterCard(ctx context.Context, limit int64, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZInterCard")
	defer traced.end(&err)
	if limit < 0 {
		return 0, argError("ZINTERCARD", "limit", strconv.FormatInt(limit, 10), ErrOutOfRange)
	}
	zs, err := c.zinter(ctx, "ZINTERCARD", &ZStore{Keys: keys})
	n := int64(len(zs))
	if limit > 0 {
		n = min(n, limit)
	}
	return n, err
}

// ZDiff returns the members of the first key in none of the others, with
// the first key's scores, as Redis's ZDIFF.
//
// Cost: one BatchGetItem of the metadata items, a Query of the first key,
// BatchGetItem probes of the others.
//
// [ZDIFF]: https://redis.io/docs/latest/commands/zdiff/
func (c *Client) ZDiff(ctx context.Context, keys ...string) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZDiff")
	defer traced.end(&err)
	zs, err := c.zdiff(ctx, "ZDIFF", keys)
	return members(zs), err
}

// ZDiffWithScores is ZDiff with scores.
func (c *Client) ZDiffWithScores(ctx context.Context, keys ...string) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZDiffWithScores")
	defer traced.end(&err)
	return c.zdiff(ctx, "ZDIFF", keys)
}

// zstore stores the result of compute in destination, overwriting any type
// it held (deleting it when the result is empty), and returns the result's
// size. destination is checked before compute sends any request. See
// setStore for what is atomic.
func (c *Client) zstore(ctx context.Context, cmd, destination string, compute func() ([]Z, error)) (int64, error) {
	if err := checkKey(cmd, destination); err != nil {
		return 0, err
	}
	zs, err := compute()
	if err != nil {
		return 0, err
	}
	scores := make(map[string]float64, len(zs))
	for _, z := range zs {
		scores[z.Member] = z.Score
	}
	err = c.overwrite(ctx, destination, model.TypeZSet, members(zs), func(m string) []byte { return model.ZsetIX(scores[m], m) })
	return int64(len(zs)), wrap(cmd, err)
}

// ZUnionStore stores ZUnion in destination and returns its size, as Redis's
// ZUNIONSTORE. Cost: ZUnion plus writes of the difference to destination.
//
// [ZUNIONSTORE]: https://redis.io/docs/latest/commands/zunionstore/
func (c *Client) ZUnionStore(ctx context.Context, destination string, store *ZStore) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZUnionStore")
	defer traced.end(&err)
	return c.zstore(ctx, "ZUNIONSTORE", destination, func() ([]Z, error) { return c.zunion(ctx, "ZUNIONSTORE", store) })
}

// ZInterStore stores ZInter in destination and returns its size, as Redis's
// ZINTERSTORE. Cost: ZInter plus the writes.
//
// [ZINTERSTORE]: https://redis.io/docs/latest/commands/zinterstore/
func (c *Client) ZInterStore(ctx context.Context, destination string, store *ZStore) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZInterStore")
	defer traced.end(&err)
	return c.zstore(ctx, "ZINTERSTORE", destination, func() ([]Z, error) { return c.zinter(ctx, "ZINTERSTORE", store) })
}

// ZDiffStore stores ZDiff in destination and returns its size, as Redis's
// ZDIFFSTORE. Cost: ZDiff plus the writes.
//
// [ZDIFFSTORE]: https://redis.io/docs/latest/commands/zdiffstore/
func (c *Client) ZDiffStore(ctx context.Context, destination string, keys ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZDiffStore")
	defer traced.end(&err)
	return c.zstore(ctx, "ZDIFFSTORE", destination, func() ([]Z, error) { return c.zdiff(ctx, "ZDIFFSTORE", keys) })
}

// ZRangeStore stores a ZRANGE result in dst, with the members' scores (a
// BYLEX range too), and returns its size, as Redis's ZRANGESTORE.
// Cost: the range read plus the writes.
//
// [ZRANGESTORE]: https://redis.io/docs/latest/commands/zrangestore/
func (c *Client) ZRangeStore(ctx context.Context, dst string, z ZRangeArgs) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZRangeStore")
	defer traced.end(&err)
	return c.zstore(ctx, "ZRANGESTORE", dst, func() ([]Z, error) { return c.zRangeArgs(ctx, "ZRANGESTORE", z, false) })
}
