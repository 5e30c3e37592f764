package redimo

import (
	"bytes"
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// Counting with count items (rank.go): ZRANK's count within one range,
// ZCOUNT over many.

// countWithin is how many members of the range r of key have index values
// below ix (a member's; equal of them have it): counted from r's lower
// bound, or, when ix seems nearer r's upper end (model.NearHigh; prev is the
// lower bound of the range before r, nil for the first), as r.n minus
// those from ix up. Cost: one Query COUNT of those members, 1 read unit
// per ~80.
func (c *Client) countWithin(ctx context.Context, key string, prev []byte, r model.RankRange, ix []byte, equal int64) (int64, error) {
	q := func(cond string, values model.Item) (int64, error) { return c.indexCount(ctx, key, cond, values) }
	if model.NearHigh(prev, r.Lo, r.Hi, ix) {
		if r.Hi == nil { // the last range: to the end of the key
			from, err := q("#ix >= :ix", model.Item{":ix": model.Bin(ix)})
			return r.N - from, err
		}
		if last, ok := model.Before(r.Hi); ok {
			from, err := q("#ix BETWEEN :ix AND :last", model.Item{":ix": model.Bin(ix), ":last": model.Bin(last)})
			return r.N - from, err
		}
	}
	if len(r.Lo) == 0 {
		return q("#ix < :ix", model.Item{":ix": model.Bin(ix)})
	}
	// BETWEEN is inclusive: it counts the members at ix.
	n, err := q("#ix BETWEEN :lo AND :ix", model.Item{":lo": model.Bin(r.Lo), ":ix": model.Bin(ix)})
	return n - equal, err
}

// indexCount counts the index entries of key whose ix meets cond (a key
// condition on #ix with values). Cost: one Query COUNT per 1 MB read.
func (c *Client) indexCount(ctx context.Context, key, cond string, values model.Item) (int64, error) {
	values[":pk"] = model.Bin(model.PkValue(key))
	return c.queryCount(ctx, &dynamodb.QueryInput{
		IndexName:                 aws.String(c.opts.IndexName),
		KeyConditionExpression:    aws.String("#pk = :pk AND " + cond),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#ix": model.AttrIX},
		ExpressionAttributeValues: values,
	})
}

// countRanked counts the members of key whose index values are in
// [lo, hi) from the count items ranges: the ranges inside are summed, and
// the members of the one or two ranges the bounds cut are counted (one
// Query COUNT each, in parallel, of at most a range).
func (c *Client) countRanked(ctx context.Context, key string, ranges []model.RankRange, lo, hi []byte) (int64, error) {
	var (
		sum  int64
		cuts []func() (int64, error)
	)
	q := func(cond string, values model.Item) (int64, error) { return c.indexCount(ctx, key, cond, values) }
	// below(b): the members of range r under b, which r cuts.
	below := func(r model.RankRange, b []byte) (int64, error) {
		if len(r.Lo) == 0 {
			return q("#ix < :b", model.Item{":b": model.Bin(b)})
		}
		last, _ := model.Before(b) // b > r.lo: not empty
		return q("#ix BETWEEN :rlo AND :last", model.Item{":rlo": model.Bin(r.Lo), ":last": model.Bin(last)})
	}
	for _, r := range ranges {
		if r.Hi != nil && bytes.Compare(r.Hi, lo) <= 0 || bytes.Compare(r.Lo, hi) >= 0 {
			continue // outside
		}
		r := r
		loIn := bytes.Compare(r.Lo, lo) < 0                // lo cuts r
		hiIn := r.Hi == nil || bytes.Compare(hi, r.Hi) < 0 // hi cuts r
		switch {
		case loIn && hiIn:
			cuts = append(cuts, func() (int64, error) {
				last, _ := model.Before(hi)
				return q("#ix BETWEEN :lo AND :last", model.Item{":lo": model.Bin(lo), ":last": model.Bin(last)})
			})
		case loIn: // r from lo up: r.n less those below lo
			cuts = append(cuts, func() (int64, error) {
				n, err := below(r, lo)
				return r.N - n, err
			})
		case hiIn: // r up to hi
			cuts = append(cuts, func() (int64, error) { return below(r, hi) })
		default:
			sum += r.N
		}
	}
	counts := make([]int64, len(cuts))
	err := c.st.Parallel(len(cuts), func(i int) error {
		var err error
		counts[i], err = cuts[i]()
		return err
	})
	for _, n := range counts {
		sum += n
	}
	return sum, err
}

// lexCountRanked is ZLEXCOUNT from the count items of key, when the
// Client knows it ranked and its scores are all equal (a lex range is
// then a range of index values): ok is false otherwise, or for a bound
// as long as a long member's stored part (the caller counts). It reads
// the metadata item, the count items and the lowest and highest index
// entries in parallel, then counts as countRanked.
func (c *Client) lexCountRanked(ctx context.Context, key string, lo, hi model.LexBound) (n int64, ok bool, err error) {
	if !c.belief(key).Ranked || !lo.Ninf && len(lo.Value) >= model.InlineMemberLen || !hi.Inf && len(hi.Value) >= model.InlineMemberLen {
		return 0, false, nil
	}
	var ends [2][]byte // the lowest and the highest index entries
	ctx = c.labelled(ctx)
	mt, ranges, err := c.metaAndRanges(ctx, key, c.st.Consistent(), 2, func(i int) (err error) {
		in := &dynamodb.QueryInput{
			IndexName:                 aws.String(c.opts.IndexName),
			KeyConditionExpression:    aws.String("#pk = :pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK},
			ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key))},
			ScanIndexForward:          aws.Bool(i == 0),
		}
		for it, e := range c.query(ctx, in, 1) {
			if err = e; e != nil || ends[i] != nil {
				break
			}
			ends[i] = model.BytesAttr(it, model.AttrIX)
		}
		return err
	})
	if err != nil {
		return 0, false, err
	}
	m, err := c.ofType(ctx, key, c.liveMeta(mt), model.TypeZSet)
	_, ranked := mt[model.AttrRanked]
	switch {
	case err != nil:
		return 0, false, err
	case m.Typ == model.TypeNone:
		return 0, true, nil
	case !ranked || len(ranges) == 0 || len(ranges[0].Lo) != 0 || len(ends[0]) < 9 || len(ends[1]) < 9 || !bytes.Equal(ends[0][:8], ends[1][:8]):
		return 0, false, nil
	}
	at := func(v string) []byte { return append(bytes.Clone(ends[0][:9]), v...) }
	var loIX, hiIX []byte
	switch {
	case lo.Ninf:
		loIX = at("")
	case lo.Excl:
		loIX = append(at(lo.Value), 0)
	default:
		loIX = at(lo.Value)
	}
	switch {
	case hi.Inf:
		hiIX = append(bytes.Clone(ends[0][:8]), 1)
	case hi.Excl:
		hiIX = at(hi.Value)
	default:
		hiIX = append(at(hi.Value), 0)
	}
	if bytes.Compare(loIX, hiIX) >= 0 {
		return 0, true, nil
	}
	n, err = c.countRanked(ctx, key, ranges, loIX, hiIX)
	return n, err == nil, err
}

// zcount counts a score range (r: no exclusion) of key. It reads the
// metadata item, the count items and the first model.RankMax (1,000) members of the
// range in parallel: a range that ends there is counted; a wider one, on
// a key with count items, is counted from them (countRanked); else the
// count goes on.
//
// Cost: a GetItem, a Query of the count items (none: ~0.5 read unit) and
// a Query COUNT of up to 1,000 members, in parallel; then, for a wider
// range of a ranked key, at most two Queries COUNT of at most a range
// each, in parallel.
func (c *Client) zcount(ctx context.Context, key string, r zrange) (int64, error) {
	if all, small, read, m, err := c.smallZRead(ctx, key); err != nil || small || (read && m.Typ == model.TypeNone) {
		return int64(len(r.pick(all))), err // a small sorted set (smallz.go)
	}
	start := c.readStart(key)
	var (
		n    int64
		more map[string]types.AttributeValue
	)
	ctx = c.labelled(ctx)
	counted := *r.in
	counted.Select = types.SelectCount
	limit := int(c.rankMax())
	mt, ranges, err := c.metaAndRanges(ctx, key, c.st.Consistent(), 1, func(int) error {
		for out, err := range c.queryPages(ctx, &counted, limit) {
			if err != nil {
				return err
			}
			n += int64(out.Count)
			more = out.LastEvaluatedKey
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	switch m, err := c.ofType(ctx, key, c.liveMeta(mt), model.TypeZSet); {
	case err != nil:
		return 0, err
	case m.Typ == model.TypeNone:
		return 0, nil
	case m.SmallZ != nil: // small (smallz.go)
		return int64(len(r.pick(zsOf(m.SmallZ)))), nil
	case convertedDuring(m, start): // the count may have missed the members: count again
		return c.view().count(ctx, key, r)
	case len(more) == 0:
		return n, nil
	}
	if _, ok := mt[model.AttrRanked]; ok && len(ranges) > 0 && len(ranges[0].Lo) == 0 {
		values := r.in.ExpressionAttributeValues
		return c.countRanked(ctx, key, ranges, model.BytesAttr(values, ":lo"), model.BytesAttr(values, ":hi"))
	}
	rest := *r.in
	rest.ExclusiveStartKey = more
	m, err := c.queryCount(ctx, &rest)
	return n + m, err
}
