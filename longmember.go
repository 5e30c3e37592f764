package redimo

// Long members (see "Long members" in keys.go): what reads and writes do
// beyond the sort keys for members of more than inlineMemberLen bytes.
//
//   - A Query of the local index returns keys only (its projection is
//     KEYS_ONLY, fixed when the table was made), so a long member found
//     there is read whole with one BatchGetItem per page that holds any.
//   - Long members that share their first inlineMemberLen bytes (and, in
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
// another member of the key (see "Long members" in keys.go). Nothing is
// written. It takes about 2^32 crafted members to find one such pair.
var ErrMemberCollision = errors.New("redimo: member collides with another member's sort key")

// skPrefix is the sort-key prefix shared by every member of type t that
// starts with prefix. A set's members share none but the type's (their
// sort keys start with a hash: "Set members" in keys.go), so for a set it
// is the prefix of every member, whatever prefix.
func skPrefix(t model.KeyType, prefix string) []byte {
	if t == model.TypeSet {
		return []byte{model.PrefixSet}
	}
	return append([]byte{model.MemberPrefix(t)}, prefix[:min(len(prefix), model.InlineMemberLen)]...)
}

// runKey is what a run of long members shares in the order the query in
// reads, or nil when it is not in such a run: for the local index the
// whole index value when it is as long as an index value gets, for the
// table the sort key's first 1+inlineMemberLen bytes of a long member of
// a sorted set. A set's members have no order to restore (they come in
// the order of their hashes): never in a run.
func runKey(in *dynamodb.QueryInput, it model.Item) []byte {
	if in.IndexName != nil {
		if ix := model.BytesAttr(it, model.AttrIX); len(ix) == 9+model.InlineMemberLen {
			return ix
		}
		return nil
	}
	if sk := model.BytesAttr(it, model.AttrSK); model.IsLongSK(sk) && sk[0] != model.PrefixSet {
		return sk[:1+model.InlineMemberLen]
	}
	return nil
}

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
		got, err := c.batchGet(ctx, missing, aws.String("#pk, #sk, #m"),
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
		key := runKey(in, items[i])
		j := i + 1
		for key != nil && j < len(items) && bytes.Equal(runKey(in, items[j]), key) {
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

// withEntry is a copy of m with k set to v (actions may share their maps).
func withEntry[V any](m map[string]V, k string, v V) map[string]V {
	out := make(map[string]V, len(m)+1)
	for mk, mv := range m {
		out[mk] = mv
	}
	out[k] = v
	return out
}

// collides reports whether now, what a failed condition found under w's
// sort key, is another member than w's.
func collides(w *write, now model.Item) bool {
	if now == nil || len(w.member) <= model.InlineMemberLen {
		return false
	}
	m, ok := now[model.AttrMem].(*types.AttributeValueMemberB)
	return ok && string(m.Value) != w.member
}

// writeBytes estimates what w adds to a TransactWriteItems request, for
// DynamoDB's 4 MB limit on one.
func writeBytes(key string, w *write) int {
	n := 2*len(key) + 256 // pk twice (item and condition values), names, token share
	if len(w.member) > model.InlineMemberLen {
		return n + 2*(1+model.InlineMemberLen+8) + len(w.member) // sk, ix, m (or :lm)
	}
	return n + 2*(len(w.member)+9)
}

// maxTxBytes is how much of DynamoDB's 4 MB TransactWriteItems limit a
// transaction fills at most, by writeBytes, leaving room for the metadata
// actions and estimates that fall short.
const maxTxBytes = 3_500_000
