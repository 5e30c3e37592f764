package redimo

import (
	"bytes"
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Merges: ranges that shrink join their neighbour, so that deletes do not
// leave many small count items behind (each costs every rank read its
// share of the count items' Query).
//
// Two adjacent ranges merge when together they hold at most rankMax/2
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
// with its changes), each range the write shrank with a neighbour when
// they are mergeable. Errors are ignored: the next writer tries again.
func (c *Client) rankMerges(ctx context.Context, key string, ranges []rankRange, shrunk []int) {
	done := map[int]bool{}
	for _, i := range shrunk {
		for _, left := range []int{i - 1, i} {
			if left < 0 || left+1 >= len(ranges) || done[left] || done[left+1] {
				continue
			}
			if c.mergeable(ranges[left].n, ranges[left+1].n) {
				done[left], done[left+1] = true, true
				_ = c.rankMerge(ctx, key, ranges[left].lo)
				break
			}
		}
	}
}

// rankMerge merges the range of key that starts at lo with the next one
// when they are mergeable (see above), reading both first. It reports
// nothing when they changed meanwhile.
func (c *Client) rankMerge(ctx context.Context, key string, lo []byte) error {
	in := &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk >= :sk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: item{":pk": bin(pkValue(key)), ":sk": bin(rankSK(lo))},
		ConsistentRead:            aws.Bool(true),
	}
	var rs []rankRange
	for it, err := range c.query(ctx, in, 2) {
		if err != nil {
			return err
		}
		if len(rs) < 2 {
			rs = append(rs, decodeRange(it))
		}
	}
	if len(rs) < 2 || !bytes.Equal(rs[0].lo, lo) || !bytes.Equal(rs[0].hi, rs[1].lo) || !c.mergeable(rs[0].n, rs[1].n) {
		return nil
	}
	a, b := rs[0], rs[1]
	names := map[string]string{"#n": attrCard, "#cv": attrCV, "#hi": attrHi}
	values := item{":sum": num(a.n + b.n), ":ncv": bin(versionToken()), ":cv": bin(a.cv), ":n": num(a.n)}
	update := "SET #n = :sum, #cv = :ncv REMOVE #hi"
	if b.hi != nil {
		update = "SET #n = :sum, #cv = :ncv, #hi = :hi"
		values[":hi"] = bin(b.hi)
	}
	err := c.sendTx(ctx, []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: c.table(), Key: itemKey(key, rankSK(a.lo)),
			UpdateExpression:          aws.String(update),
			ConditionExpression:       aws.String("#cv = :cv AND #n = :n"),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
		}},
		{Delete: &types.Delete{
			TableName: c.table(), Key: itemKey(key, rankSK(b.lo)),
			ConditionExpression:       aws.String("#cv = :cv AND #n = :n"),
			ExpressionAttributeNames:  map[string]string{"#n": attrCard, "#cv": attrCV},
			ExpressionAttributeValues: item{":cv": bin(b.cv), ":n": num(b.n)},
		}},
	})
	c.rankStale(key)
	return ignoreCancelled(err)
}
