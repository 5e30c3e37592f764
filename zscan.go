package redimo

// Whole-sorted-set reads: ZSCAN and ZRANDMEMBER.

import (
	"context"
	"github.com/redimo-go/redimo/internal/model"
	"iter"
	"math/rand/v2"
	"strconv"
)

// ZScan returns an iterator over the members of the sorted set at key
// that match the glob-style pattern match ("" for all), with their scores,
// in member byte order, as Redis's ZSCAN iterated to the end (see SScan).
//
// Cost: one GetItem of the metadata item, then one Query per 1 MB of
// members (only those with the pattern's literal prefix are read).
//
// [ZSCAN]: https://redis.io/docs/latest/commands/zscan/
func (c *Client) ZScan(ctx context.Context, key, match string) iter.Seq2[Z, error] {
	return traceSeq(c, ctx, "ZScan", func(ctx context.Context, yield func(Z, error) bool) {
		if err := checkKey("ZSCAN", key); err != nil {
			yield(Z{}, err)
			return
		}
		if m, err := c.typedMeta(ctx, key, model.TypeZSet); err != nil || m.Typ == model.TypeNone {
			if err != nil {
				yield(Z{}, wrap("ZSCAN", err))
			}
			return
		}
		for it, err := range c.view().memberItems(ctx, key, model.TypeZSet, model.GlobPrefix(match)) {
			if err != nil {
				yield(Z{}, wrap("ZSCAN", err))
				return
			}
			m, _, _ := model.MemberOf(it)
			if (match == "" || model.GlobMatch(match, m)) && !yield(Z{Score: model.ScoreOfIX(model.BytesAttr(it, model.AttrIX)), Member: m}, nil) {
				return
			}
		}
	})
}

// ZRandMember returns random members, as Redis's ZRANDMEMBER with count:
// count > 0, min(count, ZCARD) distinct members; count < 0, |count| members
// that may repeat (|count| ≤ MaxRandCount); 0, none. Picks are exactly
// uniform.
//
// Cost: a GetItem of the metadata item and a Query of the count items
// (rank.go) in parallel; on a sorted set of at least 2,000 members (its
// count items built at the first call), then one Query per count range
// the |count| draws fall in, in parallel, each of at most half a range
// (~500 members, ~6 read units): O(|count|) (rank_rand.go). On a smaller
// set, or when |count| draws would read about as much as the whole set
// (|count| ≥ ZCARD/250, or a distinct count ≥ ZCARD/2), it reads all the
// members (one Query per 1 MB) and samples. Count 0 is the GetItem alone.
//
// [ZRANDMEMBER]: https://redis.io/docs/latest/commands/zrandmember/
func (c *Client) ZRandMember(ctx context.Context, key string, count int) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZRandMember")
	defer traced.end(&err)
	zs, err := c.ZRandMemberWithScores(ctx, key, count)
	return members(zs), err
}

// ZRandMemberWithScores is ZRandMember with scores.
func (c *Client) ZRandMemberWithScores(ctx context.Context, key string, count int) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZRandMemberWithScores")
	defer traced.end(&err)
	if err := checkKey("ZRANDMEMBER", key); err != nil {
		return nil, err
	}
	if count < -MaxRandCount {
		return nil, argError("ZRANDMEMBER", "count", strconv.Itoa(count), ErrOutOfRange)
	}
	if count == 0 {
		_, err := c.typedMeta(ctx, key, model.TypeZSet)
		return nil, wrap("ZRANDMEMBER", err)
	}
	if zs, ok, err := c.view().rankedDraw(ctx, key, count); err != nil || ok {
		return zs, wrap("ZRANDMEMBER", err)
	}
	var all []Z
	for z, err := range c.ZScan(ctx, key, "") {
		if err != nil {
			return nil, wrap("ZRANDMEMBER", err)
		}
		all = append(all, z)
	}
	if len(all) == 0 {
		return nil, nil
	}
	if count > 0 {
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		return all[:min(count, len(all))], nil
	}
	out := make([]Z, -count)
	for i := range out {
		out[i] = all[rand.IntN(len(all))]
	}
	return out, nil
}
