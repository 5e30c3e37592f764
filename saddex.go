package redimo

// SADDEX: members added to a set with an expiry, in Redis 8.12's form
// (SAddExArgs) and in Dragonfly's (SAddEx), both written once (sAddEx).

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// SAddEx adds members to the set at key with a time to live of d and
// returns how many were new, as Dragonfly's SADDEX key [KEEPTTL] seconds
// member...: members already there get the new expiry, or keep theirs
// with keepTTL (one without an expiry then stays without). d must be
// positive. Redis 8.12's SADDEX is SAddExArgs.
//
// Cost: as SAdd, plus the by_exp index entry of each member written.
func (c *Client) SAddEx(ctx context.Context, key string, d time.Duration, keepTTL bool, members ...string) (_ int64, err error) {
	ctx, traced := c.command(ctx, "SAddEx")
	defer traced.end(&err)
	if err := c.checkKeyMembers("SADDEX", key, members); err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, argError("SADDEX", "seconds", d.String(), ErrOutOfRange)
	}
	op := addEx{at: c.expiryIn(d)}
	op.existing = op.at
	if keepTTL {
		op.existing = model.KeepExpiry
	}
	added, _, err := c.sAddEx(ctx, key, op, members)
	return added, err
}

// addEx is what one SADDEX does to each member it names.
type addEx struct {
	cond SAddExCondition
	at   int64 // the expiry a new member gets (Unix ms; 0: none)
	// existing is the expiry a member already there gets (0: none), or
	// model.KeepExpiry.
	existing int64
	past     bool // at is not after now: delete the members, add none
}

// sAddEx is SADDEX, both forms: it returns how many members were new and
// whether the MNX/MXX condition held (always, without one).
func (c *Client) sAddEx(ctx context.Context, key string, op addEx, members []string) (int64, bool, error) {
	const cmd = "SADDEX"
	if op.at != 0 && !op.past {
		if err := c.requireMemberTTL(ctx, cmd); err != nil {
			return 0, false, err
		}
	}
	members = model.Dedupe(members)
	writes := make([]*model.Write, len(members))
	for i, m := range members {
		writes[i] = c.addExWrite(key, m, op)
	}
	if op.cond != SAddExAlways {
		if n := c.view().transactions(key, model.TypeSet, writes); n > 1 {
			return 0, false, fmt.Errorf("%w: SADDEX %s with %d members needs %d transactions; "+
				"MNX and MXX are atomic only within one (99 members, 4 MB)", ErrTxTooBig, op.cond, len(members), n)
		}
	}
	applied, err := c.transactChunks(ctx, key, model.TypeSet, writes)
	if err != nil {
		return 0, false, wrap(cmd, err)
	}
	// With MNX or MXX every write is required: all applied, or none (the
	// transaction was abandoned).
	return model.Counted(applied), op.cond == SAddExAlways || len(applied) == len(writes), nil
}

// addExWrite is op's write for member. With MNX or MXX it is required:
// when its condition fails and no retry replaces it, the whole call is
// abandoned, in the transaction that carries all of them.
func (c *Client) addExWrite(key, member string, op addEx) *model.Write {
	var w *model.Write
	switch {
	case op.past && op.cond == SAddExMNX: // nothing to add, nothing to delete
		w = c.memberCheck(key, model.TypeSet, member, false)
	case op.past: // SREM, counting 0; MXX requires the member
		w = c.deleteMember(key, model.TypeSet, member)
		w.Count = 0
	case op.cond == SAddExMXX && op.existing == model.KeepExpiry:
		w = c.memberCheck(key, model.TypeSet, member, true)
	case op.cond == SAddExMXX:
		w = c.mxxWrite(key, member, 0, op.existing)
	default: // a put; without MNX, a member already there is updated (existingWrite)
		w = c.addExPut(key, member, op)
	}
	w.Required = op.cond != SAddExAlways
	return w
}

// addExPut creates member with the expiry op.at, counting 1.
func (c *Client) addExPut(key, member string, op addEx) *model.Write {
	w := c.putMember(key, model.TypeSet, member, nil)
	if op.at != 0 {
		model.SetMemberExp(w.Action.Put.Item, op.at)
		w.Ttl = 1
	}
	if op.cond == SAddExAlways {
		w.Retry = func(now model.Item) (*model.Write, error) { return c.existingWrite(key, member, now, op), nil }
	}
	return w
}

// existingWrite is the write for a member found there (now) by a put
// without MNX/MXX: its expiry becomes op.existing, counting 0 (nil when
// it keeps its own, or already has that one); a member gone meanwhile is
// put again.
func (c *Client) existingWrite(key, member string, now model.Item, op addEx) *model.Write {
	if now == nil {
		return c.addExPut(key, member, op)
	}
	old := model.MemberExp(now)
	if op.existing == model.KeepExpiry || old == op.existing {
		return nil
	}
	w := c.setMemberExpiry(key, model.TypeSet, member, old, op.existing)
	w.Count = 0
	w.Retry = func(now model.Item) (*model.Write, error) { return c.existingWrite(key, member, now, op), nil }
	return w
}

// mxxWrite is MXX's write for a member believed to hold the expiry old
// (0: none): it sets the expiry to (0: removes it), counting 0; found
// with another expiry, it tries again with that one; found missing, it
// gives nothing, which abandons the call.
func (c *Client) mxxWrite(key, member string, old, to int64) *model.Write {
	w := c.setMemberExpiry(key, model.TypeSet, member, old, to)
	w.Count, w.Required = 0, true
	w.Retry = func(now model.Item) (*model.Write, error) {
		if now == nil {
			return nil, nil
		}
		return c.mxxWrite(key, member, model.MemberExp(now), to), nil
	}
	return w
}

// memberCheck is a write that changes nothing and requires member to be
// present and live (present) or missing (a stored member that has
// expired is missing: write.rendered conditions the check so).
func (c *Client) memberCheck(key string, typ model.KeyType, member string, present bool) *model.Write {
	need := model.NeedAbsent
	if present {
		need = model.NeedPresent
	}
	return &model.Write{
		Member: member, Need: need,
		Action: types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: c.st.Table(), Key: model.ItemKey(key, model.MemberSK(typ, member)),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
	}
}

// SAddExArgs adds args.Members to the set at key, with or without an
// expiry, as Redis 8.12's SADDEX, and reports whether it did: false only
// when args.Mode's condition did not hold (MNX: a member exists; MXX: one
// does not, or the key does not), and then nothing was written. Redis
// 8.12 replies 1 or 0 for the same outcomes, not a count of new members.
// An expired member is a missing one to MNX and MXX, as in Redis. With a
// time to live, a member already there gets the new expiry; without one,
// it loses its expiry unless KeepTTL. An ExpireAt not after now deletes
// the members named (the key with its last member) and adds none.
//
// MNX and MXX are atomic: each member's condition is in the one
// TransactWriteItems that writes them, so nothing is written unless all
// hold. That needs the members (distinct, with the metadata item) to fit
// one transaction: more than 99, or more than DynamoDB's 4 MB with long
// members, is refused with an error wrapping ErrTxTooBig before any
// write. Without MNX/MXX, a call of more than 99 members goes in
// transactions of 99, each atomic, as SAdd. TTL < 0 is ErrOutOfRange;
// two of TTL, ExpireAt and KeepTTL, or another Mode, ErrSyntax; an
// expiry in the future on a table without member expiry, ErrNoMemberExpiry.
//
// Unlike Redis, a call that only meets members already there, with
// KeepTTL or with the expiry they already have, writes nothing, so it does
// not change the key's version for WATCH (Redis marks the key modified).
//
// Cost: as SAdd, plus the by_exp index entry of each member given an
// expiry; a member already there costs one more attempt of the
// transaction, for its new expiry. MXX: one TransactWriteItems updating
// each member (2 write units each: the items are written, or, with
// KeepTTL, checked) plus the metadata item; MNX: as SAdd.
//
// [SADDEX]: https://redis.io/docs/latest/commands/saddex/
func (c *Client) SAddExArgs(ctx context.Context, key string, args SAddExArgs) (_ bool, err error) {
	ctx, traced := c.command(ctx, "SAddExArgs")
	defer traced.end(&err)
	const cmd = "SADDEX"
	if err := c.checkKeyMembers(cmd, key, args.Members); err != nil {
		return false, err
	}
	switch args.Mode {
	case SAddExAlways, SAddExMNX, SAddExMXX:
	default:
		return false, argError(cmd, "mode", string(args.Mode), ErrSyntax)
	}
	if args.TTL < 0 {
		return false, argError(cmd, "TTL", args.TTL.String(), ErrOutOfRange)
	}
	if args.TTL > 0 && !args.ExpireAt.IsZero() || args.KeepTTL && (args.TTL > 0 || !args.ExpireAt.IsZero()) {
		return false, argError(cmd, "expiration", "more than one of TTL, ExpireAt and KeepTTL", ErrSyntax)
	}
	op := addEx{cond: args.Mode}
	switch {
	case args.TTL > 0:
		op.at = c.expiryIn(args.TTL)
		op.existing = op.at
	case !args.ExpireAt.IsZero():
		ms, ok := model.UnixMilli(args.ExpireAt)
		if !ok {
			return false, argError(cmd, "ExpireAt", args.ExpireAt.String(), ErrOutOfRange)
		}
		op.at, op.existing, op.past = ms, ms, ms <= c.nowMs()
	case args.KeepTTL:
		op.existing = model.KeepExpiry
	}
	_, ok, err := c.sAddEx(ctx, key, op, args.Members)
	return ok, err
}
