package redimo

import (
	"bytes"
	"context"
	"iter"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// queryPages runs a Query and follows LastEvaluatedKey until the result is
// exhausted, limit items have been returned (limit > 0), or the caller stops.
// Every Query in redimo goes through it. in is not modified. Its read is
// consistent as Options say unless in.ConsistentRead is set.
//
// Long members (longmember.go): each page's are completed and its runs
// put in member order. A run the page ends in is held back and yielded
// with the next page, so no run is ordered in two parts; past the limit,
// reads go on one item at a time only while the held run goes on. So a
// query whose limit ends on a long member costs one more Query, and can
// yield a few items more than limit: callers stop on their own count.
func (c *Client) queryPages(ctx context.Context, in *dynamodb.QueryInput, limit int) iter.Seq2[*dynamodb.QueryOutput, error] {
	return func(yield func(*dynamodb.QueryOutput, error) bool) {
		page := *in
		page.TableName = c.st.Table()
		if page.ConsistentRead == nil { // unless the caller chose
			page.ConsistentRead = c.st.Consistent()
		}
		if err := c.filterExpired(ctx, &page); err != nil {
			yield(nil, err)
			return
		}
		counting := page.Select == types.SelectCount
		runs := !counting && (page.IndexName == nil || *page.IndexName == c.opts.IndexName)
		seen := 0
		var held []model.Item // the run of long members the last page ended in
		for {
			if limit > 0 { // past the limit (a held run): one item at a time
				page.Limit = aws.Int32(int32(min(max(limit-seen, 1), 1<<20)))
			}
			out, err := c.st.QueryPage(ctx, &page)
			if err != nil && page.IndexName != nil && strings.Contains(err.Error(), "does not have the specified index") {
				err = c.noIndex(aws.ToString(page.IndexName), err)
			}
			if err != nil {
				yield(nil, err)
				return
			}
			before := seen
			seen += len(out.Items)
			if counting {
				seen += int(out.Count)
			}
			more := len(out.LastEvaluatedKey) > 0
			if runs {
				var prev []byte
				if held != nil {
					prev = model.RunKey(&page, held[0])
				}
				items := append(held, out.Items...)
				held = nil
				if n := len(items); more && n > 0 {
					last := model.RunKey(&page, items[n-1])
					if last != nil && (limit == 0 || before < limit || bytes.Equal(last, prev)) {
						start := n - 1
						for start > 0 && bytes.Equal(model.RunKey(&page, items[start-1]), last) {
							start--
						}
						items, held = items[:start], items[start:]
					}
				}
				if out.Items, err = c.completeLong(ctx, &page, items); err != nil {
					yield(nil, err)
					return
				}
			}
			if !yield(out, nil) || !more || (limit > 0 && seen >= limit && held == nil) {
				return
			}
			page.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
}

// query yields the items of a Query, across pages; see queryPages.
func (c *Client) query(ctx context.Context, in *dynamodb.QueryInput, limit int) iter.Seq2[model.Item, error] {
	return func(yield func(model.Item, error) bool) {
		for out, err := range c.queryPages(ctx, in, limit) {
			if err != nil {
				yield(nil, err)
				return
			}
			for _, it := range out.Items {
				if !yield(it, nil) {
					return
				}
			}
		}
	}
}

// queryCount counts the items a Query matches, page by page (Select COUNT:
// DynamoDB still reads, and charges for, every matched item).
func (c *Client) queryCount(ctx context.Context, in *dynamodb.QueryInput) (int64, error) {
	counted := *in
	counted.Select = types.SelectCount
	var n int64
	for out, err := range c.queryPages(ctx, &counted, 0) {
		if err != nil {
			return 0, err
		}
		n += int64(out.Count)
	}
	return n, nil
}

// queryMembers returns the members that in reads (Query's limit: see
// queryPages), at most most of them (0: all), or ErrWrongType at an item
// that is not a member of typ.
func (c *Client) queryMembers(ctx context.Context, in *dynamodb.QueryInput, typ model.KeyType, limit, most int) ([]string, error) {
	var out []string
	for it, err := range c.query(ctx, in, limit) {
		if err != nil {
			return nil, err
		}
		m, t, _ := model.MemberOf(it)
		if t != typ {
			return nil, ErrWrongType
		}
		out = append(out, m)
		if len(out) == most {
			break
		}
	}
	return out, nil
}
