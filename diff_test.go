package redimo

// The commands the differential test (oracle_test.go) adds for the
// library: every form of ZRANGE, ZRANGESTORE, ZUNION/ZINTER/ZDIFF and their
// cardinality, ZADD with any combination of options (INCR included), ZRANK
// WITHSCORE, SSCAN/ZSCAN with MATCH, SRANDMEMBER/SPOP/ZRANDMEMBER/ZPOP
// without or with huge counts, key expiry (EXPIRE ... PERSIST, TTL),
// commands without members or keys, and bound, rank and score strings
// at the edges of what Redis parses (hex, spaces, "", overflow, -0).

import (
	"context"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// extraCases is how many cases gen.extra draws from.
const extraCases = 47

const huge = int64(1) << 40

var (
	// Scores beyond oracleScores: -0 (Redis replies 0), the largest and
	// smallest doubles (sums overflow to ±inf), a float with no exact
	// decimal form.
	extraScores = append(slices.Clone(oracleScores), math.Copysign(0, -1), 1e308, -1e308, 5e-324, 0.1)
	// Score bounds as Redis's strtod reads them, and what it refuses.
	extraBounds = append(slices.Clone(oracleBounds), "", "(", " 1", "\t(1", "0x10", "0x1p-1", "1e400", "(-1e400", "-0", "(-0",
		"inf", "-infinity", "+INF", "1e-320", "nan", "(nan", "abc", "1_0", "1 ", "--1", ".5", "5.")
	// Lex bounds, valid and not.
	extraLex = append(slices.Clone(oracleLex), "a", "", "+x", "-a", "(", "[\x00", "(héllo")
	// Ranks as Redis's string2ll reads them, and what it refuses.
	extraRanks = []string{"0", "1", "2", "-1", "-2", "-3", "-100", "100", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "01", "+1", "-0", "1.5", " 1", "abc", ""}
	extraLimits = []int64{-1, 0, 1, 2, huge}
	// SSCAN/ZSCAN patterns (globs are compared in depth by glob_test.go).
	scanPatterns = []string{"", "*", "a*", "?", "[a-c]", "h*", "*\xff*", "[^a]", `\*`, "[", "*o"}
	// Key expiry: seconds and milliseconds far enough in the future never
	// to fire during a run, or not in the future at all (the key goes).
	expireSecs = []int64{-1, 0, 100, 200, 1000}
	expireAts  = []int64{1, 4102444800, 4102444900} // 1970, 2100
	// EXPIRE's options and the ExpireCondition for them; XX GT is GT (no
	// expiry counts as infinite); the last two Redis refuses.
	expireCond = []struct {
		redis  string
		redimo ExpireCondition
	}{{"", ExpireAlways}, {"", ExpireAlways}, {"NX", ExpireNX}, {"XX", ExpireXX}, {"GT", ExpireGT}, {"LT", ExpireLT},
		{"XX LT", ExpireXXLT}, {"LT XX", ExpireXXLT}, {"XX GT", ExpireGT}, {"NX GT", ExpireCondition(100)}, {"GT LT", ExpireCondition(101)}}
)

// bigMembers are the members of gen.big: hundreds of short ones, a few
// long enough that a few dozen fill a 1 MB query page, and long members
// (over model.InlineMemberLen bytes: internal/model/keys.go's "Long members"), some sharing
// their first 1015 bytes so that their order is not the sort keys'.
var bigMembers = func() []string {
	var out []string
	for i := range 300 {
		out = append(out, fmt.Sprintf("m%03d", i))
	}
	for i := range 40 {
		out = append(out, fmt.Sprintf("L%02d", i)+strings.Repeat("x", model.InlineMemberLen-3))
	}
	return append(append(out, longMembers...), oracleMembers...)
}()

// longMembers are members of 1,016 to 100,000 bytes; the "Lshared" ones
// share their first 1015 bytes with each other and with a short member.
var longMembers = func() []string {
	shared := "Lshared" + strings.Repeat("s", model.InlineMemberLen-7)
	out := []string{shared, shared + "b", shared + "a", shared + "\x00", shared + "ab" + strings.Repeat("z", 5000),
		shared + "\xff" + strings.Repeat("é", 600)}
	for _, n := range []int{1016, 2000, 20_000, 100_000} {
		out = append(out, fmt.Sprintf("L%d-", n)+strings.Repeat("y", n-len(fmt.Sprint(n))-2))
	}
	return out
}()

func pick[T any](g *gen, from []T) T { return from[g.r.IntN(len(from))] }

func (g *gen) extra(k string, c int) op {
	switch c {
	case 0:
		return op{args: []string{"SRANDMEMBER", k}, kind: random, redimo: func(ctx context.Context, c *Client) (any, error) {
			m, ok, err := c.SRandMember(ctx, k)
			return one(m, ok), err
		}, special: randomCheck(k, 1, "SMEMBERS")}
	case 1:
		return op{args: []string{"SPOP", k}, kind: random, redimo: func(ctx context.Context, c *Client) (any, error) {
			m, ok, err := c.SPop(ctx, k)
			return one(m, ok), err
		}, special: popCheck(k, 1)}
	case 2:
		n := pick(g, []int64{huge, math.MaxInt64})
		return op{args: []string{"SRANDMEMBER", k, i64(n)}, kind: random, redimo: func(ctx context.Context, c *Client) (any, error) { return c.SRandMemberN(ctx, k, n) },
			special: randomCheck(k, n, "SMEMBERS")}
	case 3:
		return op{args: []string{"SPOP", k, i64(huge)}, kind: random, redimo: func(ctx context.Context, c *Client) (any, error) { return c.SPopN(ctx, k, huge) },
			special: popCheck(k, huge)}
	case 4:
		p := pick(g, scanPatterns)
		return op{args: []string{"SSCAN", k, "0", "MATCH", p}, kind: unordered, redimo: func(ctx context.Context, c *Client) (any, error) {
			var out []string
			for m, err := range c.SScan(ctx, k, p) {
				if err != nil {
					return nil, err
				}
				out = append(out, m)
			}
			return out, nil
		}, redis: scanAll("SSCAN", k, p, false)}
	case 5:
		p := pick(g, scanPatterns)
		return op{args: []string{"ZSCAN", k, "0", "MATCH", p}, kind: unordered, redimo: func(ctx context.Context, c *Client) (any, error) {
			var out []any
			for z, err := range c.ZScan(ctx, k, p) {
				if err != nil {
					return nil, err
				}
				out = append(out, []any{z.Member, z.Score})
			}
			return out, nil
		}, redis: scanAll("ZSCAN", k, p, true)}
	case 6, 7:
		n, ws := pick(g, []int{-3, -1, 0, 1, 2, 3, 10, int(huge)}), g.r.IntN(2) == 0
		args := []string{"ZRANDMEMBER", k, strconv.Itoa(n)}
		if ws {
			args = append(args, "WITHSCORES")
		}
		return op{args: args, kind: random, redimo: func(ctx context.Context, c *Client) (any, error) {
			if ws {
				return c.ZRandMemberWithScores(ctx, k, n)
			}
			return c.ZRandMember(ctx, k, n)
		}, special: zrandCheck(k, int64(n))}
	case 8, 9, 10:
		return g.zaddAny(k)
	case 11:
		m, by := g.member(), pick(g, extraScores)
		return op{args: []string{"ZINCRBY", k, fmtScore(by), m}, redimo: func(ctx context.Context, c *Client) (any, error) { return c.ZIncrBy(ctx, k, by, m) }}
	case 12, 13, 14, 15:
		z, tail, lexKey := g.zrangeArgs(k)
		ws := g.r.IntN(2) == 0
		args := cat([]string{"ZRANGE", k}, tail...)
		if ws {
			args = append(args, "WITHSCORES")
		}
		return op{args: args, lexKey: lexKey, redimo: func(ctx context.Context, c *Client) (any, error) {
			if ws {
				return zreply(c.ZRangeArgsWithScores(ctx, z))(true)
			}
			return c.ZRangeArgs(ctx, z)
		}}
	case 16, 17:
		dst := g.key()
		z, tail, lexKey := g.zrangeArgs(k)
		return op{args: cat([]string{"ZRANGESTORE", dst, k}, tail...), lexKey: lexKey, redimo: func(ctx context.Context, c *Client) (any, error) {
			return c.ZRangeStore(ctx, dst, z)
		}}
	case 18, 19:
		st, tail := g.zstoreArgs(true)
		union, ws := g.r.IntN(2) == 0, g.r.IntN(2) == 0
		cmd := map[bool]string{true: "ZUNION", false: "ZINTER"}[union]
		args := cat([]string{cmd}, tail...)
		if ws {
			args = append(args, "WITHSCORES")
		}
		return op{args: args, redis: countModel(args, 2, len(st.Keys)), redimo: func(ctx context.Context, c *Client) (any, error) {
			switch {
			case union && ws:
				return zreply(c.ZUnionWithScores(ctx, *st))(true)
			case union:
				return c.ZUnion(ctx, *st)
			case ws:
				return zreply(c.ZInterWithScores(ctx, st))(true)
			}
			return c.ZInter(ctx, st)
		}}
	case 20:
		ks := g.keysN(3)
		return op{args: cat([]string{"ZDIFF", strconv.Itoa(len(ks))}, ks...), redimo: func(ctx context.Context, c *Client) (any, error) { return c.ZDiff(ctx, ks...) }}
	case 21:
		ks := g.keysN(3)
		return op{args: cat([]string{"ZDIFFSTORE", k, strconv.Itoa(len(ks))}, ks...), redimo: func(ctx context.Context, c *Client) (any, error) { return c.ZDiffStore(ctx, k, ks...) }}
	case 22:
		ks, l := g.keysN(3), pick(g, []int64{0, 1, 2, huge, -1})
		return op{args: cat(cat([]string{"ZINTERCARD", strconv.Itoa(len(ks))}, ks...), "LIMIT", i64(l)), redimo: func(ctx context.Context, c *Client) (any, error) { return c.ZInterCard(ctx, l, ks...) }}
	case 23:
		m, rev := g.member(), g.r.IntN(2) == 0
		cmd := map[bool]string{false: "ZRANK", true: "ZREVRANK"}[rev]
		return op{args: []string{cmd, k, m, "WITHSCORE"}, redimo: func(ctx context.Context, c *Client) (any, error) {
			f := c.ZRankWithScore
			if rev {
				f = c.ZRevRankWithScore
			}
			rs, ok, err := f(ctx, k, m)
			if !ok {
				return nil, err
			}
			return []any{rs.Rank, rs.Score}, err
		}, redis: func(ctx context.Context, rdb *redis.Client) (any, error) {
			// The oracle is Redis 7.0: WITHSCORE is ZRANK then ZSCORE.
			rank, err := rdb.Do(ctx, cmd, k, m).Result()
			if err != nil {
				return nil, err
			}
			score, err := rdb.Do(ctx, "ZSCORE", k, m).Result()
			return []any{rank, score}, err
		}}
	case 24:
		lo, hi, rev := pick(g, extraLex), pick(g, extraLex), g.r.IntN(2) == 0
		off, cnt := pick(g, extraLimits), pick(g, extraLimits)
		if off == 0 && cnt == 0 {
			cnt = 1 // LIMIT 0 0 is "none" in Redis but "no limit" in ZRangeBy
		}
		args := []string{map[bool]string{false: "ZRANGEBYLEX", true: "ZREVRANGEBYLEX"}[rev], k, lo, hi}
		if rev {
			args[2], args[3] = hi, lo
		}
		args = append(args, "LIMIT", i64(off), i64(cnt))
		return op{args: args, lexKey: k, redimo: func(ctx context.Context, c *Client) (any, error) {
			f := c.ZRangeByLex
			if rev {
				f = c.ZRevRangeByLex
			}
			return f(ctx, k, &ZRangeBy{Min: lo, Max: hi, Offset: off, Count: cnt})
		}}
	case 25:
		lo, hi := pick(g, extraBounds), pick(g, extraBounds)
		if g.r.IntN(2) == 0 {
			return op{args: []string{"ZCOUNT", k, lo, hi}, redimo: func(ctx context.Context, c *Client) (any, error) { return c.ZCount(ctx, k, lo, hi) }}
		}
		return op{args: []string{"ZREMRANGEBYSCORE", k, lo, hi}, redimo: func(ctx context.Context, c *Client) (any, error) { return c.ZRemRangeByScore(ctx, k, lo, hi) }}
	case 26:
		start, stop := pick(g, []int64{math.MinInt64, -huge, -1, 0, 1, huge, math.MaxInt64}), pick(g, []int64{math.MinInt64, -huge, -2, -1, 0, 2, huge, math.MaxInt64})
		if g.r.IntN(2) == 0 {
			return op{args: []string{"ZREMRANGEBYRANK", k, i64(start), i64(stop)}, redimo: func(ctx context.Context, c *Client) (any, error) { return c.ZRemRangeByRank(ctx, k, start, stop) }}
		}
		return op{args: []string{"ZREVRANGE", k, i64(start), i64(stop), "WITHSCORES"}, redimo: func(ctx context.Context, c *Client) (any, error) {
			return zreply(c.ZRevRangeWithScores(ctx, k, start, stop))(true)
		}}
	case 27:
		rev := g.r.IntN(2) == 0
		cmd := map[bool]string{false: "ZPOPMIN", true: "ZPOPMAX"}[rev]
		counts := [][]int64{nil, {-1}, {0}, {huge}}
		n := counts[g.r.IntN(len(counts))]
		args := []string{cmd, k}
		if n != nil {
			args = append(args, i64(n[0]))
		}
		return op{args: args, redimo: func(ctx context.Context, c *Client) (any, error) {
			f := c.ZPopMin
			if rev {
				f = c.ZPopMax
			}
			return zreply(f(ctx, k, n...))(true)
		}}
	case 28:
		ks, l := g.keysN(3), pick(g, []int64{huge, -1})
		return op{args: cat(cat([]string{"SINTERCARD", strconv.Itoa(len(ks))}, ks...), "LIMIT", i64(l)),
			redimo: func(ctx context.Context, c *Client) (any, error) { return c.SInterCard(ctx, l, ks...) }}
	case 29:
		return g.noArguments(k)
	case 30, 31:
		return g.expire(k)
	case 32, 33:
		cmd := pick(g, []string{"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"})
		return op{args: []string{cmd, k}, kind: random, redimo: func(ctx context.Context, c *Client) (any, error) {
			switch cmd {
			case "PTTL":
				return c.PTTL(ctx, k)
			case "EXPIRETIME":
				return c.ExpireTime(ctx, k)
			case "PEXPIRETIME":
				return c.PExpireTime(ctx, k)
			}
			return c.TTL(ctx, k)
		}, special: ttlCheck(cmd, k)}
	case 34:
		return op{args: []string{"PERSIST", k}, redimo: func(ctx context.Context, c *Client) (any, error) { return c.Persist(ctx, k) }}
	case 35:
		return g.zmpop()
	case 36:
		return g.bzpop()
	case 38:
		return g.rename(k)
	case 37:
		// WATCH outside MULTI replies OK; the library's Watch then sees
		// no change (nothing ran in between).
		ks, viaWatch := g.keysN(2), g.r.IntN(2) == 0
		return op{args: cat([]string{"WATCH"}, ks...), redimo: func(ctx context.Context, c *Client) (any, error) {
			var w *Watch
			var err error
			if viaWatch {
				err = c.Watch(ctx, func(tx *Tx) error { w = tx.watch; return nil }, ks...)
			} else {
				w, err = c.WatchKeys(ctx, ks...)
			}
			if err != nil {
				return nil, err
			}
			if changed, err := w.Changed(ctx); err != nil || changed {
				return changed, err
			}
			return "OK", nil
		}}
	case 39, 40, 41, 42:
		return g.setCard()
	case 44:
		return g.transaction()
	case 45:
		return g.otherDB(k)
	case 46:
		// ZRankAround (no Redis command): ZRANK, then ZRANGE rank-n rank+n.
		m, rev, n := g.member(), g.r.IntN(2) == 0, pick(g, []int64{0, 1, 2, 5})
		rank, rng := map[bool]string{false: "ZRANK", true: "ZREVRANK"}[rev], map[bool]string{false: "ZRANGE", true: "ZREVRANGE"}[rev]
		return op{args: []string{rank + "AROUND", k, m, i64(n)}, redimo: func(ctx context.Context, c *Client) (any, error) {
			f := c.ZRankAround
			if rev {
				f = c.ZRevRankAround
			}
			a, ok, err := f(ctx, k, m, n)
			if !ok {
				return nil, err
			}
			out := []any{a.Rank, a.First}
			for _, z := range a.Members {
				out = append(out, z.Member, z.Score)
			}
			return out, err
		}, redis: func(ctx context.Context, rdb *redis.Client) (any, error) {
			r, err := rdb.Do(ctx, rank, k, m).Int64()
			if err != nil {
				return nil, err
			}
			zs, err := rdb.Do(ctx, rng, k, max(r-n, 0), r+n, "WITHSCORES").Slice()
			return append([]any{r, max(r-n, 0)}, zs...), err
		}}
	default:
		ks := g.keysN(3)
		st := &ZStore{Keys: ks}
		cmd := pick(g, []string{"ZINTERSTORE", "ZUNIONSTORE"})
		args := cat([]string{cmd, k, strconv.Itoa(len(ks))}, ks...)
		if g.r.IntN(2) == 0 {
			st.Aggregate = pick(g, []Aggregate{AggregateSum, AggregateMin, AggregateMax, AggregateCount})
			args = append(args, "AGGREGATE", string(st.Aggregate))
		}
		return op{args: args, redis: countModel(args, 3, len(ks)), redimo: func(ctx context.Context, c *Client) (any, error) {
			if cmd == "ZUNIONSTORE" {
				return c.ZUnionStore(ctx, k, st)
			}
			return c.ZInterStore(ctx, k, st)
		}}
	}
}

// zmpop is ZMPOP over one to three keys, MIN or MAX, with or without a
// COUNT (valid or not).
func (g *gen) zmpop() op {
	ks, order := g.keysN(3), pick(g, []PopOrder{PopMin, PopMax})
	args := cat(cat([]string{"ZMPOP", strconv.Itoa(len(ks))}, ks...), order.String())
	count := int64(1)
	if g.r.IntN(2) == 0 {
		count = pick(g, []int64{-1, 0, 1, 2, huge})
		args = append(args, "COUNT", i64(count))
	}
	return op{args: args, redimo: func(ctx context.Context, c *Client) (any, error) {
		return mpopReply(c.ZMPop(ctx, order, count, ks...))
	}}
}

// bzpop is BZPOPMIN, BZPOPMAX or BZMPOP with a 10 ms timeout: the oracle
// waits as long on empty keys, and both reply nil.
func (g *gen) bzpop() op {
	ks := g.keysN(3)
	switch g.r.IntN(3) {
	case 0, 1:
		rev := g.r.IntN(2) == 0
		cmd := map[bool]string{false: "BZPOPMIN", true: "BZPOPMAX"}[rev]
		return op{args: append(cat([]string{cmd}, ks...), "0.01"), redimo: func(ctx context.Context, c *Client) (any, error) {
			f := c.BZPopMin
			if rev {
				f = c.BZPopMax
			}
			z, ok, err := f(ctx, 10*time.Millisecond, ks...)
			if !ok {
				return nil, err
			}
			return []any{z.Key, z.Member, z.Score}, err
		}}
	}
	order, count := pick(g, []PopOrder{PopMin, PopMax}), pick(g, []int64{1, 2, huge})
	args := cat(cat([]string{"BZMPOP", "0.01", strconv.Itoa(len(ks))}, ks...), order.String(), "COUNT", i64(count))
	return op{args: args, redimo: func(ctx context.Context, c *Client) (any, error) {
		return mpopReply(c.BZMPop(ctx, 10*time.Millisecond, order, count, ks...))
	}}
}

// rename is RENAME, RENAMENX or COPY [REPLACE] between the sequence's keys
// (the same key included).
func (g *gen) rename(k string) op {
	dst := g.key()
	switch g.r.IntN(3) {
	case 0:
		return op{args: []string{"RENAME", k, dst}, redimo: func(ctx context.Context, c *Client) (any, error) {
			if err := c.Rename(ctx, k, dst); err != nil {
				return nil, err
			}
			return "OK", nil
		}}
	case 1:
		return op{args: []string{"RENAMENX", k, dst}, redimo: func(ctx context.Context, c *Client) (any, error) { return c.RenameNX(ctx, k, dst) }}
	}
	replace := g.r.IntN(2) == 0
	args := []string{"COPY", k, dst}
	if replace {
		args = append(args, "REPLACE")
	}
	return op{args: args, redimo: func(ctx context.Context, c *Client) (any, error) { return c.Copy(ctx, k, dst, replace) }}
}

// mpopReply is ZMPOP's reply: nil, or [key, [[member, score] ...]].
func mpopReply(key string, zs []Z, err error) (any, error) {
	if len(zs) == 0 {
		return nil, err
	}
	pairs := make([]any, len(zs))
	for i, z := range zs {
		pairs[i] = []any{z.Member, z.Score}
	}
	return []any{key, pairs}, err
}

// one is a reply that is one member or nil.
func one(m string, ok bool) []string {
	if !ok {
		return nil
	}
	return []string{m}
}

// scanAll iterates SSCAN/ZSCAN on the oracle to the end and returns the
// members (ZSCAN: [member score] pairs); the empty pattern is no MATCH, as
// in go-redis and redimo.
func scanAll(cmd, key, match string, pairs bool) func(context.Context, *redis.Client) (any, error) {
	return func(ctx context.Context, rdb *redis.Client) (any, error) {
		var out []any
		cursor := "0"
		for {
			args := []any{cmd, key, cursor}
			if match != "" {
				args = append(args, "MATCH", match)
			}
			reply, err := rdb.Do(ctx, append(args, "COUNT", 1000)...).Slice()
			if err != nil {
				return nil, err
			}
			page := reply[1].([]any)
			for i := 0; i < len(page); i++ {
				if !pairs {
					out = append(out, page[i].(string))
					continue
				}
				out = append(out, []any{page[i], page[i+1]})
				i++
			}
			if cursor = reply[0].(string); cursor == "0" {
				return out, nil
			}
		}
	}
}

// zrandCheck checks a ZRANDMEMBER reply ([]string or []Z) against the
// oracle: the count, membership, distinctness for count > 0, scores.
func zrandCheck(k string, n int64) func(context.Context, *redis.Client, any) (any, error) {
	return func(ctx context.Context, rdb *redis.Client, got any) (any, error) {
		all, err := rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
		if err != nil {
			return nil, err
		}
		var zs []Z
		switch v := got.(type) {
		case []string:
			for _, m := range v {
				zs = append(zs, Z{Member: m, Score: math.NaN()})
			}
		case []Z:
			zs = v
		}
		want := min(int(max(n, -n)), len(all))
		if n < 0 && len(all) > 0 {
			want = int(-n)
		}
		if len(zs) != want {
			return nil, fmt.Errorf("got %d members, want %d", len(zs), want)
		}
		seen := map[string]bool{}
		for _, z := range zs {
			i := slices.IndexFunc(all, func(rz redis.Z) bool { return rz.Member.(string) == z.Member })
			switch {
			case i < 0:
				return nil, fmt.Errorf("%q is not a member", z.Member)
			case !math.IsNaN(z.Score) && z.Score != all[i].Score:
				return nil, fmt.Errorf("%q has score %v, redis %v", z.Member, z.Score, all[i].Score)
			case n > 0 && seen[z.Member]:
				return nil, fmt.Errorf("repeated member %q for a positive count", z.Member)
			}
			seen[z.Member] = true
		}
		return nil, nil
	}
}

// ttlCheck compares a TTL/PTTL/EXPIRETIME/PEXPIRETIME reply with the oracle's: the same special
// value (-2 missing, -1 no expiry), or both a time left within 2 s of each
// other (the two sides set their expiries milliseconds apart).
func ttlCheck(cmd, k string) func(context.Context, *redis.Client, any) (any, error) {
	return func(ctx context.Context, rdb *redis.Client, got any) (any, error) {
		n, err := rdb.Do(ctx, cmd, k).Int64()
		if err != nil {
			return nil, err
		}
		if abs, ok := got.(int64); ok { // EXPIRETIME, PEXPIRETIME
			slack := int64(2)
			if cmd == "PEXPIRETIME" {
				slack = 2000
			}
			if (n < 0 || abs < 0) && n != abs || abs-n > slack || n-abs > slack {
				return nil, fmt.Errorf("redimo %d, redis %d %s", abs, n, cmd)
			}
			return nil, nil
		}
		d := got.(time.Duration)
		if n < 0 {
			if int64(d) != n {
				return nil, fmt.Errorf("redimo %v, redis %d", d, n)
			}
			return nil, nil
		}
		unit := time.Second
		if cmd == "PTTL" {
			unit = time.Millisecond
		}
		if diff := d - time.Duration(n)*unit; d < 0 || diff > 2*time.Second || diff < -2*time.Second {
			return nil, fmt.Errorf("redimo %v, redis %d %s", d, n, cmd)
		}
		return nil, nil
	}
}

// zaddAny is ZADD with any subset of NX XX GT LT CH INCR (incompatible
// ones included: both sides must refuse them) and extreme scores.
func (g *gen) zaddAny(k string) op {
	var args ZAddArgs
	var flags []string
	for _, f := range []struct {
		name string
		set  *bool
	}{{"NX", &args.NX}, {"XX", &args.XX}, {"GT", &args.GT}, {"LT", &args.LT}, {"CH", &args.Ch}} {
		if g.r.IntN(4) == 0 {
			*f.set, flags = true, append(flags, f.name)
		}
	}
	incr := g.r.IntN(3) == 0
	if incr {
		flags = append(flags, "INCR")
	}
	n := 1 + g.r.IntN(3)
	if incr && g.r.IntN(4) != 0 {
		n = 1
	}
	cmd := cat([]string{"ZADD", k}, flags...)
	for range n {
		z := Z{Score: pick(g, extraScores), Member: g.member()}
		args.Members = append(args.Members, z)
		cmd = append(cmd, fmtScore(z.Score), z.Member)
	}
	return op{args: cmd, redimo: func(ctx context.Context, c *Client) (any, error) {
		switch {
		case incr:
			s, ok, err := c.ZAddArgsIncr(ctx, k, args)
			return optScore(s, ok), err
		case len(flags) == 0:
			return c.ZAdd(ctx, k, args.Members...)
		}
		return c.ZAddArgs(ctx, k, args)
	}}
}

// zrangeArgs makes the arguments of a unified ZRANGE over src (by rank,
// score or lex; REV; LIMIT, also where Redis refuses it) and returns them
// as ZRangeArgs, as the Redis arguments after the key, and the key whose
// scores must be equal for a lex range to be compared.
func (g *gen) zrangeArgs(src string) (ZRangeArgs, []string, string) {
	z := ZRangeArgs{Key: src, Rev: g.r.IntN(2) == 0}
	var mode []string
	lexKey := ""
	switch g.r.IntN(3) {
	case 0:
		z.Start, z.Stop = pick(g, extraRanks), pick(g, extraRanks)
	case 1:
		z.Start, z.Stop, z.ByScore, mode = pick(g, extraBounds), pick(g, extraBounds), true, []string{"BYSCORE"}
	default:
		z.Start, z.Stop, z.ByLex, mode, lexKey = pick(g, extraLex), pick(g, extraLex), true, []string{"BYLEX"}, src
	}
	tail := cat([]string{z.Start, z.Stop}, mode...)
	if z.Rev {
		tail = append(tail, "REV")
	}
	if g.r.IntN(3) == 0 {
		z.Offset, z.Count = pick(g, extraLimits), pick(g, extraLimits)
		if z.Offset == 0 && z.Count == 0 {
			z.Count = 1 // LIMIT 0 0 is "none" in Redis but "no limit" in ZRangeArgs
		}
		tail = append(tail, "LIMIT", i64(z.Offset), i64(z.Count))
	}
	return z, tail, lexKey
}

// zstoreArgs makes the keys, WEIGHTS and AGGREGATE of ZUNION/ZINTER: the
// Redis arguments from numkeys on.
func (g *gen) zstoreArgs(weights bool) (*ZStore, []string) {
	ks := g.keysN(3)
	st := &ZStore{Keys: ks}
	args := cat([]string{strconv.Itoa(len(ks))}, ks...)
	if weights && g.r.IntN(2) == 0 {
		args = append(args, "WEIGHTS")
		for range ks {
			w := pick(g, []float64{0, 1, 2, -1, 0.5, math.Copysign(0, -1), math.Inf(1), 1e308})
			st.Weights = append(st.Weights, w)
			args = append(args, fmtScore(w))
		}
	}
	if g.r.IntN(2) == 0 {
		st.Aggregate = pick(g, []Aggregate{AggregateSum, AggregateMin, AggregateMax, AggregateCount})
		args = append(args, "AGGREGATE", string(st.Aggregate))
	}
	return st, args
}

// setCard is Redis 8.10's SUNIONCARD or SDIFFCARD, which the oracle (Redis
// 7.0) lacks. The reference is a model over the oracle's sets: the size of
// its SUNION or SDIFF of the same keys (whose WRONGTYPE it replies as it
// is), capped at LIMIT when LIMIT > 0; a negative LIMIT is SINTERCARD's
// error, whose argument rules the two commands share.
func (g *gen) setCard() op {
	ks, l := g.keysN(3), pick(g, []int64{0, 0, 1, 2, 3, huge, -1})
	union := g.r.IntN(2) == 0
	cmd := map[bool]string{true: "SUNIONCARD", false: "SDIFFCARD"}[union]
	args := cat(cat([]string{cmd, strconv.Itoa(len(ks))}, ks...), "LIMIT", i64(l))
	return op{args: args, redimo: func(ctx context.Context, c *Client) (any, error) {
		if union {
			return c.SUnionCard(ctx, l, ks...)
		}
		return c.SDiffCard(ctx, l, ks...)
	}, redis: func(ctx context.Context, rdb *redis.Client) (any, error) {
		if l < 0 {
			return rdb.Do(ctx, anys(cat([]string{"SINTERCARD"}, args[1:]...)...)...).Result()
		}
		ms, err := rdb.Do(ctx, anys(cat([]string{map[bool]string{true: "SUNION", false: "SDIFF"}[union]}, ks...)...)...).StringSlice()
		if err != nil {
			return nil, err
		}
		n := int64(len(ms))
		if l > 0 {
			n = min(n, l)
		}
		return n, nil
	}}
}

// countModel is the oracle's side of a ZUNION, ZINTER, ZUNIONSTORE or
// ZINTERSTORE (args, with n keys from args[first]) that may use Redis
// 8.8's AGGREGATE COUNT, which the oracle (Redis 7.0) lacks. COUNT scores
// a member with the sum of the weights of the inputs holding it, which is
// AGGREGATE SUM over the inputs with every score 1: the model copies each
// input to a plain set (a set member scores 1; a missing key stays
// missing; a key of another type becomes a string, for the same
// WRONGTYPE) and runs the command on the copies with SUM, so the oracle
// still parses every argument and aggregates as it does. Without COUNT it
// is nil: args are sent as they are.
func countModel(args []string, first, n int) func(context.Context, *redis.Client) (any, error) {
	at := slices.IndexFunc(args, func(a string) bool { return a == "COUNT" })
	if at < 1 || args[at-1] != "AGGREGATE" {
		return nil
	}
	return func(ctx context.Context, rdb *redis.Client) (any, error) {
		rewritten := slices.Clone(args)
		rewritten[at] = "SUM"
		var copies []string
		defer func() {
			if len(copies) > 0 {
				rdb.Del(ctx, copies...)
			}
		}()
		for i := first; i < first+n; i++ {
			key, cp := args[i], fmt.Sprintf("%s\x00count%d", args[i], i)
			copies, rewritten[i] = append(copies, cp), cp
			if err := rdb.Del(ctx, cp).Err(); err != nil {
				return nil, err
			}
			typ, err := rdb.Type(ctx, key).Result()
			if err != nil {
				return nil, err
			}
			var ms []string
			switch typ {
			case "none":
				continue
			case "set":
				ms, err = rdb.SMembers(ctx, key).Result()
			case "zset":
				ms, err = rdb.ZRange(ctx, key, 0, -1).Result()
			default:
				err = rdb.Set(ctx, cp, "x", 0).Err()
			}
			if err == nil && len(ms) > 0 {
				err = rdb.SAdd(ctx, cp, anys(ms...)...).Err()
			}
			if err != nil {
				return nil, err
			}
		}
		return rdb.Do(ctx, anys(rewritten...)...).Result()
	}
}

// noArguments is a command called without the members or keys it needs:
// Redis's arity error, redimo's ErrSyntax.
func (g *gen) noArguments(k string) op {
	type call = func(ctx context.Context, c *Client) (any, error)
	cases := []struct {
		args []string
		call call
	}{
		{[]string{"SADD", k}, func(ctx context.Context, c *Client) (any, error) { return c.SAdd(ctx, k) }},
		{[]string{"SREM", k}, func(ctx context.Context, c *Client) (any, error) { return c.SRem(ctx, k) }},
		{[]string{"SMISMEMBER", k}, func(ctx context.Context, c *Client) (any, error) { return c.SMIsMember(ctx, k) }},
		{[]string{"SINTER"}, func(ctx context.Context, c *Client) (any, error) { return c.SInter(ctx) }},
		{[]string{"SUNION"}, func(ctx context.Context, c *Client) (any, error) { return c.SUnion(ctx) }},
		{[]string{"SDIFF"}, func(ctx context.Context, c *Client) (any, error) { return c.SDiff(ctx) }},
		{[]string{"SUNIONSTORE", k}, func(ctx context.Context, c *Client) (any, error) { return c.SUnionStore(ctx, k) }},
		{[]string{"DEL"}, func(ctx context.Context, c *Client) (any, error) { return c.Del(ctx) }},
		{[]string{"EXISTS"}, func(ctx context.Context, c *Client) (any, error) { return c.Exists(ctx) }},
		{[]string{"ZADD", k}, func(ctx context.Context, c *Client) (any, error) { return c.ZAdd(ctx, k) }},
		{[]string{"ZREM", k}, func(ctx context.Context, c *Client) (any, error) { return c.ZRem(ctx, k) }},
		{[]string{"ZMSCORE", k}, func(ctx context.Context, c *Client) (any, error) {
			s, _, err := c.ZMScore(ctx, k)
			return s, err
		}},
		{[]string{"ZUNIONSTORE", k, "0"}, func(ctx context.Context, c *Client) (any, error) { return c.ZUnionStore(ctx, k, &ZStore{}) }},
		{[]string{"ZDIFFSTORE", k, "0"}, func(ctx context.Context, c *Client) (any, error) { return c.ZDiffStore(ctx, k) }},
		{[]string{"ZINTERCARD", "0"}, func(ctx context.Context, c *Client) (any, error) { return c.ZInterCard(ctx, 0) }},
		{[]string{"SINTERCARD", "0"}, func(ctx context.Context, c *Client) (any, error) { return c.SInterCard(ctx, 0) }},
		{[]string{"SUNIONCARD", "0"}, func(ctx context.Context, c *Client) (any, error) { return c.SUnionCard(ctx, 0) }},
		{[]string{"SDIFFCARD", "0"}, func(ctx context.Context, c *Client) (any, error) { return c.SDiffCard(ctx, 0) }},
	}
	x := cases[g.r.IntN(len(cases))]
	o := op{args: x.args, redimo: x.call, notQueued: true} // each is short of arguments
	if strings.HasSuffix(x.args[0], "CARD") && x.args[0] != "ZINTERCARD" {
		// SUNIONCARD and SDIFFCARD (Redis 8.10) refuse it as SINTERCARD does.
		o.redis = func(ctx context.Context, rdb *redis.Client) (any, error) {
			return rdb.Do(ctx, "SINTERCARD", "0").Result()
		}
	}
	return o
}

// expire is EXPIRE, PEXPIRE, EXPIREAT or PEXPIREAT with times that are
// past (the key goes at once) or far enough ahead never to fire during
// the run, and any condition, valid or not.
func (g *gen) expire(k string) op {
	x := pick(g, expireCond)
	cond, condArgs := x.redimo, strings.Fields(x.redis)
	set := func(c *Client, ctx context.Context, at time.Time, relative time.Duration, isAt bool) (bool, error) {
		switch {
		case isAt && cond == ExpireAlways:
			return c.ExpireAt(ctx, k, at)
		case isAt:
			return c.ExpireAtWith(ctx, k, at, cond)
		case cond == ExpireAlways:
			return c.Expire(ctx, k, relative)
		}
		return c.ExpireWith(ctx, k, relative, cond)
	}
	switch g.r.IntN(4) {
	case 0:
		s := pick(g, expireSecs)
		return op{args: cat([]string{"EXPIRE", k, i64(s)}, condArgs...), redimo: func(ctx context.Context, c *Client) (any, error) {
			return set(c, ctx, time.Time{}, time.Duration(s)*time.Second, false)
		}}
	case 1:
		ms := pick(g, []int64{-5, 0, 100000, 5000000})
		return op{args: []string{"PEXPIRE", k, i64(ms)}, redimo: func(ctx context.Context, c *Client) (any, error) {
			return c.PExpire(ctx, k, time.Duration(ms)*time.Millisecond)
		}}
	case 2:
		at := pick(g, expireAts)
		return op{args: cat([]string{"EXPIREAT", k, i64(at)}, condArgs...), redimo: func(ctx context.Context, c *Client) (any, error) {
			return set(c, ctx, time.Unix(at, 0), 0, true)
		}}
	default:
		at := pick(g, expireAts) * 1000
		return op{args: []string{"PEXPIREAT", k, i64(at)}, redimo: func(ctx context.Context, c *Client) (any, error) {
			return c.PExpireAt(ctx, k, time.UnixMilli(at))
		}}
	}
}

// TestOracleCoversEveryCommand fails when a command method of the Client is
// called nowhere in the differential test: a command added to the library
// must be added to the generator too.
func TestOracleCoversEveryCommand(t *testing.T) {
	var src []byte
	// Member expiry has no redis-server to compare with here (Redis 8.12):
	// memberttl_test.go compares it with a model of Redis's semantics.
	// Redis 8.12's moves neither: zmove_test.go compares them with the same
	// moves made of Redis 7.0 commands on redis-server.
	for _, f := range []string{"oracle_test.go", "diff_test.go", "memberttl_test.go", "zmove_test.go"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		src = append(src, b...)
	}
	typ := reflect.TypeOf((*Client)(nil))
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		if slices.Contains(notCommands, name) {
			continue
		}
		called := regexp.MustCompile(`\bc\.` + name + `\b`)
		require.True(t, called.Match(src), "the differential test never calls %s", name)
	}
}

// TestOracleKeyspace compares the commands on the whole keyspace (KEYS,
// SCAN with MATCH and TYPE iterated to the end, DBSIZE, RANDOMKEY, TOUCH,
// OBJECT ENCODING, FLUSHDB) with redis-server, on a table of their own and
// the oracle's database 9 (FLUSHDB must not touch other tests' keys).
func TestOracleKeyspace(t *testing.T) {
	addr := redisAddr(t)
	c, _ := freshTable(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DB: 9})
	defer rdb.Close()
	require.NoError(t, rdb.FlushDB(ctx).Err())
	same := func(what string, got any, gotErr error, want any, wantErr error, kind replyKind) {
		t.Helper()
		require.Equal(t, canon(want, wantErr, kind), canon(got, gotErr, kind), what)
	}
	for i := range 40 {
		k := fmt.Sprintf("key:%02d", i)
		if i%3 == 0 {
			_, err := c.ZAdd(ctx, k, Z{float64(i), "m"})
			require.NoError(t, err)
			require.NoError(t, rdb.ZAdd(ctx, k, redis.Z{Score: float64(i), Member: "m"}).Err())
		} else {
			_, err := c.SAdd(ctx, k, "m")
			require.NoError(t, err)
			require.NoError(t, rdb.SAdd(ctx, k, "m").Err())
		}
	}
	for _, pattern := range []string{"*", "key:1*", "key:?5", "nope*", "[k]ey:0[0-3]"} {
		got, err := c.Keys(ctx, pattern)
		want, werr := rdb.Keys(ctx, pattern).Result()
		same("KEYS "+pattern, got, err, want, werr, unordered)
		for _, typ := range []string{"", "set", "zset", "string"} {
			var all []string
			cursor := uint64(0)
			for {
				keys, next, err := c.ScanType(ctx, cursor, pattern, 5, typ)
				require.NoError(t, err)
				all = append(all, keys...)
				if cursor = next; cursor == 0 {
					break
				}
			}
			var wantAll []string
			iter := rdb.ScanType(ctx, 0, pattern, 5, typ).Iterator()
			for iter.Next(ctx) {
				wantAll = append(wantAll, iter.Val())
			}
			require.NoError(t, iter.Err())
			same("SCAN MATCH "+pattern+" TYPE "+typ, all, nil, wantAll, nil, unordered)
		}
	}
	keys, next, err := c.Scan(ctx, 0, "", 1000)
	require.NoError(t, err)
	require.Zero(t, next)
	require.Len(t, keys, 40)

	n, err := c.DBSize(ctx)
	wantN, werr := rdb.DBSize(ctx).Result()
	same("DBSIZE", n, err, wantN, werr, ordered)
	_, err = c.Expire(ctx, "key:03", time.Hour)
	require.NoError(t, err)
	require.NoError(t, rdb.Expire(ctx, "key:03", time.Hour).Err())
	st, err := c.Keyspace(ctx)
	require.NoError(t, err)
	info := rdb.Info(ctx, "keyspace").Val()
	require.Contains(t, info, fmt.Sprintf("db9:keys=%d,expires=%d,", st.Keys, st.Expires), "INFO keyspace")
	k, ok, err := c.RandomKey(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 1, rdb.Exists(ctx, k).Val(), "RANDOMKEY %s exists in Redis too", k)
	n, err = c.Touch(ctx, "key:01", "key:01", "nope")
	wantN, werr = rdb.Touch(ctx, "key:01", "key:01", "nope").Result()
	same("TOUCH", n, err, wantN, werr, ordered)
	// OBJECT ENCODING of a missing key: none. (Its answers for keys are
	// compared in internal/server's TestDifferentialEncoding, which may
	// change redis-server's thresholds, so this package, run beside it,
	// does not; and in TestObjectEncoding.)
	_, ok, err = c.ObjectEncoding(ctx, "nope")
	require.NoError(t, err)
	require.False(t, ok)
	require.ErrorIs(t, rdb.ObjectEncoding(ctx, "nope").Err(), redis.Nil)
	_, ok, err = c.ObjectEncodingWith(ctx, "nope", EncodingLimits{})
	require.NoError(t, err)
	require.False(t, ok, "whatever the limits")

	require.NoError(t, c.FlushDB(ctx))
	require.NoError(t, rdb.FlushDB(ctx).Err())
	n, err = c.DBSize(ctx)
	wantN, werr = rdb.DBSize(ctx).Result()
	same("DBSIZE after FLUSHDB", n, err, wantN, werr, ordered)
	k, ok, err = c.RandomKey(ctx)
	require.NoError(t, err)
	require.False(t, ok, k)
	require.ErrorIs(t, rdb.RandomKey(ctx).Err(), redis.Nil)
}

// notQueued are the commands a transaction does not draw: those Redis
// runs only outside MULTI or that redimo's Pipeliner does not hold
// (blocking pops, iterators, the keyspace-wide ones, WATCH, SELECT), and
// the library-only forms compared through a reshaped Redis side.
var notQueued = map[string]bool{"MULTI": true, "WATCH": true, "SELECT": true, "SCAN": true, "SSCAN": true, "ZSCAN": true,
	"KEYS": true, "DBSIZE": true, "FLUSHDB": true, "FLUSHALL": true, "RANDOMKEY": true,
	"BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true, "BZMOVE": true}

// fixedSize are the commands whose transaction actions do not grow with
// the keys' sizes: the only ones a transaction of gen.big draws, with at
// most six members.
var fixedSize = map[string]bool{"SADD": true, "SREM": true, "SCARD": true, "SISMEMBER": true, "SMISMEMBER": true,
	"ZADD": true, "ZINCRBY": true, "ZREM": true, "ZSCORE": true, "ZMSCORE": true, "ZCARD": true, "ZRANK": true,
	"ZREVRANK": true, "EXISTS": true, "TYPE": true, "TTL": true, "PTTL": true, "PERSIST": true}

// transaction is MULTI with two to four commands drawn from the whole
// generator (STORE commands, SMOVE, ZMPOP, EXPIRE, RENAME and COPY
// included), then EXEC, against TxPipelined (or ExecWatched): each op's
// redimo call, written for a *Client, runs on the transaction's Client
// (Pipeline embeds the Client in transaction mode: view.go), so this
// checks that every queued command is the direct one. The replies, each
// seeing the earlier ones' writes, must be Redis's; the op's reply is
// their canonical forms joined. Ops whose Redis side is reshaped, whose
// reply is not compared, or that Redis refuses before EXEC (a wrong
// number of arguments: EXECABORT) are not drawn.
func (g *gen) transaction() op {
	var ops []op
	for len(ops) < 2+g.r.IntN(3) {
		o := g.next()
		if notQueued[o.args[0]] || o.redis != nil || o.special != nil || o.skip != "" || o.lexKey != "" || o.notQueued ||
			(g.big && (!fixedSize[o.args[0]] || len(o.args) > 8)) { // big keys and many members may not fit one transaction (ErrTxTooBig)
			continue
		}
		ops = append(ops, o)
	}
	args := []string{"MULTI"}
	for _, o := range ops {
		args = append(append(args, o.args...), ";")
	}
	viaExec := g.r.IntN(2) == 0
	return op{args: append(args, "EXEC"), redimo: func(ctx context.Context, c *Client) (any, error) {
		var parts []string
		fn := func(p *Pipeline) error {
			parts = parts[:0]
			for _, o := range ops {
				v, err := o.redimo(ctx, p.Client)
				parts = append(parts, canon(v, err, o.kind))
			}
			return nil
		}
		var err error
		if viaExec {
			err = c.ExecWatched(ctx, nil, fn)
		} else {
			err = c.TxPipelined(ctx, func(p Pipeliner) error { return fn(p.(*Pipeline)) })
		}
		return "tx: " + strings.Join(parts, " | "), err
	}, redis: func(ctx context.Context, rdb *redis.Client) (any, error) {
		// A connection of its own, unwatched: the WATCH op leaves keys
		// watched on whichever pooled connection ran it.
		conn := rdb.Conn()
		defer conn.Close()
		if err := conn.Do(ctx, "UNWATCH").Err(); err != nil {
			return nil, err
		}
		var rcmds []*redis.Cmd
		_, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
			for _, o := range ops {
				rcmds = append(rcmds, p.Do(ctx, anys(o.args...)...))
			}
			return nil
		})
		if err != nil && len(rcmds) == 0 {
			return nil, err
		}
		parts := make([]string, len(ops))
		for i, rc := range rcmds {
			v, err := rc.Result()
			parts[i] = canon(v, err, ops[i].kind)
		}
		return "tx: " + strings.Join(parts, " | "), nil
	}}
}

// otherDB writes and reads a key in database 1 (WithDB, SELECT 1): the
// replies are Redis's, and database 0's keys, compared at the end, are
// untouched.
func (g *gen) otherDB(k string) op {
	m := g.member()
	return op{args: []string{"SELECT", "1", ";", "SADD", k, m, ";", "SCARD", k}, redimo: func(ctx context.Context, c *Client) (any, error) {
		c1, err := c.WithDB(1)
		if err != nil {
			return nil, err
		}
		added, err := c1.SAdd(ctx, k, m)
		if err != nil {
			return nil, err
		}
		n, err := c1.SCard(ctx, k)
		return []any{added, n}, err
	}, redis: func(ctx context.Context, rdb *redis.Client) (any, error) {
		opts := *rdb.Options()
		opts.DB = 1
		r1 := redis.NewClient(&opts)
		defer r1.Close()
		added, err := r1.SAdd(ctx, k, m).Result()
		if err != nil {
			return nil, err
		}
		n, err := r1.SCard(ctx, k).Result()
		return []any{added, n}, err
	}}
}
