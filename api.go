package redimo

// Every DynamoDB request of a Client goes through api, which NewClient
// wraps around the user's DynamoDBAPI. It does two things, in one place so
// that no command needs to know about them:
//
//   - it turns setup mistakes (missing table, no credentials, no region,
//     unreachable endpoint) into a *SetupError that names the fix;
//   - with Options.Metrics set, it asks DynamoDB for the consumed capacity,
//     counts the SDK's attempts, and reports each request with the command
//     that made it;
//   - with Options.TracerProvider set, it measures the same and makes a
//     span of each request, beneath its command's (tracing.go).

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/redimo-go/redimo/internal/model"
	"go.opentelemetry.io/otel/trace"
)

// Request is one DynamoDB request a Client made, as reported to
// Options.Metrics.
type Request struct {
	// Command is the redimo method the caller called: "SAdd", "ZRangeArgs",
	// "ShardedSet.Add", "RateLimiter.Allow"... (the outermost exported
	// method on the call stack, carried into the goroutines a command
	// starts). Empty when no exported method is found.
	Command string
	// Operation is the DynamoDB operation: "GetItem", "Query",
	// "BatchGetItem", "TransactWriteItems", "UpdateItem", "DescribeTable"
	// or "CreateTable".
	Operation string
	// ReadUnits and WriteUnits are the capacity units DynamoDB reported
	// (ReturnConsumedCapacity INDEXES: the table's and its indexes' units
	// together; DynamoDB Local 3.3.0 leaves the key index out of its TOTAL
	// figure): read units for GetItem, Query and
	// BatchGetItem, write units for TransactWriteItems and UpdateItem. They
	// are 0 for a failed request (a cancelled transaction included):
	// DynamoDB reports no consumption with an error.
	ReadUnits, WriteUnits float64
	// PricedReadUnits and PricedWriteUnits are the request's cost at
	// DynamoDB's documented rates, index writes included (the cost model,
	// price.go): for reads, the units DynamoDB reported (else one per 4 KB
	// returned, half eventually consistent), and for a BatchGetItem at
	// least one unit (half eventually consistent) per key asked for, found
	// or not, as DynamoDB bills a read of a missing item (DynamoDB Local
	// reports 0 for it); for a TransactWriteItems that
	// committed, 2 write units per KB of each item written or checked plus
	// 2 per KB of each index entry it puts or deletes (a changed index key
	// is a delete and a put); for an UpdateItem, 1 per KB and per index
	// entry. DynamoDB reports the real units in WriteUnits; DynamoDB Local
	// reports far fewer for a transaction (the units of one item for the
	// whole of it), so tools running against it, like `make demo`, show
	// these. A transaction cancelled by a failed condition or a conflict,
	// and an UpdateItem whose condition failed, cost their items' units, as
	// DynamoDB charges them; any other failed request 0. Tally sums them;
	// Cost.Dollars prices them.
	PricedReadUnits, PricedWriteUnits float64
	// TransactWriteUnits is PricedWriteUnits for a TransactWriteItems, 0
	// for other operations.
	//
	// Deprecated: use PricedWriteUnits, which prices every operation.
	TransactWriteUnits float64
	// Attempts is how many times the AWS SDK sent the request: 1, or more
	// when it retried (throttling, a network error, a 5xx).
	Attempts int
	// Conflict is true when the request was a transaction cancelled by a
	// concurrent one on the same items (TransactionConflict); redimo retries
	// it as a new request.
	Conflict bool
	// Latency is the time the request took, the SDK's retries included.
	Latency time.Duration
	// Err is the request's error, nil on success. A cancelled transaction
	// whose conditions failed is an error here even when the command
	// handles it (that is how SADD learns which members were present).
	Err error
}

// api is the DynamoDBAPI every Client request goes through (see above).
type api struct {
	db      DynamoDBAPI
	table   string
	metrics func(context.Context, Request)
	tracer  trace.Tracer       // Options.TracerProvider's (tracing.go); nil: no spans
	indexes []model.IndexShape // the table's indexes, for the cost model (price.go)
}

// measured reports whether requests are measured: for Options.Metrics, or
// for the spans of Options.TracerProvider.
func (a *api) measured() bool { return a.metrics != nil || a.tracer != nil }

var _ DynamoDBAPI = (*api)(nil)

// send runs call and reports it. capacity extracts the output's consumed
// capacity; priced is the cost model's units of the request, given the
// read units DynamoDB reported and its error (nil: none).
func send[In, Out any](a *api, ctx context.Context, op string, in In, optFns []func(*dynamodb.Options),
	call func(context.Context, In, ...func(*dynamodb.Options)) (Out, error),
	capacity func(Out) []types.ConsumedCapacity, priced func(Out, float64, error) (float64, float64)) (Out, error) {
	if !a.measured() {
		out, err := call(ctx, in, optFns...)
		return out, a.setupError(ctx, err)
	}
	r := Request{Command: commandOf(ctx), Operation: op}
	if a.tracer != nil {
		var sp trace.Span
		ctx, sp = a.requestSpan(ctx, op)
		defer endRequest(sp, &r)
	}
	optFns = append(optFns[:len(optFns):len(optFns)], countAttempts(&r.Attempts))
	start := time.Now()
	out, err := call(ctx, in, optFns...)
	r.Latency = time.Since(start)
	if err == nil {
		for _, c := range capacity(out) {
			read, write := units(op, c)
			r.ReadUnits += read
			r.WriteUnits += write
		}
	}
	if priced != nil {
		r.PricedReadUnits, r.PricedWriteUnits = priced(out, r.ReadUnits, err)
	}
	if op == "TransactWriteItems" && err == nil {
		r.TransactWriteUnits = r.PricedWriteUnits
	}
	err = a.setupError(ctx, err)
	r.Err, r.Conflict = err, model.IsConflict(err)
	if a.metrics != nil {
		a.metrics(ctx, r)
	}
	return out, err
}

func (a *api) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if a.measured() {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	}
	return send(a, ctx, "GetItem", in, o, a.db.GetItem,
		func(out *dynamodb.GetItemOutput) []types.ConsumedCapacity { return oneCapacity(out.ConsumedCapacity) },
		func(out *dynamodb.GetItemOutput, read float64, err error) (float64, float64) {
			if err != nil {
				return 0, 0
			}
			return model.PricedRead(read, in.ConsistentRead, out.Item), 0
		})
}

func (a *api) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if a.measured() {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	}
	return send(a, ctx, "Query", in, o, a.db.Query,
		func(out *dynamodb.QueryOutput) []types.ConsumedCapacity { return oneCapacity(out.ConsumedCapacity) },
		func(out *dynamodb.QueryOutput, read float64, err error) (float64, float64) {
			if err != nil {
				return 0, 0
			}
			return model.PricedRead(read, in.ConsistentRead, out.Items...), 0
		})
}

func (a *api) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if a.measured() {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	}
	return send(a, ctx, "BatchGetItem", in, o, a.db.BatchGetItem,
		func(out *dynamodb.BatchGetItemOutput) []types.ConsumedCapacity { return out.ConsumedCapacity },
		func(out *dynamodb.BatchGetItemOutput, read float64, err error) (float64, float64) {
			if err != nil {
				return 0, 0
			}
			units := 0.0
			for table, ka := range in.RequestItems {
				keys := len(ka.Keys) - len(out.UnprocessedKeys[table].Keys)
				units += model.PricedBatchRead(ka.ConsistentRead, keys, out.Responses[table])
			}
			return max(read, units), 0
		})
}

func (a *api) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if !a.measured() {
		return send(a, ctx, "TransactWriteItems", in, o, a.db.TransactWriteItems, nil, nil)
	}
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	return send(a, ctx, "TransactWriteItems", in, o, a.db.TransactWriteItems,
		func(out *dynamodb.TransactWriteItemsOutput) []types.ConsumedCapacity { return out.ConsumedCapacity },
		func(_ *dynamodb.TransactWriteItemsOutput, _ float64, err error) (float64, float64) {
			return 0, model.PricedTransact(in, a.indexes, err)
		})
}

func (a *api) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if a.measured() {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	}
	return send(a, ctx, "UpdateItem", in, o, a.db.UpdateItem,
		func(out *dynamodb.UpdateItemOutput) []types.ConsumedCapacity {
			return oneCapacity(out.ConsumedCapacity)
		},
		func(_ *dynamodb.UpdateItemOutput, _ float64, err error) (float64, float64) {
			var failed *types.ConditionalCheckFailedException
			switch {
			case errors.As(err, &failed):
				// "If the expression evaluates to false, DynamoDB still
				// consumes write capacity units from the table": the item's.
				return 0, model.PricedWrite("Update", in.Key, in.ExpressionAttributeValues, nil, nil, nil, nil, nil)
			case err != nil:
				return 0, 0
			}
			return 0, model.PricedWrite("Update", in.Key, in.ExpressionAttributeValues, in.UpdateExpression, in.ConditionExpression,
				in.ExpressionAttributeNames, in.ExpressionAttributeValues, a.indexes)
		})
}

func (a *api) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return send(a, ctx, "DescribeTable", in, o, a.db.DescribeTable,
		func(*dynamodb.DescribeTableOutput) []types.ConsumedCapacity { return nil }, nil)
}

func (a *api) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return send(a, ctx, "CreateTable", in, o, a.db.CreateTable,
		func(*dynamodb.CreateTableOutput) []types.ConsumedCapacity { return nil }, nil)
}

func oneCapacity(c *types.ConsumedCapacity) []types.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []types.ConsumedCapacity{*c}
}

// units splits consumed capacity into read and write units. With
// ReturnConsumedCapacity INDEXES, DynamoDB reports CapacityUnits (the sum
// over the table and its indexes) and the breakdown: the
// operation tells which kind they are.
func units(op string, c types.ConsumedCapacity) (read, write float64) {
	if c.ReadCapacityUnits != nil || c.WriteCapacityUnits != nil {
		return aws.ToFloat64(c.ReadCapacityUnits), aws.ToFloat64(c.WriteCapacityUnits)
	}
	switch op {
	case "GetItem", "Query", "BatchGetItem":
		return aws.ToFloat64(c.CapacityUnits), 0
	}
	return 0, aws.ToFloat64(c.CapacityUnits)
}

// countAttempts counts the SDK's attempts of one request: a middleware
// after the SDK's retry middleware runs once per attempt.
func countAttempts(n *int) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("redimo.CountAttempts",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					*n++
					return next.HandleFinalize(ctx, in)
				}), middleware.After)
		})
	}
}

// setupError returns err as a *SetupError when it is a setup mistake, else
// unchanged.
func (a *api) setupError(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	var (
		notFound *types.ResourceNotFoundException
		noRegion *aws.MissingRegionError
		dial     *net.OpError
		dns      *net.DNSError
		problem  error
		msg      = err.Error()
	)
	switch {
	case errors.As(err, &notFound):
		problem = ErrTableNotFound
	case errors.As(err, &noRegion), strings.Contains(msg, "Missing Region"):
		problem = ErrNoRegion
	// The SDK has no error type for missing credentials; these are the
	// words of its credential chain (aws-sdk-go-v2 v1.47), pinned by a test.
	case strings.Contains(msg, "get credentials:"), strings.Contains(msg, "failed to retrieve credentials"),
		strings.Contains(msg, "failed to refresh cached credentials"):
		problem = ErrNoCredentials
	case errors.As(err, &dns), errors.As(err, &dial) && dial.Op == "dial":
		problem = ErrUnreachable
	default:
		return err
	}
	return &SetupError{Problem: problem, Table: a.table, Err: err}
}

// commandKey is the context key of the command name that goroutines of a
// command inherit (see labelled).
// labelled returns ctx carrying the name of the command running, for the
// requests of goroutines it starts: their own stacks no longer show it.
// It does nothing without Options.Metrics.
func (c *Client) labelled(ctx context.Context) context.Context {
	if (c.opts.Metrics == nil && c.tracer == nil) || ctx.Value(commandKey{}) != nil {
		return ctx
	}
	return context.WithValue(ctx, commandKey{}, commandOf(ctx))
}

type commandKey struct{}

// commandOf is the command a request belongs to: the one ctx carries, else
// the outermost exported method of this package on the call stack
// ("SAdd", "ShardedSet.Add"; an iterator's closure counts as its method).
func commandOf(ctx context.Context) string {
	if name, ok := ctx.Value(commandKey{}).(string); ok {
		return name
	}
	var pcs [128]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	name := ""
	for {
		f, more := frames.Next()
		if filepath.Dir(f.File) == pkgDir {
			if m := exportedMethod(f.Function); m != "" {
				name = m
			}
		}
		if !more {
			return name
		}
	}
}

// pkgDir is the directory of this package's source files: a frame whose
// file is there runs this package's code, inlined or not.
var pkgDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}()

// exportedMethod returns the innermost exported method of an exported type
// that a function name shows: "SAdd" for "github.com/redimo-go/redimo.(*Client).SAdd",
// its closures ("...(*Client).SAdd.func1") and closures inlined elsewhere
// ("main.main.(*Client).SScan.func2.(*Client).query.func3");
// "ShardedSet.Add" for another type's method; "" when there is none.
func exportedMethod(fn string) string {
	found := ""
	for {
		_, rest, ok := strings.Cut(fn, "(*")
		if !ok {
			return found
		}
		fn = rest
		typ, rest, ok := strings.Cut(rest, ").")
		if !ok {
			return found
		}
		method, _, _ := strings.Cut(rest, ".")
		switch {
		case !isExported(typ) || !isExported(method):
		case typ == "Client":
			found = method
		default:
			found = typ + "." + method
		}
	}
}

func isExported(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }
