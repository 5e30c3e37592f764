package redimo

// The storage layer: what a Client sends to its table, and how.
//
// store holds the DynamoDB client and the options that shape requests,
// and is the only code that calls DynamoDB (TestOnlyStoreCallsDynamoDB):
// single-item reads and updates, Query pages, BatchGetItem in chunks of
// 100 with their unprocessed keys, TransactWriteItems resent with its
// idempotency token, the table's description and creation, all under the
// one retry policy (retry.go). It knows the table, not Redis: Client, which
// embeds it, holds the commands, which build the requests from the data
// model (internal/model/keys.go) and read the answers.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// store is a Client's table: see above.
type store struct {
	db   DynamoDBAPI // the caller's, under the metrics layer (api.go) and a database's rewriting (db.go)
	opts Options
	// guard refuses a table that cannot serve commands before the first
	// write (tablecheck.go); nil: none.
	guard func(context.Context) error
}

// ready is the guard's verdict (nil without a guard).
func (s *store) ready(ctx context.Context) error {
	if s.guard == nil {
		return nil
	}
	return s.guard(ctx)
}

func (s *store) table() *string { return aws.String(s.opts.TableName) }

// consistent is the read consistency Options ask for.
func (s *store) consistent() *bool { return aws.Bool(!s.opts.EventuallyConsistent) }

// getItem reads one item (nil when missing); consistent nil: as Options say.
func (s *store) getItem(ctx context.Context, key model.Item, consistent *bool, projection *string, names map[string]string) (model.Item, error) {
	if consistent == nil {
		consistent = s.consistent()
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: s.table(), Key: key, ConsistentRead: consistent,
		ProjectionExpression: projection, ExpressionAttributeNames: names,
	})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// updateItem sends one UpdateItem to the table.
func (s *store) updateItem(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	in.TableName = s.table()
	return s.db.UpdateItem(ctx, in)
}

// queryPage sends one Query to the table (queryPages follows the pages).
func (s *store) queryPage(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	in.TableName = s.table()
	out, err := s.db.Query(ctx, in)
	if err != nil && in.IndexName != nil && strings.Contains(err.Error(), "does not have the specified index") {
		return nil, s.noIndex(aws.ToString(in.IndexName), err)
	}
	return out, err
}

// describeTable is the table's description (DescribeTable).
func (s *store) describeTable(ctx context.Context) (*types.TableDescription, error) {
	out, err := s.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: s.table()})
	if err != nil {
		return nil, err
	}
	return out.Table, nil
}

// waitActive waits, up to 5 minutes, until the table is active.
func (s *store) waitActive(ctx context.Context) error {
	w := dynamodb.NewTableExistsWaiter(s.db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 2 * time.Second
	})
	return w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: s.table()}, 5*time.Minute)
}

// createTable sends CreateTable.
func (s *store) createTable(ctx context.Context, in *dynamodb.CreateTableInput) error {
	_, err := s.db.CreateTable(ctx, in)
	return err
}

// sendTx sends one TransactWriteItems with a fresh idempotency token, and
// sends the identical request again, with the same token, while DynamoDB
// answers with a transaction conflict or throttling (a
// TransactionConflictException, or a cancellation for those reasons
// alone) or with an InternalServerError after the SDK's own retries (the
// outcome unknown: it may have been applied), backing off between tries,
// at most Options.MaxAttempts times (then ErrContention). The SDK's own
// retries (a lost response, a 500) reuse the token too. So a transaction that was applied but whose answer
// was lost is never taken for a failure: DynamoDB answers an identical
// request with a token it has applied with success and applies nothing,
// where a new token would re-run the conditions against the transaction's
// own effects (an SADD that added its member would reply 0). Any other
// answer, a cancellation with a failed condition included, is returned:
// the caller changes the request, which then takes a new token.
func (s *store) sendTx(ctx context.Context, actions []types.TransactWriteItem) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	in := &dynamodb.TransactWriteItemsInput{TransactItems: actions, ClientRequestToken: aws.String(model.Token())}
	return s.attempts(ctx, true, func() (bool, error) {
		_, err := s.db.TransactWriteItems(ctx, in)
		var internal *types.InternalServerError
		if model.Retryable(err) || errors.As(err, &internal) {
			return false, nil
		}
		return true, err
	})
}

// batchGet reads items by primary key with BatchGetItem, as consistent as
// Options say: 100 keys a request, up to Options.Parallelism requests at
// once, unprocessed keys asked again at once after a response that read
// some (it reached its size limit), with backoff after one that read none
// (throttling), at most Options.MaxAttempts times in a row (then
// ErrContention, retry.go). Missing items are absent from the result,
// which is in no particular order.
func (s *store) batchGet(ctx context.Context, keys []model.Item, projection *string, names map[string]string) ([]model.Item, error) {
	return s.batchGetWith(ctx, keys, s.consistent(), projection, names)
}

// batchGetWith is batchGet with the consistency given.
func (s *store) batchGetWith(ctx context.Context, keys []model.Item, consistent *bool, projection *string, names map[string]string) ([]model.Item, error) {
	var (
		mu    sync.Mutex
		found []model.Item
	)
	ctx = s.labelled(ctx) // for Options.Metrics: the chunks' goroutines do not show the command
	err := s.parallel((len(keys)+99)/100, func(i int) error {
		items, err := s.batchGetChunk(ctx, keys[i*100:min((i+1)*100, len(keys))], consistent, projection, names)
		mu.Lock()
		defer mu.Unlock()
		found = append(found, items...)
		return err
	})
	return found, err
}

func (s *store) batchGetChunk(ctx context.Context, keys []model.Item, consistent *bool, projection *string, names map[string]string) ([]model.Item, error) {
	req := map[string]types.KeysAndAttributes{s.opts.TableName: {
		Keys:                     keys,
		ConsistentRead:           consistent,
		ProjectionExpression:     projection,
		ExpressionAttributeNames: names,
	}}
	var found []model.Item
	for len(req) > 0 {
		// Nothing read is throttling: back off (retry.go). Some read and
		// some left is a response that reached its size limit (long
		// members): go on at once.
		err := s.attempts(ctx, true, func() (bool, error) {
			out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return false, err
			}
			got := out.Responses[s.opts.TableName]
			found = append(found, got...)
			req = out.UnprocessedKeys
			return len(got) > 0 || len(req) == 0, nil
		})
		if err != nil {
			return found, err
		}
	}
	return found, nil
}

// parallel runs f(0) ... f(n-1), Options.Parallelism at a time, and
// returns the first error.
func (s *store) parallel(n int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, s.opts.Parallelism)
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

// labelled returns ctx carrying the name of the command running, for the
// requests of goroutines it starts: their own stacks no longer show it.
// It does nothing without Options.Metrics.
func (s *store) labelled(ctx context.Context) context.Context {
	if s.opts.Metrics == nil || ctx.Value(commandKey{}) != nil {
		return ctx
	}
	return context.WithValue(ctx, commandKey{}, commandOf(ctx))
}
