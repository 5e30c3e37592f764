package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/redisarg"
	"github.com/redimo-go/redimo/internal/resp"
)

// zsetCommands are the SORTED SET family. Arguments are parsed here, with
// Redis 7.0's errors in Redis's order (options, then ranges, then the
// key), and handed to the library in canonical form.
func zsetCommands() []*Command {
	z := keyedCommand("sorted-set")
	zr := func(name string, arity int, flags string, first, last int, since, summary string, zc zrangeCall) *Command {
		return z(name, arity, flags, first, last, since, summary, func(c *call) resp.Value { return zrange(c, zc) })
	}
	return []*Command{
		z("zadd", -4, "write denyoom fast", 1, 1, "1.2.0", "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist.", zadd),
		z("zincrby", 4, "write denyoom fast", 1, 1, "1.2.0", "Increments the score of a member in a sorted set.", func(c *call) resp.Value {
			by, ok := redisarg.Float(c.args[2])
			if !ok {
				return resp.Err(msgNotFloat)
			}
			f, err := c.st.ZIncrBy(c.ctx, c.args[1], by, c.args[3])
			return c.incrReply(f, true, err)
		}),
		z("zrem", -3, "write fast", 1, 1, "1.2.0", "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.", onKeyArgs(redimo.Pipeliner.ZRem, resp.Int)),
		z("zcard", 2, "readonly fast", 1, 1, "1.2.0", "Returns the number of members in a sorted set.", onKey(redimo.Pipeliner.ZCard, resp.Int)),
		z("zscore", 3, "readonly fast", 1, 1, "1.2.0", "Returns the score of a member in a sorted set.", func(c *call) resp.Value {
			f, ok, err := c.st.ZScore(c.ctx, c.args[1], c.args[2])
			return reply(c, f, err, func(f float64) resp.Value { return dblOrNil(f, ok) })
		}),
		z("zmscore", -3, "readonly fast", 1, 1, "6.2.0", "Returns the score of one or more members in a sorted set.", func(c *call) resp.Value {
			fs, oks, err := c.st.ZMScore(c.ctx, c.args[1], c.rest(2)...)
			return reply(c, fs, err, func(fs []float64) resp.Value {
				out := make([]resp.Value, len(fs))
				for i := range fs {
					out[i] = dblOrNil(fs[i], oks[i])
				}
				return resp.Arr(out...)
			})
		}),
		z("zcount", 4, "readonly fast", 1, 1, "2.0.0", "Returns the count of members in a sorted set that have scores within a range.", func(c *call) resp.Value {
			n, err := c.st.ZCount(c.ctx, c.args[1], c.args[2], c.args[3])
			return rangeReply(c, n, err, resp.Int)
		}),
		z("zlexcount", 4, "readonly fast", 1, 1, "2.8.9", "Returns the number of members in a sorted set within a lexicographical range.", func(c *call) resp.Value {
			n, err := c.st.ZLexCount(c.ctx, c.args[1], c.args[2], c.args[3])
			return rangeReply(c, n, err, resp.Int)
		}),
		z("zrank", -3, "readonly fast", 1, 1, "2.0.0", "Returns the index of a member in a sorted set ordered by ascending scores.", func(c *call) resp.Value { return zrank(c, false) }),
		z("zrevrank", -3, "readonly fast", 1, 1, "2.0.0", "Returns the index of a member in a sorted set ordered by descending scores.", func(c *call) resp.Value { return zrank(c, true) }),
		zr("zrange", -4, "readonly", 1, 1, "1.2.0", "Returns members in a sorted set within a range of indexes (or scores, BYSCORE, or members, BYLEX).", zrangeCall{from: 1, auto: true}),
		zr("zrangestore", -5, "write denyoom", 1, 2, "6.2.0", "Stores a range of members from sorted set in a key.", zrangeCall{from: 2, auto: true, store: true}),
		zr("zrevrange", -4, "readonly", 1, 1, "1.2.0", "Returns members in a sorted set within a range of indexes in reverse order.", zrangeCall{from: 1, rev: true}),
		zr("zrangebyscore", -4, "readonly", 1, 1, "1.0.5", "Returns members in a sorted set within a range of scores.", zrangeCall{from: 1, byScore: true}),
		zr("zrevrangebyscore", -4, "readonly", 1, 1, "2.2.0", "Returns members in a sorted set within a range of scores in reverse order.", zrangeCall{from: 1, byScore: true, rev: true}),
		zr("zrangebylex", -4, "readonly", 1, 1, "2.8.9", "Returns members in a sorted set within a lexicographical range.", zrangeCall{from: 1, byLex: true}),
		zr("zrevrangebylex", -4, "readonly", 1, 1, "2.8.9", "Returns members in a sorted set within a lexicographical range in reverse order.", zrangeCall{from: 1, byLex: true, rev: true}),
		z("zremrangebyscore", 4, "write", 1, 1, "1.2.0", "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed.", func(c *call) resp.Value {
			n, err := c.st.ZRemRangeByScore(c.ctx, c.args[1], c.args[2], c.args[3])
			return rangeReply(c, n, err, resp.Int)
		}),
		z("zremrangebyrank", 4, "write", 1, 1, "2.0.0", "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.", func(c *call) resp.Value {
			start, ok1 := parseInt(c.args[2])
			stop, ok2 := parseInt(c.args[3])
			if !ok1 || !ok2 {
				return resp.Err(msgNotInt)
			}
			n, err := c.st.ZRemRangeByRank(c.ctx, c.args[1], start, stop)
			return reply(c, n, err, resp.Int)
		}),
		z("zremrangebylex", 4, "write", 1, 1, "2.8.9", "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.", func(c *call) resp.Value {
			n, err := c.st.ZRemRangeByLex(c.ctx, c.args[1], c.args[2], c.args[3])
			return rangeReply(c, n, err, resp.Int)
		}),
		z("zpopmin", -2, "write fast", 1, 1, "5.0.0", "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.", func(c *call) resp.Value {
			return zpop(c, c.st.ZPopMin)
		}),
		z("zpopmax", -2, "write fast", 1, 1, "5.0.0", "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.", func(c *call) resp.Value {
			return zpop(c, c.st.ZPopMax)
		}),
		z("zunionstore", -4, "write denyoom", 1, 1, "2.0.0", "Stores the union of multiple sorted sets in a key.", func(c *call) resp.Value { return zalgebra(c, opUnion, true) }),
		z("zinterstore", -4, "write denyoom", 1, 1, "2.0.0", "Stores the intersect of multiple sorted sets in a key.", func(c *call) resp.Value { return zalgebra(c, opInter, true) }),
		z("zdiffstore", -4, "write denyoom", 1, 1, "6.2.0", "Stores the difference of multiple sorted sets in a key.", func(c *call) resp.Value { return zalgebra(c, opDiff, true) }),
		z("zunion", -3, "readonly", 0, 0, "6.2.0", "Returns the union of multiple sorted sets.", func(c *call) resp.Value { return zalgebra(c, opUnion, false) }),
		z("zinter", -3, "readonly", 0, 0, "6.2.0", "Returns the intersect of multiple sorted sets.", func(c *call) resp.Value { return zalgebra(c, opInter, false) }),
		z("zdiff", -3, "readonly", 0, 0, "6.2.0", "Returns the difference between multiple sorted sets.", func(c *call) resp.Value { return zalgebra(c, opDiff, false) }),
		z("zintercard", -3, "readonly", 0, 0, "7.0.0", "Returns the number of members of the intersect of multiple sorted sets.", func(c *call) resp.Value { return zalgebra(c, opCard, false) }),
		z("zrandmember", -2, "readonly", 1, 1, "6.2.0", "Returns one or more random members from a sorted set.", zrandmember),
		z("zscan", -3, "readonly", 1, 1, "2.8.0", "Iterates over members and scores of a sorted set (redimo: cursor 0 returns every match at once, with cursor 0).", func(c *call) resp.Value {
			// The scores are strings in both protocols, as in Redis.
			return memberScan(c, "zset", func(match string) ([]string, error) {
				return gather(c.db.ZScan(c.ctx, c.args[1], match), func(z redimo.Z) []string { return []string{z.Member, scanScore(z.Score)} })
			})
		}),
	}
}

func dblOrNil(f float64, ok bool) resp.Value {
	if !ok {
		return resp.Nil()
	}
	return resp.Dbl(f)
}

// incrReply is the reply of ZINCRBY and ZADD INCR: an increment whose
// result is not a number is refused (the increment itself was checked).
func (c *call) incrReply(f float64, ok bool, err error) resp.Value {
	if errors.Is(err, redimo.ErrNotFloat) {
		return resp.Err("ERR resulting score is not a number (NaN)")
	}
	return reply(c, f, err, func(f float64) resp.Value { return dblOrNil(f, ok) })
}

// withScores is a reply of members and scores: a flat array in RESP2,
// an array of [member, score] pairs in RESP3, as Redis 7.0.
func (c *call) withScores(zs []redimo.Z) resp.Value {
	out := make([]resp.Value, 0, 2*len(zs))
	for _, z := range zs {
		if c.sess.Proto() >= 3 {
			out = append(out, resp.Arr(resp.Bulk(z.Member), resp.Dbl(z.Score)))
		} else {
			out = append(out, resp.Bulk(z.Member), resp.Dbl(z.Score))
		}
	}
	return resp.Arr(out...)
}

func membersOf(zs []redimo.Z) resp.Value {
	out := make([]string, len(zs))
	for i, z := range zs {
		out[i] = z.Member
	}
	return resp.Strings(out)
}

// zadd is ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...].
func zadd(c *call) resp.Value {
	var a redimo.ZAddArgs
	incr := false
	i := 2
options:
	for ; i < len(c.args); i++ {
		switch strings.ToLower(c.args[i]) {
		case "nx":
			a.NX = true
		case "xx":
			a.XX = true
		case "gt":
			a.GT = true
		case "lt":
			a.LT = true
		case "ch":
			a.Ch = true
		case "incr":
			incr = true
		default:
			break options
		}
	}
	pairs := c.args[i:]
	switch {
	case len(pairs) == 0 || len(pairs)%2 != 0:
		return resp.Err(msgSyntax)
	case a.NX && a.XX:
		return resp.Err("ERR XX and NX options at the same time are not compatible")
	case a.GT && a.NX, a.LT && a.NX, a.GT && a.LT:
		return resp.Err("ERR GT, LT, and/or NX options at the same time are not compatible")
	case incr && len(pairs) > 2:
		return resp.Err("ERR INCR option supports a single increment-element pair")
	}
	for j := 0; j < len(pairs); j += 2 {
		f, ok := redisarg.Float(pairs[j])
		if !ok {
			return resp.Err(msgNotFloat)
		}
		a.Members = append(a.Members, redimo.Z{Score: f, Member: pairs[j+1]})
	}
	if incr {
		f, ok, err := c.st.ZAddArgsIncr(c.ctx, c.args[1], a)
		return c.incrReply(f, ok, err)
	}
	n, err := c.st.ZAddArgs(c.ctx, c.args[1], a)
	return reply(c, n, err, resp.Int)
}

// zrank is Z[REV]RANK key member [WITHSCORE] (WITHSCORE: Redis 7.2).
func zrank(c *call, rev bool) resp.Value {
	key, member := c.args[1], c.args[2]
	switch {
	case len(c.args) > 4 || len(c.args) == 4 && !strings.EqualFold(c.args[3], "withscore"):
		return resp.Err(msgSyntax)
	case len(c.args) == 4:
		f := c.st.ZRankWithScore
		if rev {
			f = c.st.ZRevRankWithScore
		}
		rs, ok, err := f(c.ctx, key, member)
		return reply(c, rs, err, func(rs redimo.RankScore) resp.Value {
			if !ok {
				return resp.NilArray()
			}
			return resp.Arr(resp.Int(rs.Rank), resp.Dbl(rs.Score))
		})
	}
	f := c.st.ZRank
	if rev {
		f = c.st.ZRevRank
	}
	n, ok, err := f(c.ctx, key, member)
	return reply(c, n, err, func(n int64) resp.Value {
		if !ok {
			return resp.Nil()
		}
		return resp.Int(n)
	})
}

// zrangeCall is the variant of ZRANGE being run: where its key is, and
// what its name fixes (BYSCORE, BYLEX, REV); auto lets options choose.
type zrangeCall struct {
	from                 int
	auto, store          bool
	byScore, byLex, rev  bool
	withScores, hasLimit bool
}

// zrange runs ZRANGE, ZRANGESTORE and the older Z[REV]RANGE[BYSCORE|BYLEX]
// as Redis 7.0's zrangeGenericCommand.
func zrange(c *call, z zrangeCall) resp.Value {
	var dst string
	if z.store {
		dst = c.args[1]
	}
	a := redimo.ZRangeArgs{Key: c.args[z.from], Start: c.args[z.from+1], Stop: c.args[z.from+2]}
	revSet, typeSet := !z.auto, !z.auto // REV, BYSCORE/BYLEX allowed once, in ZRANGE only
	for j := z.from + 3; j < len(c.args); j++ {
		left := len(c.args) - j - 1
		switch opt := strings.ToLower(c.args[j]); {
		case !z.store && opt == "withscores":
			z.withScores = true
		case opt == "limit" && left >= 2:
			off, ok1 := parseInt(c.args[j+1])
			cnt, ok2 := parseInt(c.args[j+2])
			if !ok1 || !ok2 {
				return resp.Err(msgNotInt)
			}
			a.Offset, a.Count, z.hasLimit = off, cnt, true
			j += 2
		case !revSet && opt == "rev":
			z.rev, revSet = true, true
		case !typeSet && opt == "bylex":
			z.byLex, typeSet = true, true
		case !typeSet && opt == "byscore":
			z.byScore, typeSet = true, true
		default:
			return resp.Err(msgSyntax)
		}
	}
	a.ByScore, a.ByLex, a.Rev = z.byScore, z.byLex, z.rev
	byRank := !z.byScore && !z.byLex
	switch {
	case z.hasLimit && a.Count != -1 && byRank:
		return resp.Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	case z.withScores && z.byLex:
		return resp.Err("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
	}
	switch {
	case byRank: // the library reads the ranks (string2ll): ErrNotInteger is msgNotInt
		a.Offset, a.Count, z.hasLimit = 0, 0, false
	case z.byScore:
		if bad := checkScoreRange(a.Start, a.Stop); bad.Kind != 0 {
			return bad
		}
	case z.byLex:
		if bad := checkLexRange(a.Start, a.Stop); bad.Kind != 0 {
			return bad
		}
	}
	// Redis's LIMIT: a negative offset or a count of 0 selects nothing,
	// a negative count everything after the offset. The library reads
	// count 0 as no limit: select an empty score range instead.
	if z.hasLimit && (a.Offset < 0 || a.Count == 0) {
		a = redimo.ZRangeArgs{Key: a.Key, Start: "+inf", Stop: "-inf", ByScore: true}
	} else if z.hasLimit && a.Count < 0 {
		a.Count = -1
	}
	switch {
	case z.store:
		n, err := c.db.ZRangeStore(c.ctx, dst, a)
		return reply(c, n, err, resp.Int)
	case z.withScores:
		zs, err := c.st.ZRangeArgsWithScores(c.ctx, a)
		return reply(c, zs, err, c.withScores)
	}
	ms, err := c.st.ZRangeArgs(c.ctx, a)
	return reply(c, ms, err, resp.Strings)
}

// zpop is ZPOPMIN/ZPOPMAX key [count]: without count a flat [member,
// score]; with count, in RESP3, pairs.
func zpop(c *call, pop func(ctx context.Context, key string, count ...int64) ([]redimo.Z, error)) resp.Value {
	switch len(c.args) {
	case 2:
		zs, err := pop(c.ctx, c.args[1])
		return reply(c, zs, err, func(zs []redimo.Z) resp.Value {
			if len(zs) == 0 {
				return resp.Arr()
			}
			return resp.Arr(resp.Bulk(zs[0].Member), resp.Dbl(zs[0].Score))
		})
	case 3:
		n, ok := parseInt(c.args[2])
		if !ok || n < 0 {
			return resp.Err(msgMustPositive)
		}
		zs, err := pop(c.ctx, c.args[1], n)
		return reply(c, zs, err, c.withScores)
	}
	return resp.Err(msgSyntax)
}

// zalgebra ops.
const (
	opUnion = iota
	opInter
	opDiff
	opCard
)

// zalgebra runs ZUNION[STORE], ZINTER[STORE], ZDIFF[STORE] and ZINTERCARD
// as Redis 7.0's zunionInterDiffGenericCommand.
func zalgebra(c *call, op int, store bool) resp.Value {
	at := 1
	var dst string
	if store {
		dst, at = c.args[1], 2
	}
	n, ok := parseInt(c.args[at])
	switch {
	case !ok:
		return resp.Err(msgNotInt)
	case n < 1:
		return resp.Err(fmt.Sprintf("ERR at least 1 input key is needed for '%s' command", c.cmd.Name))
	case n > int64(len(c.args)-at-1):
		return resp.Err(msgSyntax)
	}
	keys := c.args[at+1 : at+1+int(n)]
	st := &redimo.ZStore{Keys: keys}
	var withScores bool
	var limit int64
	var bad resp.Value
	opts := c.args[at+1+int(n):]
	for j := 0; j < len(opts) && bad.Kind == 0; {
		left := len(opts) - j
		switch opt := strings.ToLower(opts[j]); {
		case (op == opUnion || op == opInter) && opt == "weights" && left >= len(keys)+1:
			st.Weights = make([]float64, len(keys))
			for i := range keys {
				w, ok := redisarg.Float(opts[j+1+i])
				if !ok {
					bad = resp.Err("ERR weight value is not a float")
					break
				}
				st.Weights[i] = w
			}
			j += 1 + len(keys)
		case (op == opUnion || op == opInter) && opt == "aggregate" && left >= 2:
			switch agg := strings.ToUpper(opts[j+1]); agg {
			case "SUM", "MIN", "MAX", "COUNT": // COUNT: Redis 8.8
				st.Aggregate = redimo.Aggregate(agg)
			default:
				bad = resp.Err(msgSyntax)
			}
			j += 2
		case !store && op != opCard && opt == "withscores":
			withScores = true
			j++
		case op == opCard && opt == "limit" && left >= 2:
			l, ok := parseInt(opts[j+1])
			if !ok || l < 0 {
				bad = resp.Err("ERR LIMIT can't be negative")
			}
			limit = l
			j += 2
		default:
			bad = resp.Err(msgSyntax)
		}
	}
	if bad.Kind != 0 {
		// Redis looks the keys up before it reads the options.
		if wrong, err := c.wrongType(keys, "zset", "set"); err != nil || wrong {
			return reply(c, 0, err, func(int) resp.Value { return resp.Err(msgWrongType) })
		}
		return bad
	}
	var zs []redimo.Z
	var err error
	switch {
	case op == opCard:
		n, err := c.db.ZInterCard(c.ctx, limit, keys...)
		return reply(c, n, err, resp.Int)
	case store && op == opUnion:
		n, err := c.db.ZUnionStore(c.ctx, dst, st)
		return reply(c, n, err, resp.Int)
	case store && op == opInter:
		n, err := c.db.ZInterStore(c.ctx, dst, st)
		return reply(c, n, err, resp.Int)
	case store:
		n, err := c.db.ZDiffStore(c.ctx, dst, keys...)
		return reply(c, n, err, resp.Int)
	case op == opUnion:
		zs, err = c.db.ZUnionWithScores(c.ctx, *st)
	case op == opInter:
		zs, err = c.db.ZInterWithScores(c.ctx, st)
	default:
		zs, err = c.db.ZDiffWithScores(c.ctx, keys...)
	}
	if withScores {
		return reply(c, zs, err, c.withScores)
	}
	return reply(c, zs, err, membersOf)
}

// wrongType reports whether one of keys holds a type other than allowed.
func (c *call) wrongType(keys []string, allowed ...string) (bool, error) {
	for _, k := range keys {
		t, err := c.db.Type(c.ctx, k)
		if err != nil {
			return false, err
		}
		if t != "none" && !slices.Contains(allowed, t) {
			return true, nil
		}
	}
	return false, nil
}

// zrandmember is ZRANDMEMBER key [count [WITHSCORES]].
func zrandmember(c *call) resp.Value {
	key := c.args[1]
	if len(c.args) == 2 {
		ms, err := c.db.ZRandMember(c.ctx, key, 1)
		return reply(c, ms, err, func(ms []string) resp.Value {
			if len(ms) == 0 {
				return resp.Nil()
			}
			return resp.Bulk(ms[0])
		})
	}
	n, ok := parseInt(c.args[2])
	switch {
	case !ok:
		return resp.Err(msgNotInt)
	case n == -1<<63:
		return resp.Err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
	case len(c.args) > 4 || len(c.args) == 4 && !strings.EqualFold(c.args[3], "withscores"):
		return resp.Err(msgSyntax)
	case len(c.args) == 4:
		if n < -(1<<62-1) || n > 1<<62-1 { // Redis: beyond ±LONG_MAX/2
			return resp.Err(msgOutOfRange)
		}
		zs, err := c.db.ZRandMemberWithScores(c.ctx, key, int(n))
		return reply(c, zs, err, c.withScores)
	}
	ms, err := c.db.ZRandMember(c.ctx, key, int(n))
	return reply(c, ms, err, resp.Strings)
}

// scanScore formats a score as ZSCAN shows it: the score as Redis stores it
// in a small sorted set (d2string), an integer when it is one of magnitude
// at most 2^62, else as a double reply.
func scanScore(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) <= math.MaxInt64/2 && f != 0 {
		return strconv.FormatInt(int64(f), 10)
	}
	return resp.FormatDouble(f)
}
