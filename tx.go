package redimo

// The one transaction writer every write command uses.
//
// A command describes its writes as member-item writes grouped by key. Each
// write carries a condition that holds exactly when the write changes what
// the command reports (attribute_not_exists for an add, attribute_exists for
// a remove, a compare-and-swap on the old value for an update), and the
// change it makes to the key's cardinality. transact adds one action per key
// on its metadata item (type check plus the cardinality change, or its
// deletion when the key becomes empty) and sends everything as one
// TransactWriteItems. When DynamoDB cancels it, CancellationReasons say
// which conditions failed and, with ReturnValuesOnConditionCheckFailure,
// what those items hold now; each failed write is then dropped or replaced
// (write.retry) and the rest is tried again. So the counts are exact under
// any concurrency: a write is counted only when the transaction that
// carried it committed.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/store"
)

// transact writes groups (at most model.MaxTxItems actions in all, metadata items
// included) as one atomic transaction, retrying as described above. Each
// attempt goes through the writer's phases: render (the actions), send,
// then either committed (the bookkeeping of what committed) or judge (the
// verdict of the cancellation: the metadata's first, then each write's
// next write).
func (c *Client) transact(ctx context.Context, groups ...*model.Group) (model.TxResult, error) {
	for try := 0; ; try++ {
		if try >= c.opts.MaxAttempts {
			return model.TxResult{}, ErrContention
		}
		if try > 0 {
			if err := ctx.Err(); err != nil {
				return model.TxResult{}, err
			}
		}
		a, err := c.render(ctx, groups)
		if err != nil || len(a.actions) == 0 {
			return model.TxResult{}, err
		}
		out := c.sendAttempt(a)
		if out.err == nil {
			var res model.TxResult
			for i, g := range groups {
				if a.metaAt[i] < 0 {
					continue // nothing written
				}
				res.Applied = append(res.Applied, g.Writes...)
				c.committed(ctx, keyCommit{g: g, meta: a.actions[a.metaAt[i]], counts: a.counts[g], unrank: g.Typ == model.TypeZSet && g.GivesExpiry()})
			}
			return res, nil
		}
		v, err := c.judge(ctx, a, out)
		switch {
		case err != nil:
			return model.TxResult{}, err
		case v == abandoned:
			return model.TxResult{Abandoned: true}, nil
		case v == conflicted:
			if err := store.Sleep(ctx, try+1); err != nil {
				return model.TxResult{}, err
			}
		}
	}
}

// render is an attempt's actions: each group's member writes, the count
// items' actions they need (rank.go) and the action on its metadata item
// (metaAction). A group with nothing to write and its type known sends
// nothing; no action at all, nothing to send.
func (c *Client) render(ctx context.Context, groups []*model.Group) (*attempt, error) {
	if err := c.rankPrepare(ctx, groups); err != nil {
		return nil, err
	}
	ttlTable, err := c.view().memberTTL(ctx)
	if err != nil {
		return nil, err
	}
	now := c.nowMs()
	a := &attempt{ctx: ctx, now: now, counts: map[*model.Group][]*model.Write{}, metaAt: make([]int, len(groups))}
	for i, g := range groups {
		if len(g.Writes) == 0 && g.TypeOK {
			a.metaAt[i] = -1
			continue
		}
		a.counts[g] = c.rankWrites(g)
		for _, w := range append(g.Writes, a.counts[g]...) {
			a.add(w.Rendered(now, ttlTable), g, w)
		}
		a.metaAt[i] = len(a.actions)
		a.add(c.metaAction(g), g, nil)
	}
	if len(a.actions) > model.MaxTxItems {
		return nil, model.ErrRankChunk
	}
	return a, nil
}

// A verdict is what judge made of a cancelled attempt.
type verdict uint8

const (
	again      verdict = iota // the next writes are ready: send them
	conflicted                // as again, after a pause: another transaction was in the way
	abandoned                 // a required write failed: the command gives up, nothing written
)

// judge reads a cancelled attempt's reasons: the metadata's first (a key
// of the wrong type, expired, small or crossing the build minimum), then
// each failed write's, replaced by its next write (nextWrite).
func (c *Client) judge(ctx context.Context, a *attempt, out txOutcome) (verdict, error) {
	if out.reasons == nil { // conflicts alone were resent by sendTx
		return again, out.err
	}
	v := again
	for _, r := range out.reasons {
		switch code := aws.ToString(r.Code); {
		case code == "None", code == "", code == "ConditionalCheckFailed":
		case model.RetryableCode(code):
			v = conflicted
		default:
			return again, out.err
		}
	}
	if converted, err := c.judgeMeta(ctx, a, out, v == conflicted); err != nil || converted {
		return again, err // converted: the other writes were judged against the small sets
	}
	for i, r := range out.reasons {
		w := a.writes[i]
		if w == nil || aws.ToString(r.Code) != "ConditionalCheckFailed" {
			continue
		}
		if w.RankItem { // a count item's range changed: read them again
			c.rankStale(a.owners[i].Key)
			continue
		}
		next, err := c.nextWrite(a.owners[i], w, r.Item, a.now)
		if err != nil {
			return again, err
		}
		if next == nil && w.Required {
			return abandoned, nil
		}
		a.owners[i].Replace(w, next)
	}
	return v, nil
}

// judgeMeta is judge's verdict on the metadata actions that failed: a
// wrong type outranks everything else; an expired key is purged by the
// caller (expiredKeyError); small sets met become member items first
// (converted: every write must be judged again).
func (c *Client) judgeMeta(ctx context.Context, a *attempt, out txOutcome, conflict bool) (converted bool, err error) {
	small := map[string]model.Item{}
	for i, r := range out.reasons {
		g := a.owners[i]
		if a.writes[i] != nil {
			continue
		}
		if aws.ToString(r.Code) == "ConditionalCheckFailed" {
			c.rankSeen(g, r.Item)
			g.Known, g.Now = true, model.DecodeMeta(r.Item)
			if g.Now.Expired(c.nowMs()) {
				return false, &expiredKeyError{key: g.Key, m: g.Now}
			}
			if m, ok := model.EmptiedByPurge(r.Item); ok {
				return false, &expiredKeyError{key: g.Key, m: m}
			}
			if g.Now.Typ != model.TypeNone && g.Now.Typ != g.Typ {
				// A key whose members have all expired is missing
				// (memberttl.go): sweep it, then start again.
				live, err := c.settle(ctx, g.Key, g.Now, false)
				if err != nil {
					return false, err
				}
				if live.Typ == model.TypeNone {
					return false, &expiredKeyError{key: g.Key, m: g.Now, members: true}
				}
				return false, &wrongTypeError{key: g.Key}
			}
			if model.SmallMembers(r.Item) != nil || model.SmallZOf(r.Item) != nil { // a small set or sorted set: its members become items first
				small[g.Key] = r.Item
				continue
			}
			if c.rankCrossed(g, r.Item) {
				// The key reaches the build minimum with these writes:
				// give it count items, then write it ranked.
				built, err := c.rankBuild(ctx, g.Key)
				if err != nil {
					return false, err
				}
				g.NoBuild = !built
			}
		}
		g.TypeOK = !conflict && !out.elsewhere
	}
	for key, it := range small {
		if err := c.convert(ctx, key, it); err != nil {
			return false, err
		}
	}
	return len(small) > 0, nil
}

// nextWrite is what replaces w, whose condition failed on the item as it
// is now (nil: absent), at the attempt's time now: nil drops it.
func (c *Client) nextWrite(g *model.Group, w *model.Write, now model.Item, at int64) (*model.Write, error) {
	if model.Collides(w, now) && w.Action.Delete != nil {
		now = nil // another long member: this one is absent
	} else if model.Collides(w, now) {
		return nil, fmt.Errorf("%w: %.40q... (%d bytes)", ErrMemberCollision, w.Member, len(w.Member))
	}
	switch {
	case now != nil && model.ExpiredAt(now, at) && !w.Swept && !w.Replaces:
		// An expired member is a missing one (memberttl.go).
		return c.onExpired(g.Key, g.Typ, w, now)
	case now != nil && w.Action.Delete != nil && !w.Swept && !w.Strict && (w.Need&model.NeedExpiry == 0 || w.ExpWas != model.MemberExp(now)):
		return model.PinDelete(w, model.MemberExp(now)), nil // it has an expiry, or another one
	case w.Retry != nil:
		return w.Retry(now)
	}
	return nil, nil
}

// keyCommit is what a committed transaction wrote to one key: its member
// writes (g; g.Typ the key's type after them), the action on its metadata
// item, its count items' actions, and whether it unranked the key.
type keyCommit struct {
	g      *model.Group
	meta   types.TransactWriteItem
	counts []*model.Write
	unrank bool
}

// committed is the bookkeeping after a commit, of transact's and of
// EXEC's alike: what this Client now knows of the key's encoding
// (smallset.go) and ranks (rank.go), and the waiters its new members serve.
func (c *Client) committed(ctx context.Context, k keyCommit) {
	g := k.g
	switch {
	case model.DeletesKey(k.meta): // its next SADD or ZADD starts it small
		c.seenBig(g.Key, false)
	case k.meta.Update != nil: // a key of member items
		c.seenBig(g.Key, true)
	}
	c.zitems.forget(g.Key)
	if g.Typ == model.TypeZSet && g.Adds() {
		c.waiters.notifyAdded(g.Key)
	}
	if g.Typ == model.TypeZSet {
		c.notedIX(g)
	}
	c.rankCommitted(ctx, g, k.counts)
	if k.unrank {
		c.setBelief(g.Key, &model.RankBelief{}) // its metadata action removed rk
		if g.Typ != model.TypeZSet {
			// Deleted, or a set now: its count items go, as after DEL
			// (rankDrop). One left behind after an error here is
			// ignored until a build replaces it.
			_ = c.rankDrop(ctx, g.Key)
		}
	}
	c.rankCreated(ctx, g)
}

// notedIX is what a committed write of sorted set g tells the next guess (table.memberGuess):
// the index value a one-member write left, and the members removed.
// (Members of a key deleted or purged are not forgotten: a guess of
// them costs a cancelled attempt.)
func (c *Client) notedIX(g *model.Group) {
	for _, w := range g.Writes {
		switch {
		case w.Action.Delete != nil:
			c.zixs.forget(g.Key + "\x00" + w.Member)
		case len(g.Writes) == 1 && w.Ix != nil:
			c.zixs.note(g.Key+"\x00"+w.Member, w.Ix)
		}
	}
}

// sendAttempt sends one attempt's transaction: through the combiner
// (combine.go), or alone when write combining is off or the combiner asks
// for it. The outcome's reasons, when the transaction was cancelled, are
// those of the attempt's own actions.
func (c *Client) sendAttempt(a *attempt) txOutcome {
	if c.combiner != nil {
		if out := c.combiner.send(a); !out.alone {
			return out
		}
	}
	err := c.st.SendTx(a.ctx, a.actions)
	out := txOutcome{err: err}
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) && len(cancelled.CancellationReasons) == len(a.actions) {
		out.reasons = cancelled.CancellationReasons
	}
	return out
}

// metaAction is the action on g's metadata item for g's writes:
//   - the cardinality grows: set the type, add to the count; the key must be
//     missing or of g's type;
//   - it shrinks by k: subtract, on condition that more than k remain; or,
//     when the last failed attempt showed exactly k, delete the item on
//     condition that it still counts k. So the metadata item is deleted in
//     the same transaction that removes the last member;
//   - unchanged with members written (a score update): store a new
//     version token only;
//   - nothing written: a condition check of the type.
//
// Every action but the deletion and the check stores a new version token
// (model.AttrVer), which WATCH compares.
func (c *Client) metaAction(g *model.Group) types.TransactWriteItem {
	var d, dt int64
	mutates := false // a member is written, not only checked
	for _, w := range g.Writes {
		d += w.Delta
		dt += w.Ttl
		mutates = mutates || w.Action.ConditionCheck == nil
	}
	// Every action also requires the key not to have expired: writes to an
	// expired key would otherwise meet its old members. transact purges the
	// key and starts again when that is what failed. A sorted set's action
	// requires it ranked as the writer believes (rank.go), and an unranked
	// one that grows, that it stays below the build minimum (rankGuard).
	// Every action that changes the key stores a fresh version token, which
	// WATCH compares, and its key-index attributes (model.MetaWrite).
	m := model.NewMetaWrite(g.Key).RequireLive(c.nowMs())
	c.rankGuard(g, d, m)
	// Member items need a key of member items: transact converts a small
	// set or sorted set (smallset.go, smallz.go).
	m.RequireSmall(false)
	changes := func() *model.MetaWrite {
		m.NewVersion()
		// Members given or rid of an expiry change mn (memberttl.go); a key
		// with member expiries is not ranked (its ranks are counted).
		if dt != 0 {
			m.AddTTLs(dt)
		}
		if dt > 0 && g.Typ == model.TypeZSet {
			m.RemoveRanked()
		}
		return m
	}
	switch {
	case d > 0:
		changes().RequireTypeOrAbsent(g.Typ).SetType(g.Typ).AddCard(d)
	case d < 0 && g.Known && g.Now.Card == -d:
		m.RequireType(g.Typ).RequireCard("=", -d).DeleteKey(g.Now.Tokens, time.Now().UnixMilli())
	case d < 0:
		changes().RequireType(g.Typ).RequireCard(">", -d).AddCard(d)
	case mutates:
		// Members change, their number does not (a new score, or as many
		// added as removed): the key exists when this commits, since
		// those writes' conditions need its members.
		changes().RequireTypeOrAbsent(g.Typ)
	default:
		m.RequireTypeOrAbsent(g.Typ) // nothing written: a check
	}
	return m.Action(c.st.Table())
}

// expiredKeyError reports that a transaction met an expired key, which must
// be purged before the command can go on.
type expiredKeyError struct {
	key     string
	m       model.Meta
	members bool // not the key but all its members expired: sweep them
}

func (e *expiredKeyError) Error() string { return "redimo: key expired: " + e.key }

// write is transact for writes rebuilt by build on every try:
// when a key turns out to have expired, it is purged and build's writes
// are tried again from scratch (the failed attempt's retries were made
// against the old members).
func (t table) write(ctx context.Context, build func() []*model.Group) (res model.TxResult, err error) {
	c := t.c
	err = c.st.Attempts(ctx, false, func() (bool, error) {
		var expired *expiredKeyError
		if res, err = c.transact(ctx, build()...); !errors.As(err, &expired) {
			return true, err
		}
		res = model.TxResult{}
		if expired.members { // all its members expired (memberttl.go)
			return false, c.sweep(ctx, expired.key, expired.m.Typ)
		}
		return false, c.view().purge(ctx, expired.key, expired.m)
	})
	return res, err
}

// purge deletes every item of an expired key. First it marks the metadata
// item dead (model.DeadExp), on condition that it still holds the expiry m.exp
// (so a purge never touches a key created or persisted after it was seen
// expired); then it lists the members, strongly consistent, and deletes
// them in transactions of 99 that subtract what they delete from the
// stored count, so the count equals the member items at every moment; the
// last transaction deletes the metadata item on condition that it counts
// exactly the members deleted with it. Concurrent purges of one key are
// harmless: each delete requires its member to exist, so a purge that
// finds another one ahead stops, and a purge cut short leaves a dead key
// (invisible to reads) that the next write to it purges again.
//
// A ranked sorted set's count items go after it (rankDrop).
//
// Cost: 1 UpdateItem, a Query per 1 MB of members, ⌈members/99⌉
// TransactWriteItems (2 write units per item).
func (t table) purge(ctx context.Context, key string, m model.Meta) error {
	c := t.c
	// Gone: its next SADD starts it small.
	c.seenBig(key, false)
	c.zitems.forget(key)
	if m.Small != nil || m.SmallZ != nil { // its only item
		return c.smallPurge(ctx, key, m.Exp)
	}
	err := c.st.RetryConflicts(ctx, func() error {
		_, err := c.st.UpdateItem(ctx, model.NewMetaWrite(key).RequireExpiry(m.Exp, model.DeadExp).SetExp(model.DeadExp).Update(c.st.Table()))
		return err
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return nil // purged by another client, or re-created or persisted since
	}
	if err != nil {
		return err
	}
	// Readers judged the key live until its expiry (by their clocks, as
	// this one judged it expired: Options.Now); a key a DEL marked dead
	// (cut short, found by this purge) was live until a moment this Client
	// does not know, so the lease runs from now.
	left := readLease
	if m.Exp != model.DeadExp {
		left = min(left, readLease-time.Duration(c.nowMs()-m.Exp)*time.Millisecond)
	}
	return c.reclaim(ctx, key, m, time.Now().Add(left))
}

// reclaim deletes the items of key, marked dead (model.DeadExp) by a purge
// or a DEL, m as read before the mark: purge says how.
//
// Its first deletion waits until leaseEnds, readLease after the key
// stopped being live (the listing runs meanwhile): a read that found the
// key live and answered within the lease has read every member (leased).
func (c *Client) reclaim(ctx context.Context, key string, m model.Meta, leaseEnds time.Time) error {
	var batch []types.TransactWriteItem
	flush := func(final bool) error {
		if err := store.SleepFor(ctx, time.Until(leaseEnds)); err != nil {
			return err
		}
		k := int64(len(batch))
		guard := model.NewMetaWrite(key).RequireExpiry(model.DeadExp).RequireCard(">=", k).AddCard(-k)
		if final {
			guard = model.NewMetaWrite(key).RequireExpiry(model.DeadExp).RequireCard("=", k).DeleteKey(m.Tokens, time.Now().UnixMilli())
		}
		actions := append(batch, guard.Action(c.st.Table()))
		batch = batch[:0]
		return c.st.SendTx(ctx, actions)
	}
	// Strongly consistent whatever the options: every member written
	// before the mark must be listed, or the last delete's count check
	// fails and the key stays dead until the next purge.
	list := model.MemberQuery(key, m.Typ, "")
	list.ConsistentRead = aws.Bool(true)
	for it, err := range c.query(withExpired(ctx), list, 0) {
		if err != nil {
			return err
		}
		// A full chunk goes only once another member follows it, so that
		// the last members always go with the metadata item: a count that
		// reached 0 before the final delete would leave an item that reads
		// as missing (model.DecodeMeta) and that no later purge would find.
		if len(batch) == model.MaxTxItems-1 {
			if err := flush(false); err != nil {
				return model.IgnoreCancelled(err)
			}
		}
		batch = append(batch, types.TransactWriteItem{Delete: &types.Delete{
			TableName: c.st.Table(), Key: model.Item{model.AttrPK: it[model.AttrPK], model.AttrSK: it[model.AttrSK]},
			ConditionExpression:      aws.String("attribute_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": model.AttrPK},
		}})
	}
	if err := model.IgnoreCancelled(flush(true)); err != nil || !m.Ranked {
		return err
	}
	return c.rankDrop(ctx, key)
}

// transactChunks runs the writes of one key in transactions of at most
// model.MaxTxItems-1 writes (plus the metadata action), and fewer when long
// members would take one past DynamoDB's 4 MB, and returns the writes that
// were applied. Each chunk is atomic; the whole is not. No writes at all is
// a lone type check of the key.
func (c *Client) transactChunks(ctx context.Context, key string, typ model.KeyType, writes []*model.Write) ([]*model.Write, error) {
	return c.view().writeChunks(ctx, key, typ, writes, model.Meta{Typ: model.TypeNone})
}

// writeChunks is transactChunks for a caller that has just read the
// key's metadata (now): the chunk that removes the last members then
// deletes the metadata item at the first attempt instead of the second. A
// stale now costs one attempt, never correctness: the conditions decide.
func (t table) writeChunks(ctx context.Context, key string, typ model.KeyType, writes []*model.Write, now model.Meta) ([]*model.Write, error) {
	c := t.c
	var applied []*model.Write
	chunks := model.BySize(key, c.chunksOf(key, typ, writes))
	for len(chunks) > 0 {
		chunk := chunks[0]
		chunks = chunks[1:]
		first := true
		res, err := c.view().write(ctx, func() []*model.Group {
			g := &model.Group{Key: key, Typ: typ, Writes: append([]*model.Write(nil), chunk...)}
			if first && now.Typ == typ {
				g.Known, g.Now = true, now
			}
			first = false
			return []*model.Group{g}
		})
		if errors.Is(err, model.ErrRankChunk) && len(chunk) > model.RankStep {
			// The key's count items need more room than planned: it was
			// ranked meanwhile (by this command's own writes, rank.go:
			// rankGuard), or its ranges changed. Cut what is left again,
			// in index order, to the ranges rankPrepare just read.
			// A plan no better than the one that failed falls back to
			// chunks of model.RankStep, which always fit.
			again := model.BySize(key, c.chunksOf(key, typ, slices.Concat(append([][]*model.Write{chunk}, chunks...)...)))
			if len(again[0]) >= len(chunk) {
				again = append(model.FixedChunks(chunk, model.RankStep), chunks...)
			}
			chunks = again
			continue
		}
		if err != nil {
			return applied, err
		}
		applied = append(applied, res.Applied...)
		for _, w := range res.Applied {
			now.Card += w.Delta
		}
	}
	return applied, nil
}

// transactions is how many transactions writeChunks needs for writes.
func (t table) transactions(key string, typ model.KeyType, writes []*model.Write) int {
	return len(model.BySize(key, t.c.chunksOf(key, typ, writes)))
}

// putMember is a write that creates member, counting +1, and does nothing
// when it exists (the condition fails and the write is dropped). ix is a
// sorted-set member's index value; a set member has none (nil), so its
// item writes no index entry ("Set members" in internal/model/keys.go).
func (c *Client) putMember(key string, typ model.KeyType, member string, ix []byte) *model.Write {
	it := model.ItemKey(key, model.MemberSK(typ, member))
	if typ == model.TypeZSet {
		it[model.AttrIX] = model.Bin(ix)
	} else {
		ix = nil
	}
	if len(member) > model.InlineMemberLen {
		it[model.AttrMem] = model.Bin([]byte(member))
	}
	return &model.Write{
		Member: member, Delta: 1, Count: 1, Ix: ix, Known: true, Need: model.NeedAbsent,
		Action: types.TransactWriteItem{Put: &types.Put{
			TableName: c.st.Table(), Item: it,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
	}
}

// deleteMember is a write that removes member, counting +1 (and -1 to the
// cardinality), and does nothing when it is absent.
func (c *Client) deleteMember(key string, typ model.KeyType, member string) *model.Write {
	return &model.Write{
		Member: member, Delta: -1, Count: 1, Need: model.NeedPresent,
		Action: types.TransactWriteItem{Delete: &types.Delete{
			TableName: c.st.Table(), Key: model.ItemKey(key, model.MemberSK(typ, member)),
		}},
		Ttl: 0, // set by transact when the item turns out to have an expiry
	}
}

// setIX is a write that changes the index value of an existing member from
// prev to want (a sorted-set score change), counting 1 and not changing the
// cardinality. If the member changed meanwhile it retries from what it
// holds now; if it is gone, it adds it again.
func (c *Client) setIX(key string, typ model.KeyType, member string, prev, want []byte) *model.Write {
	w := &model.Write{
		Member: member, Count: 1, Score: model.ScoreOfIX(want), Ix: want, Prev: prev, Known: true, Need: model.NeedIX,
		Action: types.TransactWriteItem{Update: &types.Update{
			TableName: c.st.Table(), Key: model.ItemKey(key, model.MemberSK(typ, member)),
			UpdateExpression:                    aws.String("SET #ix = :want"),
			ExpressionAttributeNames:            map[string]string{"#ix": model.AttrIX},
			ExpressionAttributeValues:           model.Item{":want": model.Bin(want)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
	}
	w.Retry = func(now model.Item) (*model.Write, error) {
		if now == nil {
			return c.putMember(key, typ, member, want), nil
		}
		if cur := model.BytesAttr(now, model.AttrIX); string(cur) != string(want) {
			return c.setIX(key, typ, member, cur, want), nil
		}
		return nil, nil
	}
	return w
}

// wrongTypeError is ErrWrongType from a transaction, with the key that
// had the other type (for errors.As; its message is ErrWrongType's, as
// Redis's WRONGTYPE names no key).
type wrongTypeError struct{ key string }

func (e *wrongTypeError) Error() string { return ErrWrongType.Error() }
func (e *wrongTypeError) Unwrap() error { return ErrWrongType }
