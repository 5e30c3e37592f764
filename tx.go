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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// maxTxItems is DynamoDB's limit of actions in one TransactWriteItems.
const maxTxItems = 100

// write is one member item's change inside a key's transaction.
type write struct {
	member string
	action types.TransactWriteItem // its condition must be set
	// need is the condition of action as data: EXEC's writer (seam.go)
	// judges it against the snapshot instead of DynamoDB. A member-expiry
	// change (needExpiry) requires the expiry expWas and sets expTo.
	need          need
	expWas, expTo int64
	delta         int64   // change of the key's cardinality when applied
	count         int64   // what it adds to the command's reply when applied
	score         float64 // for sorted-set writes: the score it stores
	// required: when its condition fails and retry gives no replacement, the
	// whole command is abandoned (SMOVE: no add to the destination without
	// the removal from the source).
	required bool
	// retry is called when the condition failed, with the item as it is now
	// (nil when absent). It returns the write to try instead, or nil to drop
	// this one. A nil retry drops it.
	retry func(now model.Item) (*write, error)

	// For the count items of ranked sorted sets (rank.go): ix is the index
	// value the write stores (nil when it removes the member or only
	// checks it), prev the one it replaces (nil: none), known whether prev
	// is certain (the write's condition pins it). rankItem marks the
	// action on a count item itself.
	ix, prev []byte
	known    bool
	rankItem bool
	// pinned: the write requires its member's index value to be prev
	// (absent when prev is nil), which rankPrepare read (rank.go: pin).
	pinned bool

	// Member expiry (memberttl.go): ttl is the change the write makes to
	// the number of members with an expiry (the metadata item's mn);
	// swept marks the delete of an expired member, replaces a write that
	// takes an expired member's place.
	ttl             int64
	swept, replaces bool
	pin             *int64 // a delete's expected expiry (pinDelete); nil: not pinned
	// strict: a failed delete is never re-pinned to the expiry it found;
	// its retry, or required, decides (ZMOVE: the destination's write was
	// built from the member as read).
	strict bool
}

// rendered is w's action as sent at now: the condition its constructor
// built conjoined with the guards its data asks for: a write pinned by
// the rank code requires the index value it read (rank.go: pin); a long
// member's update, delete or check of presence requires the item to hold
// that member (longmember.go); a pinned delete requires the expiry it was
// pinned to (pinDelete); and on a table with member expiry (memberTTL), a
// write that requires its member requires it live, a check of absence
// (memberCheck) also holds for an expired item, and an unpinned delete
// requires it to have no expiry, which a failed condition then shows
// (memberttl.go). Sweeps and count items get no expiry guard.
// w.action itself is never edited: each attempt renders afresh.
func (w *write) rendered(now int64, memberTTL bool) types.TransactWriteItem {
	a := w.action
	var (
		cond   **string
		names  *map[string]string
		values *map[string]types.AttributeValue
		onFail *types.ReturnValuesOnConditionCheckFailure
	)
	switch {
	case a.Update != nil:
		u := *a.Update
		a.Update = &u
		cond, names, values, onFail = &u.ConditionExpression, &u.ExpressionAttributeNames, &u.ExpressionAttributeValues, &u.ReturnValuesOnConditionCheckFailure
	case a.Delete != nil:
		d := *a.Delete
		a.Delete = &d
		cond, names, values, onFail = &d.ConditionExpression, &d.ExpressionAttributeNames, &d.ExpressionAttributeValues, &d.ReturnValuesOnConditionCheckFailure
	case a.ConditionCheck != nil:
		cc := *a.ConditionCheck
		a.ConditionCheck = &cc
		cond, names, values, onFail = &cc.ConditionExpression, &cc.ExpressionAttributeNames, &cc.ExpressionAttributeValues, &cc.ReturnValuesOnConditionCheckFailure
	default:
		return a // a put: attribute_not_exists needs no guard (transact reads what a failed one found)
	}
	nn, vv := maps.Clone(*names), maps.Clone(*values)
	if nn == nil {
		nn = map[string]string{}
	}
	if vv == nil {
		vv = model.Item{}
	}
	and := func(expr string) { *cond = aws.String("(" + aws.ToString(*cond) + ") AND " + expr) }
	if w.pinned && a.ConditionCheck == nil {
		*onFail = types.ReturnValuesOnConditionCheckFailureAllOld
		if w.prev == nil {
			nn["#rkpk"] = model.AttrPK
			and("attribute_not_exists(#rkpk)")
		} else {
			nn["#rkix"], vv[":rkprev"] = model.AttrIX, model.Bin(w.prev)
			and("#rkix = :rkprev")
		}
	}
	absentCheck := a.ConditionCheck != nil && w.need == needAbsent // memberCheck(..., false)
	if len(w.member) > model.InlineMemberLen && (a.ConditionCheck == nil || w.need == needPresent) {
		nn["#lm"], vv[":lm"] = model.AttrMem, model.Bin([]byte(w.member))
		and("#lm = :lm")
	}
	if w.pin != nil && a.Delete != nil {
		nn["#mxPin"] = model.AttrMemExp
		if *w.pin != 0 {
			vv[":mxPin"] = model.Num(*w.pin)
			and("#mxPin = :mxPin")
		} else {
			and("attribute_not_exists(#mxPin)")
		}
	}
	if memberTTL && !w.swept && !w.rankItem {
		*onFail = types.ReturnValuesOnConditionCheckFailureAllOld
		nn["#mxLive"] = model.AttrMemExp
		switch {
		case absentCheck: // missing, or stored but expired
			vv[":mxNow"] = model.Num(now)
			*cond = aws.String("(" + aws.ToString(*cond) + ") OR #mxLive <= :mxNow")
		case a.Delete != nil && w.pin == nil:
			and(noExpiryGuard)
		default:
			vv[":mxNow"] = model.Num(now)
			and(liveGuard)
		}
	}
	if len(vv) == 0 {
		vv = nil
	}
	*names, *values = nn, vv
	return a
}

// group is the writes of one command on one key.
type group struct {
	key    string
	typ    model.KeyType
	writes []*write
	// known is set once the metadata item has been seen (by a failed
	// condition); then now holds it.
	known  bool
	now    model.Meta
	typeOK bool // the metadata condition held in a cancelled, conflict-free attempt
	// rank is what this try believes of the key's count items (rank.go):
	// its count-item actions and its metadata condition both follow it.
	rank *rankBelief
	// noBuild: a build of the key's count items at the minimum failed
	// (rankGuard); this command writes it unranked, the next one builds.
	noBuild bool
}

// txResult is what transact did.
type txResult struct {
	applied   []*write // the writes that committed
	abandoned bool     // a required write failed: nothing was written
}

// transact writes groups (at most maxTxItems actions in all, metadata items
// included) as one atomic transaction, retrying as described above.
func (c *Client) transact(ctx context.Context, groups ...*group) (txResult, error) {
	for try := 0; ; try++ {
		if try >= c.opts.MaxAttempts {
			return txResult{}, ErrContention
		}
		if try > 0 {
			if err := ctx.Err(); err != nil {
				return txResult{}, err
			}
		}
		if err := c.rankPrepare(ctx, groups); err != nil {
			return txResult{}, err
		}
		ttlTable, err := c.memberTTL(ctx)
		if err != nil {
			return txResult{}, err
		}
		now := c.nowMs()
		var (
			actions []types.TransactWriteItem
			owners  []*group // owners[i] is the group of actions[i]
			writes  []*write // writes[i] is actions[i]'s write, nil for a metadata action
			counts  = map[*group][]*write{}
		)
		for _, g := range groups {
			if len(g.writes) == 0 && g.typeOK {
				continue
			}
			counts[g] = c.rankWrites(g)
			for _, w := range append(g.writes, counts[g]...) {
				actions = append(actions, w.rendered(now, ttlTable))
				owners, writes = append(owners, g), append(writes, w)
			}
			actions = append(actions, c.metaAction(g))
			owners, writes = append(owners, g), append(writes, nil)
		}
		if len(actions) == 0 {
			return txResult{}, nil
		}
		if len(actions) > maxTxItems {
			return txResult{}, errRankChunk
		}
		out := c.sendAttempt(&attempt{ctx: ctx, actions: actions, owners: owners, writes: writes})
		if out.err == nil {
			var res txResult
			for _, g := range groups {
				res.applied = append(res.applied, g.writes...)
				if g.typ == model.TypeZSet && g.adds() {
					c.waiters.notifyAdded(g.key)
				}
				c.rankCommitted(ctx, g, counts[g])
				if g.typ == model.TypeZSet && g.givesExpiry() {
					c.setBelief(g.key, &rankBelief{}) // metaAction unranked it
				}
				c.rankCreated(ctx, g)
			}
			return res, nil
		}
		if out.reasons == nil { // conflicts alone were resent by sendTx
			return txResult{}, out.err
		}
		conflict := false
		for _, r := range out.reasons {
			switch code := aws.ToString(r.Code); {
			case code == "None", code == "", code == "ConditionalCheckFailed":
			case retryableCode(code):
				conflict = true
			default:
				return txResult{}, out.err
			}
		}
		// Metadata first: a wrong type outranks everything else.
		for i, r := range out.reasons {
			g := owners[i]
			if writes[i] != nil {
				continue
			}
			if aws.ToString(r.Code) == "ConditionalCheckFailed" {
				c.rankSeen(g, r.Item)
				g.known, g.now = true, model.DecodeMeta(r.Item)
				if g.now.Expired(c.nowMs()) {
					return txResult{}, &expiredKeyError{key: g.key, m: g.now}
				}
				if m, ok := emptiedByPurge(r.Item); ok {
					return txResult{}, &expiredKeyError{key: g.key, m: m}
				}
				if g.now.Typ != model.TypeNone && g.now.Typ != g.typ {
					// A key whose members have all expired is missing
					// (memberttl.go): sweep it, then start again.
					live, err := c.settle(ctx, g.key, g.now)
					if err != nil {
						return txResult{}, err
					}
					if live.Typ == model.TypeNone {
						return txResult{}, &expiredKeyError{key: g.key, m: g.now, members: true}
					}
					return txResult{}, &wrongTypeError{key: g.key}
				}
				if c.rankCrossed(g, r.Item) {
					// The key reaches the build minimum with these writes:
					// give it count items, then write it ranked.
					built, err := c.rankBuild(ctx, g.key)
					if err != nil {
						return txResult{}, err
					}
					g.noBuild = !built
				}
			}
			g.typeOK = !conflict && !out.elsewhere
		}
		for i, r := range out.reasons {
			w := writes[i]
			if w == nil || aws.ToString(r.Code) != "ConditionalCheckFailed" {
				continue
			}
			if w.rankItem { // a count item's range changed: read them again
				c.rankStale(owners[i].key)
				continue
			}
			if collides(w, r.Item) && w.action.Delete != nil {
				r.Item = nil // another long member: this one is absent
			} else if collides(w, r.Item) {
				return txResult{}, fmt.Errorf("%w: %.40q... (%d bytes)", ErrMemberCollision, w.member, len(w.member))
			}
			var next *write
			switch {
			case r.Item != nil && expiredAt(r.Item, now) && !w.swept && !w.replaces:
				// An expired member is a missing one (memberttl.go).
				var err error
				if next, err = c.onExpired(owners[i].key, owners[i].typ, w, r.Item); err != nil {
					return txResult{}, err
				}
			case r.Item != nil && w.action.Delete != nil && !w.swept && !w.strict && (w.pin == nil || *w.pin != memberExp(r.Item)):
				next = pinDelete(w, memberExp(r.Item)) // it has an expiry, or another one
			case w.retry != nil:
				var err error
				if next, err = w.retry(r.Item); err != nil {
					return txResult{}, err
				}
			}
			if next == nil && w.required {
				return txResult{abandoned: true}, nil
			}
			owners[i].replace(w, next)
		}
		if conflict {
			if err := sleep(ctx, try+1); err != nil {
				return txResult{}, err
			}
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
	err := c.sendTx(a.ctx, a.actions)
	out := txOutcome{err: err}
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) && len(cancelled.CancellationReasons) == len(a.actions) {
		out.reasons = cancelled.CancellationReasons
	}
	return out
}

// adds reports whether g's writes add members to its key.
func (g *group) adds() bool {
	for _, w := range g.writes {
		if w.delta > 0 {
			return true
		}
	}
	return false
}

// givesExpiry reports whether g's writes give members an expiry.
func (g *group) givesExpiry() bool {
	var dt int64
	for _, w := range g.writes {
		dt += w.ttl
	}
	return dt > 0
}

// replace swaps w for next (nil: removes w).
func (g *group) replace(w, next *write) {
	for i, x := range g.writes {
		if x == w {
			if next != nil {
				g.writes[i] = next
			} else {
				g.writes = append(g.writes[:i], g.writes[i+1:]...)
			}
			return
		}
	}
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
// (attrVer), which WATCH compares.
func (c *Client) metaAction(g *group) types.TransactWriteItem {
	var d, dt int64
	mutates := false // a member is written, not only checked
	for _, w := range g.writes {
		d += w.delta
		dt += w.ttl
		mutates = mutates || w.action.ConditionCheck == nil
	}
	names := map[string]string{"#t": model.AttrType, "#n": model.AttrCard, "#x": model.AttrExp, "#v": model.AttrVer}
	values := model.Item{":t": model.Str(string(g.typ)), ":now": model.Num(c.nowMs()), ":v": model.Bin(versionToken())}
	// Every action also requires the key not to have expired: writes to an
	// expired key would otherwise meet its old members. transact purges the
	// key and starts again when that is what failed. A sorted set's action
	// requires it ranked as the writer believes (rank.go), and an unranked
	// one that grows, that it stays below the build minimum (rankGuard).
	live := " AND (attribute_not_exists(#x) OR #x > :now)" + c.rankGuard(g, d, names, values)
	// Every action that changes the key also stores a fresh version
	// token, which WATCH compares (watch.go).
	// Updates also (re)write the key index attributes (keyIndexSet).
	index := ", " + model.KeyIndexSet(g.key, names, values)
	key := model.MetaKey(g.key)
	onFail := types.ReturnValuesOnConditionCheckFailureAllOld
	// Members given or rid of an expiry change mn (memberttl.go); a key
	// with member expiries is not ranked (its ranks are counted).
	adds := ""
	if dt != 0 {
		adds = ", #mn :dt"
		names["#mn"], values[":dt"] = model.AttrMemTTL, model.Num(dt)
	}
	if dt > 0 && g.typ == model.TypeZSet {
		index += " REMOVE #rk"
	}
	update := func(expr, cond string) types.TransactWriteItem {
		return types.TransactWriteItem{Update: &types.Update{
			TableName: c.table(), Key: key,
			UpdateExpression:                    aws.String(expr),
			ConditionExpression:                 aws.String(cond + live),
			ExpressionAttributeNames:            names,
			ExpressionAttributeValues:           values,
			ReturnValuesOnConditionCheckFailure: onFail,
		}}
	}
	// A deletion or a condition check writes no attribute: it keeps only
	// the placeholders its condition uses.
	bare := func(cond string) (*string, map[string]string, model.Item) {
		dropNames(names, values, "v", "ks", "kh", "kk", "mn", "dt")
		return aws.String(cond + live), names, values
	}
	switch {
	case d > 0:
		values[":d"] = model.Num(d)
		return update("SET #t = :t, #v = :v"+index+" ADD #n :d"+adds, "(attribute_not_exists(#t) OR #t = :t)")
	case d < 0 && g.known && g.now.Card == -d:
		values[":k"] = model.Num(-d)
		del := &types.Delete{TableName: c.table(), Key: key, ReturnValuesOnConditionCheckFailure: onFail}
		del.ConditionExpression, del.ExpressionAttributeNames, del.ExpressionAttributeValues = bare("#t = :t AND #n = :k")
		return types.TransactWriteItem{Delete: del}
	case d < 0:
		values[":d"], values[":k"] = model.Num(d), model.Num(-d)
		return update("SET #v = :v"+index+" ADD #n :d"+adds, "#t = :t AND #n > :k")
	case mutates:
		// Members change, their number does not (a new score, or as many
		// added as removed): the key exists when this commits, since
		// those writes' conditions need its members.
		delete(names, "#n")
		if adds != "" {
			return update("SET #v = :v"+index+" ADD "+adds[2:], "(attribute_not_exists(#t) OR #t = :t)")
		}
		return update("SET #v = :v"+index, "(attribute_not_exists(#t) OR #t = :t)")
	default:
		delete(names, "#n")
		check := &types.ConditionCheck{TableName: c.table(), Key: key, ReturnValuesOnConditionCheckFailure: onFail}
		check.ConditionExpression, check.ExpressionAttributeNames, check.ExpressionAttributeValues = bare("(attribute_not_exists(#t) OR #t = :t)")
		return types.TransactWriteItem{ConditionCheck: check}
	}
}

// dropNames removes the placeholders #name and :name of names an
// expression does not use (DynamoDB refuses unused ones).
func dropNames(names map[string]string, values model.Item, ns ...string) {
	for _, n := range ns {
		delete(names, "#"+n)
		delete(values, ":"+n)
	}
}

// expiredKeyError reports that a transaction met an expired key, which must
// be purged before the command can go on.
type expiredKeyError struct {
	key     string
	m       model.Meta
	members bool // not the key but all its members expired: sweep them
}

func (e *expiredKeyError) Error() string { return "redimo: key expired: " + e.key }

// transactPurging is transact for writes rebuilt by build on every try:
// when a key turns out to have expired, it is purged and build's writes
// are tried again from scratch (the failed attempt's retries were made
// against the old members).
func (c *Client) transactPurging(ctx context.Context, build func() []*group) (res txResult, err error) {
	if c.tx != nil {
		return c.tx.apply(ctx, build())
	}
	err = c.attempts(ctx, false, func() (bool, error) {
		var expired *expiredKeyError
		if res, err = c.transact(ctx, build()...); !errors.As(err, &expired) {
			return true, err
		}
		res = txResult{}
		if expired.members { // all its members expired (memberttl.go)
			return false, c.sweep(ctx, expired.key, expired.m.Typ)
		}
		return false, c.purge(ctx, expired.key, expired.m)
	})
	return res, err
}

// deadExp is the expiry a purge writes into the metadata item of the key
// it deletes: 1 ms after the Unix epoch, in the past on every clock. Every
// write transaction requires the key's expiry to be after its own clock
// (metaAction), so once the mark is stored no write can add to the key,
// however late it reaches DynamoDB: a request built before the expiry and
// delayed, or resent by the SDK after a 500, fails its condition instead
// of slipping a member in between the purge's listing and its last delete.
const deadExp = 1

// emptiedByPurge reports whether it is a metadata item a purge marked dead
// and emptied but did not delete (an older purge cut between its last
// chunk and the final delete left such an item). It reads as missing, so
// nothing purges it; a write that meets it must, before it can write.
func emptiedByPurge(it model.Item) (model.Meta, bool) {
	if it == nil || model.DecodeMeta(it).Typ != model.TypeNone {
		return model.Meta{}, false
	}
	m := model.DecodeMeta(withCard(maps.Clone(it))) // its type and expiry, as if it counted members
	return m, m.Typ != model.TypeNone && m.Exp == deadExp
}

// purge deletes every item of an expired key. First it marks the metadata
// item dead (deadExp), on condition that it still holds the expiry m.exp
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
func (c *Client) purge(ctx context.Context, key string, m model.Meta) error {
	if c.tx != nil {
		return c.tx.purge(ctx, key)
	}
	err := c.retryConflicts(ctx, func() error {
		_, err := c.updateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: c.table(), Key: model.MetaKey(key),
			UpdateExpression:          aws.String("SET #x = :dead"),
			ConditionExpression:       aws.String("#x = :x OR #x = :dead"),
			ExpressionAttributeNames:  map[string]string{"#x": model.AttrExp},
			ExpressionAttributeValues: model.Item{":x": model.Num(m.Exp), ":dead": model.Num(deadExp)},
		})
		return err
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return nil // purged by another client, or re-created or persisted since
	}
	if err != nil {
		return err
	}
	var batch []types.TransactWriteItem
	flush := func(final bool) error {
		values := model.Item{":dead": model.Num(deadExp), ":k": model.Num(int64(len(batch)))}
		guard := types.TransactWriteItem{Update: &types.Update{
			TableName: c.table(), Key: model.MetaKey(key),
			UpdateExpression:         aws.String("ADD #n :negk"),
			ConditionExpression:      aws.String("#x = :dead AND #n >= :k"),
			ExpressionAttributeNames: map[string]string{"#x": model.AttrExp, "#n": model.AttrCard},
			ExpressionAttributeValues: model.Item{":dead": values[":dead"], ":k": values[":k"],
				":negk": model.Num(-int64(len(batch)))},
		}}
		if final {
			guard = types.TransactWriteItem{Delete: &types.Delete{
				TableName: c.table(), Key: model.MetaKey(key),
				ConditionExpression:       aws.String("#x = :dead AND #n = :k"),
				ExpressionAttributeNames:  map[string]string{"#x": model.AttrExp, "#n": model.AttrCard},
				ExpressionAttributeValues: values,
			}}
		}
		actions := append(batch, guard)
		batch = batch[:0]
		return c.sendTx(ctx, actions)
	}
	// Strongly consistent whatever the options: every member written
	// before the mark must be listed, or the last delete's count check
	// fails and the key stays dead until the next purge.
	list := memberQuery(key, m.Typ, "")
	list.ConsistentRead = aws.Bool(true)
	for it, err := range c.query(withExpired(ctx), list, 0) {
		if err != nil {
			return err
		}
		// A full chunk goes only once another member follows it, so that
		// the last members always go with the metadata item: a count that
		// reached 0 before the final delete would leave an item that reads
		// as missing (decodeMeta) and that no later purge would find.
		if len(batch) == maxTxItems-1 {
			if err := flush(false); err != nil {
				return ignoreCancelled(err)
			}
		}
		batch = append(batch, types.TransactWriteItem{Delete: &types.Delete{
			TableName: c.table(), Key: model.Item{model.AttrPK: it[model.AttrPK], model.AttrSK: it[model.AttrSK]},
			ConditionExpression:      aws.String("attribute_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": model.AttrPK},
		}})
	}
	if err := ignoreCancelled(flush(true)); err != nil || !m.Ranked {
		return err
	}
	return c.rankDrop(ctx, key)
}

// ignoreCancelled is nil for a cancelled purge transaction: another purge
// is ahead (a member it meant to delete is gone) or the key was re-created.
func ignoreCancelled(err error) error {
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		return nil
	}
	return err
}

// transactChunks runs the writes of one key in transactions of at most
// maxTxItems-1 writes (plus the metadata action), and fewer when long
// members would take one past DynamoDB's 4 MB, and returns the writes that
// were applied. Each chunk is atomic; the whole is not. No writes at all is
// a lone type check of the key.
func (c *Client) transactChunks(ctx context.Context, key string, typ model.KeyType, writes []*write) ([]*write, error) {
	return c.transactChunksFrom(ctx, key, typ, writes, model.Meta{Typ: model.TypeNone})
}

// transactChunksFrom is transactChunks for a caller that has just read the
// key's metadata (now): the chunk that removes the last members then
// deletes the metadata item at the first attempt instead of the second. A
// stale now costs one attempt, never correctness: the conditions decide.
func (c *Client) transactChunksFrom(ctx context.Context, key string, typ model.KeyType, writes []*write, now model.Meta) ([]*write, error) {
	if c.tx != nil {
		res, err := c.tx.apply(ctx, []*group{{key: key, typ: typ, writes: writes}})
		return res.applied, err
	}
	var applied []*write
	chunks := bySize(key, c.chunksOf(key, typ, writes))
	for len(chunks) > 0 {
		chunk := chunks[0]
		chunks = chunks[1:]
		first := true
		res, err := c.transactPurging(ctx, func() []*group {
			g := &group{key: key, typ: typ, writes: append([]*write(nil), chunk...)}
			if first && now.Typ == typ {
				g.known, g.now = true, now
			}
			first = false
			return []*group{g}
		})
		if errors.Is(err, errRankChunk) && len(chunk) > rankStep {
			// The key's count items need more room than planned: it was
			// ranked meanwhile (by this command's own writes, rank.go:
			// rankGuard), or its ranges changed. Cut what is left again,
			// in index order, to the ranges rankPrepare just read.
			// A plan no better than the one that failed falls back to
			// chunks of rankStep, which always fit.
			again := bySize(key, c.chunksOf(key, typ, slices.Concat(append([][]*write{chunk}, chunks...)...)))
			if len(again[0]) >= len(chunk) {
				again = append(fixedChunks(chunk, rankStep), chunks...)
			}
			chunks = again
			continue
		}
		if err != nil {
			return applied, err
		}
		applied = append(applied, res.applied...)
		for _, w := range res.applied {
			now.Card += w.delta
		}
	}
	return applied, nil
}

// bySize cuts chunks further where long members would take one past
// maxTxBytes (chunkEnd).
func bySize(key string, chunks [][]*write) [][]*write {
	var out [][]*write
	for _, ch := range chunks {
		for start := 0; ; {
			end := chunkEnd(key, ch, start)
			out = append(out, ch[start:end])
			if start = end; start >= len(ch) {
				break
			}
		}
	}
	return out
}

// chunkEnd is where the transaction of writes[start:] ends: after
// maxTxItems-1 writes, or before the write that would take it past
// maxTxBytes (long members), but never before start+1.
func chunkEnd(key string, writes []*write, start int) int {
	end, size := start, 0
	for end < len(writes) && end-start < maxTxItems-1 {
		size += writeBytes(key, writes[end])
		if size > maxTxBytes && end > start {
			break
		}
		end++
	}
	return end
}

// counted is the reply of a command whose applied writes are ws.
func counted(ws []*write) int64 {
	var n int64
	for _, w := range ws {
		n += w.count
	}
	return n
}

// putMember is a write that creates member, counting +1, and does nothing
// when it exists (the condition fails and the write is dropped). ix is a
// sorted-set member's index value; a set member has none (nil), so its
// item writes no index entry ("Set members" in keys.go).
func (c *Client) putMember(key string, typ model.KeyType, member string, ix []byte) *write {
	it := model.ItemKey(key, model.MemberSK(typ, member))
	if typ == model.TypeZSet {
		it[model.AttrIX] = model.Bin(ix)
	} else {
		ix = nil
	}
	if len(member) > model.InlineMemberLen {
		it[model.AttrMem] = model.Bin([]byte(member))
	}
	return &write{
		member: member, delta: 1, count: 1, ix: ix, known: true, need: needAbsent,
		action: types.TransactWriteItem{Put: &types.Put{
			TableName: c.table(), Item: it,
			ConditionExpression:                 aws.String("attribute_not_exists(#pk)"),
			ExpressionAttributeNames:            map[string]string{"#pk": model.AttrPK},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
	}
}

// deleteMember is a write that removes member, counting +1 (and -1 to the
// cardinality), and does nothing when it is absent.
func (c *Client) deleteMember(key string, typ model.KeyType, member string) *write {
	return &write{
		member: member, delta: -1, count: 1, need: needPresent,
		action: types.TransactWriteItem{Delete: &types.Delete{
			TableName: c.table(), Key: model.ItemKey(key, model.MemberSK(typ, member)),
			ConditionExpression:      aws.String("attribute_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": model.AttrPK},
		}},
		ttl: 0, // set by transact when the item turns out to have an expiry
	}
}

// setIX is a write that changes the index value of an existing member from
// prev to want (a sorted-set score change), counting 1 and not changing the
// cardinality. If the member changed meanwhile it retries from what it
// holds now; if it is gone, it adds it again.
func (c *Client) setIX(key string, typ model.KeyType, member string, prev, want []byte) *write {
	w := &write{
		member: member, count: 1, score: model.ScoreOfIX(want), ix: want, prev: prev, known: true, need: needIX,
		action: types.TransactWriteItem{Update: &types.Update{
			TableName: c.table(), Key: model.ItemKey(key, model.MemberSK(typ, member)),
			UpdateExpression:                    aws.String("SET #ix = :want"),
			ConditionExpression:                 aws.String("#ix = :prev"),
			ExpressionAttributeNames:            map[string]string{"#ix": model.AttrIX},
			ExpressionAttributeValues:           model.Item{":want": model.Bin(want), ":prev": model.Bin(prev)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
	}
	w.retry = func(now model.Item) (*write, error) {
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

// versionToken is a fresh metadata version (attrVer): 8 random bytes, so
// a key deleted and created again does not come back to an old version.
func versionToken() []byte {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return b[:]
}

// token is a fresh idempotency token for TransactWriteItems.
func token() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
