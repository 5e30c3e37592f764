package model

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxTxItems is DynamoDB's limit of actions in one TransactWriteItems.
const MaxTxItems = 100

// Write is one member item's change inside a key's transaction: a value,
// rendered into its DynamoDB action once per attempt (Rendered) and judged
// on EXEC's snapshot (Holds, ApplyTo) from the same data.
type Write struct {
	Member string
	// Action is what the write does to its item, without a condition:
	// Rendered adds the one Need says (count items, which have no Need,
	// carry their own).
	Action types.TransactWriteItem
	// Need is the write's condition on its member item, as data: DynamoDB
	// judges it as Rendered writes it, EXEC's writer (view.go) as Holds
	// reads it. ExpWas is the expiry NeedExpiry requires (0: none), ExpTo
	// the one an expiry change sets; IXBound is what NeedOtherIX,
	// NeedLowerIX and NeedHigherIX compare the index value with (nil: Ix).
	Need          Need
	ExpWas, ExpTo int64
	IXBound       []byte
	Delta         int64   // change of the key's cardinality when applied
	Count         int64   // what it adds to the command's reply when applied
	Score         float64 // for sorted-set writes: the score it stores
	// Required: when its condition fails and retry gives no replacement, the
	// whole command is abandoned (SMOVE: no add to the destination without
	// the removal from the source).
	Required bool
	// Retry is called when the condition failed, with the item as it is now
	// (nil when absent). It returns the write to try instead, or nil to drop
	// this one. A nil retry drops it.
	Retry func(now Item) (*Write, error)

	// For the count items of ranked sorted sets (rank.go): ix is the index
	// value the write stores (nil when it removes the member or only
	// checks it), prev the one it replaces (nil: none), known whether prev
	// is certain (the write's condition pins it). RankItem marks the
	// action on a count item itself.
	Ix, Prev []byte
	Known    bool
	RankItem bool
	// Pinned: the write requires its member's index value to be prev
	// (absent when prev is nil), which rankPrepare read (rank.go: pin).
	Pinned bool

	// Member expiry (memberttl.go): ttl is the change the write makes to
	// the number of members with an expiry (the metadata item's mn);
	// swept marks the delete of an expired member, replaces a write that
	// takes an expired member's place.
	Ttl             int64
	Swept, Replaces bool
	// Strict: a failed delete is never re-pinned to the expiry it found;
	// its retry, or required, decides (ZMOVE: the destination's write was
	// built from the member as read).
	Strict bool
}

// Rendered is w's action as sent at now, with its condition: what Need
// says (NeedExpression), conjoined with the guards the rest of its data
// asks for: a write pinned by the rank code requires the index value it
// read (rank.go: pin); a long member's write or check that requires it
// present requires the item to hold that member (longmember.go); and on a
// table with member expiry (memberTTL), a write that requires its member
// requires it live, a check of absence (memberCheck) also holds for an
// expired item, and a delete not pinned to an expiry (NeedExpiry)
// requires it to have none, which a failed condition then shows
// (memberttl.go). A put, a sweep and a count item get no expiry guard.
// w.Action itself is never edited: each attempt renders afresh.
func (w *Write) Rendered(now int64, memberTTL bool) types.TransactWriteItem {
	a := w.Action
	var (
		cond   **string
		names  *map[string]string
		values *map[string]types.AttributeValue
		onFail *types.ReturnValuesOnConditionCheckFailure
	)
	switch {
	case a.Put != nil:
		p := *a.Put
		a.Put = &p
		cond, names, values, onFail = &p.ConditionExpression, &p.ExpressionAttributeNames, &p.ExpressionAttributeValues, &p.ReturnValuesOnConditionCheckFailure
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
	}
	nn, vv := maps.Clone(*names), maps.Clone(*values)
	if nn == nil {
		nn = map[string]string{}
	}
	if vv == nil {
		vv = Item{}
	}
	and := func(expr string) {
		if *cond == nil {
			*cond = aws.String(expr)
		} else {
			*cond = aws.String("(" + aws.ToString(*cond) + ") AND " + expr)
		}
	}
	if w.Need != 0 {
		and(w.NeedExpression(nn, vv))
	}
	present := w.Need&^NeedAbsent != 0
	if a.Put == nil && w.Pinned && a.ConditionCheck == nil {
		*onFail = types.ReturnValuesOnConditionCheckFailureAllOld
		if w.Prev == nil {
			nn["#rkpk"] = AttrPK
			and("attribute_not_exists(#rkpk)")
		} else {
			nn["#rkix"], vv[":rkprev"] = AttrIX, Bin(w.Prev)
			and("#rkix = :rkprev")
		}
	}
	if len(w.Member) > InlineMemberLen && present {
		nn["#lm"], vv[":lm"] = AttrMem, Bin([]byte(w.Member))
		and("#lm = :lm")
	}
	if a.Put == nil && memberTTL && !w.Swept && !w.RankItem {
		*onFail = types.ReturnValuesOnConditionCheckFailureAllOld
		nn["#mxLive"] = AttrMemExp
		switch {
		case a.ConditionCheck != nil && w.Need&NeedAbsent != 0: // missing, or stored but expired
			vv[":mxNow"] = Num(now)
			*cond = aws.String("(" + aws.ToString(*cond) + ") OR #mxLive <= :mxNow")
		case a.Delete != nil && w.Need&NeedExpiry == 0:
			and(NoExpiryGuard)
		default:
			vv[":mxNow"] = Num(now)
			and(LiveGuard)
		}
	}
	if len(nn) == 0 {
		nn = nil
	}
	if len(vv) == 0 {
		vv = nil
	}
	*names, *values = nn, vv
	return a
}

// NeedExpression is w.Need as a DynamoDB condition, with the placeholders
// it uses added to names and values.
func (w *Write) NeedExpression(names map[string]string, values Item) string {
	var parts []string
	n := w.Need
	if n&NeedAbsent != 0 {
		names["#pk"] = AttrPK
		parts = append(parts, "attribute_not_exists(#pk)")
	}
	if n&NeedPresent != 0 {
		names["#pk"] = AttrPK
		parts = append(parts, "attribute_exists(#pk)")
	}
	if n&NeedIX != 0 {
		names["#ix"], values[":prev"] = AttrIX, Bin(w.Prev)
		parts = append(parts, "#ix = :prev")
	}
	for _, c := range []struct {
		bit Need
		op  string
	}{{NeedOtherIX, "<>"}, {NeedLowerIX, "<"}, {NeedHigherIX, ">"}} {
		if n&c.bit != 0 {
			names["#ix"], values[":ixb"] = AttrIX, Bin(w.bound())
			parts = append(parts, "#ix "+c.op+" :ixb")
		}
	}
	if n&NeedExpiry != 0 {
		names["#mx"] = AttrMemExp
		if w.ExpWas == 0 {
			parts = append(parts, "attribute_not_exists(#mx)")
		} else {
			values[":was"] = Num(w.ExpWas)
			parts = append(parts, "#mx = :was")
		}
	}
	return strings.Join(parts, " AND ")
}

// bound is what the index-value comparisons of Need compare with.
func (w *Write) bound() []byte {
	if w.IXBound != nil {
		return w.IXBound
	}
	return w.Ix
}

// Group is the writes of one command on one key.
type Group struct {
	Key    string
	Typ    KeyType
	Writes []*Write
	// Known is set once the metadata item has been seen (by a failed
	// condition); then now holds it.
	Known  bool
	Now    Meta
	TypeOK bool // the metadata condition held in a cancelled, conflict-free attempt
	// Rank is what this try believes of the key's count items (rank.go):
	// its count-item actions and its metadata condition both follow it.
	Rank *RankBelief
	// NoBuild: a build of the key's count items at the minimum failed
	// (rankGuard); this command writes it unranked, the next one builds.
	NoBuild bool
}

// TxResult is what transact did.
type TxResult struct {
	Applied   []*Write // the writes that committed
	Abandoned bool     // a required write failed: nothing was written
}

// Adds reports whether g's writes add members to its key.
func (g *Group) Adds() bool {
	for _, w := range g.Writes {
		if w.Delta > 0 {
			return true
		}
	}
	return false
}

// GivesExpiry reports whether g's writes give members an expiry.
func (g *Group) GivesExpiry() bool {
	var dt int64
	for _, w := range g.Writes {
		dt += w.Ttl
	}
	return dt > 0
}

// Replace swaps w for next (nil: removes w).
func (g *Group) Replace(w, next *Write) {
	for i, x := range g.Writes {
		if x == w {
			if next != nil {
				g.Writes[i] = next
			} else {
				g.Writes = append(g.Writes[:i], g.Writes[i+1:]...)
			}
			return
		}
	}
}

// DeadExp is the expiry a purge writes into the metadata item of the key
// it deletes: 1 ms after the Unix epoch, in the past on every clock. Every
// write transaction requires the key's expiry to be after its own clock
// (metaAction), so once the mark is stored no write can add to the key,
// however late it reaches DynamoDB: a request built before the expiry and
// delayed, or resent by the SDK after a 500, fails its condition instead
// of slipping a member in between the purge's listing and its last delete.
const DeadExp = 1

// EmptiedByPurge reports whether it is a metadata item a purge marked dead
// and emptied but did not delete (an older purge cut between its last
// chunk and the final delete left such an item). It reads as missing, so
// nothing purges it; a write that meets it must, before it can write.
func EmptiedByPurge(it Item) (Meta, bool) {
	if it == nil || DecodeMeta(it).Typ != TypeNone {
		return Meta{}, false
	}
	m := DecodeMeta(WithCard(maps.Clone(it))) // its type and expiry, as if it counted members
	return m, m.Typ != TypeNone && m.Exp == DeadExp
}

// IgnoreCancelled is nil for a cancelled purge transaction: another purge
// is ahead (a member it meant to delete is gone) or the key was re-created.
func IgnoreCancelled(err error) error {
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		return nil
	}
	return err
}

// BySize cuts chunks further where long members would take one past
// MaxTxBytes (ChunkEnd).
func BySize(key string, chunks [][]*Write) [][]*Write {
	var out [][]*Write
	for _, ch := range chunks {
		for start := 0; ; {
			end := ChunkEnd(key, ch, start)
			out = append(out, ch[start:end])
			if start = end; start >= len(ch) {
				break
			}
		}
	}
	return out
}

// ChunkEnd is where the transaction of writes[start:] ends: after
// MaxTxItems-1 writes, or before the write that would take it past
// MaxTxBytes (long members), but never before start+1.
func ChunkEnd(key string, writes []*Write, start int) int {
	end, size := start, 0
	for end < len(writes) && end-start < MaxTxItems-1 {
		size += WriteBytes(key, writes[end])
		if size > MaxTxBytes && end > start {
			break
		}
		end++
	}
	return end
}

// Counted is the reply of a command whose applied writes are ws.
func Counted(ws []*Write) int64 {
	var n int64
	for _, w := range ws {
		n += w.Count
	}
	return n
}

// VersionToken is a fresh metadata version (AttrVer): 8 random bytes, so
// a key deleted and created again does not come back to an old version.
func VersionToken() []byte {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return b[:]
}

// Token is a fresh idempotency token for TransactWriteItems.
func Token() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ErrOutsideTx is what a transaction's Client answers a request that did
// not go through its storage view (the root package's view.go): a command
// a transaction cannot hold (SCAN, KEYS, DBSIZE, FLUSHDB, TxPipelined...
// called on a *Pipeline),
// never a write outside the transaction.
var ErrOutsideTx = errors.New("redimo: this command cannot run inside a transaction (see Pipeliner); nothing was read or written outside it")

// Need is a write's condition on the member item it writes, as data: a
// set of requirements, all of which must hold. Every requirement but
// NeedAbsent requires the member present.
type Need uint8

const (
	NeedAbsent   Need = 1 << iota // attribute_not_exists: the member is missing
	NeedPresent                   // attribute_exists
	NeedIX                        // its index value is w.Prev
	NeedOtherIX                   // its index value is not w.IXBound (nil: w.Ix)
	NeedLowerIX                   // its index value is below it (ZADD XX GT)
	NeedHigherIX                  // its index value is above it (ZADD XX LT)
	NeedExpiry                    // its expiry is w.ExpWas (0: none)
)

// Holds reports whether w's condition holds for m, as DynamoDB would judge
// w's rendered condition on m's item.
func (w *Write) Holds(m *TxMember) (bool, error) {
	n := w.Need
	switch {
	case n == 0:
		return false, ErrOutsideTx // a write without a Need: not a member write
	case n&NeedAbsent != 0:
		return !m.Present, nil
	case !m.Present:
		return false, nil
	case n&NeedIX != 0 && !bytes.Equal(m.Ix, w.Prev),
		n&NeedOtherIX != 0 && bytes.Equal(m.Ix, w.bound()),
		n&NeedLowerIX != 0 && bytes.Compare(m.Ix, w.bound()) >= 0,
		n&NeedHigherIX != 0 && bytes.Compare(m.Ix, w.bound()) <= 0,
		n&NeedExpiry != 0 && m.Mx != w.ExpWas:
		return false, nil
	}
	return true, nil
}

// ItemOf is m's item as the table would return it (nil when absent).
func ItemOf(key string, typ KeyType, member string, m *TxMember) Item {
	if !m.Present {
		return nil
	}
	it := ItemKey(key, MemberSK(typ, member))
	if typ == TypeZSet {
		it[AttrIX] = Bin(m.Ix)
	}
	if len(member) > InlineMemberLen {
		it[AttrMem] = Bin([]byte(member))
	}
	if m.Mx != 0 {
		it[AttrMemExp] = Num(m.Mx)
	}
	return it
}

// ApplyTo makes on the snapshot's member m (of k, type typ) the change w
// makes to its item when its condition holds.
func (w *Write) ApplyTo(k *TxKey, typ KeyType, m *TxMember) {
	switch a := w.Action; {
	case a.ConditionCheck != nil: // a check (memberCheck) changes nothing
	case a.Delete != nil:
		k.Remove(m)
	case a.Put != nil: // a new item: its expiry is the one it carries
		k.Add(typ, m, w.Ix)
		m.Mx = MemberExp(a.Put.Item)
	case w.Ix == nil: // an update without an index value: the expiry alone
		m.Mx = w.ExpTo
		k.Touched = true
	default: // a new index value, keeping the expiry unless it drops it (rewriteMember)
		k.Add(typ, m, w.Ix)
		if w.Ttl < 0 {
			m.Mx = 0
		}
	}
}

// ItemID names the item w changes among the items of every key: key,
// 0x00, sort key.
func ItemID(g *Group, w *Write) string { return g.Key + "\x00" + string(WriteSK(w)) }

// WriteSK is the sort key of the member item a write changes.
func WriteSK(w *Write) []byte {
	a := w.Action
	switch {
	case a.Put != nil:
		return BytesAttr(a.Put.Item, AttrSK)
	case a.Update != nil:
		return BytesAttr(a.Update.Key, AttrSK)
	case a.Delete != nil:
		return BytesAttr(a.Delete.Key, AttrSK)
	case a.ConditionCheck != nil:
		return BytesAttr(a.ConditionCheck.Key, AttrSK)
	}
	return nil
}

// Retryable reports whether err is a conflict with a concurrent
// transaction or throttling, which the same request may pass when resent:
// a TransactionConflictException, or a cancellation for those reasons
// alone.
func Retryable(err error) bool {
	conflict, codes := cancelCodes(err)
	some := false
	for _, code := range codes {
		switch {
		case code == "None", code == "":
		case RetryableCode(code):
			some = true
		default:
			return false
		}
	}
	return conflict || some
}

// RetryableCode reports whether a cancellation reason is a conflict or
// throttling, which the same request may pass when resent.
func RetryableCode(code string) bool {
	switch code {
	case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
		return true
	}
	return false
}

// IsConflict reports whether err is, or a transaction was cancelled for,
// a conflict with a concurrent transaction.
func IsConflict(err error) bool {
	conflict, codes := cancelCodes(err)
	return conflict || slices.Contains(codes, "TransactionConflict")
}

// cancelCodes tells a TransactionConflictException (conflict) from a
// cancelled transaction, whose reasons' codes it returns.
func cancelCodes(err error) (conflict bool, codes []string) {
	var c *types.TransactionConflictException
	if errors.As(err, &c) {
		return true, nil
	}
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		for _, r := range cancelled.CancellationReasons {
			codes = append(codes, aws.ToString(r.Code))
		}
	}
	return false, codes
}

// KeepExpiry is addEx.existing for members that keep their expiry.
const KeepExpiry = -1

// MaxMove is the most members one transaction moves: a delete and a put
// each, and the two metadata items, in DynamoDB's 100 actions.
const MaxMove = (MaxTxItems - 2) / 2

// MoveSel is a checked ZMoveArgs: a range of the source (its key filled in
// per read) and the most members to move (-1: all).
type MoveSel struct {
	ByScore bool
	Lo, Hi  float64
	Empty   bool
	Rev     bool
	Count   int64
}
