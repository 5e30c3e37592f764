package redimo

// Uniform random members of a ranked sorted set (ZRANDMEMBER).
//
// The count items give every range's exact number of members, n_i, and
// the cardinality N = Σ n_i. A draw picks a rank uniformly in [0, N),
// which falls in range i at offset u with probability n_i/N · 1/n_i =
// 1/N: every member equally. The member at offset u of a range is read
// from the nearer end of the range (one Query of at most n_i/2 + 1
// entries); the draws of one call that fall in one range share its
// Query. This is the SRANDMEMBER sampler (randmember.go) with ranges for
// buckets and exact counts, so no trial is wasted: |count| draws cost at
// most |count| Queries of half a range each, whatever N.

import (
	"context"
	"math/rand/v2"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
)

// rangeReader reads the members at offsets (sorted, distinct) of range r
// of key; ok is false when r holds fewer members than its count says (it
// changed since the count items were read).
type rangeReader func(ctx context.Context, key string, r model.RankRange, offsets []int64) (zs []Z, ok bool, err error)

// rankedDraw draws from key as ZRANDMEMBER with count (count > 0:
// distinct; < 0: |count| that may repeat) from its count items. ok is false when it cannot (an unranked key, or a
// draw that reading the whole set does as cheaply): the caller reads the
// whole set.
//
// Cost: a GetItem and a Query of the count items in parallel, then one
// Query per range the draws fall in, in parallel, each of at most half a
// range (~500 members, ~6 read units; ~3 on average).
func (t table) rankedDraw(ctx context.Context, key string, count int) (out []Z, ok bool, err error) {
	c := t.c
	ctx = c.labelled(ctx)
	mt, ranges, err := c.metaAndRanges(ctx, key, aws.Bool(true), 0, nil)
	if err != nil {
		return nil, false, err
	}
	m, err := c.ofType(ctx, key, c.liveMeta(mt), model.TypeZSet)
	switch {
	case err != nil:
		return nil, false, err
	case m.Typ == model.TypeNone:
		return nil, true, nil
	}
	n, distinct := int64(count), count > 0
	if !distinct {
		n = -n
	}
	if distinct && n*2 >= m.Card || n*c.rankMax()/4 >= m.Card {
		return nil, false, nil // most of the set, or as dear as all of it
	}
	if _, ranked := mt[model.AttrRanked]; !ranked {
		return nil, false, nil
	}
	if len(ranges) == 0 || len(ranges[0].Lo) != 0 {
		return nil, false, nil
	}
	return c.randomFromRanges(ctx, key, ranges, n, distinct, c.readOffsets)
}

// randomFromRanges draws n ranks of key uniformly (distinct ones when
// distinct) among the members its ranges count, and reads their members
// with read.
func (c *Client) randomFromRanges(ctx context.Context, key string, ranges []model.RankRange, n int64, distinct bool, read rangeReader) ([]Z, bool, error) {
	ends := make([]int64, len(ranges)) // ends[i]: the ranks before range i+1
	var total int64
	for i, r := range ranges {
		total += r.N
		ends[i] = total
	}
	if total <= 0 || distinct && n > total {
		return nil, false, nil
	}
	draws := make([]int64, 0, n)
	seen := map[int64]bool{}
	for int64(len(draws)) < n {
		k := rand.Int64N(total)
		if distinct {
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		draws = append(draws, k)
	}
	// Group the draws by range: range → its distinct offsets.
	type at struct {
		rng int
		off int64
	}
	where := make([]at, len(draws))
	byRange := map[int][]int64{}
	for i, k := range draws {
		j := sort.Search(len(ends), func(j int) bool { return ends[j] > k })
		off := k - (ends[j] - ranges[j].N)
		where[i] = at{j, off}
		if !slices.Contains(byRange[j], off) {
			byRange[j] = append(byRange[j], off)
		}
	}
	idx := make([]int, 0, len(byRange))
	for j := range byRange {
		slices.Sort(byRange[j])
		idx = append(idx, j)
	}
	got := make([]map[int64]Z, len(ranges))
	var short atomic.Bool
	err := c.st.Parallel(len(idx), func(i int) error {
		j := idx[i]
		zs, ok, err := read(c.labelled(ctx), key, ranges[j], byRange[j])
		if err != nil || !ok {
			short.Store(!ok)
			return err
		}
		m := make(map[int64]Z, len(zs))
		for x, off := range byRange[j] {
			m[off] = zs[x]
		}
		got[j] = m
		return nil
	})
	if err != nil || short.Load() {
		return nil, false, err
	}
	out := make([]Z, len(draws))
	for i, w := range where {
		out[i] = got[w.rng][w.off]
	}
	return out, true, nil
}

// readOffsets is the rangeReader of the table: one Query from the nearer
// end of r, reading up to the farthest offset wanted.
func (c *Client) readOffsets(ctx context.Context, key string, r model.RankRange, offsets []int64) ([]Z, bool, error) {
	first, last := offsets[0], offsets[len(offsets)-1]
	forward := last+1 <= r.N-first
	in := &dynamodb.QueryInput{
		IndexName:                 aws.String(c.opts.IndexName),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key))},
		ScanIndexForward:          aws.Bool(forward),
	}
	bound, cond, limit := r.Lo, "#pk = :pk AND #ix >= :b", last+1
	if !forward {
		bound, cond, limit = r.Hi, "#pk = :pk AND #ix < :b", r.N-first
	}
	if len(bound) > 0 {
		in.KeyConditionExpression = aws.String(cond)
		in.ExpressionAttributeNames["#ix"] = model.AttrIX
		in.ExpressionAttributeValues[":b"] = model.Bin(bound)
	}
	var seq []Z
	for it, err := range c.query(ctx, in, int(limit)) {
		if err != nil {
			return nil, false, err
		}
		member, t, _ := model.MemberOf(it)
		if t != model.TypeZSet {
			return nil, false, ErrWrongType
		}
		if int64(len(seq)) < limit {
			seq = append(seq, Z{Score: model.ScoreOfIX(model.BytesAttr(it, model.AttrIX)), Member: member})
		}
	}
	if int64(len(seq)) < limit {
		return nil, false, nil
	}
	out := make([]Z, len(offsets))
	for i, off := range offsets {
		if forward {
			out[i] = seq[off]
		} else {
			out[i] = seq[r.N-1-off]
		}
	}
	return out, true, nil
}
