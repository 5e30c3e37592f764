package redimo

// The sorted-set range commands: by rank, by score, by member (lex); their
// counts and removals; ranks. The range reader they share is ranges.go,
// pops are in zsets.go, ZSCAN and ZRANDMEMBER in zscan.go.

import (
	"context"
	"slices"

	"github.com/redimo-go/redimo/internal/model"
)

// zRange reads ranks start..stop of key in the given direction.
func (c *Client) zRange(ctx context.Context, cmd, key string, start, stop int64, rev bool) ([]Z, error) {
	if err := checkKey(cmd, key); err != nil {
		return nil, err
	}
	r, err := c.rankRange(ctx, key, start, stop, rev)
	if err != nil {
		return nil, wrap(cmd, err)
	}
	out, err := c.view().read(ctx, key, r)
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
func (c *Client) ZRange(ctx context.Context, key string, start, stop int64) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZRange")
	defer traced.end(&err)
	zs, err := c.zRange(ctx, "ZRANGE", key, start, stop, false)
	return members(zs), err
}

// ZRangeWithScores is ZRange with scores (ZRANGE ... WITHSCORES).
func (c *Client) ZRangeWithScores(ctx context.Context, key string, start, stop int64) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZRangeWithScores")
	defer traced.end(&err)
	return c.zRange(ctx, "ZRANGE", key, start, stop, false)
}

// ZRevRange is ZRange from the highest score down, as Redis's ZREVRANGE:
// the top 10 is ZRevRange(ctx, key, 0, 9), one Query reading 10 members.
//
// [ZREVRANGE]: https://redis.io/docs/latest/commands/zrevrange/
func (c *Client) ZRevRange(ctx context.Context, key string, start, stop int64) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZRevRange")
	defer traced.end(&err)
	zs, err := c.zRange(ctx, "ZREVRANGE", key, start, stop, true)
	return members(zs), err
}

// ZRevRangeWithScores is ZRevRange with scores.
func (c *Client) ZRevRangeWithScores(ctx context.Context, key string, start, stop int64) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZRevRangeWithScores")
	defer traced.end(&err)
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
	out, err := c.view().read(ctx, key, r.limit(opt.Offset, opt.Count))
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
func (c *Client) ZRangeByScore(ctx context.Context, key string, opt *ZRangeBy) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZRangeByScore")
	defer traced.end(&err)
	zs, err := c.byRange(ctx, "ZRANGEBYSCORE", key, opt, false, c.scoreRange)
	return members(zs), err
}

// ZRangeByScoreWithScores is ZRangeByScore with scores.
func (c *Client) ZRangeByScoreWithScores(ctx context.Context, key string, opt *ZRangeBy) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZRangeByScoreWithScores")
	defer traced.end(&err)
	return c.byRange(ctx, "ZRANGEBYSCORE", key, opt, false, c.scoreRange)
}

// ZRevRangeByScore is ZRangeByScore highest first (opt.Max is still the
// greater bound), as Redis's ZREVRANGEBYSCORE.
//
// [ZREVRANGEBYSCORE]: https://redis.io/docs/latest/commands/zrevrangebyscore/
func (c *Client) ZRevRangeByScore(ctx context.Context, key string, opt *ZRangeBy) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZRevRangeByScore")
	defer traced.end(&err)
	zs, err := c.byRange(ctx, "ZREVRANGEBYSCORE", key, opt, true, c.scoreRange)
	return members(zs), err
}

// ZRevRangeByScoreWithScores is ZRevRangeByScore with scores.
func (c *Client) ZRevRangeByScoreWithScores(ctx context.Context, key string, opt *ZRangeBy) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZRevRangeByScoreWithScores")
	defer traced.end(&err)
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
func (c *Client) ZRangeByLex(ctx context.Context, key string, opt *ZRangeBy) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZRangeByLex")
	defer traced.end(&err)
	zs, err := c.byRange(ctx, "ZRANGEBYLEX", key, opt, false, c.lexRange)
	return members(zs), err
}

// ZRevRangeByLex is ZRangeByLex in reverse byte order, as Redis's
// ZREVRANGEBYLEX (opt.Max is still the greater bound).
//
// [ZREVRANGEBYLEX]: https://redis.io/docs/latest/commands/zrevrangebylex/
func (c *Client) ZRevRangeByLex(ctx context.Context, key string, opt *ZRangeBy) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZRevRangeByLex")
	defer traced.end(&err)
	zs, err := c.byRange(ctx, "ZREVRANGEBYLEX", key, opt, true, c.lexRange)
	return members(zs), err
}

// ZRangeArgsWithScores is ZRangeArgs with scores (not with ByLex, as Redis).
func (c *Client) ZRangeArgsWithScores(ctx context.Context, z ZRangeArgs) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZRangeArgsWithScores")
	defer traced.end(&err)
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
func (c *Client) ZCount(ctx context.Context, key, min, max string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZCount")
	defer traced.end(&err)
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
func (c *Client) ZLexCount(ctx context.Context, key, min, max string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZLexCount")
	defer traced.end(&err)
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
	if !r.empty {
		if n, ok, err := c.view().rankedCount(r, ranked); err != nil || ok {
			return n, wrap(cmd, err)
		}
	}
	n, err := c.view().count(ctx, key, r)
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
func (c *Client) ZRank(ctx context.Context, key, member string) (_ int64, _ bool, err error) {
	ctx, traced := c.command(ctx, "ZRank")
	defer traced.end(&err)
	rs, ok, err := c.rank(ctx, "ZRANK", key, member, false)
	return rs.Rank, ok, err
}

// ZRevRank is ZRank counted from the highest score, as Redis's ZREVRANK.
// Cost: as ZRank.
//
// [ZREVRANK]: https://redis.io/docs/latest/commands/zrevrank/
func (c *Client) ZRevRank(ctx context.Context, key, member string) (_ int64, _ bool, err error) {
	ctx, traced := c.command(ctx, "ZRevRank")
	defer traced.end(&err)
	rs, ok, err := c.rank(ctx, "ZREVRANK", key, member, true)
	return rs.Rank, ok, err
}

// ZRankWithScore is ZRANK ... WITHSCORE. Cost: as ZRank.
func (c *Client) ZRankWithScore(ctx context.Context, key, member string) (_ RankScore, _ bool, err error) {
	ctx, traced := c.command(ctx, "ZRankWithScore")
	defer traced.end(&err)
	return c.rank(ctx, "ZRANK", key, member, false)
}

// ZRevRankWithScore is ZREVRANK ... WITHSCORE. Cost: as ZRevRank.
func (c *Client) ZRevRankWithScore(ctx context.Context, key, member string) (_ RankScore, _ bool, err error) {
	ctx, traced := c.command(ctx, "ZRevRankWithScore")
	defer traced.end(&err)
	return c.rank(ctx, "ZREVRANK", key, member, true)
}

func (c *Client) rank(ctx context.Context, cmd, key, member string, rev bool) (RankScore, bool, error) {
	if err := c.checkKeyMembers(cmd, key, []string{member}); err != nil {
		return RankScore{}, false, err
	}
	rs, ok, err := c.view().rank(ctx, key, member, rev)
	return rs, ok, wrap(cmd, err)
}

// removeRange deletes the members of a resolved range through the
// transaction writer and returns how many it deleted.
func (c *Client) removeRange(ctx context.Context, cmd, key string, r zrange) (int64, error) {
	zs, err := c.view().read(ctx, key, r)
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
func (c *Client) ZRemRangeByScore(ctx context.Context, key, min, max string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZRemRangeByScore")
	defer traced.end(&err)
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
func (c *Client) ZRemRangeByRank(ctx context.Context, key string, start, stop int64) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZRemRangeByRank")
	defer traced.end(&err)
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
func (c *Client) ZRemRangeByLex(ctx context.Context, key, min, max string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZRemRangeByLex")
	defer traced.end(&err)
	r, err := resolveChecked("ZREMRANGEBYLEX", key, min, max, c.lexRange)
	if err != nil {
		return 0, err
	}
	return c.removeRange(ctx, "ZREMRANGEBYLEX", key, r)
}

// ZRangeArgs is the unified ZRANGE (BYSCORE, BYLEX, REV, LIMIT).
//
// [ZRANGE]: https://redis.io/docs/latest/commands/zrange/
func (c *Client) ZRangeArgs(ctx context.Context, z ZRangeArgs) (_ []string, err error) {
	ctx, traced := c.command(ctx, "ZRangeArgs")
	defer traced.end(&err)
	zs, err := c.zRangeArgs(ctx, "ZRANGE", z, false)
	return members(zs), err
}
