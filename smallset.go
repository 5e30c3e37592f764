package redimo

// Small sets in one item (issue 26): Redis's compact encoding on DynamoDB.
//
// A set whose members fit in a small item lives in its metadata item: the
// members are a binary-set attribute (sm) beside the type, count, expiry
// and version token every metadata item has, and the set has no member
// items. Redis calls this a listpack (or an intset for integers only);
// OBJECT ENCODING says so. SADD, SREM and SPOP are then one conditional
// UpdateItem of that one item, no transaction; SCARD, SISMEMBER and
// SRANDMEMBER one GetItem, SMEMBERS one Query that reads one item.
//
// The threshold. DynamoDB bills a write 1 write unit per KB of the item
// (the larger of its sizes before and after), a transactional write
// twice that, and a read 1 unit per 4 KB. A member item costs SADD 4 write
// units (the member and the metadata item, transactional); the small
// encoding costs 1 as long as the whole item stays within 1 KB, and stays
// cheaper up to 3 KB. The encoding keeps the item within 1 KB: the
// members may take smallBudget(key) bytes (1 KB minus the metadata
// attributes, the write tokens below and the partition key), at most
// smallMaxMembers of them (99: the conversion below is one transaction of
// 100 actions). A key of typical length leaves about 640 bytes of members:
// 60 tags of 10 bytes. The empty member (DynamoDB sets may not hold an
// empty value) and any member beyond the budget go to member items.
//
// Exact replies. Each write is conditioned on exactly what it reports:
// SADD that none of its members is there (NOT contains), SREM and SPOP
// that all of theirs are (contains) and that more remain (else the item is
// deleted, in a one-action TransactWriteItems conditioned on the count).
// A refused write returns the item as it is now
// (ReturnValuesOnConditionCheckFailure), from which the command plans the
// next write: the members still to add or remove, or a conversion. So a
// write is counted only when the request that carried it applied.
//
// Lost responses. The SDK resends a request whose answer was lost (a
// dropped connection, a 500 after the write applied); a resent single-item
// write would be judged against its own effect. Every write therefore
// adds a random 8-byte token to the item (wt) and requires the token to be
// absent: a resend of an applied write fails, and the item it returns holds
// the token, so the command knows its write applied. The last
// 2·smallTokens tokens are kept (wt, and wo for the previous ones: when wt
// is full the next write moves it to wo); a resend is recognised as long
// as fewer than smallTokens other writes to the key came between. Deletes
// go through TransactWriteItems, whose ClientRequestToken makes a resend
// harmless.
//
// Conversion. A write that would take the set past the threshold first
// converts it: one TransactWriteItems writes every member as a member item
// and removes sm, conditioned on the version token the command saw, so a
// concurrent write makes it fail and the command plans again; the version
// token is kept (the conversion changes no member: WATCH does not see
// it). Every other path that writes member items (the transaction writer
// of SMOVE, the *STORE commands, member expiry, long members, RENAME, ...)
// requires the metadata item to hold no sm (metaAction), and converts when
// it does (transact), so each of those behaviours keeps one
// implementation. A MULTI/EXEC that touches a small set converts it when
// it reads it. A set never converts back while it lives, as in Redis: a
// set that shrank below the threshold is likely to grow again, and
// converting back and forth around the threshold would cost a
// transaction of its members each time; when it empties, the key is gone,
// and the next SADD starts it small again.

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"iter"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	// smallItemBytes is the item size a small set keeps within: 1 KB,
	// one write unit per write.
	smallItemBytes = 1024
	// smallOverhead is what a small set's metadata item holds besides its
	// members and partition key, at most: the sort key, type, count,
	// version, key-index attributes, expiry and its token, the byte count
	// and 2·smallTokens write tokens, with their attribute names.
	smallOverhead = 384
	// smallMaxMembers is the most members a small set holds: its
	// conversion is one transaction of them and the metadata item.
	smallMaxMembers = maxTxItems - 1
	// smallTokens is how many write tokens wt holds before the next write
	// moves them to wo.
	smallTokens = 16
	// smallTokenLen is a write token's length in bytes.
	smallTokenLen = 8
)

// smallBudget is how many bytes of members key's small set may hold (0 or
// less: the key is too long for the small encoding).
func smallBudget(key string) int {
	return smallItemBytes - smallOverhead - len(pkValue(key))
}

// smallMembers returns the members of a small set's metadata item, nil
// when it is not one.
func smallMembers(it item) []string {
	bs, ok := it[attrSmall].(*types.AttributeValueMemberBS)
	if !ok {
		return nil
	}
	out := make([]string, len(bs.Value))
	for i, b := range bs.Value {
		out[i] = string(b)
	}
	return out
}

// smallBytes is the bytes members take in a small set.
func smallBytes(members []string) int {
	n := 0
	for _, m := range members {
		n += len(m)
	}
	return n
}

// smallFit reports whether a small set of key holding have can also
// hold add (all distinct and new).
func (c *Client) smallFit(key string, have, add []string) bool {
	if c.opts.DisableSmallSets || len(have)+len(add) > smallMaxMembers {
		return false
	}
	if slices.Contains(add, "") {
		return false
	}
	return smallBytes(have)+smallBytes(add) <= smallBudget(key)
}

// smallState is a key as a refused small write (or a read) showed it.
type smallState struct {
	known   bool     // false: not seen yet (the first, blind, attempt)
	missing bool     // no live key
	big     bool     // a set of member items
	members []string // a small set's members
	raw     item
}

// smallStep is a write a plan asks for, or its outcome.
type smallStep struct {
	done     bool // no write: the command's reply is ready
	fallback bool // the key is (now) a set of member items: take that path
	update   *dynamodb.UpdateItemInput
	del      []string // delete the item, which holds exactly these members
	tok      []byte
	n        int64    // the reply when the write applies
	members  []string // the members it adds or removes
}

// smallRun sends the writes plan asks for until one applies or plan is
// done, and returns the step that applied (or the last, done or
// fallback). plan sees the key as the last refusal showed it.
func (c *Client) smallRun(ctx context.Context, key string, st smallState, plan func(st smallState) (smallStep, error)) (smallStep, error) {
	var step smallStep
	err := c.attempts(ctx, false, func() (bool, error) {
		var err error
		if step, err = plan(st); err != nil || step.done || step.fallback {
			return true, err
		}
		var old item
		if step.del != nil {
			old, err = c.smallDelete(ctx, key, step.del)
		} else {
			old, err = c.smallUpdate(ctx, step.update, step.tok)
		}
		switch {
		case errors.Is(err, errApplied):
			return true, nil
		case err != nil:
			return true, err
		}
		st, err = c.smallClassify(ctx, key, old)
		return false, err
	})
	return step, err
}

// errApplied: the write applied (smallUpdate, smallDelete).
var errApplied = errors.New("applied")

// smallUpdate sends in, whose condition requires the write token tok to
// be absent. It returns errApplied when the write applied (also when a
// resend found its own token), else the item as the refusal showed it.
func (c *Client) smallUpdate(ctx context.Context, in *dynamodb.UpdateItemInput, tok []byte) (item, error) {
	var old item
	err := c.retryConflicts(ctx, func() error {
		_, err := c.updateItem(ctx, in)
		var failed *types.ConditionalCheckFailedException
		if errors.As(err, &failed) {
			if holdsToken(failed.Item, tok) {
				return errApplied // a resend of the write that applied
			}
			old = failed.Item
			return nil
		}
		if err == nil {
			return errApplied
		}
		return err
	})
	return old, err
}

// holdsToken reports whether a metadata item holds the write token tok.
func holdsToken(it item, tok []byte) bool {
	for _, a := range []string{attrWriteTok, attrWriteTokOld} {
		if bs, ok := it[a].(*types.AttributeValueMemberBS); ok && slices.ContainsFunc(bs.Value, func(b []byte) bool { return string(b) == string(tok) }) {
			return true
		}
	}
	return false
}

// smallDelete deletes key's metadata item on condition that it is a live
// small set of exactly members, in a one-action TransactWriteItems (its
// ClientRequestToken makes a resend harmless). It returns errApplied when
// it did, else the item as the refusal showed it.
func (c *Client) smallDelete(ctx context.Context, key string, members []string) (item, error) {
	x := newExpr()
	x.cond = append(x.cond, "#n = "+x.value(num(int64(len(members)))), x.live(c.nowMs()))
	for _, m := range members {
		x.cond = append(x.cond, "contains(#sm, "+x.value(bin([]byte(m)))+")")
	}
	cond, names, values := x.condition()
	err := c.sendTx(ctx, []types.TransactWriteItem{{Delete: &types.Delete{
		TableName: c.table(), Key: metaKey(key), ConditionExpression: cond,
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}})
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) && len(cancelled.CancellationReasons) == 1 && aws.ToString(cancelled.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
		return cancelled.CancellationReasons[0].Item, nil
	}
	if err == nil {
		return nil, errApplied
	}
	return nil, err
}

// smallClassify says what a metadata item (as a refusal showed it) is for
// a set command: an expired key is purged and a key of another type whose
// members have all expired swept (both are then missing), a live key of
// another type is ErrWrongType.
func (c *Client) smallClassify(ctx context.Context, key string, it item) (smallState, error) {
	st := smallState{known: true, raw: it}
	m := decodeMeta(it)
	if e, ok := emptiedByPurge(it); ok {
		m = e
	}
	if m.expired(c.nowMs()) {
		st.missing = true
		return st, c.purge(ctx, key, m)
	}
	m, err := c.ofType(ctx, key, m, typeSet)
	switch {
	case err != nil:
		return st, err
	case m.typ == typeNone:
		st.missing = true
	case m.small != nil:
		st.members = m.small
	default:
		st.big = true
	}
	return st, nil
}

// expr builds an update's expressions with placeholders: user data never
// enters an expression string.
type expr struct {
	set, add, del, cond []string
	names               map[string]string
	values              item
}

func newExpr() *expr {
	return &expr{
		names: map[string]string{"#t": attrType, "#n": attrCard, "#x": attrExp, "#v": attrVer, "#sm": attrSmall,
			"#sb": attrSmallLen, "#wt": attrWriteTok, "#wo": attrWriteTokOld},
		values: item{},
	}
}

// value is a fresh placeholder for v.
func (x *expr) value(v types.AttributeValue) string {
	p := ":p" + strconv.Itoa(len(x.values))
	x.values[p] = v
	return p
}

// live is the condition that the key has not expired at now.
func (x *expr) live(now int64) string {
	return "(attribute_not_exists(#x) OR #x > " + x.value(num(now)) + ")"
}

// condition is the condition expression with the placeholders it uses.
func (x *expr) condition() (*string, map[string]string, item) {
	cond := strings.Join(x.cond, " AND ")
	return aws.String(cond), usedNames(x.names, cond), x.values
}

// usedNames is names restricted to those expr uses (DynamoDB refuses
// unused ones).
func usedNames(names map[string]string, exprs ...string) map[string]string {
	out := map[string]string{}
	for n, a := range names {
		for _, e := range exprs {
			if containsName(e, n) {
				out[n] = a
				break
			}
		}
	}
	return out
}

// containsName reports whether the placeholder n occurs in e as a whole name.
func containsName(e, n string) bool {
	for i := 0; i+len(n) <= len(e); i++ {
		if e[i:i+len(n)] == n && (i+len(n) == len(e) || !isNameByte(e[i+len(n)])) {
			return true
		}
	}
	return false
}

func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// smallWrite is the UpdateItem of a small set's write: x's actions and
// conditions plus the write token (tok), a fresh version token and the
// key-index attributes; st is the key as last seen (its token
// attributes decide whether wt moves to wo).
func (c *Client) smallWrite(key string, x *expr, st smallState) (*dynamodb.UpdateItemInput, []byte) {
	tok := make([]byte, smallTokenLen)
	_, _ = rand.Read(tok)
	tk := x.value(bin(tok))
	x.cond = append(x.cond, "NOT contains(#wt, "+tk+")", "NOT contains(#wo, "+tk+")")
	toks := x.value(&types.AttributeValueMemberBS{Value: [][]byte{tok}})
	full := x.value(num(smallTokens))
	if bs, ok := st.raw[attrWriteTok].(*types.AttributeValueMemberBS); ok && len(bs.Value) >= smallTokens {
		x.set = append(x.set, "#wo = #wt", "#wt = "+toks)
		x.cond = append(x.cond, "size(#wt) >= "+full)
	} else {
		x.add = append(x.add, "#wt "+toks)
		x.cond = append(x.cond, "(attribute_not_exists(#wt) OR size(#wt) < "+full+")")
	}
	x.set = append(x.set, "#v = "+x.value(bin(versionToken())))
	x.set = append(x.set, keyIndexSet(key, x.names, x.values))
	update := "SET " + strings.Join(x.set, ", ")
	if len(x.add) > 0 {
		update += " ADD " + strings.Join(x.add, ", ")
	}
	if len(x.del) > 0 {
		update += " DELETE " + strings.Join(x.del, ", ")
	}
	cond := strings.Join(x.cond, " AND ")
	return &dynamodb.UpdateItemInput{
		TableName: c.table(), Key: metaKey(key),
		UpdateExpression: aws.String(update), ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: usedNames(x.names, update, cond), ExpressionAttributeValues: x.values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}, tok
}

// binSet is members as a binary-set value.
func binSet(members []string) *types.AttributeValueMemberBS {
	bs := make([][]byte, len(members))
	for i, m := range members {
		bs[i] = []byte(m)
	}
	return &types.AttributeValueMemberBS{Value: bs}
}

// smallAddStep is the write that adds members (distinct, none in the
// set as st shows it) to key's small set, creating it when missing.
func (c *Client) smallAddStep(key string, members []string, st smallState) smallStep {
	x := newExpr()
	k, b := int64(len(members)), smallBytes(members)
	x.set = append(x.set, "#t = "+x.value(str(string(typeSet))))
	x.add = append(x.add, "#sm "+x.value(binSet(members)), "#n "+x.value(num(k)), "#sb "+x.value(num(int64(b))))
	x.cond = append(x.cond, "(attribute_not_exists(#t) OR attribute_exists(#sm))", x.live(c.nowMs()),
		"(attribute_not_exists(#sm) OR (#n <= "+x.value(num(smallMaxMembers-k))+" AND #sb <= "+x.value(num(int64(smallBudget(key)-b)))+"))")
	for _, m := range members {
		x.cond = append(x.cond, "NOT contains(#sm, "+x.value(bin([]byte(m)))+")")
	}
	in, tok := c.smallWrite(key, x, st)
	return smallStep{update: in, tok: tok, n: k, members: members}
}

// smallRemStep is the write that removes members (distinct, all in the
// set as st shows it, and not all of it) from key's small set.
func (c *Client) smallRemStep(key string, members []string, st smallState) smallStep {
	x := newExpr()
	k := int64(len(members))
	x.del = append(x.del, "#sm "+x.value(binSet(members)))
	x.add = append(x.add, "#n "+x.value(num(-k)), "#sb "+x.value(num(-int64(smallBytes(members)))))
	x.cond = append(x.cond, "attribute_exists(#sm)", x.live(c.nowMs()), "#n > "+x.value(num(k)))
	for _, m := range members {
		x.cond = append(x.cond, "contains(#sm, "+x.value(bin([]byte(m)))+")")
	}
	in, tok := c.smallWrite(key, x, st)
	return smallStep{update: in, tok: tok, n: k, members: members}
}

// smallRemoval is the step that removes members (distinct, all present in
// st's small set): a delete of the item when they are all of it.
func (c *Client) smallRemoval(key string, members []string, st smallState) smallStep {
	if st.known && len(members) == len(st.members) {
		return smallStep{del: members, n: int64(len(members)), members: members}
	}
	return c.smallRemStep(key, members, st)
}

// smallAdd is SADD of members (distinct) on the small encoding. handled
// is false when the key is a set of member items, or becomes one (the
// members do not fit: it was converted): the caller takes that path.
func (c *Client) smallAdd(ctx context.Context, key string, members []string) (n int64, handled bool, err error) {
	if c.tx != nil || !c.smallFit(key, nil, members) {
		return 0, false, nil
	}
	step, err := c.smallRun(ctx, key, smallState{}, func(st smallState) (smallStep, error) {
		switch {
		case !st.known, st.missing:
			return c.smallAddStep(key, members, st), nil
		case st.big:
			return smallStep{fallback: true}, nil
		}
		rest := slices.DeleteFunc(slices.Clone(members), func(m string) bool { return slices.Contains(st.members, m) })
		switch {
		case len(rest) == 0:
			return smallStep{done: true}, nil
		case !c.smallFit(key, st.members, rest):
			return smallStep{fallback: true}, c.convert(ctx, key, st.raw)
		}
		return c.smallAddStep(key, rest, st), nil
	})
	return step.n, err != nil || !step.fallback, err
}

// smallRem is SREM of members (distinct) on the small encoding; handled
// as smallAdd's.
func (c *Client) smallRem(ctx context.Context, key string, members []string) (n int64, handled bool, err error) {
	if c.tx != nil || c.opts.DisableSmallSets || len(members) > smallMaxMembers {
		return 0, false, nil
	}
	step, err := c.smallRun(ctx, key, smallState{}, func(st smallState) (smallStep, error) {
		switch {
		case !st.known:
			return c.smallRemStep(key, members, st), nil
		case st.missing:
			return smallStep{done: true}, nil
		case st.big:
			return smallStep{fallback: true}, nil
		}
		present := slices.DeleteFunc(slices.Clone(members), func(m string) bool { return !slices.Contains(st.members, m) })
		if len(present) == 0 {
			return smallStep{done: true}, nil
		}
		return c.smallRemoval(key, present, st), nil
	})
	return step.n, err != nil || !step.fallback, err
}

// smallPop is SPOP with count (> 0) on the small encoding: a GetItem,
// then the removal of min(count, SCARD) members picked uniformly from
// what it read, planned again from what a refusal shows.
func (c *Client) smallPop(ctx context.Context, key string, count int64) (popped []string, handled bool, err error) {
	if c.tx != nil {
		return nil, false, nil
	}
	it, err := c.getItem(ctx, metaKey(key), aws.Bool(true), nil, nil)
	if err != nil {
		return nil, true, err
	}
	st, err := c.smallClassify(ctx, key, it)
	if err != nil || st.missing {
		return nil, true, err
	}
	step, err := c.smallRun(ctx, key, st, func(st smallState) (smallStep, error) {
		switch {
		case st.missing:
			return smallStep{done: true}, nil
		case st.big:
			return smallStep{fallback: true}, nil
		}
		picks := slices.Clone(st.members)
		mrand.Shuffle(len(picks), func(i, j int) { picks[i], picks[j] = picks[j], picks[i] })
		return c.smallRemoval(key, picks[:min(int64(len(picks)), count)], st), nil
	})
	if step.done || step.fallback {
		return nil, err != nil || !step.fallback, err
	}
	return step.members, true, err
}

// convert makes the small set it (key's metadata item as read) a set of
// member items: one transaction writing each member's item and removing
// the members from the metadata item, on condition that its version token
// is still the one read (else nothing is written and the caller reads
// again). The count, type, expiry, key-index entry and version token stay:
// no member changes.
func (c *Client) convert(ctx context.Context, key string, it item) error {
	members := smallMembers(it)
	if members == nil {
		return nil
	}
	actions := make([]types.TransactWriteItem, 0, len(members)+1)
	for _, m := range members {
		actions = append(actions, c.putMember(key, typeSet, m, nil).action)
	}
	x := newExpr()
	ver := bytesAttr(it, attrVer)
	x.cond = append(x.cond, "attribute_exists(#sm)", "#v = "+x.value(bin(ver)))
	cond, _, values := x.condition()
	update := "REMOVE #sm, #sb"
	actions = append(actions, types.TransactWriteItem{Update: &types.Update{
		TableName: c.table(), Key: metaKey(key), UpdateExpression: aws.String(update), ConditionExpression: cond,
		ExpressionAttributeNames: usedNames(x.names, update, *cond), ExpressionAttributeValues: values,
	}})
	err := c.sendTx(ctx, actions)
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		return nil // changed meanwhile: the caller plans again from a fresh read
	}
	return err
}

// smallProbe is probe's read for a set: the metadata item first (one
// GetItem). A small set answers from it; ok is false for a live set of
// member items, whose members the caller then reads alone. withMeta as
// probe's.
func (c *Client) smallProbe(ctx context.Context, key string, members []string, withMeta bool) (found map[string]item, ok bool, err error) {
	it, err := c.getItem(ctx, metaKey(key), nil, metaProjection.expr, metaProjection.names)
	if err != nil {
		return nil, true, err
	}
	m := c.liveMeta(it)
	if withMeta {
		if m, err = c.ofType(ctx, key, m, typeSet); err != nil || m.typ == typeNone {
			return map[string]item{}, true, err
		}
	}
	if m.small == nil {
		return nil, false, nil
	}
	found = map[string]item{}
	for _, mb := range members {
		if slices.Contains(m.small, mb) {
			found[mb] = itemKey(key, memberSK(typeSet, mb))
		}
	}
	return found, true, nil
}

// setItems yields the items of the set at key: its metadata item first
// (when it has one), then its member items, or, for a small set, the
// member items its metadata item stands for. One Query: the metadata
// item (sk 0x00) sorts before every set member ('s'...).
func (c *Client) setItems(ctx context.Context, key string) iter.Seq2[item, error] {
	in := &dynamodb.QueryInput{
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk < :end"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: item{
			":pk": bin(pkValue(key)), ":end": bin([]byte{memberPrefix(typeSet) + 1}),
		},
	}
	return func(yield func(item, error) bool) {
		for it, err := range c.query(ctx, in, 0) {
			if !yield(it, err) || err != nil {
				return
			}
			if ms := smallMembers(it); ms != nil {
				// Member items after it come from a conversion that
				// committed after the read of the metadata item.
				for _, s := range smallItems(key, ms) {
					if !yield(s, nil) {
						return
					}
				}
				return
			}
		}
	}
}

// membersOnly is items without the metadata item.
func membersOnly(items iter.Seq2[item, error]) iter.Seq2[item, error] {
	return func(yield func(item, error) bool) {
		for it, err := range items {
			if _, _, ok := memberOf(it); (ok || err != nil) && !yield(it, err) {
				return
			}
		}
	}
}

// smallItems are the member items a small set's metadata item stands
// for, in the order of a Query of member items (their sort keys'), for
// the readers of member items (memberItems, SSCAN).
func smallItems(key string, members []string) []item {
	out := make([]item, len(members))
	for i, m := range members {
		out[i] = itemKey(key, memberSK(typeSet, m))
	}
	slices.SortFunc(out, func(a, b item) int { return bytes.Compare(bytesAttr(a, attrSK), bytesAttr(b, attrSK)) })
	return out
}

// smallDel is DEL of a small set: one TransactWriteItems deleting its
// metadata item while it is a live small set. handled is false when it is
// (now) a set of member items.
func (c *Client) smallDel(ctx context.Context, key string) (deleted, handled bool, err error) {
	x := newExpr()
	x.cond = append(x.cond, "attribute_exists(#sm)", x.live(c.nowMs()))
	cond, names, values := x.condition()
	err = c.sendTx(ctx, []types.TransactWriteItem{{Delete: &types.Delete{
		TableName: c.table(), Key: metaKey(key), ConditionExpression: cond,
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}})
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) && len(cancelled.CancellationReasons) == 1 && aws.ToString(cancelled.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
		return false, false, nil // missing, expired or converted meanwhile: del reads it again
	}
	return err == nil, true, err
}

// smallPurge deletes the metadata item of an expired small set (its only
// item), while it still holds the expiry exp or the purge mark.
func (c *Client) smallPurge(ctx context.Context, key string, exp int64) error {
	x := newExpr()
	x.cond = append(x.cond, "attribute_exists(#sm)", "(#x = "+x.value(num(exp))+" OR #x = "+x.value(num(deadExp))+")")
	cond, names, values := x.condition()
	err := c.sendTx(ctx, []types.TransactWriteItem{{Delete: &types.Delete{
		TableName: c.table(), Key: metaKey(key), ConditionExpression: cond,
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	}}})
	return ignoreCancelled(err)
}
