package redimo

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
)

// The paginator, the bounded fan-out and BatchGetItem's retries, on a
// scripted DynamoDBAPI: no DynamoDB needed.

// pagedDB answers Query with items numbered 0..total-1, pageSize a page
// (fewer when the request's Limit says so), and BatchGetItem by leaving
// the first unprocessed keys unanswered unprocessed times.
type pagedDB struct {
	DynamoDBAPI
	total, pageSize int
	unprocessed     int
	queries         []dynamodb.QueryInput
	batches         atomic.Int64
}

func (d *pagedDB) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	d.queries = append(d.queries, *in)
	from := 0
	if in.ExclusiveStartKey != nil {
		from, _ = strconv.Atoi(in.ExclusiveStartKey["n"].(*types.AttributeValueMemberN).Value)
	}
	n := min(d.pageSize, d.total-from)
	if in.Limit != nil {
		n = min(n, int(*in.Limit))
	}
	out := &dynamodb.QueryOutput{}
	if in.Select == types.SelectCount {
		out.Count = int32(n)
	} else {
		for i := from; i < from+n; i++ {
			out.Items = append(out.Items, model.Item{"n": &types.AttributeValueMemberN{Value: strconv.Itoa(i)}})
		}
	}
	if from+n < d.total {
		out.LastEvaluatedKey = model.Item{"n": &types.AttributeValueMemberN{Value: strconv.Itoa(from + n)}}
	}
	return out, nil
}

func (d *pagedDB) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	d.batches.Add(1)
	out := &dynamodb.BatchGetItemOutput{Responses: map[string][]model.Item{}}
	for table, ka := range in.RequestItems {
		if d.unprocessed > 0 {
			d.unprocessed--
			out.UnprocessedKeys = map[string]types.KeysAndAttributes{table: ka}
			continue
		}
		out.Responses[table] = ka.Keys
	}
	return out, nil
}

func numbers(t *testing.T, seq func(yield func(model.Item, error) bool)) []int {
	t.Helper()
	var out []int
	for it, err := range seq {
		require.NoError(t, err)
		n, _ := strconv.Atoi(it["n"].(*types.AttributeValueMemberN).Value)
		out = append(out, n)
	}
	return out
}

func TestQueryPages(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name                   string
		total, pageSize, limit int
		want, requests         int
	}{
		{"all pages", 25, 10, 0, 25, 3},
		{"limit inside a page", 25, 10, 5, 5, 1},
		{"limit across pages", 25, 10, 15, 15, 2},
		{"limit beyond the end", 25, 10, 100, 25, 3},
		{"empty", 0, 10, 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := &pagedDB{total: tc.total, pageSize: tc.pageSize}
			c := unguarded(NewClient(db, func(o *Options) { o.TableName = "t" }))
			in := &dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :pk")}
			got := numbers(t, c.query(ctx, in, tc.limit))
			require.Len(t, got, tc.want)
			for i, n := range got {
				require.Equal(t, i, n, "in order, none twice")
			}
			require.Len(t, db.queries, tc.requests)
			for _, q := range db.queries {
				require.Equal(t, "t", aws.ToString(q.TableName))
				require.True(t, aws.ToBool(q.ConsistentRead), "consistent unless Options say otherwise")
				if tc.limit > 0 {
					require.NotNil(t, q.Limit, "a limited query asks for no more than it needs")
				}
			}
			require.Nil(t, in.TableName, "the caller's input is not modified")
			require.Nil(t, in.ExclusiveStartKey)
		})
	}
}

func TestQueryStopsWhenTheCallerDoes(t *testing.T) {
	db := &pagedDB{total: 100, pageSize: 10}
	c := unguarded(NewClient(db))
	for it, err := range c.query(context.Background(), &dynamodb.QueryInput{}, 0) {
		require.NoError(t, err)
		if it["n"].(*types.AttributeValueMemberN).Value == "12" {
			break
		}
	}
	require.Len(t, db.queries, 2, "no page is read after the caller stops")
}

func TestQueryCount(t *testing.T) {
	db := &pagedDB{total: 25, pageSize: 10}
	c := unguarded(NewClient(db, func(o *Options) { o.EventuallyConsistent = true }))
	in := &dynamodb.QueryInput{ConsistentRead: aws.Bool(true)}
	n, err := c.queryCount(context.Background(), in)
	require.NoError(t, err)
	require.EqualValues(t, 25, n)
	require.Len(t, db.queries, 3)
	require.True(t, aws.ToBool(db.queries[0].ConsistentRead), "the caller's ConsistentRead wins over Options")
	require.Empty(t, in.Select, "the caller's input is not modified")
}

func TestParallel(t *testing.T) {
	c := unguarded(NewClient(&pagedDB{}, func(o *Options) { o.Parallelism = 3 }))
	var running, most atomic.Int64
	var mu sync.Mutex
	ran := map[int]bool{}
	errBoom := errors.New("boom")
	err := c.st.Parallel(20, func(i int) error {
		now := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		ran[i] = true
		mu.Unlock()
		if i == 7 || i == 13 {
			return errBoom
		}
		return nil
	})
	require.ErrorIs(t, err, errBoom)
	require.Len(t, ran, 20, "every call runs, even after an error")
	require.LessOrEqual(t, most.Load(), int64(3), "at most Options.Parallelism at once")
	require.NoError(t, c.st.Parallel(0, func(int) error { return errBoom }))
}

func TestBatchGetRetriesUnprocessedKeys(t *testing.T) {
	ctx := context.Background()
	keys := make([]model.Item, 250)
	for i := range keys {
		keys[i] = model.Item{"n": &types.AttributeValueMemberN{Value: strconv.Itoa(i)}}
	}
	db := &pagedDB{unprocessed: 2}
	c := unguarded(NewClient(db, func(o *Options) { o.Parallelism = 1 }))
	found, err := c.st.BatchGet(ctx, keys, nil, nil)
	require.NoError(t, err)
	require.Len(t, found, 250, "100 keys a request, unprocessed ones sent again")
	require.EqualValues(t, 3+2, db.batches.Load())

	db = &pagedDB{unprocessed: 1 << 30}
	c = unguarded(NewClient(db, func(o *Options) { o.MaxAttempts = 3 }))
	_, err = c.st.BatchGet(ctx, keys[:10], nil, nil)
	require.ErrorIs(t, err, ErrContention, "bounded by Options.MaxAttempts")
	require.EqualValues(t, 3, db.batches.Load())
}

// unguarded is c without its table check (tablecheck.go): pagedDB fakes
// the reads of pages, not DescribeTable.
func unguarded(c *Client) *Client {
	c.st.Guard = nil
	return c
}
