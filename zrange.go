package redimo

// Sorted-set ranges: by rank, by score, by member (lex); their counts and
// removals; ranks. Argument parsing is in zbounds.go, pops in zsets.go,
// ZSCAN and ZRANDMEMBER in zscan.go.

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
)

// ZRangeBy selects members by score (Min, Max: "1.5", "(1.5" exclusive,
// "-inf", "+inf"; read as Redis reads them with strtod, so "0x10", " 1"
// and even "" are numbers) or by member (Min, Max: "[a", "(a", "-", "+"),
// with LIMIT Offset Count (Count < 0, or 0 with Offset 0: no limit).
type ZRangeBy struct {
	Min, Max      string
	Offset, Count int64
}

// ZRangeArgs is the unified ZRANGE: Start and Stop are ranks, or scores
// with ByScore, or members with ByLex; Rev reverses the order (and, as in
// Redis, then Start is the greater bound). Offset and Count are LIMIT (by
// score or lex only). Static string types stand in for go-redis's
// interface{} bounds; ranks are read as Redis reads integers ("+1", "01"
// and " 1" are ErrNotInteger), scores as ZRangeBy's.
type ZRangeArgs struct {
	Key            string
	Start, Stop    string
	ByScore, ByLex bool
	Rev            bool
	Offset, Count  int64
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
	// keep is the selection of in's key condition and filter (exclude
	// included) in Go, for EXEC's reader (seam.go); nil: every member.
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
// keys.go). A longer bound v is not: its prefix p = v[:1015] selects every
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

// read runs a resolved range on key and returns its members with scores,
// in order, checking the type and expiry in parallel.
func (c *Client) read(ctx context.Context, key string, r zrange) ([]Z, error) {
	if c.tx != nil {
		return c.tx.read(ctx, key, r)
	}
	if r.empty || r.count == 0 {
		_, err := c.typedMeta(ctx, key, model.TypeZSet)
		return nil, err
	}
	var out []Z
	typed := c.typedRead
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
			return r, c.rankSeek(ctx, key, &r)
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
		return r, c.rankSeek(ctx, key, &r) // deep: start from the count items
	}
	return r, nil
}

// zRange reads ranks start..stop of key in the given direction.
func (c *Client) zRange(ctx context.Context, cmd, key string, start, stop int64, rev bool) ([]Z, error) {
	if err := checkKey(cmd, key); err != nil {
		return nil, err
	}
	r, err := c.rankRange(ctx, key, start, stop, rev)
	if err != nil {
		return nil, wrap(cmd, err)
	}
	out, err := c.read(ctx, key, r)
	if r.reverseResult {
		slices.Reverse(out)
	}
	return out, wrap(cmd, err)
}

func members(zs []Z) []string {
	out := make([]string, len(zs))
	for i, z := range zs {
		out[i] = z.Member
	}
	return out
}

// ZRange returns the members at ranks start..stop (0 is the lowest score;
// negative ranks count from the highest), as Redis's ZRANGE.
//
// Cost: one Query of the index reading stop+1 members (or, with both ranks
// negative, -start members from the top), 1 read unit per ~80, plus a
// GetItem of the metadata item in parallel; ranks of mixed signs other
// than start..-1 read the metadata first.
//
// [ZRANGE]: https://redis.io/docs/latest/commands/zrange/
func (c *Client) ZRange(ctx context.Context, key string, start, stop int64) ([]string, error) {
	zs, err := c.zRange(ctx, "ZRANGE", key, start, stop, false)
	return members(zs), err
}

// ZRangeWithScores is ZRange with scores (ZRANGE ... WITHSCORES).
func (c *Client) ZRangeWithScores(ctx context.Context, key string, start, stop int64) ([]Z, error) {
	return c.zRange(ctx, "ZRANGE", key, start, stop, false)
}

// ZRevRange is ZRange from the highest score down, as Redis's ZREVRANGE:
// the top 10 is ZRevRange(ctx, key, 0, 9), one Query reading 10 members.
//
// [ZREVRANGE]: https://redis.io/docs/latest/commands/zrevrange/
func (c *Client) ZRevRange(ctx context.Context, key string, start, stop int64) ([]string, error) {
	zs, err := c.zRange(ctx, "ZREVRANGE", key, start, stop, true)
	return members(zs), err
}

// ZRevRangeWithScores is ZRevRange with scores.
func (c *Client) ZRevRangeWithScores(ctx context.Context, key string, start, stop int64) ([]Z, error) {
	return c.zRange(ctx, "ZREVRANGE", key, start, stop, true)
}

// byRange reads a score (resolve = scoreRange) or lex (lexRange) range
// with LIMIT, with the members' scores.
func (c *Client) byRange(ctx context.Context, cmd, key string, opt *ZRangeBy, rev bool, resolve func(cmd, key, min, max string) (zrange, error)) ([]Z, error) {
	if err := checkRange(cmd, key, opt); err != nil {
		return nil, err
	}
	r, err := resolve(cmd, key, opt.Min, opt.Max)
	if err != nil {
		return nil, err
	}
	r.rev = rev
	out, err := c.read(ctx, key, r.limit(opt.Offset, opt.Count))
	return out, wrap(cmd, err)
}

// checkRange rejects a bad key or a missing range.
func checkRange(cmd, key string, opt *ZRangeBy) error {
	if opt == nil {
		return argError(cmd, "range", "nil *ZRangeBy", ErrSyntax)
	}
	return checkKey(cmd, key)
}

// ZRangeByScore returns the members with scores between opt.Min and
// opt.Max, lowest first, ties in member order, with LIMIT opt.Offset
// opt.Count, as Redis's ZRANGEBYSCORE. Bounds: "1.5", "(1.5" (exclusive),
// "-inf", "+inf"; a bound that is not a float is ErrNotFloat.
//
// Cost: one Query of the index reading offset+count members (all in range
// without LIMIT), plus a GetItem of the metadata item in parallel.
//
// [ZRANGEBYSCORE]: https://redis.io/docs/latest/commands/zrangebyscore/
func (c *Client) ZRangeByScore(ctx context.Context, key string, opt *ZRangeBy) ([]string, error) {
	zs, err := c.byRange(ctx, "ZRANGEBYSCORE", key, opt, false, c.scoreRange)
	return members(zs), err
}

// ZRangeByScoreWithScores is ZRangeByScore with scores.
func (c *Client) ZRangeByScoreWithScores(ctx context.Context, key string, opt *ZRangeBy) ([]Z, error) {
	return c.byRange(ctx, "ZRANGEBYSCORE", key, opt, false, c.scoreRange)
}

// ZRevRangeByScore is ZRangeByScore highest first (opt.Max is still the
// greater bound), as Redis's ZREVRANGEBYSCORE.
//
// [ZREVRANGEBYSCORE]: https://redis.io/docs/latest/commands/zrevrangebyscore/
func (c *Client) ZRevRangeByScore(ctx context.Context, key string, opt *ZRangeBy) ([]string, error) {
	zs, err := c.byRange(ctx, "ZREVRANGEBYSCORE", key, opt, true, c.scoreRange)
	return members(zs), err
}

// ZRevRangeByScoreWithScores is ZRevRangeByScore with scores.
func (c *Client) ZRevRangeByScoreWithScores(ctx context.Context, key string, opt *ZRangeBy) ([]Z, error) {
	return c.byRange(ctx, "ZREVRANGEBYSCORE", key, opt, true, c.scoreRange)
}

// ZRangeByLex returns the members between opt.Min and opt.Max in byte order
// ("[a" inclusive, "(a" exclusive, "-", "+"), with LIMIT, as Redis's
// ZRANGEBYLEX (meaningful when all scores are equal, as in Redis).
//
// Cost: one Query of the table's sort keys reading the members in range,
// plus a GetItem of the metadata item in parallel.
//
// [ZRANGEBYLEX]: https://redis.io/docs/latest/commands/zrangebylex/
func (c *Client) ZRangeByLex(ctx context.Context, key string, opt *ZRangeBy) ([]string, error) {
	zs, err := c.byRange(ctx, "ZRANGEBYLEX", key, opt, false, c.lexRange)
	return members(zs), err
}

// ZRevRangeByLex is ZRangeByLex in reverse byte order, as Redis's
// ZREVRANGEBYLEX (opt.Max is still the greater bound).
//
// [ZREVRANGEBYLEX]: https://redis.io/docs/latest/commands/zrevrangebylex/
func (c *Client) ZRevRangeByLex(ctx context.Context, key string, opt *ZRangeBy) ([]string, error) {
	zs, err := c.byRange(ctx, "ZREVRANGEBYLEX", key, opt, true, c.lexRange)
	return members(zs), err
}

// ZRangeArgs is the unified ZRANGE (BYSCORE, BYLEX, REV, LIMIT).
//
// [ZRANGE]: https://redis.io/docs/latest/commands/zrange/
func (c *Client) ZRangeArgs(ctx context.Context, z ZRangeArgs) ([]string, error) {
	zs, err := c.zRangeArgs(ctx, "ZRANGE", z, false)
	return members(zs), err
}

// ZRangeArgsWithScores is ZRangeArgs with scores (not with ByLex, as Redis).
func (c *Client) ZRangeArgsWithScores(ctx context.Context, z ZRangeArgs) ([]Z, error) {
	return c.zRangeArgs(ctx, "ZRANGE", z, true)
}

// zRangeArgs is ZRANGE's selection for cmd; withScores refuses BYLEX, as
// Redis's WITHSCORES does.
func (c *Client) zRangeArgs(ctx context.Context, cmd string, z ZRangeArgs, withScores bool) ([]Z, error) {
	if withScores && z.ByLex {
		return nil, argError(cmd, "WITHSCORES", "BYLEX", ErrSyntax)
	}
	lo, hi := z.Start, z.Stop
	if z.Rev && (z.ByScore || z.ByLex) {
		lo, hi = hi, lo
	}
	opt := &ZRangeBy{Min: lo, Max: hi, Offset: z.Offset, Count: z.Count}
	switch {
	case z.ByScore && z.ByLex:
		return nil, argError(cmd, "BYSCORE", "BYLEX", ErrSyntax)
	case z.ByScore:
		return c.byRange(ctx, cmd, z.Key, opt, z.Rev, c.scoreRange)
	case z.ByLex:
		return c.byRange(ctx, cmd, z.Key, opt, z.Rev, c.lexRange)
	case (z.Offset != 0 || z.Count != 0) && z.Count != -1:
		// Redis refuses a LIMIT by rank unless its count is -1 (then it
		// ignores the offset too).
		return nil, argError(cmd, "LIMIT", "without BYSCORE or BYLEX", ErrSyntax)
	}
	start, ok1 := model.ParseRank(z.Start)
	stop, ok2 := model.ParseRank(z.Stop)
	if !ok1 || !ok2 {
		return nil, argError(cmd, "start/stop", z.Start+" "+z.Stop, ErrNotInteger)
	}
	return c.zRange(ctx, cmd, z.Key, start, stop, z.Rev)
}

// count counts a resolved range's members, checking type and expiry.
func (c *Client) count(ctx context.Context, key string, r zrange) (int64, error) {
	if c.tx != nil {
		zs, err := c.tx.read(ctx, key, r)
		return int64(len(zs)), err
	}
	if r.empty {
		_, err := c.typedMeta(ctx, key, model.TypeZSet)
		return 0, err
	}
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
	typed := c.typedRead
	if r.in.IndexName != nil {
		// Set members are in the index too, and a count cannot tell them
		// apart: the metadata item must tell the type even when members
		// were counted.
		typed = c.typedReadParallel
	}
	m, err := typed(ctx, key, model.TypeZSet, read)
	if err != nil || m.Typ == model.TypeNone {
		return 0, err
	}
	return n, nil
}

// ZCount returns how many members have scores between min and max, as
// Redis's ZCOUNT.
//
// Cost: a Query with Select COUNT over the range (1 read unit per ~80
// members counted), plus a GetItem of the metadata item and a Query of
// the count items (rank.go) in parallel. On a sorted set with count
// items, a range wider than 1,000 members is counted from them instead:
// the count items' sum plus at most two Queries COUNT of one range each
// (at most ~1,000 + 2,000 members read in all, whatever the width).
//
// [ZCOUNT]: https://redis.io/docs/latest/commands/zcount/
func (c *Client) ZCount(ctx context.Context, key, min, max string) (int64, error) {
	return c.countRange(ctx, "ZCOUNT", key, min, max, c.scoreRange, func(r zrange) (int64, bool, error) {
		n, err := c.zcount(ctx, key, r) // from the count items when the key has them
		return n, true, err
	})
}

// ZLexCount returns how many members are between min and max in byte
// order, as Redis's ZLEXCOUNT. Cost: a Query with Select COUNT over the
// range (1 read unit per ~80 members counted) and a GetItem of the
// metadata item, in parallel. On a sorted set with count items (rank.go)
// that the Client knows, and whose scores are all equal (where a lex
// range is meaningful), from the count items instead: a GetItem, the
// count items' Query and two one-entry Queries in parallel, then at most
// two Queries COUNT of one range each.
//
// [ZLEXCOUNT]: https://redis.io/docs/latest/commands/zlexcount/
func (c *Client) ZLexCount(ctx context.Context, key, min, max string) (int64, error) {
	return c.countRange(ctx, "ZLEXCOUNT", key, min, max, c.lexRange, func(zrange) (int64, bool, error) {
		lo, _ := parseLex("ZLEXCOUNT", "min", min)
		hi, _ := parseLex("ZLEXCOUNT", "max", max)
		return c.lexCountRanked(ctx, key, lo, hi)
	})
}

// countRange is ZCOUNT and ZLEXCOUNT: the members between min and max as
// resolve (scoreRange or lexRange) reads them, counted by ranked (from
// count items, when it can: ok) or else by a Query COUNT.
func (c *Client) countRange(ctx context.Context, cmd, key, min, max string, resolve func(cmd, key, min, max string) (zrange, error),
	ranked func(zrange) (n int64, ok bool, err error)) (int64, error) {
	r, err := resolveChecked(cmd, key, min, max, resolve)
	if err != nil {
		return 0, err
	}
	if !r.empty && c.tx == nil { // a transaction counts its snapshot
		if n, ok, err := ranked(r); err != nil || ok {
			return n, wrap(cmd, err)
		}
	}
	n, err := c.count(ctx, key, r)
	return n, wrap(cmd, err)
}

// resolveChecked checks key, then resolves min and max with resolve
// (scoreRange or lexRange).
func resolveChecked(cmd, key, min, max string, resolve func(cmd, key, min, max string) (zrange, error)) (zrange, error) {
	if err := checkKey(cmd, key); err != nil {
		return zrange{}, err
	}
	return resolve(cmd, key, min, max)
}

// ZRank returns member's rank (0 for the lowest score); ok is false when
// member or key is missing. As Redis's ZRANK.
//
// A sorted set of at least 2,000 members gets count items (rank.go) at
// its first rank read: counts of members per range of at most 1,000
// members, kept exact in the same transactions as the members. Then a
// rank costs the same at any rank.
//
// Cost, with count items: a BatchGetItem (member and metadata) and a
// Query of the count items in parallel, then a Query COUNT within one
// range: 3 requests, 2 round trips; 16 read units at 100,000 members
// (BENCHMARKS.md), growing with the number of ranges (~SCARD/500). A
// sorted set has them from 2,000 members on, built by the write that
// takes it there (rank.go): ZRANK only reads. Without (smaller sets, and
// keys with an expiry or member expiries): a Query COUNT over the
// members below it, 1 read unit per ~80.
//
// [ZRANK]: https://redis.io/docs/latest/commands/zrank/
func (c *Client) ZRank(ctx context.Context, key, member string) (int64, bool, error) {
	rs, ok, err := c.rank(ctx, "ZRANK", key, member, false)
	return rs.Rank, ok, err
}

// ZRevRank is ZRank counted from the highest score, as Redis's ZREVRANK.
// Cost: as ZRank.
//
// [ZREVRANK]: https://redis.io/docs/latest/commands/zrevrank/
func (c *Client) ZRevRank(ctx context.Context, key, member string) (int64, bool, error) {
	rs, ok, err := c.rank(ctx, "ZREVRANK", key, member, true)
	return rs.Rank, ok, err
}

// ZRankWithScore is ZRANK ... WITHSCORE. Cost: as ZRank.
func (c *Client) ZRankWithScore(ctx context.Context, key, member string) (RankScore, bool, error) {
	return c.rank(ctx, "ZRANK", key, member, false)
}

// ZRevRankWithScore is ZREVRANK ... WITHSCORE. Cost: as ZRevRank.
func (c *Client) ZRevRankWithScore(ctx context.Context, key, member string) (RankScore, bool, error) {
	return c.rank(ctx, "ZREVRANK", key, member, true)
}

func (c *Client) rank(ctx context.Context, cmd, key, member string, rev bool) (RankScore, bool, error) {
	if err := c.checkKeyMembers(cmd, key, []string{member}); err != nil {
		return RankScore{}, false, err
	}
	if c.tx != nil {
		rs, ok, err := c.tx.rank(ctx, key, member, rev)
		return rs, ok, wrap(cmd, err)
	}
	it, mt, ranges, err := c.rankProbe(ctx, key, member)
	if err != nil || it == nil {
		return RankScore{}, false, wrap(cmd, err)
	}
	ix := model.BytesAttr(it, model.AttrIX)
	n, err := c.rankFrom(ctx, key, mt, ranges, ix, rev)
	if err == nil && len(ix) == 9+model.InlineMemberLen {
		var before int64
		before, err = c.runBefore(ctx, key, ix, member, rev)
		n += before
	}
	return RankScore{Rank: n, Score: model.ScoreOfIX(ix)}, err == nil, wrap(cmd, err)
}

// runBefore counts the members of key that share member's index value ix
// (long members with its score and first 1015 bytes: longmember.go) and
// come before it: below it, or above it when rev.
func (c *Client) runBefore(ctx context.Context, key string, ix []byte, member string, rev bool) (int64, error) {
	var n int64
	for it, err := range c.query(ctx, &dynamodb.QueryInput{
		IndexName:                 aws.String(c.opts.IndexName),
		KeyConditionExpression:    aws.String("#pk = :pk AND #ix = :ix"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#ix": model.AttrIX},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":ix": model.Bin(ix)},
	}, 0) {
		if err != nil {
			return 0, err
		}
		if m, _, _ := model.MemberOf(it); (m < member && !rev) || (m > member && rev) {
			n++
		}
	}
	return n, nil
}

// removeRange deletes the members of a resolved range through the
// transaction writer and returns how many it deleted.
func (c *Client) removeRange(ctx context.Context, cmd, key string, r zrange) (int64, error) {
	zs, err := c.read(ctx, key, r)
	if err != nil || len(zs) == 0 {
		return 0, wrap(cmd, err)
	}
	writes := make([]*model.Write, len(zs))
	for i, z := range zs {
		writes[i] = c.deleteMember(key, model.TypeZSet, z.Member)
	}
	applied, err := c.transactChunks(ctx, key, model.TypeZSet, writes)
	return model.Counted(applied), wrap(cmd, err)
}

// ZRemRangeByScore removes the members with scores between min and max and
// returns how many, as Redis's ZREMRANGEBYSCORE. Emptying the key deletes it.
//
// Cost: the range read (as ZRangeByScore) plus ⌈n/99⌉ TransactWriteItems.
// Not atomic beyond 99 members.
//
// [ZREMRANGEBYSCORE]: https://redis.io/docs/latest/commands/zremrangebyscore/
func (c *Client) ZRemRangeByScore(ctx context.Context, key, min, max string) (int64, error) {
	r, err := resolveChecked("ZREMRANGEBYSCORE", key, min, max, c.scoreRange)
	if err != nil {
		return 0, err
	}
	return c.removeRange(ctx, "ZREMRANGEBYSCORE", key, r)
}

// ZRemRangeByRank removes the members at ranks start..stop, as Redis's
// ZREMRANGEBYRANK. Cost: as ZRange plus the deletions.
//
// [ZREMRANGEBYRANK]: https://redis.io/docs/latest/commands/zremrangebyrank/
func (c *Client) ZRemRangeByRank(ctx context.Context, key string, start, stop int64) (int64, error) {
	if err := checkKey("ZREMRANGEBYRANK", key); err != nil {
		return 0, err
	}
	r, err := c.rankRange(ctx, key, start, stop, false)
	if err != nil {
		return 0, wrap("ZREMRANGEBYRANK", err)
	}
	return c.removeRange(ctx, "ZREMRANGEBYRANK", key, r)
}

// ZRemRangeByLex removes the members between min and max in byte order, as
// Redis's ZREMRANGEBYLEX. Cost: as ZRangeByLex plus the deletions.
//
// [ZREMRANGEBYLEX]: https://redis.io/docs/latest/commands/zremrangebylex/
func (c *Client) ZRemRangeByLex(ctx context.Context, key, min, max string) (int64, error) {
	r, err := resolveChecked("ZREMRANGEBYLEX", key, min, max, c.lexRange)
	if err != nil {
		return 0, err
	}
	return c.removeRange(ctx, "ZREMRANGEBYLEX", key, r)
}
