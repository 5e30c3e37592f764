package redimo

// Sorted-set ranges as data (zrange: a resolved range query) and their
// reader (read, count): what the range commands (zrange.go), ranks
// (rank.go) and EXEC's snapshot (view.go) share. A range is resolved from
// Redis's arguments: score bounds with strtod as zslParseRange, lex
// bounds as zslParseLexRange, ranks as string2ll, in the grammar
// internal/redisarg owns for the library and redimo-server alike.

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/redisarg"
)

// parseScoreRange parses ZRANGEBYSCORE bounds into the inclusive range
// [lo, hi]; empty when nothing can be in it. A bound that is not a number
// is ErrNotFloat naming the argument.
func parseScoreRange(cmd, min, max string) (lo, hi float64, empty bool, err error) {
	parse := func(arg, s string, up bool) (float64, bool, error) {
		f, excl, ok := redisarg.ScoreBound(s)
		if !ok {
			return 0, false, argError(cmd, arg, s, ErrNotFloat)
		}
		if !excl {
			return f, false, nil
		}
		if (up && math.IsInf(f, -1)) || (!up && math.IsInf(f, 1)) {
			return f, true, nil // nothing is above (+inf or below (-inf
		}
		if up {
			return math.Nextafter(f, math.Inf(-1)), false, nil
		}
		return math.Nextafter(f, math.Inf(1)), false, nil
	}
	lo, e1, err := parse("min", min, false)
	if err != nil {
		return 0, 0, false, err
	}
	hi, e2, err := parse("max", max, true)
	if err != nil {
		return 0, 0, false, err
	}
	return lo, hi, e1 || e2 || lo > hi, nil
}

// parseLex parses a ZRANGEBYLEX bound; anything but "-", "+", "[m" and
// "(m" is ErrSyntax naming the argument.
func parseLex(cmd, arg, s string) (model.LexBound, error) {
	b, ok := redisarg.LexBound(s)
	if !ok {
		return model.LexBound{}, argError(cmd, arg, s, ErrSyntax)
	}
	return model.LexBound{Value: b.Value, Excl: b.Excl, Inf: b.Inf, Ninf: b.NegInf}, nil
}

// zrange is a resolved range query: an index (score) or table (lex) range,
// a direction, an offset and a limit.
type zrange struct {
	in      *dynamodb.QueryInput
	rev     bool
	offset  int64
	count   int64  // < 0: all
	exclude string // lex: a member the key condition could not exclude
	hasExcl bool
	empty   bool
	// reverseResult: the query ran in the opposite direction (ranks counted
	// from the other end) and its result must be reversed.
	reverseResult bool
	// checked: the metadata item was just read (type and expiry are known
	// good), so the range read need not read it again.
	checked bool
	// written: the caller writes what it reads, on conditions that check
	// the type and the key's liveness (a pop: metaAction), so the metadata
	// item is read only when the range finds no member (typedReadLazy).
	written bool
	// keep is the selection of in's key condition and filter (exclude
	// included) in Go, for EXEC's reader (view.go); nil: every member.
	keep func(Z) bool
}

// scoreQuery is the index query of key's members with score in [lo, hi].
func (c *Client) scoreQuery(key string, lo, hi float64) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		IndexName:                aws.String(c.opts.IndexName),
		KeyConditionExpression:   aws.String("#pk = :pk AND #ix BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{"#pk": model.AttrPK, "#ix": model.AttrIX},
		ExpressionAttributeValues: model.Item{
			":pk": model.Bin(model.PkValue(key)), ":lo": model.Bin(model.ScoreBound(lo)), ":hi": model.Bin(model.ScoreBoundAfter(hi)),
		},
	}
}

// lexRange resolves lex bounds into a table query on the members' sort keys.
// A bound of at most model.InlineMemberLen bytes is exact in sort-key terms (a
// long member is above it exactly when its first 1015 bytes are; see
// internal/model/keys.go). A longer bound v is not: its prefix p = v[:1015] selects every
// long member starting with p, and a filter on m, which only long members
// carry, compares those with v itself.
func (c *Client) lexRange(cmd, key, min, max string) (zrange, error) {
	lo, err := parseLex(cmd, "min", min)
	if err != nil {
		return zrange{}, err
	}
	hi, err := parseLex(cmd, "max", max)
	if err != nil {
		return zrange{}, err
	}
	r := zrange{count: -1, keep: func(x Z) bool {
		above := lo.Ninf || !lo.Inf && (x.Member > lo.Value || !lo.Excl && x.Member == lo.Value)
		below := hi.Inf || !hi.Ninf && (x.Member < hi.Value || !hi.Excl && x.Member == hi.Value)
		return above && below
	}}
	if lo.Inf || hi.Ninf || (!lo.Ninf && !hi.Inf && (lo.Value > hi.Value || (lo.Value == hi.Value && (lo.Excl || hi.Excl)))) {
		r.empty = true
		return r, nil
	}
	values := model.Item{":pk": model.Bin(model.PkValue(key))}
	var filters []string
	loSK := []byte{model.PrefixZSet}
	switch {
	case lo.Ninf:
	case len(lo.Value) <= model.InlineMemberLen:
		loSK = model.MemberSK(model.TypeZSet, lo.Value)
		if lo.Excl {
			loSK = append(loSK, 0) // the next string after lo.value
		}
	default: // after the short member p, from the first long one starting with p
		loSK = append(model.SkPrefix(model.TypeZSet, lo.Value), 0)
		values[":lov"] = model.Bin([]byte(lo.Value))
		filters = append(filters, map[bool]string{false: "#m >= :lov", true: "#m > :lov"}[lo.Excl])
	}
	hiSK := []byte{model.PrefixZSet + 1} // after every member; no item has this sort key
	switch {
	case hi.Inf:
	case len(hi.Value) <= model.InlineMemberLen:
		hiSK = model.MemberSK(model.TypeZSet, hi.Value)
		r.exclude, r.hasExcl = hi.Value, hi.Excl
	default: // up to the last long member starting with p
		hiSK = append(model.SkPrefix(model.TypeZSet, hi.Value), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
		values[":hiv"] = model.Bin([]byte(hi.Value))
		filters = append(filters, map[bool]string{false: "#m <= :hiv", true: "#m < :hiv"}[hi.Excl])
	}
	values[":lo"], values[":hi"] = model.Bin(loSK), model.Bin(hiSK)
	r.in = &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK},
		ExpressionAttributeValues: values,
	}
	if filters != nil {
		r.in.FilterExpression = aws.String("attribute_not_exists(#m) OR (" + strings.Join(filters, " AND ") + ")")
		r.in.ExpressionAttributeNames["#m"] = model.AttrMem
	}
	return r, nil
}

// scoreRange resolves score bounds (min ≤ max order; rev only flips the
// direction).
func (c *Client) scoreRange(cmd, key, min, max string) (zrange, error) {
	lo, hi, empty, err := parseScoreRange(cmd, min, max)
	if err != nil {
		return zrange{}, err
	}
	keep := func(x Z) bool { return x.Score >= lo && x.Score <= hi }
	return zrange{in: c.scoreQuery(key, lo, hi), count: -1, empty: empty, keep: keep}, nil
}

// limit applies LIMIT offset count (Redis: a negative offset selects
// nothing, a negative count everything from offset).
func (r zrange) limit(offset, count int64) zrange {
	if offset == 0 && count == 0 {
		return r // no LIMIT given
	}
	if offset < 0 {
		r.empty = true
	}
	r.offset, r.count = offset, count
	return r
}

// pick is the range r of all (a sorted set's members, in order) in Go:
// EXEC's reader (snapshot.go) and small sorted sets' (smallz.go).
func (r zrange) pick(all []Z) []Z {
	if r.empty || r.count == 0 {
		return nil
	}
	if r.rev {
		all = slices.Clone(all)
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
			return out
		default:
			out = append(out, z)
		}
	}
	return out
}

// read runs a resolved range on key and returns its members with scores,
// in order, checking the type and expiry in parallel; a read slower than
// readLease is checked against the metadata item (leased).
func (t table) read(ctx context.Context, key string, r zrange) (out []Z, err error) {
	err = t.c.leased(ctx, key, func() (err error) {
		out, err = t.readOnce(ctx, key, r)
		return err
	})
	return out, err
}

// readOnce is one try of read.
func (t table) readOnce(ctx context.Context, key string, r zrange) ([]Z, error) {
	c := t.c
	if r.empty || r.count == 0 {
		_, err := c.typedMeta(ctx, key, model.TypeZSet)
		return nil, err
	}
	// A small sorted set answers from its metadata item (smallz.go).
	if all, small, read, m, err := c.smallZRead(ctx, key); err != nil || small || (read && m.Typ == model.TypeNone) {
		return r.pick(all), err
	} else if read {
		r.checked = true
	}
	start := c.readStart(key)
	var out []Z
	typed := c.typedRead
	if r.written {
		typed = c.typedReadLazy
	}
	if r.checked {
		typed = func(_ context.Context, _ string, typ model.KeyType, read func() (bool, error)) (model.Meta, error) {
			_, err := read()
			return model.Meta{Typ: typ}, err
		}
	}
	m, err := typed(ctx, key, model.TypeZSet, func() (bool, error) {
		in := *r.in
		in.ScanIndexForward = aws.Bool(!r.rev)
		limit := 0
		if r.count >= 0 {
			limit = int(r.offset + r.count)
			if r.hasExcl {
				limit++
			}
		}
		skip := r.offset
		for it, err := range c.query(ctx, &in, limit) {
			if err != nil {
				return false, err
			}
			member, t, _ := model.MemberOf(it)
			if t != model.TypeZSet {
				return false, ErrWrongType
			}
			if r.hasExcl && member == r.exclude {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			if r.count >= 0 && int64(len(out)) >= r.count {
				break
			}
			out = append(out, Z{Score: model.ScoreOfIX(model.BytesAttr(it, model.AttrIX)), Member: member})
		}
		return len(out) > 0, nil
	})
	if err != nil || m.Typ == model.TypeNone {
		return nil, err
	}
	if m.SmallZ != nil { // small (smallz.go)
		return r.pick(zsOf(m.SmallZ)), nil
	}
	if !r.checked && convertedDuring(m, start) {
		r.checked = true
		return t.read(ctx, key, r)
	}
	return out, nil
}

// model.RankRange resolves ranks start..stop (negative: from the end) into a
// range. Both non-negative or both negative ranks, or start..-1, need no
// cardinality: one query from the right end; other mixed signs read
// ZCARD first.
func (c *Client) rankRange(ctx context.Context, key string, start, stop int64, rev bool) (zrange, error) {
	r := zrange{in: c.scoreQuery(key, math.Inf(-1), math.Inf(1)), rev: rev}
	if start >= 0 && stop == -1 { // to the end: no cardinality needed
		r.offset, r.count = start, -1
		if start >= c.rankMax() {
			return r, c.view().seek(ctx, key, &r)
		}
		return r, nil
	}
	if (start < 0) != (stop < 0) {
		m, err := c.typedMeta(ctx, key, model.TypeZSet)
		if err == nil {
			m, err = c.settle(ctx, key, m, true) // the live count
		}
		if err != nil {
			return r, err
		}
		if start < 0 {
			start += m.Card
		}
		if stop < 0 {
			stop += m.Card
		}
		start = max(start, 0)
		if stop < 0 || m.Typ == model.TypeNone {
			r.empty = true
			return r, nil
		}
		r.checked = true
	}
	if start < 0 { // both negative: count from the other end
		start, stop = -stop-1, -start-1
		r.rev = !rev
		r.reverseResult = true
	}
	if start > stop {
		r.empty = true
		return r, nil
	}
	r.offset, r.count = start, stop-start+1
	if r.offset >= c.rankMax() {
		return r, c.view().seek(ctx, key, &r) // deep: start from the count items
	}
	return r, nil
}

// count counts a resolved range's members, checking type and expiry (a
// slow count: leased).
func (t table) count(ctx context.Context, key string, r zrange) (n int64, err error) {
	err = t.c.leased(ctx, key, func() (err error) {
		n, err = t.countOnce(ctx, key, r)
		return err
	})
	return n, err
}

// countOnce is one try of count.
func (t table) countOnce(ctx context.Context, key string, r zrange) (int64, error) {
	c := t.c
	if r.empty {
		_, err := c.typedMeta(ctx, key, model.TypeZSet)
		return 0, err
	}
	if all, small, read, m, err := c.smallZRead(ctx, key); err != nil || small || (read && m.Typ == model.TypeNone) {
		r.count, r.offset = -1, 0
		return int64(len(r.pick(all))), err
	}
	start := c.readStart(key)
	var n int64
	read := func() (bool, error) {
		if !r.hasExcl {
			var err error
			n, err = c.queryCount(ctx, r.in)
			return n > 0, err
		}
		// A lex range's exclusive upper bound: the key condition cannot
		// express it, and a filter cannot name the sort key.
		for it, err := range c.query(ctx, r.in, 0) {
			if err != nil {
				return false, err
			}
			if member, _, _ := model.MemberOf(it); member != r.exclude {
				n++
			}
		}
		return n > 0, nil
	}
	m, err := c.typedRead(ctx, key, model.TypeZSet, read)
	if err != nil || m.Typ == model.TypeNone {
		return 0, err
	}
	if m.SmallZ != nil { // small (smallz.go)
		r.count, r.offset = -1, 0
		return int64(len(r.pick(zsOf(m.SmallZ)))), nil
	}
	if convertedDuring(m, start) { // the conversion has committed: count again
		n = 0
		_, err = read()
	}
	return n, err
}
