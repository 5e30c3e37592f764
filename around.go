package redimo

// A leaderboard's "you and your neighbours": a member's rank and the
// members ranked just above and below it.

import (
	"context"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/redimo-go/redimo/internal/model"
)

// MaxAround is the most neighbours on each side ZRankAround and
// ZRevRankAround return.
const MaxAround = 1000

// Around is a member's place in a sorted set: its rank and its neighbours.
// Members holds ranks First to First+len(Members)-1 in the order of the
// ranks (lowest score first for ZRankAround, highest first for
// ZRevRankAround); Members[Rank-First] is the member itself. Near either
// end of the set there are fewer neighbours on that side.
type Around struct {
	Rank    int64
	First   int64
	Members []Z
}

// ZRankAround returns member's rank (0 for the lowest score, as ZRANK)
// and the n members ranked just below and just above it, in rank order;
// ok is false when member or key is missing. n must be in 0..MaxAround.
// Redis has no such command: it is ZRANK then ZRANGE key rank-n rank+n,
// but as one read of the member's neighbours in the index, which does not
// depend on the rank.
//
// Cost: ZRank's (a BatchGetItem and a Query of the count items, then the
// rank's count), with two Queries of the index reading n entries each (1
// read unit per ~80) in parallel with the count.
func (c *Client) ZRankAround(ctx context.Context, key, member string, n int64) (_ Around, _ bool, err error) {
	ctx, traced := c.command(ctx, "ZRankAround")
	defer traced.end(&err)
	return c.around(ctx, "ZRANKAROUND", key, member, n, false)
}

// ZRevRankAround is ZRankAround counted from the highest score (as
// ZREVRANK): a leaderboard's "you are #412, and here are #410 to #414" with
// n = 2, highest first. Cost: as ZRankAround, with ZRevRank's count.
func (c *Client) ZRevRankAround(ctx context.Context, key, member string, n int64) (_ Around, _ bool, err error) {
	ctx, traced := c.command(ctx, "ZRevRankAround")
	defer traced.end(&err)
	return c.around(ctx, "ZREVRANKAROUND", key, member, n, true)
}

func (c *Client) around(ctx context.Context, cmd, key, member string, n int64, rev bool) (Around, bool, error) {
	if err := c.checkKeyMembers(cmd, key, []string{member}); err != nil {
		return Around{}, false, err
	}
	if n < 0 || n > MaxAround {
		return Around{}, false, argError(cmd, "n", strconv.FormatInt(n, 10), ErrOutOfRange)
	}
	if all, small, read, m, err := c.smallZRead(ctx, key); err != nil || small || (read && m.Typ == model.TypeNone) {
		out, ok := smallAround(all, member, n, rev)
		return out, ok && err == nil, wrap(cmd, err)
	}
	start := c.readStart(key)
	it, mt, ranges, err := c.rankProbe(ctx, key, member)
	if es := model.SmallZOf(mt); es != nil && err == nil { // small (smallz.go)
		out, ok := smallAround(zsOf(es), member, n, rev)
		return out, ok, nil
	}
	if it == nil && err == nil && convertedDuring(c.liveMeta(mt), start) {
		it, mt, ranges, err = c.rankProbe(ctx, key, member) // the conversion has committed: read again
	}
	if err != nil || it == nil {
		return Around{}, false, wrap(cmd, err)
	}
	ix := model.BytesAttr(it, model.AttrIX)
	query := func(cond string, forward bool) *dynamodb.QueryInput {
		return &dynamodb.QueryInput{
			IndexName:                 aws.String(c.opts.IndexName),
			KeyConditionExpression:    aws.String("#pk = :pk AND #ix " + cond + " :ix"),
			ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#ix": model.AttrIX},
			ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":ix": model.Bin(ix)},
			ScanIndexForward:          aws.Bool(forward),
		}
	}
	var (
		rank         int64
		below, above []Z // nearest first
	)
	neighbours := func(in *dynamodb.QueryInput, out *[]Z) error {
		if n == 0 {
			return nil
		}
		for it, err := range c.query(ctx, in, int(n)) {
			if err != nil {
				return err
			}
			if int64(len(*out)) == n {
				// The query can yield more than its limit: it reads a run
				// of long members sharing their stored prefix whole, to
				// put it in member order (longmember.go).
				break
			}
			m, t, _ := model.MemberOf(it)
			if t != model.TypeZSet {
				return ErrWrongType
			}
			*out = append(*out, Z{Score: model.ScoreOfIX(model.BytesAttr(it, model.AttrIX)), Member: m})
		}
		return nil
	}
	ctx = c.labelled(ctx)
	err = c.st.Parallel(3, func(i int) error {
		switch i {
		case 0:
			var err error
			rank, err = c.rankFrom(ctx, key, mt, ranges, ix, rev)
			return err
		case 1:
			return neighbours(query("<", false), &below)
		default:
			return neighbours(query(">", true), &above)
		}
	})
	if err != nil {
		return Around{}, false, wrap(cmd, err)
	}
	me := Z{Score: model.ScoreOfIX(ix), Member: member}
	before, after := below, above // in rank order: before the member, after it
	if rev {
		before, after = above, below
	}
	slices.Reverse(before)
	out := Around{Rank: rank, First: rank - int64(len(before))}
	out.Members = append(append(append(out.Members, before...), me), after...)
	return out, true, nil
}

// smallAround is around on all, a small sorted set's members in order
// (smallz.go).
func smallAround(all []Z, member string, n int64, rev bool) (Around, bool) {
	if rev {
		all = slices.Clone(all)
		slices.Reverse(all)
	}
	i := slices.IndexFunc(all, func(z Z) bool { return z.Member == member })
	if i < 0 {
		return Around{}, false
	}
	first := max(0, int64(i)-n)
	last := min(int64(len(all)), int64(i)+n+1)
	return Around{Rank: int64(i), First: first, Members: slices.Clone(all[first:last])}, true
}
