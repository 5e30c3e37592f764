package redimo

// Member expiry: a time to live for one member of any set or sorted set,
// as Redis 8.12's SEXPIRE family (HEXPIRE's shape: per-member replies
// −2/0/1/2, NX|XX|GT|LT) and SADDEX (saddex.go), Garnet's ZEXPIRE family
// with ZPERSIST and ZCOLLECT, and Dragonfly's SADDEX.
//
// Storage. A member with an expiry carries it in mx (Unix milliseconds);
// the metadata item counts such members in mn. Two local indexes, made by
// CreateTable, serve it: by_ix projects mx, so range reads drop expired
// members from their pages without reading the table, and by_exp (pk, mx)
// holds only the members that have an expiry (a sparse index), so the
// expired ones of a key are one Query away.
//
// Exact answers. An expired member is a missing member to every command
// from the millisecond it expires, whether or not it has been deleted:
//   - reads of members (ranges, SMEMBERS, SISMEMBER, scans, random picks,
//     algebra, counts of ranges and ranks) filter on mx in the Query or
//     the items they read;
//   - SCARD/ZCARD are the stored count minus the expired members still
//     stored (a COUNT Query of by_exp), checked against the metadata
//     item's version token read again after the Query: DynamoDB serializes
//     a GetItem with transactions, so an unchanged token means no write
//     committed in between and the difference is that of one moment. A
//     Client remembers the last count it checked so, and while the key is
//     not written counts only the members expired since (liveCount);
//   - every write's condition on an existing member also requires it not
//     to have expired; a write that meets an expired member treats it as
//     missing and deletes or replaces it in the same transaction (the
//     stored count and mn follow), so expired members go as writes meet
//     them, and all at once with ZCollect/SCollect.
//
// A key whose members have all expired is a missing key (EXISTS, TYPE,
// a write of the other type). Keys with member expiries are never ranked
// (rank.go): ranks are counted.
//
// Tables made before member expiry have neither index change; every
// command but those that set an expiry works there, since none of their
// members can carry one. The commands that would set one fail with
// ErrNoMemberExpiry, whose message gives the migration.

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// memberTTL reports whether the table has the indexes of member expiry.
func (t table) memberTTL(ctx context.Context) (bool, error) {
	c := t.c
	c.caps.mu.Lock()
	known, ok := c.caps.known, c.caps.memberTTL
	c.caps.mu.Unlock()
	if known {
		return ok, nil
	}
	desc, err := c.st.DescribeTable(ctx)
	if err != nil {
		return false, err
	}
	_ = c.checkSchema(desc) // records the capability; other mismatches show elsewhere
	c.caps.mu.Lock()
	defer c.caps.mu.Unlock()
	return c.caps.memberTTL, nil
}

// requireMemberTTL is ErrNoMemberExpiry on a table without the indexes.
func (c *Client) requireMemberTTL(ctx context.Context, cmd string) error {
	ok, err := c.view().memberTTL(ctx)
	if err != nil {
		return wrap(cmd, err)
	}
	if !ok {
		return fmt.Errorf("%w: table %s was created without local indexes %s (projecting mx) and %s; "+
			"local indexes exist only from a table's creation: create a new table with CreateTable "+
			"(CLI: redimo --table NEW create-table), copy every item into it (items keep their format: "+
			"Scan the old table, BatchWriteItem into the new one), then point clients at it",
			ErrNoMemberExpiry, c.opts.TableName, c.opts.IndexName, c.opts.ExpiryIndexName)
	}
	return nil
}

// withExpired marks ctx for reads that must see expired members too (the
// purge, sweeps, RENAME's moves).
func withExpired(ctx context.Context) context.Context {
	return context.WithValue(ctx, model.AllMembersKey{}, true)
}

// filterExpired adds to a Query of member items (the table, or by_ix on a
// table that projects mx into it) a filter that drops expired members. It
// costs nothing: the filter is applied to what the Query reads anyway.
// Items without mx (members without an expiry, metadata, count items) pass.
func (c *Client) filterExpired(ctx context.Context, page *dynamodb.QueryInput) error {
	if ctx.Value(model.AllMembersKey{}) != nil {
		return nil
	}
	if page.IndexName != nil {
		if *page.IndexName != c.opts.IndexName {
			return nil
		}
		if ok, err := c.view().memberTTL(ctx); err != nil || !ok {
			return err
		}
	}
	cond := "(attribute_not_exists(#mxLive) OR #mxLive > :mxNow)"
	if page.FilterExpression != nil {
		cond = "(" + *page.FilterExpression + ") AND " + cond
	}
	page.FilterExpression = aws.String(cond)
	page.ExpressionAttributeNames = model.WithEntry(page.ExpressionAttributeNames, "#mxLive", model.AttrMemExp)
	page.ExpressionAttributeValues = model.WithEntry(page.ExpressionAttributeValues, ":mxNow", types.AttributeValue(model.Num(c.nowMs())))
	return nil
}

// expiredQuery is the Query of key's members that have expired at now
// (by_exp).
func (c *Client) expiredQuery(key string, now int64) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		IndexName:                 aws.String(c.opts.ExpiryIndexName),
		KeyConditionExpression:    aws.String("#pk = :pk AND #mx <= :now"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#mx": model.AttrMemExp},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":now": model.Num(now)},
		ConsistentRead:            aws.Bool(true),
	}
}

// expiredSince is expiredQuery for the members whose expiry is in (after, now].
func (c *Client) expiredSince(key string, after, now int64) *dynamodb.QueryInput {
	in := c.expiredQuery(key, now)
	in.KeyConditionExpression = aws.String("#pk = :pk AND #mx BETWEEN :after AND :now")
	in.ExpressionAttributeValues[":after"] = model.Num(after + 1)
	return in
}

// sweep deletes key's expired members: each delete requires the member to
// hold the expiry it was listed with, and the transactions subtract what
// they delete from the stored count and mn (deleting the key with its last
// member), so concurrent sweeps and writes never double-count.
func (c *Client) sweep(ctx context.Context, key string, typ model.KeyType) error {
	ok, err := c.view().memberTTL(ctx)
	if err != nil || !ok {
		return err
	}
	var writes []*model.Write
	for it, err := range c.query(withExpired(ctx), c.expiredQuery(key, c.nowMs()), 0) {
		if err != nil {
			return err
		}
		sk := model.BytesAttr(it, model.AttrSK)
		if len(sk) == 0 || sk[0] != model.MemberPrefix(typ) {
			continue // a member of the other type: the key is not typ
		}
		writes = append(writes, c.sweepWrite(key, typ, sk, model.MemberExp(it)))
	}
	if len(writes) == 0 {
		return nil
	}
	_, err = c.transactChunks(withExpired(ctx), key, typ, writes)
	return err
}

// sweepWrite deletes the expired member item at sk if it still holds the
// expiry exp: −1 to the count and to mn, 0 to the reply.
func (c *Client) sweepWrite(key string, typ model.KeyType, sk []byte, exp int64) *model.Write {
	return &model.Write{
		Delta: -1, Ttl: -1, Swept: true, Need: model.NeedExpiry, ExpWas: exp,
		Action: types.TransactWriteItem{Delete: &types.Delete{
			TableName: c.st.Table(), Key: model.Item{model.AttrPK: model.Bin(model.PkValue(key)), model.AttrSK: model.Bin(sk)},
		}},
	}
}

// setMemberExpiry changes an existing member's expiry from old to at (0:
// none), on condition that it still holds old.
func (c *Client) setMemberExpiry(key string, typ model.KeyType, member string, old, at int64) *model.Write {
	update, values := "REMOVE #mx", model.Item(nil)
	if at != 0 {
		update, values = "SET #mx = :at", model.Item{":at": model.Num(at)}
	}
	w := &model.Write{Member: member, Count: 1, Known: true, Need: model.NeedPresent | model.NeedExpiry, ExpWas: old, ExpTo: at}
	switch {
	case old == 0 && at != 0:
		w.Ttl = 1
	case old != 0 && at == 0:
		w.Ttl = -1
	}
	w.Action = types.TransactWriteItem{Update: &types.Update{
		TableName: c.st.Table(), Key: model.ItemKey(key, model.MemberSK(typ, member)),
		UpdateExpression:                    aws.String(update),
		ExpressionAttributeNames:            map[string]string{"#mx": model.AttrMemExp},
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
	return w
}

// rewriteMember makes an existing member with the index value prev and
// the expiry exp hold want and no expiry (a *STORE's new value), counting
// 1; what it finds instead decides the retry. A set member has no index
// value (prev and want are nil): only its expiry goes.
func (c *Client) rewriteMember(key string, typ model.KeyType, member string, prev, want []byte, exp int64) *model.Write {
	if typ == model.TypeSet {
		return c.dropMemberExpiry(key, member, exp)
	}
	w := &model.Write{
		Member: member, Count: 1, Ix: want, Prev: prev, Known: true, Ttl: -1, Score: model.ScoreOfIX(want),
		Need: model.NeedIX | model.NeedExpiry, ExpWas: exp,
		Action: types.TransactWriteItem{Update: &types.Update{
			TableName: c.st.Table(), Key: model.ItemKey(key, model.MemberSK(typ, member)),
			UpdateExpression:                    aws.String("SET #ix = :want REMOVE #mx"),
			ExpressionAttributeNames:            map[string]string{"#ix": model.AttrIX, "#mx": model.AttrMemExp},
			ExpressionAttributeValues:           model.Item{":want": model.Bin(want)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
	}
	w.Retry = func(now model.Item) (*model.Write, error) {
		cur := model.BytesAttr(now, model.AttrIX)
		switch x := model.MemberExp(now); {
		case now == nil:
			return c.putMember(key, typ, member, want), nil
		case x != 0:
			return c.rewriteMember(key, typ, member, cur, want, x), nil
		case typ == model.TypeZSet && string(cur) != string(want):
			return c.setIX(key, typ, member, cur, want), nil
		}
		return nil, nil
	}
	return w
}

// dropMemberExpiry is rewriteMember for a set member: its expiry exp
// goes; gone meanwhile, it is added again.
func (c *Client) dropMemberExpiry(key, member string, exp int64) *model.Write {
	w := c.setMemberExpiry(key, model.TypeSet, member, exp, 0)
	w.Retry = func(now model.Item) (*model.Write, error) {
		switch x := model.MemberExp(now); {
		case now == nil:
			return c.putMember(key, model.TypeSet, member, nil), nil
		case x != 0:
			return c.dropMemberExpiry(key, member, x), nil
		}
		return nil, nil
	}
	return w
}

// onExpired is what a write whose condition met the expired item old
// becomes: what its retry does on a missing member, taking the expired
// item's place (a put conditioned on the item still being the expired one,
// counting one member less since it is stored already), or, when the
// retry writes nothing, a sweep of the expired item.
func (c *Client) onExpired(key string, typ model.KeyType, w *model.Write, old model.Item) (*model.Write, error) {
	var next *model.Write
	switch {
	case w.Action.Put != nil: // a create: what it meant to do on a missing member
		cp := *w
		next = &cp
	case w.Retry != nil:
		var err error
		if next, err = w.Retry(nil); err != nil {
			return nil, err
		}
	}
	sk := model.BytesAttr(old, model.AttrSK)
	if next == nil {
		if w.Required {
			return nil, nil
		}
		return c.sweepWrite(key, typ, sk, model.MemberExp(old)), nil
	}
	if next.Action.Put == nil {
		return nil, fmt.Errorf("redimo: internal: a write on a missing member that is not a put")
	}
	fresh, retry := *next, next.Retry
	next.Retry = func(now model.Item) (*model.Write, error) {
		if now == nil { // deleted meanwhile: a plain create again
			f := fresh
			return &f, nil
		}
		if retry == nil {
			return nil, nil
		}
		return retry(now)
	}
	put := *next.Action.Put
	put.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	next.Action = types.TransactWriteItem{Put: &put}
	// On condition that the expired item is still as met, which was
	// counted and had an expiry.
	next.Need, next.ExpWas = model.NeedExpiry, model.MemberExp(old)
	next.Delta--
	next.Ttl--
	next.Replaces = true
	return next, nil
}

// ErrNoMemberExpiry is returned by the commands that give members an
// expiry when the table was created without the local indexes member
// expiry needs (a table made before redimo had it); see Options.ExpiryIndexName.
var ErrNoMemberExpiry = errors.New("redimo: table has no member-expiry indexes")
