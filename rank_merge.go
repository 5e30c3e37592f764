package redimo

import (
	"bytes"
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// Merges: ranges that shrink join their neighbour, so that deletes do not
// leave many small count items behind (each costs every rank read its
// share of the count items' Query).
//
// Two adjacent ranges merge when together they hold at most model.RankMax/2
// members (what a build gives a range, so a set just built or split
// never merges back at once): one transaction sets the left one's hi to
// the right one's (none for the last), its n to the sum and a new cv, on
// condition that both cv and n are as read, and deletes the right one on
// the same condition. A writer that still knows the old ranges fails its
// count item's condition (the left one's hi changed; the right one is
// gone) and reads them again, as after a split.

// mergeable reports whether ranges of a and b members join.
func (c *Client) mergeable(a, b int64) bool { return a+b <= max(c.rankMax()/2, 1) }

// rankMerges merges, after a committed write (ranges: the Client's belief
// with its changes), the ranges the write shrank with their neighbours,
// again and again while a merged range is still mergeable with the next
// one, left to right. So after every write no range it shrank can join a
// neighbour, and since ranges only become mergeable by shrinking, no two
// adjacent ranges of a key are mergeable: k members take at most about
// 2k/(model.RankMax/2+1)+1 ranges. Errors (and ranges changed meanwhile) stop
// it: the next writer tries again.
func (c *Client) rankMerges(ctx context.Context, key string, ranges []model.RankRange, shrunk []int) {
	rs := slices.Clone(ranges)
	touched := map[string]bool{}
	for _, i := range shrunk {
		touched[string(rs[i].Lo)] = true
	}
	for {
		i := -1
		for j := 0; j+1 < len(rs) && i < 0; j++ {
			if (touched[string(rs[j].Lo)] || touched[string(rs[j+1].Lo)]) && c.mergeable(rs[j].N, rs[j+1].N) {
				i = j
			}
		}
		if i < 0 {
			return
		}
		if merged, err := c.rankMerge(ctx, key, rs[i].Lo); err != nil || !merged {
			return
		}
		delete(touched, string(rs[i+1].Lo))
		touched[string(rs[i].Lo)] = true
		rs[i].N, rs[i].Hi = rs[i].N+rs[i+1].N, rs[i+1].Hi
		rs = slices.Delete(rs, i+1, i+2)
	}
}

// rankMerge merges the range of key that starts at lo with the next one
// when they are mergeable (see above), reading both first, and reports
// whether it did (not when they changed meanwhile).
func (c *Client) rankMerge(ctx context.Context, key string, lo []byte) (bool, error) {
	in := &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk >= :sk"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(model.PkValue(key)), ":sk": model.Bin(model.RankSK(lo))},
		ConsistentRead:            aws.Bool(true),
	}
	var rs []model.RankRange
	for it, err := range c.query(ctx, in, 2) {
		if err != nil {
			return false, err
		}
		if len(rs) < 2 {
			rs = append(rs, model.DecodeRange(it))
		}
	}
	if len(rs) < 2 || !bytes.Equal(rs[0].Lo, lo) || !bytes.Equal(rs[0].Hi, rs[1].Lo) || !c.mergeable(rs[0].N, rs[1].N) {
		return false, nil
	}
	a, b := rs[0], rs[1]
	names := map[string]string{"#n": model.AttrCard, "#cv": model.AttrCV, "#hi": model.AttrHi}
	values := model.Item{":sum": model.Num(a.N + b.N), ":ncv": model.Bin(model.VersionToken()), ":cv": model.Bin(a.Cv), ":n": model.Num(a.N)}
	update := "SET #n = :sum, #cv = :ncv REMOVE #hi"
	if b.Hi != nil {
		update = "SET #n = :sum, #cv = :ncv, #hi = :hi"
		values[":hi"] = model.Bin(b.Hi)
	}
	err := c.st.SendTx(ctx, []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: c.st.Table(), Key: model.ItemKey(key, model.RankSK(a.Lo)),
			UpdateExpression:          aws.String(update),
			ConditionExpression:       aws.String("#cv = :cv AND #n = :n"),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
		}},
		{Delete: &types.Delete{
			TableName: c.st.Table(), Key: model.ItemKey(key, model.RankSK(b.Lo)),
			ConditionExpression:       aws.String("#cv = :cv AND #n = :n"),
			ExpressionAttributeNames:  map[string]string{"#n": model.AttrCard, "#cv": model.AttrCV},
			ExpressionAttributeValues: model.Item{":cv": model.Bin(b.Cv), ":n": model.Num(b.N)},
		}},
	})
	c.rankStale(key)
	if err != nil {
		return false, model.IgnoreCancelled(err)
	}
	return true, nil
}
