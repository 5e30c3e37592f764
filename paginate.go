package redimo

import (
	"bytes"
	"context"
	"iter"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// queryPages runs a Query and follows LastEvaluatedKey until the result is
// exhausted, limit items have been returned (limit > 0), or the caller stops.
// Every Query in redimo goes through it. in is not modified. Its read is
// consistent as Options say unless in.ConsistentRead is set.
func (c *Client) queryPages(ctx context.Context, in *dynamodb.QueryInput, limit int) iter.Seq2[*dynamodb.QueryOutput, error] {
	return func(yield func(*dynamodb.QueryOutput, error) bool) {
		page := *in
		page.TableName = c.table()
		if page.ConsistentRead == nil { // unless the caller chose
			page.ConsistentRead = c.consistent()
		}
		seen := 0
		for {
			if limit > 0 {
				page.Limit = aws.Int32(int32(min(limit-seen, 1<<20)))
			}
			out, err := c.query1(ctx, &page)
			if err != nil {
				yield(nil, err)
				return
			}
			seen += len(out.Items)
			if page.Select == types.SelectCount {
				seen += int(out.Count)
			}
			if !yield(out, nil) || len(out.LastEvaluatedKey) == 0 || (limit > 0 && seen >= limit) {
				return
			}
			page.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
}

// query1 runs one Query page. When the page ends inside a run of long
// members (longmember.go), the run is left to the next page, which then
// starts with it, or, when the run fills the page, read on to its end; so
// no run is split between pages. Then its long members are completed and
// ordered.
func (c *Client) query1(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	out, err := c.db.Query(ctx, in)
	if err != nil || in.Select == types.SelectCount || len(out.LastEvaluatedKey) == 0 || len(out.Items) == 0 {
		if err == nil && in.Select != types.SelectCount {
			out.Items, err = c.completeLong(ctx, in, out.Items)
		}
		return out, err
	}
	run := runKey(in, out.Items[len(out.Items)-1])
	start := len(out.Items)
	for run != nil && start > 0 && bytes.Equal(runKey(in, out.Items[start-1]), run) {
		start--
	}
	for start == 0 && run != nil && len(out.LastEvaluatedKey) > 0 { // the run fills the page: read on
		more := *in
		more.ExclusiveStartKey = out.LastEvaluatedKey
		next, err := c.db.Query(ctx, &more)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, next.Items...)
		out.LastEvaluatedKey = next.LastEvaluatedKey
		start = len(out.Items)
		for start > 0 && !bytes.Equal(runKey(in, out.Items[start-1]), run) {
			start-- // what follows the run goes to the next page
		}
		if start < len(out.Items) {
			break
		}
		start = 0
	}
	if start > 0 && start < len(out.Items) { // the page ends inside a run, or after one read on
		out.Items = out.Items[:start]
		last := out.Items[start-1]
		out.LastEvaluatedKey = item{attrPK: last[attrPK], attrSK: last[attrSK]}
		if in.IndexName != nil {
			out.LastEvaluatedKey[attrIX] = last[attrIX]
		}
	}
	out.Count = int32(len(out.Items))
	out.Items, err = c.completeLong(ctx, in, out.Items)
	return out, err
}

// query yields the items of a Query, across pages; see queryPages.
func (c *Client) query(ctx context.Context, in *dynamodb.QueryInput, limit int) iter.Seq2[item, error] {
	return func(yield func(item, error) bool) {
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

// batchGet reads items by primary key with BatchGetItem: 100 keys a
// request, up to Options.Parallelism requests at once, unprocessed keys
// retried with backoff, at most Options.MaxAttempts times (then
// ErrContention). Missing items are absent from the result, which is in
// no particular order.
func (c *Client) batchGet(ctx context.Context, keys []item, projection *string, names map[string]string) ([]item, error) {
	var (
		mu    sync.Mutex
		found []item
	)
	ctx = c.labelled(ctx) // for Options.Metrics: the chunks' goroutines do not show the command
	err := c.parallel((len(keys)+99)/100, func(i int) error {
		items, err := c.batchGetChunk(ctx, keys[i*100:min((i+1)*100, len(keys))], projection, names)
		mu.Lock()
		defer mu.Unlock()
		found = append(found, items...)
		return err
	})
	return found, err
}

// parallel runs f(0) ... f(n-1), Options.Parallelism at a time, and
// returns the first error.
func (c *Client) parallel(n int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, c.opts.Parallelism)
	)
	for i := range n {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := f(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

func (c *Client) batchGetChunk(ctx context.Context, keys []item, projection *string, names map[string]string) ([]item, error) {
	req := map[string]types.KeysAndAttributes{c.opts.TableName: {
		Keys:                     keys,
		ConsistentRead:           c.consistent(),
		ProjectionExpression:     projection,
		ExpressionAttributeNames: names,
	}}
	var found []item
	for attempt := 0; len(req) > 0; attempt++ {
		if attempt >= c.opts.MaxAttempts { // throttled every time: give up, as transact does
			return found, ErrContention
		}
		if attempt > 0 {
			if err := sleep(ctx, attempt); err != nil {
				return found, err
			}
		}
		out, err := c.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return found, err
		}
		found = append(found, out.Responses[c.opts.TableName]...)
		req = out.UnprocessedKeys
	}
	return found, nil
}

// sleep waits before retry number attempt (1, 2, ...): exponential backoff
// from 5 ms, capped at 500 ms, with full jitter. It returns ctx's error
// when ctx ends first.
func sleep(ctx context.Context, attempt int) error {
	d := 5 * time.Millisecond << min(attempt, 7)
	d = min(d, 500*time.Millisecond)
	t := time.NewTimer(jitter(d))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
