package redimo

// Long members (see "Long members" in internal/model/keys.go): what reads and writes do
// beyond the sort keys for members of more than model.InlineMemberLen bytes.
//
//   - A Query of the local index returns keys only (its projection is
//     KEYS_ONLY, fixed when the table was made), so a long member found
//     there is read whole with one BatchGetItem per page that holds any.
//   - Long members that share their first model.InlineMemberLen bytes (and, in
//     the index, their score) are ordered by hash in DynamoDB; such a run
//     is put in member order, and a page that ends inside one is read on
//     until the run ends, so ranks and LIMITs count in Redis's order.
//   - Writes that update or delete a long member require its m to be the
//     member, and a failed condition that shows another member under the
//     same sort key (a 64-bit hash collision) is ErrMemberCollision.

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// ErrMemberCollision is returned when a member longer than 1015 bytes
// shares its first 1015 bytes and the 64-bit hash of its sort key with
// another member of the key (see "Long members" in internal/model/keys.go). Nothing is
// written. It takes about 2^32 crafted members to find one such pair.
var ErrMemberCollision = errors.New("redimo: member collides with another member's sort key")

// completeLong gives every long member of items its m (reading it when the
// query did not return it) and puts runs in member order, in the query's
// direction. Items whose member was deleted since the query are dropped.
func (c *Client) completeLong(ctx context.Context, in *dynamodb.QueryInput, items []model.Item) ([]model.Item, error) {
	var missing []model.Item
	for _, it := range items {
		if model.IsLongSK(model.BytesAttr(it, model.AttrSK)) {
			if _, ok := it[model.AttrMem]; !ok {
				missing = append(missing, model.Item{model.AttrPK: it[model.AttrPK], model.AttrSK: it[model.AttrSK]})
			}
		}
	}
	if missing != nil {
		got, err := c.st.BatchGet(ctx, missing, aws.String("#pk, #sk, #m"),
			map[string]string{"#pk": model.AttrPK, "#sk": model.AttrSK, "#m": model.AttrMem})
		if err != nil {
			return nil, err
		}
		whole := make(map[string]types.AttributeValue, len(got))
		for _, it := range got {
			whole[string(model.BytesAttr(it, model.AttrSK))] = it[model.AttrMem]
		}
		kept := items[:0:0]
		for _, it := range items {
			if sk := model.BytesAttr(it, model.AttrSK); model.IsLongSK(sk) && it[model.AttrMem] == nil {
				m, ok := whole[string(sk)]
				if !ok {
					continue // deleted since the query saw it
				}
				it[model.AttrMem] = m
			}
			kept = append(kept, it)
		}
		items = kept
	}
	desc := in.ScanIndexForward != nil && !*in.ScanIndexForward
	for i := 0; i < len(items); {
		key := model.RunKey(in, items[i])
		j := i + 1
		for key != nil && j < len(items) && bytes.Equal(model.RunKey(in, items[j]), key) {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(items[i:j], func(a, b model.Item) int {
				ma, _, _ := model.MemberOf(a)
				mb, _, _ := model.MemberOf(b)
				if desc {
					ma, mb = mb, ma
				}
				return bytes.Compare([]byte(ma), []byte(mb))
			})
		}
		i = j
	}
	return items, nil
}
