// Package store is redimo's storage layer: what a Client sends to its
// table, and how.
//
// Store holds the DynamoDB client and the options that shape requests,
// and is the only code that calls DynamoDB (TestOnlyStoreCallsDynamoDB):
// single-item reads and updates, Query pages, BatchGetItem in chunks of
// 100 with their unprocessed keys, TransactWriteItems resent with its
// idempotency token, the table's description and creation, all under the
// one retry policy (below). It knows the table, not Redis: the Client
// (the root package) holds the commands, which build the requests from the
// data model (internal/model) and read the answers.
package store

import (
	"context"
	"errors"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// API is the part of DynamoDB's client the store uses (redimo.DynamoDBAPI).
type API interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
}

// ErrContention is what every retry loop returns when it runs out of
// Attempts (redimo.ErrContention).
var ErrContention = errors.New("redimo: too many conflicting concurrent writes")

// Store is a Client's table: see above.
type Store struct {
	DB          API    // the caller's, under the metrics layer (api.go) and a database's rewriting (db.go)
	Name        string // the table (Options.TableName)
	Eventual    bool   // reads eventually consistent (Options.EventuallyConsistent)
	MaxAttempts int    // Options.MaxAttempts
	Parallelism int    // Options.Parallelism
	// Guard refuses a table that cannot serve commands before the first
	// request, read or write (tablecheck.go), once per process and table
	// when it is fit; nil: none.
	Guard func(context.Context) error
	// Label gives the context of goroutines a call starts the command's
	// name, for Options.Metrics (api.go); nil: none.
	Label func(context.Context) context.Context
}

// Ready is the guard's verdict (nil without a guard).
func (s *Store) Ready(ctx context.Context) error {
	if s.Guard == nil {
		return nil
	}
	return s.Guard(ctx)
}

// Table is the table's name, as requests carry it.
func (s *Store) Table() *string { return aws.String(s.Name) }

// Consistent is the read consistency Options ask for.
func (s *Store) Consistent() *bool { return aws.Bool(!s.Eventual) }

// GetItem reads one item (nil when missing); consistent nil: as Options say.
func (s *Store) GetItem(ctx context.Context, key model.Item, consistent *bool, projection *string, names map[string]string) (model.Item, error) {
	if err := s.Ready(ctx); err != nil {
		return nil, err
	}
	if consistent == nil {
		consistent = s.Consistent()
	}
	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: s.Table(), Key: key, ConsistentRead: consistent,
		ProjectionExpression: projection, ExpressionAttributeNames: names,
	})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// UpdateItem sends one UpdateItem to the table (Detached from ctx's end
// once sent, under KeepOutcome).
func (s *Store) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
	if err := s.Ready(ctx); err != nil {
		return nil, err
	}
	ctx, cancel, err := Detached(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	in.TableName = s.Table()
	return s.DB.UpdateItem(ctx, in)
}

// WriteGrace is how long a write goes on after its caller's context
// ended (Detached).
const WriteGrace = 30 * time.Second

// keepKey marks a context under which writes keep their outcome
// (KeepOutcome).
type keepKey struct{}

// KeepOutcome marks ctx for a command that removes what it returns (a
// pop, a move): the writes it sends go on when ctx ends, until their
// answer is read (Detached). Other commands return at their context's end,
// as a Redis client's timeout does, their write applied or not.
func KeepOutcome(ctx context.Context) context.Context { return context.WithValue(ctx, keepKey{}, true) }

// Detached is the context of a write about to be sent under ctx. Under a
// context marked with KeepOutcome, once sent, the write, its resends and
// the reading of its answer go on when ctx is cancelled or its deadline
// passes (for WriteGrace at most), so that the command learns whether its
// write applied, and what it removed is returned or put back, never lost
// with an answer nobody read: ctx's end stops such a command between
// writes, not during one. It returns ctx's error when ctx has ended
// before anything was sent.
func Detached(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if ctx.Value(keepKey{}) == nil {
		return ctx, func() {}, nil
	}
	d, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(WriteGrace, cancel)
		context.AfterFunc(d, func() { t.Stop() })
	})
	return d, func() { stop(); cancel() }, nil
}

// QueryPage sends one Query to the table (queryPages follows the pages).
func (s *Store) QueryPage(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	if err := s.Ready(ctx); err != nil {
		return nil, err
	}
	in.TableName = s.Table()
	return s.DB.Query(ctx, in)
}

// DescribeTable is the table's description (DescribeTable).
func (s *Store) DescribeTable(ctx context.Context) (*types.TableDescription, error) {
	out, err := s.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: s.Table()})
	if err != nil {
		return nil, err
	}
	return out.Table, nil
}

// WaitActive waits, up to 5 minutes, until the table is active.
func (s *Store) WaitActive(ctx context.Context) error {
	w := dynamodb.NewTableExistsWaiter(s.DB, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 2 * time.Second
	})
	return w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: s.Table()}, 5*time.Minute)
}

// CreateTable sends CreateTable.
func (s *Store) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput) error {
	_, err := s.DB.CreateTable(ctx, in)
	return err
}

// SendTx sends one TransactWriteItems with a fresh idempotency token, and
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
//
// Under KeepOutcome, once sent, the transaction and its resends go on
// when ctx ends (Detached).
func (s *Store) SendTx(ctx context.Context, actions []types.TransactWriteItem) error {
	if err := s.Ready(ctx); err != nil {
		return err
	}
	ctx, cancel, err := Detached(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	in := &dynamodb.TransactWriteItemsInput{TransactItems: actions, ClientRequestToken: aws.String(model.Token())}
	return s.Attempts(ctx, true, func() (bool, error) {
		_, err := s.DB.TransactWriteItems(ctx, in)
		var internal *types.InternalServerError
		if model.Retryable(err) || errors.As(err, &internal) {
			return false, nil
		}
		return true, err
	})
}

// BatchGet reads items by primary key with BatchGetItem, as consistent as
// Options say: 100 keys a request, up to Options.Parallelism requests at
// once, unprocessed keys asked again at once after a response that read
// some (it reached its size limit), with backoff after one that read none
// (throttling), at most Options.MaxAttempts times in a row (then
// ErrContention). Missing items are absent from the result,
// which is in no particular order.
func (s *Store) BatchGet(ctx context.Context, keys []model.Item, projection *string, names map[string]string) ([]model.Item, error) {
	return s.BatchGetWith(ctx, keys, s.Consistent(), projection, names)
}

// BatchGetWith is batchGet with the consistency given.
func (s *Store) BatchGetWith(ctx context.Context, keys []model.Item, consistent *bool, projection *string, names map[string]string) ([]model.Item, error) {
	var (
		mu    sync.Mutex
		found []model.Item
	)
	if s.Label != nil {
		ctx = s.Label(ctx)
	} // for Options.Metrics: the chunks' goroutines do not show the command
	err := s.Parallel((len(keys)+99)/100, func(i int) error {
		items, err := s.BatchGetChunk(ctx, keys[i*100:min((i+1)*100, len(keys))], consistent, projection, names)
		mu.Lock()
		defer mu.Unlock()
		found = append(found, items...)
		return err
	})
	return found, err
}

func (s *Store) BatchGetChunk(ctx context.Context, keys []model.Item, consistent *bool, projection *string, names map[string]string) ([]model.Item, error) {
	if err := s.Ready(ctx); err != nil {
		return nil, err
	}
	req := map[string]types.KeysAndAttributes{s.Name: {
		Keys:                     keys,
		ConsistentRead:           consistent,
		ProjectionExpression:     projection,
		ExpressionAttributeNames: names,
	}}
	var found []model.Item
	for len(req) > 0 {
		// Nothing read is throttling: back off (Attempts). Some read and
		// some left is a response that reached its size limit (long
		// members): go on at once.
		err := s.Attempts(ctx, true, func() (bool, error) {
			out, err := s.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return false, err
			}
			got := out.Responses[s.Name]
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

// Parallel runs f(0) ... f(n-1), Options.Parallelism at a time, and
// returns the first error.
func (s *Store) Parallel(n int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, s.Parallelism)
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

// The one retry policy of every command.
//
// What is retried:
//   - a request DynamoDB refused for a conflict with a concurrent
//     transaction or for throttling (model.Retryable): the identical request is
//     sent again, a TransactWriteItems with its idempotency token (sendTx,
//     retryConflicts); a TransactWriteItems also after an
//     InternalServerError, whose outcome is unknown (the token makes the
//     resend apply it at most once);
//   - a BatchGetItem's unprocessed keys (batchGetChunk);
//   - a round of a command that lost a race with concurrent writers: a
//     transaction cancelled by a failed condition is tried again without
//     the failed writes (transact), a pop whose picks were popped by
//     another client picks again (SPopN, ZPopMin, ZMPop, ShardedSet.Pop),
//     a write that met an expired key purges it and starts again
//     (write), EXEC's and TxPipelined's optimistic transactions
//     read again (exec.go).
//
// How often: at most Options.MaxAttempts attempts (DefaultMaxAttempts) of
// each of those loops; a BatchGetItem that reads something is progress and
// starts its count again, so its keys are read in a bounded number of
// requests.
//
// Backoff: before resending a refused request, exponential from 5 ms,
// capped at 500 ms, with full jitter (sleep); a lost race is tried again
// at once, since its next round reads fresh state. Every wait ends when ctx
// does, with ctx's error.
//
// Running out: ErrContention, from every loop alike. Commands that return
// what they did so far (SPopN, ZPopMin, ZPopMax) return it with the error.
//
// The SDK's own retryer sits under all of this: it resends a request whose
// response was lost or was a 500, and may resend throttled ones before
// redimo sees them.

// Attempts calls try for attempt 1, 2, ... until it reports done or fails,
// at most Options.MaxAttempts times, then returns ErrContention. With
// backoff set it sleeps before every attempt after the first.
func (s *Store) Attempts(ctx context.Context, backoff bool, try func() (done bool, err error)) error {
	for attempt := 1; ; attempt++ {
		done, err := try()
		if done || err != nil {
			return err
		}
		if attempt >= s.MaxAttempts {
			return ErrContention
		}
		if backoff {
			if err := Sleep(ctx, attempt); err != nil {
				return err
			}
		}
	}
}

// RetryConflicts runs op until it does not fail with a transaction
// conflict or throttling (model.Retryable), backing off between attempts, at
// most Options.MaxAttempts times (then ErrContention).
func (s *Store) RetryConflicts(ctx context.Context, op func() error) error {
	return s.Attempts(ctx, true, func() (bool, error) {
		err := op()
		if model.Retryable(err) {
			return false, nil
		}
		return true, err
	})
}

// Sleep waits before retry number attempt (1, 2, ...): exponential backoff
// from 5 ms, capped at 500 ms, with full jitter. It returns ctx's error
// when ctx ends first.
func Sleep(ctx context.Context, attempt int) error {
	d := 5 * time.Millisecond << min(attempt, 7)
	return SleepFor(ctx, jitter(min(d, 500*time.Millisecond)))
}

// SleepFor waits d (none when d ≤ 0), or returns ctx's error when ctx
// ends first.
func SleepFor(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func jitter(d time.Duration) time.Duration { return time.Duration(mrand.Int64N(int64(d))) + 1 }
