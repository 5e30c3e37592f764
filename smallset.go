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
// members may take model.SmallBudget(key) bytes (1 KB minus the metadata
// attributes, the write tokens below and the partition key), at most
// model.SmallMaxMembers of them (99: the conversion below is one
// transaction of 100 actions). A key of typical length leaves about 640
// bytes of members: 60 tags of 10 bytes. The empty member (DynamoDB sets
// may not hold an empty value) and any member beyond the budget go to
// member items, and so does an SADD or SREM naming more than
// model.SmallMaxWrite (64) members (each is a condition, and a condition
// holds at most 300 operators), as Redis picks hashtable at once for a
// key created by a command naming more members than its threshold.
//
// Exact replies. Each write is conditioned on exactly what it reports:
// SADD that none of its members is there (NOT contains), SREM and SPOP
// that all of theirs are (contains) and that more remain (else the write
// empties the key on condition of its count: the type, count and key-index
// attributes go, the item stays with its write tokens alone, see below).
// A refused write returns the item as it is now
// (ReturnValuesOnConditionCheckFailure), from which the command plans the
// next write: the members still to add or remove, or a conversion. So a
// write is counted only when the request that carried it applied.
//
// Lost responses. The SDK resends a request whose answer was lost (a
// dropped connection, a 500 after the write applied); a resent single-item
// write would be judged against its own effect. Every write therefore
// stores a fresh token in the attribute of its writer lane and requires
// the token absent (model.WriteToken): a resend of an applied write
// fails, and the item it returns holds the token, so the command knows
// its write applied and replies as that write did. A lane is one write
// in flight of one Client on one key (lanes, below): its attribute
// changes only with the lane's next write, sent once this one is
// settled, so the token stays whatever other writers do meanwhile
// (there is no window of N writes); the conversion keeps the tokens,
// and so does every deletion of an item that holds any (the write that
// empties a small set, DEL, FLUSHDB, purges: model.DeleteKey leaves the
// item with its tokens alone). A token is resent for at most half of
// model.TokenHorizon (an hour); after that, any writer that sees it
// removes it with its own next write of the key (staleTokens), and an
// item left with nothing but tokens carries the time DynamoDB's TTL may
// delete it (gc; CreateTable turns TTL on). Each write returns the item
// as it left it (ReturnValues ALL_NEW, at no cost in capacity), which
// shows the stale tokens.
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
	"errors"
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/store"
)

// smallFit reports whether a small set of key holding have can also
// hold add (all distinct and new), for this client.
func (c *Client) smallFit(key string, have, add []string) bool {
	return !c.opts.DisableSmallSets && model.SmallFit(key, have, add)
}

// smallState is a key as a refused small write (or a read) showed it.
type smallState struct {
	known   bool           // false: not seen yet (the first, blind, attempt)
	missing bool           // no live key
	big     bool           // a set of member items
	members []string       // a small set's members
	entries []model.ZEntry // a small sorted set's (smallz.go)
	raw     model.Item
}

// smallStep is a write a plan asks for, or its outcome.
type smallStep struct {
	done     bool // no write: the command's reply is ready
	fallback bool // the key is (now) a set of member items: take that path
	write    *model.MetaWrite
	empties  bool     // write is a Tombstone: no new version of its own
	n        int64    // the reply when the write applies
	members  []string // the members it adds or removes
}

// smallRun sends the writes plan asks for until one applies or plan is
// done, and returns the step that applied (or the last, done or
// fallback). plan sees the key as the last refusal showed it.
func (c *Client) smallRun(ctx context.Context, key string, st smallState, plan func(st smallState) (smallStep, error)) (smallStep, error) {
	var step smallStep
	err := c.st.Attempts(ctx, false, func() (bool, error) {
		var err error
		if step, err = plan(st); err != nil || step.done || step.fallback {
			return true, err
		}
		old, err := c.smallUpdate(ctx, key, step.write, !step.empties)
		switch {
		case errors.Is(err, errApplied):
			c.seenBig(key, false) // small, or emptied: either way read as small
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

// smallUpdate sends w as one UpdateItem carrying a write token in one of
// this Client's writer lanes (model.WriteToken) and, with version, a new
// version token. It returns errApplied when the write applied (also when
// a resend found its own token) with the item as the write left it (nil
// after a resend: other writes may have followed), else the item as the
// refusal showed it.
func (c *Client) smallUpdate(ctx context.Context, key string, w *model.MetaWrite, version bool) (model.Item, error) {
	if version {
		w.NewVersion()
	}
	// Its resends too go on when ctx ends (store.Detached): only an
	// answer tells whether the write applied.
	ctx, cancel, err := store.Detached(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	lane, release := c.lanes.take(key)
	defer release()
	prune, _ := c.staleTokens.get(key)
	first := time.Now()
	tok := w.WriteToken(lane, prune, first.UnixMilli())
	in := w.Update(c.st.Table())
	in.ReturnValues = types.ReturnValueAllNew
	var now model.Item
	err = c.st.RetryConflicts(ctx, func() error {
		if time.Since(first) > model.TokenHorizon/2 {
			return fmt.Errorf("redimo: no answer to a write of %q within %v: it may or may not have applied", key, model.TokenHorizon/2)
		}
		out, err := c.st.UpdateItem(ctx, in)
		var failed *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			c.noteTokens(key, out.Attributes, lane)
			now = out.Attributes
			return errApplied
		case errors.As(err, &failed) && model.HoldsToken(failed.Item, lane, tok):
			c.noteTokens(key, failed.Item, lane)
			now = nil
			return errApplied // a resend of the write that applied
		case errors.As(err, &failed):
			c.noteTokens(key, failed.Item, "")
			now = failed.Item
			return nil
		}
		return err
	})
	return now, err
}

// noteTokens records the stale write tokens it (key's metadata item, as a
// write left it or a refusal showed it) holds, for this Client's next
// write of key to remove; with pruned, the write that removed the last
// ones applied.
func (c *Client) noteTokens(key string, it model.Item, pruned string) {
	stale := model.StaleTokens(it, time.Now().UnixMilli())
	switch {
	case len(stale) > 0:
		c.staleTokens.note(key, stale)
	case pruned != "" || it != nil:
		c.staleTokens.forget(key)
	}
}

// lanes are a Client's writer lanes: lane i of key is taken by one
// single-item write at a time, so that its token attribute
// (model.LaneAttr) changes only when that write is settled.
type lanes struct {
	writer string // the Client's random id
	mu     sync.Mutex
	busy   map[string][]bool // key → the lanes in use (busy[key][i]: lane i)
}

// take takes the lowest free lane of key, and returns its attribute and
// the function that frees it.
func (l *lanes) take(key string) (attr string, release func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy == nil {
		l.busy = map[string][]bool{}
	}
	i := slices.Index(l.busy[key], false)
	if i < 0 {
		i = len(l.busy[key])
		l.busy[key] = append(l.busy[key], false)
	}
	l.busy[key][i] = true
	return model.LaneAttr(l.writer, i), func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.busy[key][i] = false; !slices.Contains(l.busy[key], true) {
			delete(l.busy, key)
		}
	}
}

// smallClassify says what a metadata item (as a refusal showed it) is for
// a set command: an expired key is purged and a key of another type whose
// members have all expired swept (both are then missing), a live key of
// another type is ErrWrongType.
func (c *Client) smallClassify(ctx context.Context, key string, it model.Item) (smallState, error) {
	return c.classifyAs(ctx, key, it, model.TypeSet)
}

// classifyAs is smallClassify for a command on keys of type typ: a small
// sorted set's entries are in st.entries.
func (c *Client) classifyAs(ctx context.Context, key string, it model.Item, typ model.KeyType) (smallState, error) {
	st := smallState{known: true, raw: it}
	m := model.DecodeMeta(it)
	if e, ok := model.EmptiedByPurge(it); ok {
		m = e
	}
	if m.Expired(c.nowMs()) {
		st.missing = true
		return st, c.view().purge(ctx, key, m)
	}
	m, err := c.ofType(ctx, key, m, typ)
	switch {
	case err != nil:
		return st, err
	case m.Typ == model.TypeNone:
		st.missing = true
	case m.Small != nil:
		st.members = m.Small
	case m.SmallZ != nil:
		st.entries = m.SmallZ
	default:
		st.big = true
	}
	c.seenBig(key, st.big)
	return st, nil
}

// knownBig reports whether key was last seen by this Client as a set of
// member items (setEnc): its writes and reads go to the member items
// first, without the single-item attempt that such a set refuses (1 write
// unit and a round trip). A set never turns small while it lives, so the
// hint goes stale only when the key is deleted: this Client notes it
// then (seenBig), and one deleted by another client is re-created by the
// member-item path, as a set of member items (OBJECT ENCODING hashtable),
// until a read or a refused write shows this Client otherwise.
//
// A fresh Client (a process that just started, a Lambda cold start)
// knows no key. Its first write of a key is the single-item attempt,
// refused by a set of member items: that keeps one request and one write
// unit for the SADD that creates a key or adds to a small one, the
// commonest first write (tags, per-user sets), and costs one refused
// write unit, once per key and process, on a big one. Reading first
// (eventually consistent, 0.5 read unit) would save that unit on big
// sets but add a round trip to every first write of a small or new key;
// a refused write cannot be made cheaper than 1 write unit, and the
// member-item path needs nothing the refusal returns. So the Client
// learns encodings from every read that shows them instead: any read of
// a set's metadata item (metaOf: SCARD, SRANDMEMBER, SPOP, TYPE, ...)
// and SISMEMBER/SMISMEMBER (setProbe) note it (noteEncoding), and a
// Client that reads a set before writing it, the usual pattern, never
// sends the refused write (BENCHMARKS.md, "Set reads at one round trip").
func (c *Client) knownBig(key string) bool {
	big, ok := c.setEnc.get(key)
	return ok && big
}

// knownSmall reports whether key was last seen by this Client as a small
// set or missing: its reads need only the metadata item.
func (c *Client) knownSmall(key string) bool {
	big, ok := c.setEnc.get(key)
	return ok && !big
}

// seenBig records what this Client saw of key: a set of member items
// (big), or not (small, missing, deleted).
func (c *Client) seenBig(key string, big bool) {
	c.setEnc.note(key, big)
}

// noteEncoding records what a read of key's metadata item (m, as stored)
// showed of a set: its encoding, or no key (the next SADD starts it small).
func (c *Client) noteEncoding(key string, m model.Meta) {
	switch m.Typ {
	case model.TypeSet:
		c.seenBig(key, m.Small == nil)
	case model.TypeZSet:
		c.seenBig(key, m.SmallZ == nil)
	case model.TypeNone:
		c.seenBig(key, false)
	}
}

// smallAddStep is the write that adds members (distinct, none in the
// set as last seen) to key's small set, creating it when missing.
func (c *Client) smallAddStep(key string, members []string) smallStep {
	w := model.NewMetaWrite(key).SetType(model.TypeSet).AddSmall(members).
		Require("attribute_not_exists(#t) OR attribute_exists(#sm)").RequireLive(c.nowMs()).
		RequireRoom(key, members).RequireAbsentMembers(members)
	return smallStep{write: w, n: int64(len(members)), members: members}
}

// smallRemoval is the write that removes members (distinct, all in the
// set as st shows it): when they are all of it, the write that empties
// the key (Tombstone).
func (c *Client) smallRemoval(key string, members []string, st smallState) smallStep {
	k := int64(len(members))
	w := model.NewMetaWrite(key).RequireSmall(true).RequireLive(c.nowMs()).RequirePresentMembers(members)
	if st.known && len(members) == len(st.members) {
		return smallStep{write: w.RequireCard("=", k).Tombstone(time.Now().UnixMilli()), empties: true, n: k, members: members}
	}
	return smallStep{write: w.RequireCard(">", k).RemoveSmall(members), n: k, members: members}
}

// smallAdd is SADD of members (distinct) on the small encoding. handled
// is false when the key is a set of member items, or becomes one (the
// members do not fit: it was converted): the caller takes that path.
func (t table) smallAdd(ctx context.Context, key string, members []string) (n int64, handled bool, err error) {
	c := t.c
	if len(members) > model.SmallMaxWrite || c.knownBig(key) || !c.smallFit(key, nil, members) {
		return 0, false, nil
	}
	step, err := c.smallRun(ctx, key, smallState{}, func(st smallState) (smallStep, error) {
		switch {
		case !st.known, st.missing:
			return c.smallAddStep(key, members), nil
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
		return c.smallAddStep(key, rest), nil
	})
	return step.n, err != nil || !step.fallback, err
}

// smallRem is SREM of members (distinct) on the small encoding; handled
// as smallAdd's.
func (t table) smallRem(ctx context.Context, key string, members []string) (n int64, handled bool, err error) {
	c := t.c
	if c.opts.DisableSmallSets || len(members) > model.SmallMaxWrite || c.knownBig(key) {
		return 0, false, nil
	}
	step, err := c.smallRun(ctx, key, smallState{}, func(st smallState) (smallStep, error) {
		switch {
		case !st.known:
			return c.smallRemoval(key, members, st), nil
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
// what it read, planned again from what a refusal shows. read is the
// metadata item of a set of member items it found (for the caller's
// draw: randomMembersOf), else nil.
func (t table) smallPop(ctx context.Context, key string, count int64) (popped []string, handled bool, read *model.Meta, err error) {
	c := t.c
	if c.knownBig(key) {
		return nil, false, nil, nil
	}
	it, err := c.st.GetItem(ctx, model.MetaKey(key), aws.Bool(true), nil, nil)
	if err != nil {
		return nil, true, nil, err
	}
	st, err := c.smallClassify(ctx, key, it)
	if err != nil || st.missing {
		return nil, true, nil, err
	}
	if st.big {
		m := model.DecodeMeta(it)
		return nil, false, &m, nil
	}
	step, err := c.smallRun(ctx, key, st, func(st smallState) (smallStep, error) {
		switch {
		case st.missing:
			return smallStep{done: true}, nil
		case st.big:
			return smallStep{fallback: true}, nil
		}
		picks, _ := drawFrom(slices.Clone(st.members), count, true)
		return c.smallRemoval(key, picks, st), nil
	})
	if step.done || step.fallback {
		return nil, err != nil || !step.fallback, nil, err
	}
	return step.members, true, nil, err
}

// convert makes the small set it (key's metadata item as read) a set of
// member items: one transaction writing each member's item and removing
// the members from the metadata item, on condition that its version token
// is still the one read (else nothing is written and the caller reads
// again). The count, type, expiry, key-index entry, write tokens and
// version token stay: no member changes.
func (c *Client) convert(ctx context.Context, key string, it model.Item) error {
	members, entries := model.SmallMembers(it), model.SmallZOf(it)
	if members == nil && entries == nil {
		return nil
	}
	actions := make([]types.TransactWriteItem, 0, len(members)+len(entries)+1)
	for _, m := range members {
		actions = append(actions, c.putMember(key, model.TypeSet, m, nil).Rendered(0, false))
	}
	for _, e := range entries { // a small sorted set (smallz.go): each member with its index entry
		actions = append(actions, c.putMember(key, model.TypeZSet, e.Member, model.ZsetIX(e.Score, e.Member)).Rendered(0, false))
	}
	w := model.NewMetaWrite(key).RequireSmall(true).RequireVersion(model.BytesAttr(it, model.AttrVer)).Unsmall(time.Now().UnixMilli())
	err := c.st.SendTx(ctx, append(actions, w.Action(c.st.Table())))
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		return nil // changed meanwhile: the caller plans again from a fresh read
	}
	c.seenBig(key, err == nil)
	c.zitems.forget(key)
	return err
}

// setProbe is probe for a set: which of members key holds, in one
// request whatever its encoding. The plan is chosen once, from what this
// Client knows of key:
//
//   - small or missing (knownSmall): a GetItem of the metadata item
//     (smallProbe), 1 read unit; a set converted since by another client
//     then has its members read (BatchGetItem), and is known big from
//     then on;
//   - big, or not known (a fresh Client): one BatchGetItem of the
//     metadata item and the members. A small set answers from the
//     metadata item's members (its member items are absent), a set of
//     member items from them; the metadata item gives the type and the
//     expiry. With Options.DisableKeyExpiry too: reading the metadata item
//     only when a member is missing would save a read unit when it is
//     found but cost a second request when it is not, or when the set is
//     small.
//
// withMeta as probe's: without it, the caller knows the key is a live set,
// and has just noted its encoding, or has its encoding read from the
// metadata item.
func (c *Client) setProbe(ctx context.Context, key string, members []string, withMeta bool) (map[string]model.Item, error) {
	if !withMeta && c.knownBig(key) {
		// The caller has just read the metadata item (setMetas): the
		// members alone.
		found, _, err := c.probeItems(ctx, key, model.TypeSet, members, false)
		return found, err
	}
	if c.knownSmall(key) {
		found, ok, err := c.smallProbe(ctx, key, members, withMeta)
		if ok || err != nil {
			return found, err
		}
		found, _, err = c.probeItems(ctx, key, model.TypeSet, members, false)
		return found, err
	}
	start, wasBig := time.Now(), c.knownBig(key)
	found, it, err := c.probeItems(ctx, key, model.TypeSet, members, true)
	if err != nil {
		return nil, err
	}
	m := c.liveMeta(it)
	if withMeta {
		if m, err = c.ofType(ctx, key, m, model.TypeSet); err != nil {
			return nil, err
		}
	}
	c.seenBig(key, m.Typ == model.TypeSet && m.Small == nil)
	switch {
	case m.Small != nil:
		return smallFound(key, m.Small, members), nil
	case withMeta && m.Typ != model.TypeSet:
		return map[string]model.Item{}, nil
	case m.Typ == model.TypeSet && len(found) < len(members) && !wasBig && model.ConvertedSince(it, start.Add(-conversionSkew).UnixMilli()):
		// A BatchGetItem reads its items one by one, not as one snapshot:
		// a member item read before a conversion committed and the
		// metadata item after it would show a member of the set missing.
		// The conversion has committed by now: when it may have come
		// during this read (it recorded its time, model.ConvertedSince,
		// and clocks may differ by conversionSkew), the members not found
		// are read again (one request, in the minutes after a set's
		// conversion, by a Client that had not seen it converted yet).
		var missing []string
		for _, mb := range members {
			if _, ok := found[mb]; !ok {
				missing = append(missing, mb)
			}
		}
		again, _, err := c.probeItems(ctx, key, model.TypeSet, missing, false)
		if err != nil {
			return nil, err
		}
		maps.Copy(found, again)
	}
	return found, nil
}

// conversionSkew is how far the clock of the Client that converted a set
// may be behind this one's (setProbe); expiry asks clocks in sync already.
const conversionSkew = 5 * time.Minute

// smallProbe is setProbe's read of a set known small: the metadata item
// alone (one GetItem). ok is false for a live set of member items, whose
// members the caller then reads. withMeta as probe's.
func (c *Client) smallProbe(ctx context.Context, key string, members []string, withMeta bool) (found map[string]model.Item, ok bool, err error) {
	it, err := c.st.GetItem(ctx, model.MetaKey(key), nil, model.MetaProjection.Expr, model.MetaProjection.Names)
	if err != nil {
		return nil, true, err
	}
	m := c.liveMeta(it)
	if withMeta {
		if m, err = c.ofType(ctx, key, m, model.TypeSet); err != nil || m.Typ == model.TypeNone {
			return map[string]model.Item{}, true, err
		}
	}
	c.seenBig(key, m.Typ == model.TypeSet && m.Small == nil)
	if m.Small == nil {
		return nil, false, nil
	}
	return smallFound(key, m.Small, members), true, nil
}

// smallFound is which of members the small set of key holding small
// holds, with the member items they stand for.
func smallFound(key string, small, members []string) map[string]model.Item {
	found := map[string]model.Item{}
	for _, mb := range members {
		if slices.Contains(small, mb) {
			found[mb] = model.ItemKey(key, model.MemberSK(model.TypeSet, mb))
		}
	}
	return found
}

// keyItems yields the items of key, of type typ: its metadata item first
// (when it has one), then its member items, or, for a small set or sorted
// set, the member items its metadata item stands for. One Query: the
// metadata item (sk 0x00) sorts before every member ('s'..., 'z'...), and
// a sorted set's count items (0xFF...) after the bound.
func (t table) keyItems(ctx context.Context, key string, typ model.KeyType) iter.Seq2[model.Item, error] {
	c := t.c
	in := &dynamodb.QueryInput{
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk < :end"),
		ExpressionAttributeNames: map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK},
		ExpressionAttributeValues: model.Item{
			":pk": model.Bin(model.PkValue(key)), ":end": model.Bin([]byte{model.MemberPrefix(typ) + 1}),
		},
	}
	return func(yield func(model.Item, error) bool) {
		for it, err := range c.query(ctx, in, 0) {
			if !yield(it, err) || err != nil {
				return
			}
			var small []model.Item
			switch ms, es := model.SmallMembers(it), model.SmallZOf(it); {
			case ms != nil:
				small = smallItems(key, ms)
			case es != nil:
				small = model.SmallZItems(key, es)
			default:
				continue
			}
			// Member items after it come from a conversion that committed
			// after the read of the metadata item.
			for _, s := range small {
				if !yield(s, nil) {
					return
				}
			}
			return
		}
	}
}

// membersOnly is items without the metadata item.
func membersOnly(items iter.Seq2[model.Item, error]) iter.Seq2[model.Item, error] {
	return func(yield func(model.Item, error) bool) {
		for it, err := range items {
			if _, _, ok := model.MemberOf(it); (ok || err != nil) && !yield(it, err) {
				return
			}
		}
	}
}

// smallItems are the member items a small set's metadata item stands
// for, in the order of a Query of member items (their sort keys'), for
// the readers of member items (memberItems, SSCAN).
func smallItems(key string, members []string) []model.Item {
	out := make([]model.Item, len(members))
	for i, m := range members {
		out[i] = model.ItemKey(key, model.MemberSK(model.TypeSet, m))
	}
	slices.SortFunc(out, func(a, b model.Item) int {
		return bytes.Compare(model.BytesAttr(a, model.AttrSK), model.BytesAttr(b, model.AttrSK))
	})
	return out
}

// smallDel is DEL of a small set or sorted set: one TransactWriteItems emptying its
// metadata item while it is a live small set, which keeps its write
// tokens (model.Tombstone; its ClientRequestToken makes a resend
// harmless). handled is false when it is (now) not one (missing, expired
// or converted meanwhile).
func (c *Client) smallDel(ctx context.Context, key string) (deleted, handled bool, err error) {
	c.zitems.forget(key)
	err = c.st.SendTx(ctx, []types.TransactWriteItem{model.NewMetaWrite(key).RequireSmall(true).RequireLive(c.nowMs()).Tombstone(time.Now().UnixMilli()).Action(c.st.Table())})
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		return false, false, nil
	}
	return err == nil, true, err
}

// smallPurge empties the metadata item of an expired small set (its only
// item; its write tokens stay: model.Tombstone), while it still holds the
// expiry exp or the purge mark.
func (c *Client) smallPurge(ctx context.Context, key string, exp int64) error {
	err := c.st.SendTx(ctx, []types.TransactWriteItem{model.NewMetaWrite(key).RequireSmall(true).RequireExpiry(exp, model.DeadExp).Tombstone(time.Now().UnixMilli()).Action(c.st.Table())})
	return model.IgnoreCancelled(err)
}

// drawFrom draws n members of all (not empty, which it may reorder) as
// randomMembers: distinct ones, whole when that is all of them, or
// independent draws.
func drawFrom(all []string, n int64, distinct bool) ([]string, bool) {
	if distinct {
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		if n >= int64(len(all)) {
			return all, true
		}
		return all[:n], false
	}
	out := make([]string, n)
	for i := range out {
		out[i] = all[rand.IntN(len(all))]
	}
	return out, false
}
