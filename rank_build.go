package redimo

// Building a sorted set's count items while it is being written.
//
// The build used to be one read of the whole key and transactions of
// count items conditioned on the key's version token and count being as
// read. Any write in between (a score change on another Client) cancelled
// it, so a key written all the time was never ranked, and every write
// that added a member paid for a full read and a cancelled transaction.
// A build cannot wait for a quiet moment: nothing bounds how long one
// takes to come. So the writers keep what a build counts, and nothing
// the build does depends on the rate of writes:
//
//  1. Claim (rankBuild). Read the index values once, to place the range
//     bounds (any bounds are right: they only need to spread the members;
//     the counts come later). In one transaction, put the count items with
//     n = 0 and mark the metadata item building: rb, a fresh token, and rj,
//     an empty journal. Its condition is only that the key is an unranked
//     sorted set with no expiry, no member expiries and no build: no
//     version, no count. Writes of members do not cancel it.
//  2. From the claim on, every writer of the key keeps the count items as a
//     ranked key's writers do (rankWrites: ADD the change, per range
//     touched), and records in the journal, for each member it writes
//     that is not in it yet, the range the member was in before its write
//     (-1: absent). Its metadata action requires the build (rb = token);
//     a writer that does not know of the build (rk absent, rb absent
//     required) fails that condition, learns of it (rankSeen) and writes
//     again as one of the build's. So each count item holds exactly the
//     change in its range since the claim, and the journal holds, for every
//     member written since the claim, where it was at the claim.
//  3. Finish (rankFinish). Query every index value (strongly consistent),
//     then read the metadata item. A member not in the journal was not
//     written between the claim and that read, so the Query saw it once,
//     where it was at the claim (or not at all, if absent then); a member
//     in the journal is counted where the journal says, and the Query's
//     view of it (possibly moving while read) is ignored. That gives each
//     range's members at the claim, exactly, whatever was written during
//     the Query. One transaction ADDs them to the count items, on condition
//     that the build is still this one (rb = token), and sets rk, removing
//     rb and rj. ADD commutes with the writers' ADDs, so writes committed
//     between the read and the transaction are counted too.
//
// Bounded: the builder sends 1 GetItem, a Query of the index values, 1
// transaction (the claim), a Query of the count items when it did not
// claim, a Query of the index values, 1 GetItem and 1 transaction; none of
// their conditions is about writes of members, only transaction conflicts
// (retried with backoff, as every write's) delay them. The write whose
// members take the key to model.RankMin runs the build, so the key is ranked when
// that write returns. A build its builder did not finish (a crash, an
// error) is finished by the next write that adds a member to the key
// (rankCreated), and a crossing writer that finds a build claimed finishes
// it.
//
// What cancels a build: a write that unranks (a member expiry: metaAction's
// RemoveRanked; EXEC, which keeps no journal, removes rb as it writes the
// key: exec.go metaWrite), a deletion of the key, and an expiry, a purge.
// The finish then fails its condition and the next write that adds a
// member claims again; stale count items are deleted or overwritten by the
// claim (a claim's deletions require no rk and no rb, so they never touch
// another build's items).
//
// Cost while a build runs: each write's metadata item carries the journal
// of the members written since the claim (about 40 bytes each) for the
// few requests a build takes; the finish removes it. The ranges are those
// of a fresh build (model.RankMax/2 members), but at most 98 of them (one
// transaction's count items with the metadata item), so a key over 49,000
// members made before redimo kept count items starts with wider ranges,
// which the writers split (rankSplit) as they grow them.

import (
	"context"
	"errors"
	"math"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/store"
)

// rankBuild gives key count items (see the file comment) when it is an
// unranked sorted set with no expiry and no member expiries, and reports
// whether it is ranked now. Its caller is the writer whose write takes
// the key to the build minimum (rankGuard). A build claimed by another
// Client is finished here. It reports false, with no error, when the key
// changed so that it is not to be built, or the build was cancelled, or
// conflicts outlasted the retries; the caller then writes as the key is.
func (c *Client) rankBuild(ctx context.Context, key string) (bool, error) {
	for range 2 { // again once when another Client claimed first
		mt, err := c.st.GetItem(ctx, model.MetaKey(key), aws.Bool(true), nil, nil)
		if err != nil {
			return false, err
		}
		m := c.liveMeta(mt)
		if _, ok := mt[model.AttrRanked]; ok {
			c.setBelief(key, &model.RankBelief{Ranked: true})
			return true, nil
		}
		if tok := model.BytesAttr(mt, model.AttrBuild); tok != nil {
			return c.rankFinish(ctx, key, tok, nil)
		}
		if m.Typ != model.TypeZSet || m.Exp > 0 || m.TTLs > 0 {
			return false, nil
		}
		ranges, err := c.rankBounds(ctx, key)
		if err != nil {
			return false, err
		}
		tok := model.VersionToken()
		claimed, err := c.rankClaim(ctx, key, tok, ranges)
		if err != nil {
			return false, noContention(err)
		}
		if claimed {
			c.setBelief(key, &model.RankBelief{Build: tok, Ranges: ranges})
			return c.rankFinish(ctx, key, tok, ranges)
		}
	}
	return false, nil
}

// rankBounds reads key's index values and cuts them into ranges of
// model.RankMax/2 members (at most model.MaxTxItems-1 ranges: wider ones
// for a bigger key), each starting where a bound can (model.BoundAt:
// long members sharing their first bytes). The counts are left 0.
func (c *Client) rankBounds(ctx context.Context, key string) ([]model.RankRange, error) {
	var ixs [][]byte
	in := c.scoreQuery(key, math.Inf(-1), math.Inf(1))
	in.ConsistentRead = aws.Bool(true)
	for it, err := range c.query(ctx, in, 0) {
		if err != nil {
			return nil, err
		}
		ixs = append(ixs, model.BytesAttr(it, model.AttrIX))
	}
	per := int(max(c.rankMax()/2, 1))
	if most := model.MaxTxItems - 1; (len(ixs)+per-1)/per > most {
		per = (len(ixs) + most - 1) / most
	}
	ranges := []model.RankRange{{Lo: []byte{}}}
	start := 0
	for i := per; i < len(ixs); i++ {
		if b, ok := model.BoundAt(ixs, i); ok && i-start >= per {
			ranges[len(ranges)-1].Hi = b
			ranges = append(ranges, model.RankRange{Lo: b})
			start = i
		}
	}
	return ranges, nil
}

// rankClaim starts the build tok of key with ranges (step 1 of the file
// comment): count items left from an earlier life of the key go first
// (each transaction on condition that the key is neither ranked nor being
// built), then one transaction puts the count items, n 0, and marks the
// metadata item building. It reports whether the claim took.
func (c *Client) rankClaim(ctx context.Context, key string, tok []byte, ranges []model.RankRange) (bool, error) {
	stale, err := c.readRanges(ctx, key)
	if err != nil {
		return false, err
	}
	made := map[string]bool{}
	for _, r := range ranges {
		made[string(r.Lo)] = true
	}
	var dels []types.TransactWriteItem
	for _, r := range stale {
		if !made[string(r.Lo)] {
			dels = append(dels, types.TransactWriteItem{Delete: &types.Delete{TableName: c.st.Table(), Key: model.ItemKey(key, model.RankSK(r.Lo))}})
		}
	}
	free := model.NewMetaWrite(key).RequireType(model.TypeZSet).RequireRanked(false).RequireBuild(nil)
	for start := 0; start < len(dels); start += model.MaxTxItems - 1 {
		chunk := dels[start:min(start+model.MaxTxItems-1, len(dels))]
		if err := c.st.SendTx(ctx, append(append([]types.TransactWriteItem(nil), chunk...), free.Action(c.st.Table()))); err != nil {
			return false, model.IgnoreCancelled(err)
		}
	}
	actions := make([]types.TransactWriteItem, 0, len(ranges)+1)
	for _, r := range ranges {
		it := model.ItemKey(key, model.RankSK(r.Lo))
		if r.Hi != nil {
			it[model.AttrHi] = model.Bin(r.Hi)
		}
		it[model.AttrCard] = model.Num(0)
		it[model.AttrCV] = model.Bin(model.VersionToken())
		actions = append(actions, types.TransactWriteItem{Put: &types.Put{TableName: c.st.Table(), Item: it}})
	}
	claim := model.NewMetaWrite(key).RequireType(model.TypeZSet).RequireRanked(false).RequireBuild(nil).
		Require("attribute_not_exists(#x)").Value(":rk0", model.Num(0)).Require("attribute_not_exists(#mn) OR #mn <= :rk0").
		StartBuild(tok)
	err = c.st.SendTx(ctx, append(actions, claim.Action(c.st.Table())))
	if err != nil {
		return false, model.IgnoreCancelled(err)
	}
	return true, nil
}

// rankFinish ends the build tok of key (step 3 of the file comment):
// ranges are its count items (nil: read them), the members' counts at the
// claim go into them and the key is marked ranked. It reports whether the
// key is ranked now (false: the build was cancelled or conflicts outlasted
// the retries, and a later write finishes or claims again).
func (c *Client) rankFinish(ctx context.Context, key string, tok []byte, ranges []model.RankRange) (bool, error) {
	if ranges == nil {
		var err error
		if ranges, err = c.readRanges(ctx, key); err != nil {
			return false, err
		}
	}
	if len(ranges) == 0 || len(ranges[0].Lo) != 0 {
		return false, nil // cannot be while rb is set
	}
	type seen struct {
		journal string
		ix      []byte
	}
	var all []seen
	in := c.scoreQuery(key, math.Inf(-1), math.Inf(1))
	in.ConsistentRead = aws.Bool(true)
	for it, err := range c.query(ctx, in, 0) {
		if err != nil {
			return false, err
		}
		all = append(all, seen{model.JournalKey(model.BytesAttr(it, model.AttrSK)), model.BytesAttr(it, model.AttrIX)})
	}
	mt, err := c.st.GetItem(ctx, model.MetaKey(key), aws.Bool(true), nil, nil)
	if err != nil {
		return false, err
	}
	if done, ok := c.rankEnded(key, mt, tok); done {
		return ok, nil
	}
	journal := map[string]types.AttributeValue{}
	if j, ok := mt[model.AttrJourn].(*types.AttributeValueMemberM); ok {
		journal = j.Value
	}
	n := make([]int64, len(ranges)) // each range's members at the claim
	for _, s := range all {
		if _, written := journal[s.journal]; !written {
			n[model.Find(ranges, s.ix)]++
		}
	}
	for _, v := range journal {
		if num, ok := v.(*types.AttributeValueMemberN); ok {
			if i, err := strconv.Atoi(num.Value); err == nil && i >= 0 && i < len(ranges) {
				n[i]++
			}
		}
	}
	actions := make([]types.TransactWriteItem, 0, len(ranges)+1)
	for i, r := range ranges {
		names := map[string]string{"#n": model.AttrCard, "#cv": model.AttrCV, "#hi": model.AttrHi}
		values := model.Item{":d": model.Num(n[i]), ":cv": model.Bin(model.VersionToken())}
		cond := "attribute_exists(#n) AND attribute_not_exists(#hi)"
		if r.Hi != nil {
			cond = "attribute_exists(#n) AND #hi = :hi"
			values[":hi"] = model.Bin(r.Hi)
		}
		actions = append(actions, types.TransactWriteItem{Update: &types.Update{
			TableName: c.st.Table(), Key: model.ItemKey(key, model.RankSK(r.Lo)),
			UpdateExpression:          aws.String("ADD #n :d SET #cv = :cv"),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
		}})
	}
	end := model.NewMetaWrite(key).RequireBuild(tok).RequireRanked(false).RequireLive(c.nowMs()).RemoveBuild().SetRanked()
	err = c.st.SendTx(ctx, append(actions, end.Action(c.st.Table())))
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		// Finished by another Client, or cancelled: the metadata item says.
		mt, err := c.st.GetItem(ctx, model.MetaKey(key), aws.Bool(true), nil, nil)
		if err != nil {
			return false, err
		}
		_, ok := c.rankEnded(key, mt, tok)
		return ok, nil
	}
	if err != nil {
		return false, noContention(err)
	}
	c.setBelief(key, &model.RankBelief{Ranked: true})
	return true, nil
}

// rankEnded reports whether the build tok of key is over, as its metadata
// item mt says (done), and then whether the key is ranked (ok), noting it
// in the Client's belief.
func (c *Client) rankEnded(key string, mt model.Item, tok []byte) (done, ok bool) {
	if _, ranked := mt[model.AttrRanked]; ranked {
		c.setBelief(key, &model.RankBelief{Ranked: true})
		return true, true
	}
	if string(model.BytesAttr(mt, model.AttrBuild)) != string(tok) {
		if b := c.belief(key); string(b.Build) == string(tok) {
			c.setBelief(key, &model.RankBelief{})
		}
		return true, false
	}
	return false, false
}

// noContention is err, or nil when it is ErrContention: a build that
// conflicts outlasted is left to a later write, not its writer's error.
func noContention(err error) error {
	if errors.Is(err, store.ErrContention) {
		return nil
	}
	return err
}
