package redimo

// Redis 8.12's moves between sorted sets: ZMOVE, BZMOVE, ZMOVEMEMBER.
//
// A move is the pop's delete from the source and ZADD's write to the
// destination in one transaction, through the one writer (transact):
//
//   - each source member goes by a delete on condition that it still holds
//     the index value (score) it was read with, and, when the key has member
//     expiries, the expiry it was read with (model.PinDelete): the destination
//     gets exactly what the source lost;
//   - each destination write is a put on condition that the member is
//     absent, or, when it is there, a put replacing the item read back on
//     condition that it still holds it (score, expiry): the moved member
//     keeps its score and its expiry, as a move does;
//   - every write is required and strict: when any condition fails (another
//     client took the member, re-scored it, gave it an expiry), the whole
//     attempt is abandoned and the move starts again from fresh reads. So
//     a member is never in both keys or in neither, and the counts (n, mn,
//     the count items of ranked keys) change in the same transaction as the
//     members.
//
// One TransactWriteItems holds 100 actions: a move of up to model.MaxMove
// members (a delete and a put each, plus the two metadata items) is
// atomic; more go in successive atomic chunks, each read afresh.

import (
	"context"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/store"
)

// ZMove moves members, with their scores, from the sorted set at source to
// the one at destination, as Redis 8.12's ZMOVE, and returns them (member
// and score) in the order selected: lowest first for PopMin and ByScore,
// highest first for PopMax. A member already in destination takes the
// source's score. destination is created when needed (without an expiry),
// source deleted when its last member goes; existing key expiries are
// kept. A moved member keeps its own expiry (ZEXPIRE), replacing the one
// it had in destination. zs is empty (Redis's null) when nothing moved:
// source missing, nothing in the range, or source and destination the
// same key. When source exists and either key holds another type the
// error is ErrWrongType and nothing is written.
//
// Atomic as Redis's for up to 49 members: one TransactWriteItems deletes
// them from source and writes them to destination, with both keys'
// metadata items; a member taken meanwhile by another client (a pop, a
// concurrent move) makes the move read again, so it is never moved twice
// or lost. More than 49 (fewer with members over 1015 bytes, whose
// transactions fill DynamoDB's 4 MB sooner, or when a ranked key's count
// items need the room) move in successive transactions of up to 49, each
// atomic and each reading the source afresh: another client can see the
// move half done, never a member in both keys or in neither.
//
// Cost: one BatchGetItem of the two metadata items (2 read units), one
// Query of the source's index for the members, and one TransactWriteItems
// of 2 per member plus 2 items (4 write units per member plus 4); when the
// source has members with expiries, a BatchGetItem of the members read (1
// read unit each); a member already in destination costs one more
// attempt of the transaction. Per 49 members beyond the first 49, as much
// again.
//
// [ZMOVE]: https://redis.io/docs/latest/commands/zmove/
func (c *Client) ZMove(ctx context.Context, source, destination string, args ZMoveArgs) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZMove")
	defer traced.end(&err)
	sel, err := checkZMove("ZMOVE", source, destination, args)
	if err != nil {
		return nil, err
	}
	return c.zmove(ctx, "ZMOVE", source, destination, sel, false)
}

// BZMove is ZMove waiting, as BZPopMin does, up to timeout (0: until ctx
// ends) for source to have members, as Redis 8.12's BZMOVE: it moves up
// to args.Count of them (Order PopMin or PopMax; ByScore is ErrSyntax) as
// soon as there is one, without waiting for more. zs is empty (Redis's
// null) when the timeout passed. Writes to destination do not end the
// wait. The same key as source and destination answers empty at once,
// without waiting; inside a transaction (TxPipelined, MULTI) it does not
// wait, as Redis's. A source of another type is ErrWrongType at the first
// try, as BZPOPMIN's keys; a destination of another type is ErrWrongType
// when members are there to move.
//
// Waiting: as BZPopMin (a write of the same Client adding members to
// source wakes it at once; another Client's is seen at the next poll, at
// most Options.MaxPollInterval later), first come first served among the
// Client's waiters of source: those moving to the same destination from
// the same end are served by one move of as many members as they wait
// for. Cost: as BZPopMin's waiting (one read of source's metadata item
// per poll, whatever the number of waiters), then as ZMove.
//
// [BZMOVE]: https://redis.io/docs/latest/commands/bzmove/
func (c *Client) BZMove(ctx context.Context, timeout time.Duration, source, destination string, args ZMoveArgs) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "BZMove")
	defer traced.end(&err)
	if args.ByScore {
		return nil, argError("BZMOVE", "BYSCORE", "", ErrSyntax)
	}
	sel, err := checkZMove("BZMOVE", source, destination, args)
	if err != nil {
		return nil, err
	}
	if err := checkTimeout("BZMOVE", timeout); err != nil {
		return nil, err
	}
	if source == destination {
		return nil, c.sameKey(ctx, "BZMOVE", source)
	}
	// The waiters of one Client moving from source to destination at the
	// same end are served together (zpop.go: block), by one move of as many
	// members as they wait for; members moved for a waiter that left go
	// back (ZMOVEMEMBER from destination).
	end := PopMin
	if sel.Rev {
		end = PopMax
	}
	op := blockOp{
		kind: "move\x00" + end.String() + "\x00" + destination,
		take: func(ctx context.Context, key string, n int64) ([]Z, error) {
			s := sel
			s.Count = n
			return c.zmove(ctx, "BZMOVE", key, destination, s, false)
		},
		undo: func(ctx context.Context, key string, zs []Z) error {
			_, err := c.ZMoveMember(ctx, destination, key, ZMoveMemberArgs{Members: members(zs)})
			return err
		},
	}
	_, zs, err := c.view().wait(ctx, "BZMOVE", timeout, []string{source}, sel.Count, op)
	return zs, err
}

// ZMoveMember moves the named members, with their scores, from the sorted
// set at source to the one at destination, as Redis 8.12's ZMOVEMEMBER,
// and returns those moved (member and score) in the order given. Members
// missing from source are skipped, a member named twice moves once; with
// NX a member already in destination stays in source, with XX one absent
// from it. zs is empty (Redis's null) when none moved, and when source
// and destination are the same key. Keys, expiries, types and atomicity
// as ZMove: one transaction for up to 49 members named, successive
// atomic chunks of 49 beyond.
//
// Cost: one BatchGetItem of the two metadata items, one BatchGetItem of
// the members in source (1 read unit each; with NX or XX, in destination
// too), and one TransactWriteItems as ZMove's.
//
// [ZMOVEMEMBER]: https://redis.io/docs/latest/commands/zmovemember/
func (c *Client) ZMoveMember(ctx context.Context, source, destination string, args ZMoveMemberArgs) (_ []Z, err error) {
	ctx, traced := c.command(ctx, "ZMoveMember")
	defer traced.end(&err)
	const cmd = "ZMOVEMEMBER"
	switch {
	case args.NX && args.XX:
		return nil, argError(cmd, "options", "NX XX", ErrSyntax)
	case len(args.Members) == 0:
		return nil, argError(cmd, "members", "", ErrSyntax)
	}
	if err := c.checkKeyMembers(cmd, source, args.Members); err != nil {
		return nil, err
	}
	if err := checkKey(cmd, destination); err != nil {
		return nil, err
	}
	if source == destination {
		return nil, c.sameKey(ctx, cmd, source)
	}
	names := model.Dedupe(args.Members)
	var moved []Z
	for start := 0; start < len(names); {
		end := min(start+model.MaxMove, len(names))
		chunk := names[start:end]
		var got []Z
		err := c.st.Attempts(ctx, false, func() (bool, error) {
			sm, dm, ok, err := c.moveMetas(ctx, source, destination, false)
			if err != nil || !ok {
				return true, err
			}
			found, err := c.view().probe(ctx, source, model.TypeZSet, chunk, false)
			if err != nil {
				return true, err
			}
			var cands []moveCand
			for _, m := range chunk {
				if it, ok := found[m]; ok {
					cands = append(cands, moveCand{z: Z{Score: model.ScoreOfIX(model.BytesAttr(it, model.AttrIX)), Member: m}, exp: model.MemberExp(it), pinned: true})
				}
			}
			var inDst map[string]model.Item
			if (args.NX || args.XX) && len(cands) > 0 && dm.Typ != model.TypeNone {
				if inDst, err = c.view().probe(ctx, destination, model.TypeZSet, members(model.MapSlice(cands, func(x moveCand) Z { return x.z })), false); err != nil {
					return true, err
				}
			}
			var abandoned bool
			got, abandoned, err = c.moveChunk(ctx, source, destination, sm, cands, inDst, args.NX, args.XX)
			if errors.Is(err, model.ErrRankChunk) && len(chunk) > 1 {
				end = start + len(chunk)/2
				chunk = chunk[:len(chunk)/2]
				return false, nil
			}
			return !abandoned, err
		})
		moved = append(moved, got...)
		if err != nil {
			return moved, wrap(cmd, err)
		}
		start = end
	}
	return moved, nil
}

// checkZMove validates ZMOVE's and BZMOVE's arguments.
func checkZMove(cmd, source, destination string, args ZMoveArgs) (model.MoveSel, error) {
	sel := model.MoveSel{Count: args.Count}
	if args.Count < 0 {
		return sel, argError(cmd, "count", strconv.FormatInt(args.Count, 10), ErrOutOfRange)
	}
	if args.ByScore {
		if args.Order != 0 {
			return sel, argError(cmd, "order", args.Order.String(), ErrSyntax)
		}
		var err error
		if sel.Lo, sel.Hi, sel.Empty, err = parseScoreRange(cmd, args.Min, args.Max); err != nil {
			return sel, err
		}
		sel.ByScore = true
		if sel.Count == 0 {
			sel.Count = -1
		}
	} else {
		switch args.Order {
		case PopMin:
		case PopMax:
			sel.Rev = true
		default:
			return sel, argError(cmd, "order", args.Order.String(), ErrSyntax)
		}
		if sel.Count == 0 {
			sel.Count = 1
		}
	}
	if err := checkKey(cmd, source); err != nil {
		return sel, err
	}
	return sel, checkKey(cmd, destination)
}

// sameKey is the reply of a move from key to itself: nothing, after
// checking key's type as Redis does.
func (c *Client) sameKey(ctx context.Context, cmd, key string) error {
	_, err := c.typedMeta(ctx, key, model.TypeZSet)
	return wrap(cmd, err)
}

// moveCand is a source member to move: its score, and its expiry (0: none)
// when pinned, that is when it was read (else the delete requires none).
type moveCand struct {
	z      Z
	exp    int64
	pinned bool
}

// zmove is ZMOVE and BZMOVE's try: it moves the members sel selects from
// source to destination in chunks of at most model.MaxMove, each chunk read
// afresh and retried whole when another client changed them meanwhile.
// With others, a source of another type is a missing one (a blocked
// move's later tries).
func (c *Client) zmove(ctx context.Context, cmd, source, destination string, sel model.MoveSel, others bool) ([]Z, error) {
	ctx = store.KeepOutcome(ctx) // it returns what it moves
	if source == destination {
		return nil, c.sameKey(ctx, cmd, source)
	}
	var moved []Z
	size := int64(model.MaxMove)
	for done := false; !done; {
		var got []Z
		err := c.st.Attempts(ctx, false, func() (bool, error) {
			sm, _, ok, err := c.moveMetas(ctx, source, destination, others)
			if err != nil || !ok {
				done = true
				return true, err
			}
			want := size
			if sel.Count >= 0 {
				want = min(want, sel.Count-int64(len(moved)))
			}
			r := zrange{in: c.scoreQuery(source, math.Inf(-1), math.Inf(1)), rev: sel.Rev, count: want, checked: true}
			if sel.ByScore {
				r.in, r.empty = c.scoreQuery(source, sel.Lo, sel.Hi), sel.Empty
				lo, hi := sel.Lo, sel.Hi
				r.keep = func(x Z) bool { return x.Score >= lo && x.Score <= hi }
			}
			zs, err := c.view().read(ctx, source, r)
			if err != nil || len(zs) == 0 {
				done = true
				return true, err
			}
			cands := make([]moveCand, len(zs))
			for i, z := range zs {
				cands[i] = moveCand{z: z}
			}
			// Members with expiries: read them, so that each moves with
			// its own (EXEC's snapshot always knows them).
			if c.view().uncounted(sm) {
				found, err := c.view().probe(ctx, source, model.TypeZSet, members(zs), false)
				if err != nil {
					return true, err
				}
				cands = cands[:0]
				for _, z := range zs {
					if it, ok := found[z.Member]; ok && model.ScoreOfIX(model.BytesAttr(it, model.AttrIX)) == z.Score {
						cands = append(cands, moveCand{z: z, exp: model.MemberExp(it), pinned: true})
					}
				}
				if len(cands) < len(zs) {
					return false, nil // changed since the range was read: read again
				}
			}
			var abandoned bool
			got, abandoned, err = c.moveChunk(ctx, source, destination, sm, cands, nil, false, false)
			switch {
			case errors.Is(err, model.ErrRankChunk) && size > 1:
				size /= 2
				return false, nil
			case err != nil, abandoned:
				return !abandoned, err
			}
			done = int64(len(zs)) < want || sel.Count >= 0 && int64(len(moved)+len(got)) >= sel.Count
			return true, nil
		})
		moved = append(moved, got...)
		if err != nil {
			return moved, wrap(cmd, err)
		}
	}
	return moved, nil
}

// moveMetas reads source's and destination's metadata items: ok is false
// when there is nothing to move (source missing, or of another type with
// others); ErrWrongType when source exists and either key holds another
// type.
func (c *Client) moveMetas(ctx context.Context, source, destination string, others bool) (sm, dm model.Meta, ok bool, err error) {
	ms, err := c.view().metas(ctx, []string{source, destination})
	if err != nil {
		return model.Meta{}, model.Meta{}, false, err
	}
	keys := []string{source, destination}
	for i := range ms {
		// A key whose members all expired is missing (settle).
		if ms[i], err = c.settle(ctx, keys[i], ms[i], false); err != nil {
			return model.Meta{}, model.Meta{}, false, err
		}
	}
	sm, dm = ms[0], ms[1]
	switch {
	case sm.Typ == model.TypeNone, sm.Typ != model.TypeZSet && others:
		return sm, dm, false, nil
	case sm.Typ != model.TypeZSet, dm.Typ != model.TypeNone && dm.Typ != model.TypeZSet:
		return sm, dm, false, ErrWrongType
	}
	return sm, dm, true, nil
}

// moveChunk moves cands (at most model.MaxMove) from source, whose metadata
// reads sm, to destination in one transaction. inDst holds the items of
// the candidates present in destination, read for NX or XX: with NX
// those stay, with XX the absent ones do. abandoned: a condition failed
// (a member taken, re-scored or given an expiry meanwhile, one added to
// or removed from destination under NX or XX): nothing was written.
func (c *Client) moveChunk(ctx context.Context, source, destination string, sm model.Meta, cands []moveCand, inDst map[string]model.Item, nx, xx bool) (moved []Z, abandoned bool, err error) {
	first := true
	var picked []moveCand
	for _, cd := range cands {
		_, there := inDst[cd.z.Member]
		if nx && there || xx && !there {
			continue
		}
		picked = append(picked, cd)
	}
	if len(picked) == 0 {
		return nil, false, nil
	}
	if size := moveBytes(source, destination, picked); size > model.MaxTxBytes && len(picked) > 1 {
		return nil, false, model.ErrRankChunk // cut smaller, as a ranked key's
	}
	res, err := c.view().write(ctx, func() []*model.Group {
		src := &model.Group{Key: source, Typ: model.TypeZSet}
		dst := &model.Group{Key: destination, Typ: model.TypeZSet}
		if first && sm.TTLs == 0 {
			src.Known, src.Now = true, sm // the chunk that empties it deletes it at once
		}
		first = false
		for _, cd := range picked {
			src.Writes = append(src.Writes, c.moveOut(source, cd))
			var in *model.Write
			switch {
			case xx:
				in = c.moveOver(destination, cd, inDst[cd.z.Member])
				in.Retry = nil // changed since read: read again
			case nx:
				in = c.moveIn(destination, cd)
				in.Retry = nil
			default:
				in = c.moveIn(destination, cd)
			}
			dst.Writes = append(dst.Writes, in)
		}
		return []*model.Group{src, dst}
	})
	if err != nil || res.Abandoned {
		return nil, res.Abandoned, err
	}
	out := make(map[string]bool, len(res.Applied))
	for _, w := range res.Applied {
		if w.Action.Delete != nil {
			out[w.Member] = true
		}
	}
	for _, cd := range picked {
		if out[cd.z.Member] {
			moved = append(moved, cd.z)
		}
	}
	return moved, false, nil
}

// moveBytes estimates the size of the transaction moving cands.
func moveBytes(source, destination string, cands []moveCand) int {
	n := 0
	for _, cd := range cands {
		w := &model.Write{Member: cd.z.Member}
		n += model.WriteBytes(source, w) + model.WriteBytes(destination, w)
	}
	return n
}

// moveOut is the delete of cd from key: on condition that it still holds
// the score it was read with (pinned, as rank.go's pin) and, when read,
// the expiry (model.PinDelete); required and strict, so that any change
// abandons the move.
func (c *Client) moveOut(key string, cd moveCand) *model.Write {
	w := c.deleteMember(key, model.TypeZSet, cd.z.Member)
	w.Score, w.Prev, w.Known, w.Pinned, w.Need = cd.z.Score, model.ZsetIX(cd.z.Score, cd.z.Member), true, true, model.NeedIX
	w.Required, w.Strict = true, true
	if cd.pinned {
		w = model.PinDelete(w, cd.exp)
	}
	return w
}

// moveIn is the put of cd into key, where it is believed absent: its
// score, and its expiry. When the member is there after all, its retry
// replaces it (moveOver).
func (c *Client) moveIn(key string, cd moveCand) *model.Write {
	w := c.putMember(key, model.TypeZSet, cd.z.Member, model.ZsetIX(cd.z.Score, cd.z.Member))
	w.Count, w.Score, w.Required = 0, cd.z.Score, true
	if cd.exp != 0 {
		model.SetMemberExp(w.Action.Put.Item, cd.exp)
		w.Ttl = 1
	}
	w.Retry = func(now model.Item) (*model.Write, error) { return c.moveTo(key, cd, now), nil }
	return w
}

// moveTo is moveIn when now is nil, else moveOver now.
func (c *Client) moveTo(key string, cd moveCand, now model.Item) *model.Write {
	if now == nil {
		return c.moveIn(key, cd)
	}
	return c.moveOver(key, cd, now)
}

// moveOver is the put of cd replacing key's member item cur, on condition
// that it still holds cur's score and expiry: the member takes cd's score
// and expiry.
func (c *Client) moveOver(key string, cd moveCand, cur model.Item) *model.Write {
	want, prev, was := model.ZsetIX(cd.z.Score, cd.z.Member), model.BytesAttr(cur, model.AttrIX), model.MemberExp(cur)
	it := model.ItemKey(key, model.MemberSK(model.TypeZSet, cd.z.Member))
	it[model.AttrIX] = model.Bin(want)
	if len(cd.z.Member) > model.InlineMemberLen {
		it[model.AttrMem] = model.Bin([]byte(cd.z.Member))
	}
	var ttl int64
	if cd.exp != 0 {
		model.SetMemberExp(it, cd.exp)
		ttl++
	}
	if was != 0 {
		ttl--
	}
	w := &model.Write{
		Member: cd.z.Member, Score: cd.z.Score, Ix: want, Prev: prev, Known: true,
		Need: model.NeedIX | model.NeedExpiry, ExpWas: was, // still as met
		Ttl: ttl, Required: true, Replaces: true, // an expired cur is replaced, not counted again
		Action: types.TransactWriteItem{Put: &types.Put{
			TableName: c.st.Table(), Item: it,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
	}
	w.Retry = func(now model.Item) (*model.Write, error) { return c.moveTo(key, cd, now), nil }
	return w
}
