package redimo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/stretchr/testify/require"
)

// Integration tests run against DynamoDB Local at REDIMO_TEST_ENDPOINT, in a
// fresh table made for this run. Without an endpoint they skip, unless
// REDIMO_TEST_REQUIRE=1 (set by `make test`), which turns that into a failure
// (internal/testenv).

var (
	testEndpoint string
	testTable    string
	testDB       *dynamodb.Client
	randomHex    = testenv.RandomHex
)

func TestMain(m *testing.M) {
	testEndpoint = testenv.MainEndpoint()
	if testEndpoint == "" {
		// Examples cannot skip themselves: their output would not match.
		flag.Parse()
		skip := "^Example"
		if s := flag.Lookup("test.skip").Value.String(); s != "" {
			skip = s + "|" + skip
		}
		_ = flag.Set("test.skip", skip)
	} else {
		transport, err := local.Transport(nil) // REDIMO_MODEL: a model of real DynamoDB
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if transport == nil {
			t := http.DefaultTransport.(*http.Transport).Clone()
			t.MaxIdleConnsPerHost = 256 // as many as the tests' concurrent requests
			transport = t
		}
		testDB = local.Client(testEndpoint, attrChecker{next: transport}) // model_test.go
		testTable = "redimo_test_" + randomHex(4)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err = NewClient(testDB, func(o *Options) { o.TableName = testTable }).CreateTable(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "cannot create table %s at %s: %v\n", testTable, testEndpoint, err)
			os.Exit(1)
		}
	}
	if err := testenv.Shard(); err != nil { // make test's processes side by side
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	if report := undeclaredReport(); report != "" {
		fmt.Fprintln(os.Stderr, report)
		code = 1
	}
	os.Exit(code)
}

// needDB skips (or, under make test, fails) a test that needs DynamoDB.
func needDB(tb testing.TB) {
	tb.Helper()
	if testDB == nil {
		testenv.NeedEndpoint(tb)
	}
}

// newTestClient returns a client on the run's table whose requests are
// counted, and a key prefix unique to the test.
func newTestClient(tb testing.TB, optFns ...func(*Options)) (*Client, *counter, string) {
	tb.Helper()
	needDB(tb)
	cnt := &counter{db: testDB}
	opts := append([]func(*Options){func(o *Options) { o.TableName = testTable }}, optFns...)
	c := NewClient(cnt, opts...)
	// Tests count this Client's requests exactly; on a loaded machine a
	// read can take longer than readLease and add its check (leased),
	// which TestDelLease tests with Clients of its own.
	c.readCheck = time.Minute
	return c, cnt, tb.Name() + ":" + randomHex(3) + ":"
}

// setup is a test's opening: a context, a client on the run's table
// (newTestClient) with its request counter, and a key prefix unique to
// the test.
func setup(tb testing.TB, optFns ...func(*Options)) (context.Context, *Client, *counter, string) {
	tb.Helper()
	c, cnt, p := newTestClient(tb, optFns...)
	return context.Background(), c, cnt, p
}

// setupClocked is setup on a fake clock (newClockedClient).
func setupClocked(tb testing.TB, optFns ...func(*Options)) (context.Context, *Client, string, *fakeClock) {
	tb.Helper()
	c, _, p, clock := newClockedClient(tb, optFns...)
	return context.Background(), c, p, clock
}

// newClockedClient is newTestClient on a fake clock (Options.Now) that
// stands still until the test moves it with clock.Add.
func newClockedClient(tb testing.TB, optFns ...func(*Options)) (*Client, *counter, string, *fakeClock) {
	tb.Helper()
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	c, cnt, p := newTestClient(tb, append([]func(*Options){func(o *Options) { o.Now = clock.Now }}, optFns...)...)
	return c, cnt, p, clock
}

// fakeClock is a clock (Options.Now) that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeClock) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }
func (f *fakeClock) Add(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// counter is a DynamoDBAPI that counts requests, items read and capacity
// consumed, for tests and benchmarks.
type counter struct {
	db       DynamoDBAPI
	requests atomic.Int64
	reads    atomic.Int64 // items read (returned or scanned)
	// cancelled counts cancelled transactions; conflicts those cancelled
	// by a concurrent transaction (TransactionConflict).
	cancelled, conflicts atomic.Int64
	mu                   sync.Mutex
	byOp                 map[string]int64
	capacity             float64
}

func (c *counter) count(op string, cc ...types.ConsumedCapacity) {
	c.requests.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byOp == nil {
		c.byOp = map[string]int64{}
	}
	c.byOp[op]++
	for _, x := range cc {
		if x.CapacityUnits != nil {
			c.capacity += *x.CapacityUnits
		}
	}
}

// units is the capacity consumed since the last reset, as DynamoDB
// reported it (ReturnConsumedCapacity TOTAL).
func (c *counter) units() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.capacity
}

// reset zeroes the counts.
func (c *counter) reset() {
	c.requests.Store(0)
	c.reads.Store(0)
	c.cancelled.Store(0)
	c.conflicts.Store(0)
	c.mu.Lock()
	c.byOp, c.capacity = nil, 0
	c.mu.Unlock()
}

func (c *counter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ops []string
	for op, n := range c.byOp {
		ops = append(ops, fmt.Sprintf("%s=%d", op, n))
	}
	return fmt.Sprintf("%d requests (%s), %d items read", c.requests.Load(), strings.Join(ops, " "), c.reads.Load())
}

// measured sends a request that asked for its consumed capacity and
// counts it as op, with the capacity and items read that used finds in its
// output when it succeeded.
func measured[O any](c *counter, op string, send func() (*O, error), used func(*O) ([]types.ConsumedCapacity, int)) (*O, error) {
	out, err := send()
	if err != nil {
		c.count(op)
		return out, err
	}
	cc, reads := used(out)
	c.count(op, cc...)
	c.reads.Add(int64(reads))
	return out, nil
}

func (c *counter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	return measured(c, "GetItem", func() (*dynamodb.GetItemOutput, error) { return c.db.GetItem(ctx, in, o...) },
		func(out *dynamodb.GetItemOutput) ([]types.ConsumedCapacity, int) {
			return deref(out.ConsumedCapacity), min(len(out.Item), 1)
		})
}

func (c *counter) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	return measured(c, "Query", func() (*dynamodb.QueryOutput, error) { return c.db.Query(ctx, in, o...) },
		func(out *dynamodb.QueryOutput) ([]types.ConsumedCapacity, int) {
			return deref(out.ConsumedCapacity), int(out.ScannedCount)
		})
}

func (c *counter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	return measured(c, "BatchGetItem", func() (*dynamodb.BatchGetItemOutput, error) { return c.db.BatchGetItem(ctx, in, o...) },
		func(out *dynamodb.BatchGetItemOutput) ([]types.ConsumedCapacity, int) {
			n := 0
			for _, items := range out.Responses {
				n += len(items)
			}
			return out.ConsumedCapacity, n
		})
}

func (c *counter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	out, err := measured(c, "TransactWriteItems", func() (*dynamodb.TransactWriteItemsOutput, error) { return c.db.TransactWriteItems(ctx, in, o...) },
		func(out *dynamodb.TransactWriteItemsOutput) ([]types.ConsumedCapacity, int) {
			return out.ConsumedCapacity, 0
		})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		c.cancelled.Add(1)
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && *r.Code == "TransactionConflict" {
				c.conflicts.Add(1)
				break
			}
		}
	}
	var tc *types.TransactionConflictException
	if errors.As(err, &tc) {
		c.conflicts.Add(1)
	}
	return out, err
}

func (c *counter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	return measured(c, "UpdateItem", func() (*dynamodb.UpdateItemOutput, error) { return c.db.UpdateItem(ctx, in, o...) },
		func(out *dynamodb.UpdateItemOutput) ([]types.ConsumedCapacity, int) {
			return deref(out.ConsumedCapacity), 0
		})
}

func (c *counter) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	c.count("DescribeTable")
	return c.db.DescribeTable(ctx, in, o...)
}

func (c *counter) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	c.count("CreateTable")
	return c.db.CreateTable(ctx, in, o...)
}

func deref(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}

// scanTable returns every item of the test table under keys starting with
// prefix, as "key/sk" strings: a test's view of exactly what was written.
func scanTable(t testing.TB, prefix string) []string {
	t.Helper()
	var out []string
	for _, it := range rawItemsOf(t, prefix) {
		key := string(model.BytesAttr(it, model.AttrPK)[1:])
		if strings.HasPrefix(key, prefix) {
			out = append(out, fmt.Sprintf("%s/%x/%x/%d", key, model.BytesAttr(it, model.AttrSK), model.BytesAttr(it, model.AttrIX), model.DecodeMeta(it).Card))
		}
	}
	return out
}

// rawItems returns every item of the test table, read straight from it
// (strongly consistent Scans), past redimo.
func rawItems(t testing.TB) (out []model.Item) {
	t.Helper()
	return rawItemsOf(t, "")
}

// rawItemsOf returns the items of the keys that start with prefix, in any
// namespace, among the partitions the run's requests named (every client
// of the tests sends through attrChecker), read with strongly consistent
// Queries; with prefix "", every item of the table (a Scan).
func rawItemsOf(t testing.TB, prefix string) (out []model.Item) {
	t.Helper()
	if prefix != "" {
		// Only the partitions of keys under prefix that a request named
		// (notePartitions): a Scan, even filtered, reads the whole shared
		// table, which the suite fills with big keys.
		partitions.Range(func(pk, _ any) bool {
			if s := pk.(string); len(s) > 1 && strings.HasPrefix(s[1:], prefix) {
				out = append(out, rawPartition(t, []byte(s))...)
			}
			return true
		})
		return out
	}
	in := &dynamodb.ScanInput{TableName: &testTable, ConsistentRead: aws.Bool(true)}
	for p := dynamodb.NewScanPaginator(testDB, in); p.HasMorePages(); {
		page, err := p.NextPage(context.Background())
		require.NoError(t, err)
		out = append(out, dataItems(page.Items)...)
	}
	return out
}

// dataItems is items without those kept for write tokens alone.
func dataItems(items []model.Item) []model.Item {
	return slices.DeleteFunc(items, model.KeptForTokens)
}

// rawPartition returns the items of the test table under the partition
// key pk, read straight from it (strongly consistent Queries), but the
// metadata items of missing keys kept for their write tokens
// (model.KeptForTokens: no data; smallset.go).
func rawPartition(t testing.TB, pk []byte) (out []model.Item) {
	t.Helper()
	for p := dynamodb.NewQueryPaginator(testDB, &dynamodb.QueryInput{
		TableName: &testTable, ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": model.AttrPK},
		ExpressionAttributeValues: model.Item{":pk": model.Bin(pk)},
	}); p.HasMorePages(); {
		page, err := p.NextPage(context.Background())
		require.NoError(t, err)
		out = append(out, dataItems(page.Items)...)
	}
	return out
}

// rawGet reads the item at key straight from the test table (strongly
// consistent); nil when there is none.
func rawGet(t testing.TB, key model.Item) model.Item {
	t.Helper()
	out, err := testDB.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &testTable, Key: key, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Item
}

// returns checks a command's reply: returns(t, want)(c.SCard(ctx, k))
// requires no error and want.
func returns[T any](t testing.TB, want T) func(T, error) {
	return func(got T, err error) {
		t.Helper()
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
}

// numbered is n members, fmt.Sprintf(format, i) for i from 0.
func numbered(format string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

// byIndex scores each member by its index: ms[i] scored i.
func byIndex(ms []string) []Z {
	out := make([]Z, len(ms))
	for i, m := range ms {
		out[i] = Z{Score: float64(i), Member: m}
	}
	return out
}

// addAll adds ms to k: SADD, or with zset ZADD with each member scored
// by its index.
func addAll(ctx context.Context, c *Client, k string, zset bool, ms ...string) (int64, error) {
	if zset {
		return c.ZAdd(ctx, k, byIndex(ms)...)
	}
	return c.SAdd(ctx, k, ms...)
}

// runWorkers runs work(0) … work(n-1) concurrently and waits for them all.
func runWorkers(n int, work func(w int)) {
	startWorkers(n, work)()
}

// startWorkers starts work(0) … work(n-1) concurrently and returns a
// function that waits for them all.
func startWorkers(n int, work func(w int)) (wait func()) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	return wg.Wait
}
