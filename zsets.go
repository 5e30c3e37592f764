package redimo

// The Redis SORTED SET commands: writes (pops included) and point reads.
// Ranges are in zrange.go, union/intersection/difference in zalgebra.go,
// ZSCAN and ZRANDMEMBER in zscan.go.

import (
	"context"
	"math"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/store"
)

// ZAdd adds members with their scores, or updates the scores of members
// already there, and returns how many were added, as Redis's ZADD. The
// count is exact under concurrent writers; up to 99 members are one atomic
// transaction, more go in atomic chunks of 99.
//
// A member named more than once in one call is applied in order, as Redis
// does (the reply counts each occurrence that adds or, with CH, changes);
// such a call is atomic per round of distinct members, not as a whole.
//
// Cost: on a small sorted set (at most 99 members within about 640
// bytes, kept in its metadata item: smallz.go), one UpdateItem, 1 write
// unit (one more, refused, when another Client wrote the key since this
// one last did). Otherwise ⌈n/99⌉ TransactWriteItems (2 write units per
// member plus 2 for the metadata item); a chunk with members already
// present takes one more. One member: as ZAddArgsIncr.
//
// [ZADD]: https://redis.io/docs/latest/commands/zadd/
func (c *Client) ZAdd(ctx context.Context, key string, members ...Z) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZAdd")
	defer traced.end(&err)
	return c.ZAddArgs(ctx, key, ZAddArgs{Members: members})
}

// ZAddArgsIncr is ZADD ... INCR: it adds args.Members[0].Score to the
// member's score (a missing member counts as 0) and returns the new score;
// ok is false (Redis's nil) when NX, XX, GT or LT prevented the update.
// Exact under concurrent increments (compare-and-swap, retried).
//
// Cost: on a small sorted set, as ZAdd's. Otherwise one
// TransactWriteItems when the member is new. An existing one:
// one when this Client wrote the member last (it assumes the score it
// left); a GetItem (eventually consistent, 0.5 read unit) and one when its
// last such write of the key met an existing member; else two (the first,
// assuming the member new, is cancelled: 4 write units). The re-score
// itself is 8 write units: the member, its index entry's move and the
// metadata item (view.memberGuess). More under contention. With XX, a
// BatchGetItem first.
//
// [ZADD]: https://redis.io/docs/latest/commands/zadd/
func (c *Client) ZAddArgsIncr(ctx context.Context, key string, args ZAddArgs) (score float64, ok bool, err error) {
	ctx, traced := c.command(ctx, "ZAddArgsIncr")
	defer traced.end(&err)
	if len(args.Members) != 1 {
		return 0, false, argError("ZADD", "INCR", strconv.Itoa(len(args.Members))+" members", ErrSyntax)
	}
	if _, err := c.checkZAdd("ZADD", key, args); err != nil {
		return 0, false, err
	}
	return c.incr(ctx, "ZADD", key, args.Members[0].Member, args.Members[0].Score, args)
}

// ZIncrBy adds increment to member's score (a missing member counts as 0)
// and returns the new score, as Redis's ZINCRBY. Concurrent increments add
// up exactly; a result that is not a number (inf + -inf) is ErrNotFloat
// and writes nothing.
//
// Cost: as ZAddArgsIncr.
//
// [ZINCRBY]: https://redis.io/docs/latest/commands/zincrby/
func (c *Client) ZIncrBy(ctx context.Context, key string, increment float64, member string) (_ float64, err error) {
	ctx, traced := c.command(ctx, "ZIncrBy")
	defer traced.end(&err)
	if err := c.checkKeyMembers("ZINCRBY", key, []string{member}); err != nil {
		return 0, err
	}
	if math.IsNaN(increment) {
		return 0, argError("ZINCRBY", "increment", "NaN", ErrNotFloat)
	}
	score, _, err := c.incr(ctx, "ZINCRBY", key, member, increment, ZAddArgs{})
	return score, err
}

// checkZAdd validates ZADD's options, key and members, and returns the
// members in rounds: each member once per round, in the order given.
func (c *Client) checkZAdd(cmd, key string, args ZAddArgs) ([][]Z, error) {
	switch {
	case args.NX && args.XX:
		return nil, argError(cmd, "options", "NX XX", ErrSyntax)
	case args.GT && args.LT, args.NX && (args.GT || args.LT):
		return nil, argError(cmd, "options", "GT LT NX", ErrSyntax)
	case len(args.Members) == 0:
		return nil, argError(cmd, "members", "", ErrSyntax)
	}
	if err := checkKey(cmd, key); err != nil {
		return nil, err
	}
	// Redis applies a member named twice in order: the k-th occurrences of
	// the members form round k.
	var rounds [][]Z
	seen := map[string]int{}
	for _, z := range args.Members {
		if math.IsNaN(z.Score) {
			return nil, argError(cmd, "score", "NaN", ErrNotFloat)
		}
		if err := checkMember(cmd, z.Member); err != nil {
			return nil, err
		}
		k := seen[z.Member]
		seen[z.Member]++
		if k == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[k] = append(rounds[k], z)
	}
	return rounds, nil
}

// zaddWrite is one member's ZADD write. Without XX it first tries to create
// the member; when the member exists, the item read back decides (NX, GT,
// LT, unchanged) and a compare-and-swap updates its score. With XX it
// updates in place, the options in the condition: for one member, index
// order is score order.
func (c *Client) zaddWrite(key string, z Z, args ZAddArgs, g *guessed) *model.Write {
	zadd := zaddDecide(z, args)
	decide := func(old float64, exists bool) (float64, bool, int64, error) {
		if g != nil {
			*g.existed = exists
		}
		return zadd(old, exists)
	}
	if !args.XX && g != nil && g.cur != nil {
		w, _ := c.zWrite(key, z.Member, g.cur, decide) // decide never fails: nil is nothing to write
		return w
	}
	if !args.XX {
		w := c.putMember(key, model.TypeZSet, z.Member, model.ZsetIX(z.Score, z.Member))
		w.Score = z.Score
		w.Retry = func(now model.Item) (*model.Write, error) { return c.zWrite(key, z.Member, now, decide) }
		return w
	}
	need := model.NeedPresent | model.NeedOtherIX
	switch {
	case args.GT:
		need = model.NeedPresent | model.NeedLowerIX
	case args.LT:
		need = model.NeedPresent | model.NeedHigherIX
	}
	var count int64
	if args.Ch {
		count = 1
	}
	return &model.Write{
		Member: z.Member, Count: count, Score: z.Score, Ix: model.ZsetIX(z.Score, z.Member), Need: need,
		Action: types.TransactWriteItem{Update: &types.Update{
			TableName: c.st.Table(), Key: model.ItemKey(key, model.MemberSK(model.TypeZSet, z.Member)),
			UpdateExpression:          aws.String("SET #ix = :new"),
			ExpressionAttributeNames:  map[string]string{"#ix": model.AttrIX},
			ExpressionAttributeValues: model.Item{":new": model.Bin(model.ZsetIX(z.Score, z.Member))},
		}},
	}
}

// zaddDecide is ZADD's decision for one member z (without INCR), on
// either encoding: from the member's score old (when it exists), the
// score to store, whether to store it, and what it counts in the reply.
func zaddDecide(z Z, args ZAddArgs) func(old float64, exists bool) (float64, bool, int64, error) {
	return func(old float64, exists bool) (float64, bool, int64, error) {
		switch {
		case !exists && args.XX:
			return 0, false, 0, nil
		case !exists:
			return z.Score, true, 1, nil
		case args.NX, args.GT && !(z.Score > old), args.LT && !(z.Score < old), z.Score == old:
			return 0, false, 0, nil
		case args.Ch:
			return z.Score, true, 1, nil
		}
		return z.Score, true, 0, nil
	}
}

// zWrite is the write that takes member from its current item cur (nil:
// absent) to the score decide returns; nil when decide declines. Its retry
// decides again from what the item holds then.
func (c *Client) zWrite(key, member string, cur model.Item, decide func(old float64, exists bool) (float64, bool, int64, error)) (*model.Write, error) {
	var old float64
	if cur != nil {
		old = model.ScoreOfIX(model.BytesAttr(cur, model.AttrIX))
	}
	score, apply, count, err := decide(old, cur != nil)
	if err != nil || !apply {
		return nil, err
	}
	var w *model.Write
	if cur == nil {
		w = c.putMember(key, model.TypeZSet, member, model.ZsetIX(score, member))
	} else {
		w = c.setIX(key, model.TypeZSet, member, model.BytesAttr(cur, model.AttrIX), model.ZsetIX(score, member))
		w.Action.Update.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	w.Count, w.Score = count, score
	w.Retry = func(now model.Item) (*model.Write, error) { return c.zWrite(key, member, now, decide) }
	return w, nil
}

// incrDecide is ZINCRBY's (and ZADD INCR's) decision on either encoding:
// from the member's score old (when it exists), the new score, whether to
// store it, and what it counts; the reply goes to *result and *ok (false:
// Redis's nil). The sum is float64's, as Redis's.
func incrDecide(cmd string, by float64, args ZAddArgs, result *float64, ok *bool) func(old float64, exists bool) (float64, bool, int64, error) {
	return func(old float64, exists bool) (float64, bool, int64, error) {
		*ok = false
		if (exists && args.NX) || (!exists && args.XX) {
			return 0, false, 0, nil
		}
		score := by // a new member's score is the increment itself, as in Redis (-0 stays -0 in the reply)
		if exists {
			score = old + by
		}
		if math.IsNaN(score) {
			return 0, false, 0, argError(cmd, "increment", "resulting score is not a number (NaN)", ErrNotFloat)
		}
		if exists && ((args.GT && !(score > old)) || (args.LT && !(score < old))) {
			return 0, false, 0, nil
		}
		*result, *ok = score, true
		if exists && score == old {
			return 0, false, 0, nil // nothing to write; the reply is the score
		}
		return score, true, 1, nil
	}
}

// incr is ZINCRBY and ZADD INCR: a compare-and-swap on the member's score.
func (c *Client) incr(ctx context.Context, cmd, key, member string, by float64, args ZAddArgs) (float64, bool, error) {
	var result float64
	var ok bool
	decide := incrDecide(cmd, by, args, &result, &ok)
	if handled, err := c.smallZIncr(ctx, key, member, decide, args.XX); handled {
		return result, ok && err == nil, wrap(cmd, err)
	}
	// XX needs to know first. Otherwise the first write assumes the
	// member new, unless re-scores are what this Client last met on the
	// key (view.memberGuess).
	var cur model.Item
	if args.XX {
		found, err := c.view().probe(ctx, key, model.TypeZSet, []string{member}, true)
		if err != nil {
			return 0, false, wrap(cmd, err)
		}
		cur = found[member]
	} else if guess, err := c.view().memberGuess(ctx, key, member); err != nil {
		return 0, false, wrap(cmd, err)
	} else {
		cur = guess
	}
	existed := false
	seen := func(old float64, exists bool) (float64, bool, int64, error) {
		existed = exists
		return decide(old, exists)
	}
	first, err := c.zWrite(key, member, cur, seen)
	if (err != nil || first == nil) && cur != nil && !args.XX {
		// Nothing to write (or not a number), as read: only a write's
		// conditions can tell (a stale read, a dead key's member).
		first, err = c.zWrite(key, member, nil, seen)
	}
	if err != nil || first == nil {
		return result, ok, err
	}
	if _, err := c.transactChunks(ctx, key, model.TypeZSet, []*model.Write{first}); err != nil {
		return 0, false, wrap(cmd, err)
	}
	c.noteRescore(key, existed)
	return result, ok, nil
}

// ZRem removes members and returns how many were members, as Redis's ZREM.
// Removing the last member deletes the key. Exact and chunked like ZAdd.
//
// Cost: on a small sorted set, one UpdateItem, 1 write unit (a GetItem
// first when this Client has not written the key). Otherwise ⌈n/99⌉
// TransactWriteItems, 2 write units per removed member plus 2; a chunk
// with absent members, or that empties the key, takes one more.
//
// [ZREM]: https://redis.io/docs/latest/commands/zrem/
func (c *Client) ZRem(ctx context.Context, key string, members ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZRem")
	defer traced.end(&err)
	if err := c.checkKeyMembers("ZREM", key, members); err != nil {
		return 0, err
	}
	if n, handled, err := c.smallZRem(ctx, key, model.Dedupe(members)); handled {
		return n, wrap("ZREM", err)
	}
	return c.remove(ctx, "ZREM", key, model.TypeZSet, members)
}

// ZCard returns the number of members of the sorted set at key (0 when
// missing), as Redis's ZCARD.
//
// Cost: one GetItem of the metadata item, 1 read unit, whatever the size.
//
// [ZCARD]: https://redis.io/docs/latest/commands/zcard/
func (c *Client) ZCard(ctx context.Context, key string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZCard")
	defer traced.end(&err)
	if err := checkKey("ZCARD", key); err != nil {
		return 0, err
	}
	n, err := c.view().liveCount(ctx, key, model.TypeZSet)
	return n, wrap("ZCARD", err)
}

// ZScore returns member's score; ok is false when member or key is missing
// (Redis's nil). As Redis's ZSCORE.
//
// Cost: one BatchGetItem of the member and the metadata item (type and
// expiry), 2 read units; one GetItem of a sorted set this Client last saw
// small (smallz.go), 1 read unit.
//
// [ZSCORE]: https://redis.io/docs/latest/commands/zscore/
func (c *Client) ZScore(ctx context.Context, key, member string) (score float64, ok bool, err error) {
	ctx, traced := c.command(ctx, "ZScore")
	defer traced.end(&err)
	scores, oks, err := c.ZMScore(ctx, key, member)
	if err != nil {
		return 0, false, err
	}
	return scores[0], oks[0], nil
}

// ZMScore returns the scores of members; oks[i] is false where members[i]
// is missing. As Redis's ZMSCORE.
//
// Cost: one BatchGetItem per 100 items (the members and the metadata
// item), 1 read unit per item.
//
// [ZMSCORE]: https://redis.io/docs/latest/commands/zmscore/
func (c *Client) ZMScore(ctx context.Context, key string, members ...string) (scores []float64, oks []bool, err error) {
	ctx, traced := c.command(ctx, "ZMScore")
	defer traced.end(&err)
	if err := c.checkKeyMembers("ZMSCORE", key, members); err != nil {
		return nil, nil, err
	}
	found, err := c.view().probe(ctx, key, model.TypeZSet, model.Dedupe(members), true)
	if err != nil {
		return nil, nil, wrap("ZMSCORE", err)
	}
	scores, oks = make([]float64, len(members)), make([]bool, len(members))
	for i, m := range members {
		if it, ok := found[m]; ok {
			scores[i], oks[i] = model.ScoreOfIX(model.BytesAttr(it, model.AttrIX)), true
		}
	}
	return scores, oks, nil
}

// ZPopMin removes and returns the count (default 1) members with the
// lowest scores, lowest first, as Redis's ZPOPMIN. A member popped
// concurrently by another client goes to one of them only; redimo reads
// again until it has count members or the key is empty, at most
// Options.MaxAttempts rounds (then the members popped so far with
// ErrContention). Emptying the key deletes it.
//
// Cost: on a small sorted set, one UpdateItem (a GetItem first when this
// Client has not written the key). Otherwise, per round, one Query of the
// index reading count members and ⌈count/99⌉ TransactWriteItems; a
// GetItem instead of the transactions when the key has no member
// (missing, or of another type).
//
// [ZPOPMIN]: https://redis.io/docs/latest/commands/zpopmin/
func (c *Client) ZPopMin(ctx context.Context, key string, count ...int64) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZPopMin")
	defer traced.end(&err)
	return c.pop(ctx, "ZPOPMIN", key, false, count)
}

// ZPopMax is ZPopMin from the highest score, as Redis's ZPOPMAX.
//
// [ZPOPMAX]: https://redis.io/docs/latest/commands/zpopmax/
func (c *Client) ZPopMax(ctx context.Context, key string, count ...int64) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZPopMax")
	defer traced.end(&err)
	return c.pop(ctx, "ZPOPMAX", key, true, count)
}

// popCount is ZPOPMIN/ZPOPMAX's optional count: 1 when absent.
func popCount(cmd string, count []int64) (int64, error) {
	switch {
	case len(count) > 1:
		return 0, argError(cmd, "count", "", ErrSyntax)
	case len(count) == 1 && count[0] < 0:
		return 0, argError(cmd, "count", strconv.FormatInt(count[0], 10), ErrOutOfRange)
	case len(count) == 1:
		return count[0], nil
	}
	return 1, nil
}

func (c *Client) pop(ctx context.Context, cmd, key string, rev bool, count []int64) ([]Z, error) {
	ctx = store.KeepOutcome(ctx) // it returns what it removes
	if err := checkKey(cmd, key); err != nil {
		return nil, err
	}
	n, err := popCount(cmd, count)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		if popped, handled, err := c.smallZPop(ctx, key, n, rev); handled {
			return popped, wrap(cmd, err)
		}
	}
	var popped []Z
	err = c.st.Attempts(ctx, false, func() (bool, error) {
		want := n - int64(len(popped))
		// The removal's metadata condition checks the type and that the
		// key is live: the metadata item is read only when the range is
		// empty (a key that expired meanwhile fails the removal, which
		// purges it: the next round finds it missing).
		r := zrange{in: c.scoreQuery(key, math.Inf(-1), math.Inf(1)), rev: rev, count: want, written: true}
		zs, err := c.view().read(ctx, key, r)
		if err != nil || len(zs) == 0 {
			return true, err
		}
		writes := make([]*model.Write, len(zs))
		for i, z := range zs {
			writes[i] = c.deleteMember(key, model.TypeZSet, z.Member)
			writes[i].Score = z.Score
		}
		applied, err := c.transactChunks(ctx, key, model.TypeZSet, writes)
		for _, w := range applied {
			popped = append(popped, Z{Score: w.Score, Member: w.Member})
		}
		return int64(len(zs)) < want || int64(len(popped)) == n, err
	})
	return popped, wrap(cmd, err)
}

// ZAddArgs is ZADD with options (NX, XX, GT, LT, CH): see ZAddArgs. It
// returns the number of members added, or added and changed with Ch.
// Incompatible options (NX with XX, GT or LT; GT with LT) are an ErrSyntax
// *ArgError before any request.
//
// Cost: as ZAdd.
//
// [ZADD]: https://redis.io/docs/latest/commands/zadd/
func (c *Client) ZAddArgs(ctx context.Context, key string, args ZAddArgs) (_ int64, err error) {
	ctx, traced := c.command(ctx, "ZAddArgs")
	defer traced.end(&err)
	rounds, err := c.checkZAdd("ZADD", key, args)
	if err != nil {
		return 0, err
	}
	if n, handled, err := c.smallZAdd(ctx, key, args); handled {
		return n, wrap("ZADD", err)
	}
	if len(args.Members) == 1 && !args.XX {
		// One member: a new score for an existing one reads it first
		// where this Client meets re-scores, as ZINCRBY (view.memberGuess).
		return c.zaddOne(ctx, key, args.Members[0], args)
	}
	var n int64
	for _, members := range rounds {
		writes := make([]*model.Write, 0, len(members))
		for _, z := range members {
			writes = append(writes, c.zaddWrite(key, z, args, nil))
		}
		applied, err := c.transactChunks(ctx, key, model.TypeZSet, writes)
		n += model.Counted(applied)
		if err != nil {
			return n, wrap("ZADD", err)
		}
	}
	return n, nil
}

// zaddOne is ZADD of one member without XX: its first write re-scores the
// member as view.memberGuess reads it, or, unread or absent, adds it.
func (c *Client) zaddOne(ctx context.Context, key string, z Z, args ZAddArgs) (int64, error) {
	cur, err := c.view().memberGuess(ctx, key, z.Member)
	if err != nil {
		return 0, wrap("ZADD", err)
	}
	existed := false
	w := c.zaddWrite(key, z, args, &guessed{cur: cur, existed: &existed})
	if w == nil { // nothing to write, as read: only a write's conditions can tell (a stale read, a dead key)
		w = c.zaddWrite(key, z, args, &guessed{existed: &existed})
	}
	var applied []*model.Write
	if w != nil {
		applied, err = c.transactChunks(ctx, key, model.TypeZSet, []*model.Write{w})
		if err != nil {
			return model.Counted(applied), wrap("ZADD", err)
		}
	}
	c.noteRescore(key, existed)
	return model.Counted(applied), nil
}

// guessed is what a one-member write knows before writing: the member's
// item as read (nil: absent or not read), and where to record whether the
// member turned out to exist.
type guessed struct {
	cur     model.Item
	existed *bool
}

// noteRescore records, for the next guess (view.memberGuess), whether
// this Client's last one-member write of key met an existing member.
func (c *Client) noteRescore(key string, existed bool) {
	c.rescores.note(key, existed)
}

// The commands on small sorted sets (smallz.go): each a plan of the
// entries, by the decision its member-item path takes.

// smallZAdd is ZADD (without INCR) on the small encoding: members applied
// in the order given, as Redis does, each by zaddDecide.
func (c *Client) smallZAdd(ctx context.Context, key string, args ZAddArgs) (n int64, handled bool, err error) {
	handled, err = c.view().smallZ(ctx, key, args.XX, func(cur []model.ZEntry) ([]model.ZEntry, bool, error) {
		m, change := zEntries(cur), false
		n = 0
		for _, z := range args.Members {
			old, exists := m[z.Member]
			score, apply, count, _ := zaddDecide(z, args)(old, exists) // it never fails
			n += count
			if apply {
				m[z.Member], change = score, true
			}
		}
		return sortedZ(m), change, nil
	})
	return n, handled, err
}

// smallZIncr is ZINCRBY and ZADD INCR on the small encoding: decide is
// incrDecide's.
func (c *Client) smallZIncr(ctx context.Context, key, member string, decide func(old float64, exists bool) (float64, bool, int64, error), xx bool) (handled bool, err error) {
	return c.view().smallZ(ctx, key, xx, func(cur []model.ZEntry) ([]model.ZEntry, bool, error) {
		m := zEntries(cur)
		old, exists := m[member]
		score, apply, _, err := decide(old, exists)
		if err != nil || !apply {
			return nil, false, err
		}
		m[member] = score
		return sortedZ(m), true, nil
	})
}

// smallZRem is ZREM of members (distinct) on the small encoding.
func (c *Client) smallZRem(ctx context.Context, key string, members []string) (n int64, handled bool, err error) {
	handled, err = c.view().smallZ(ctx, key, true, func(cur []model.ZEntry) ([]model.ZEntry, bool, error) {
		n = 0
		next := slices.DeleteFunc(slices.Clone(cur), func(e model.ZEntry) bool {
			if slices.Contains(members, e.Member) {
				n++
				return true
			}
			return false
		})
		return next, n > 0, nil
	})
	return n, handled, err
}

// smallZPop is ZPOPMIN (ZPOPMAX with rev) of count members on the small
// encoding.
func (c *Client) smallZPop(ctx context.Context, key string, count int64, rev bool) (popped []Z, handled bool, err error) {
	handled, err = c.view().smallZ(ctx, key, true, func(cur []model.ZEntry) ([]model.ZEntry, bool, error) {
		k := int(min(count, int64(len(cur))))
		popped = nil
		if k == 0 {
			return nil, false, nil
		}
		next := slices.Clone(cur)
		if rev {
			next, popped = next[:len(next)-k], zOf(slices.Backward(next[len(next)-k:]))
		} else {
			next, popped = next[k:], zOf(slices.All(next[:k]))
		}
		return next, true, nil
	})
	return popped, handled, err
}
