package ddbmodel

// Each rule of the model, shown against DynamoDB Local at
// REDIMO_TEST_ENDPOINT (make test sets it), with the SDK's retries off so
// that the raw answers are seen.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/testenv"
)

// The run's DynamoDB Local and its table, made by TestMain.
var testEndpoint, testTable string

// TestMain creates the run's table (pk S, sk S, a local secondary index on
// ix S) directly on DynamoDB Local.
func TestMain(m *testing.M) {
	testTable = "ddbmodel_test_" + testenv.RandomHex(4)
	if testEndpoint = testenv.MainEndpoint(); testEndpoint != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		db := newClient(http.DefaultTransport)
		s := types.ScalarAttributeTypeS
		_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:   aws.String(testTable),
			BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("pk"), AttributeType: s},
				{AttributeName: aws.String("sk"), AttributeType: s},
				{AttributeName: aws.String("ix"), AttributeType: s},
			},
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
			},
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
				IndexName: aws.String("by_ix"),
				KeySchema: []types.KeySchemaElement{
					{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
					{AttributeName: aws.String("ix"), KeyType: types.KeyTypeRange},
				},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			}},
		})
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "cannot create table %s at %s: %v\n", testTable, testEndpoint, err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// client returns a model of cfg and a client that goes through it, with
// the SDK's retries off.
func client(t *testing.T, cfg Config) (*Model, *dynamodb.Client) {
	t.Helper()
	testenv.NeedEndpoint(t)
	m := New(cfg)
	return m, newClient(m.Transport(nil))
}

// newClient is a client of DynamoDB Local through transport, with the
// SDK's retries off (as internal/local builds them; that package imports
// this one).
func newClient(transport http.RoundTripper) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:                          "us-east-1",
		Credentials:                     credentials.NewStaticCredentialsProvider("local", "local", ""),
		BaseEndpoint:                    aws.String(testEndpoint),
		HTTPClient:                      &http.Client{Transport: transport},
		Retryer:                         aws.NopRetryer{},
		DisableValidateResponseChecksum: true,
	})
}

// quiet is a model without latency, conflicts or throttling; tests switch
// on what they show.
func quiet() Config {
	c := DefaultConfig()
	c.ReadLatency, c.WriteLatency, c.TransactLatency, c.Jitter = 0, 0, 0, 0
	c.NoConflicts, c.NoThrottling = true, true
	return c
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk)}
}

func put(pk, sk string) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(testTable), Item: key(pk, sk)}}
}

// transactPut writes items (put's) in one TransactWriteItems.
func transactPut(ctx context.Context, db *dynamodb.Client, items ...types.TransactWriteItem) error {
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// inFlightClient is client with transactions that conflict and stay in
// flight for 400 ms, long enough to be met by other requests.
func inFlightClient(t *testing.T) (*Model, *dynamodb.Client) {
	cfg := quiet()
	cfg.NoConflicts = false
	// Long enough for the requests a test sends while the transaction is
	// in flight, on a loaded machine: at 400 ms make test saw one
	// TransactGetItems arrive after the commit.
	cfg.TransactLatency = 2 * time.Second
	return client(t, cfg)
}

func putItem(ctx context.Context, db *dynamodb.Client, pk, sk string) error {
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(testTable), Item: key(pk, sk)})
	return err
}

// waitInFlight returns once n items are held by transactions in flight.
func waitInFlight(t *testing.T, m *Model, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		held := 0
		for _, f := range m.inflight {
			if f.tx > 0 {
				held++
			}
		}
		return held >= n
	}, 10*time.Second, time.Millisecond)
}

func TestLatency(t *testing.T) {
	cfg := quiet()
	cfg.ReadLatency, cfg.WriteLatency, cfg.TransactLatency = 20*time.Millisecond, 40*time.Millisecond, 80*time.Millisecond
	cfg.Jitter = 0.5
	_, db := client(t, cfg)
	ctx := context.Background()
	p := "lat-" + testenv.RandomHex(3)
	timed := func(f func() error) time.Duration {
		start := time.Now()
		require.NoError(t, f())
		return time.Since(start)
	}
	var reads []time.Duration
	for i := range 12 {
		w := timed(func() error { return putItem(ctx, db, p, fmt.Sprint(i)) })
		require.GreaterOrEqual(t, w, 20*time.Millisecond, "a write takes at least WriteLatency×(1-Jitter)")
		r := timed(func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(testTable), Key: key(p, fmt.Sprint(i))})
			return err
		})
		require.GreaterOrEqual(t, r, 10*time.Millisecond, "a read takes at least ReadLatency×(1-Jitter)")
		reads = append(reads, r)
	}
	tx := timed(func() error { return transactPut(ctx, db, put(p, "tx")) })
	require.GreaterOrEqual(t, tx, 40*time.Millisecond, "a transaction takes at least TransactLatency×(1-Jitter)")
	lo, hi := reads[0], reads[0]
	for _, r := range reads {
		lo, hi = min(lo, r), max(hi, r)
	}
	require.Greater(t, hi-lo, time.Millisecond, "jitter spreads the latencies: %v", reads)
}

func TestOverlappingTransactionsConflict(t *testing.T) {
	m, db := inFlightClient(t)
	ctx := context.Background()
	p := "tx-" + testenv.RandomHex(3)

	first := make(chan error, 1)
	go func() {
		err := transactPut(ctx, db, put(p, "a"), put(p, "b"))
		first <- err
	}()
	waitInFlight(t, m, 2)
	// The second shares item b with the first, which is still in flight.
	err := transactPut(ctx, db, put(p, "c"), put(p, "b"), put(p, "d"))
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce, "the SDK decodes the model's answer")
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	require.Equal(t, []string{"None", "TransactionConflict", "None"}, codes)
	require.Equal(t, "Transaction is ongoing for the item", aws.ToString(tce.CancellationReasons[1].Message))

	require.NoError(t, <-first, "the transaction in flight commits")
	err = transactPut(ctx, db, put(p, "c"), put(p, "b"), put(p, "d"))
	require.NoError(t, err, "once the first has finished, the second goes through")
	st := m.Stats()["TransactWriteItems"]
	require.Equal(t, OpStats{Requests: 3, Conflicts: 1, WCU: 2 * 5}, st)
}

func TestSingleWritesAndReadsDuringTransaction(t *testing.T) {
	m, db := inFlightClient(t)
	ctx := context.Background()
	p := "single-" + testenv.RandomHex(3)
	require.NoError(t, putItem(ctx, db, p, "b"))

	done := make(chan error, 1)
	go func() {
		err := transactPut(ctx, db, put(p, "a"), put(p, "b"))
		done <- err
	}()
	waitInFlight(t, m, 2)

	var conflict *types.TransactionConflictException
	require.ErrorAs(t, putItem(ctx, db, p, "b"), &conflict, "PutItem of an item in a transaction")
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(testTable), Key: key(p, "a"),
		UpdateExpression:          aws.String("SET v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("x")},
	})
	require.ErrorAs(t, err, &conflict, "UpdateItem of an item in a transaction")
	_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(testTable), Key: key(p, "b")})
	require.ErrorAs(t, err, &conflict, "DeleteItem of an item in a transaction")
	require.NoError(t, putItem(ctx, db, p, "z"), "another item of the same partition is free")

	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(testTable), Key: key(p, "b"), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err, "GetItem is not blocked by a transaction")
	require.NotNil(t, out.Item)

	_, err = db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String(testTable), Key: key(p, "z")}},
		{Get: &types.Get{TableName: aws.String(testTable), Key: key(p, "b")}},
	}})
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce, "TransactGetItems of an item in a transaction")
	require.Equal(t, "None", aws.ToString(tce.CancellationReasons[0].Code))
	require.Equal(t, "TransactionConflict", aws.ToString(tce.CancellationReasons[1].Code))

	require.NoError(t, <-done)
	require.NoError(t, putItem(ctx, db, p, "b"), "after the transaction the item is free again")
	st := m.Stats()
	require.EqualValues(t, 1, st["PutItem"].Conflicts)
	require.EqualValues(t, 1, st["UpdateItem"].Conflicts)
	require.EqualValues(t, 1, st["DeleteItem"].Conflicts)
	require.EqualValues(t, 1, st["TransactGetItems"].Conflicts)
	require.EqualValues(t, 0, st["GetItem"].Conflicts)
}

func TestHotPartitionThrottled(t *testing.T) {
	cfg := quiet()
	cfg.NoThrottling = false
	cfg.PartitionWCU, cfg.Burst = 5, 10*time.Second // 50 units banked, 5 a second
	m, db := client(t, cfg)
	ctx := context.Background()
	p := "hot-" + testenv.RandomHex(3)

	start := time.Now()
	ok, throttled := 0, 0
	for i := range 150 {
		err := putItem(ctx, db, p, fmt.Sprint(i))
		var pte *types.ProvisionedThroughputExceededException
		switch {
		case err == nil:
			ok++
		case errors.As(err, &pte):
			throttled++
			require.Len(t, pte.ThrottlingReasons, 1)
			require.Equal(t, "TableWriteKeyRangeThroughputExceeded", aws.ToString(pte.ThrottlingReasons[0].Reason))
			require.Contains(t, aws.ToString(pte.ThrottlingReasons[0].Resource), testTable)
		default:
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	require.Positive(t, throttled, "a partition written faster than its budget is throttled")
	require.LessOrEqual(t, float64(ok), 50+5*elapsed.Seconds()+1, "accepted writes stay within burst + rate × time")

	// Other partitions keep their own budgets.
	for i := range 40 {
		require.NoError(t, putItem(ctx, db, fmt.Sprintf("cold-%s-%d", p, i), "x"), "a cold partition is not throttled")
	}
	require.EqualValues(t, throttled, m.Stats()["PutItem"].Throttles)
}

func TestTransactionalWritesCostTwice(t *testing.T) {
	m, db := client(t, quiet())
	ctx := context.Background()
	p := "cost-" + testenv.RandomHex(3)
	tx := func(items ...types.TransactWriteItem) { require.NoError(t, transactPut(ctx, db, items...)) }
	wcu := func(op string) float64 { return m.Stats()[op].WCU }

	require.NoError(t, putItem(ctx, db, p, "small"))
	tx(put(p, "small-tx"))
	require.Equal(t, 1.0, wcu("PutItem"), "a write of an item up to 1 KB: 1 WCU")
	require.Equal(t, 2.0, wcu("TransactWriteItems"), "the same in a transaction: 2 WCU")

	m.ResetStats()
	big := key(p, "big")
	big["v"] = s(strings.Repeat("x", 1500)) // 2 KB with the rounding up
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(testTable), Item: big})
	require.NoError(t, err)
	big["sk"] = s("big-tx")
	tx(types.TransactWriteItem{Put: &types.Put{TableName: aws.String(testTable), Item: big}})
	require.Equal(t, 2.0, wcu("PutItem"))
	require.Equal(t, 4.0, wcu("TransactWriteItems"))

	m.ResetStats()
	indexed := key(p, "indexed")
	indexed["ix"] = s("0001") // one more write: the local secondary index entry
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(testTable), Item: indexed})
	require.NoError(t, err)
	require.Equal(t, 2.0, wcu("PutItem"))

	// Under a budget, a transaction takes twice the share of a write:
	// with 40 units banked (and almost no refill), 40 single puts pass but
	// only 20 transactional ones.
	cfg := quiet()
	cfg.NoThrottling = false
	cfg.PartitionWCU, cfg.Burst = 0.1, 400*time.Second
	passed := func(write func(i int) error) int {
		n := 0
		for i := range 60 {
			if write(i) == nil {
				n++
			}
		}
		return n
	}
	_, db = client(t, cfg)
	require.Equal(t, 40, passed(func(i int) error { return putItem(ctx, db, p+"-budget1", fmt.Sprint(i)) }))
	_, db = client(t, cfg)
	require.Equal(t, 20, passed(func(i int) error {
		err := transactPut(ctx, db, put(p+"-budget2", fmt.Sprint(i)))
		var tce *types.TransactionCanceledException
		if errors.As(err, &tce) {
			require.Equal(t, "ThrottlingError", aws.ToString(tce.CancellationReasons[0].Code))
		}
		return err
	}))
}

func TestReadCapacity(t *testing.T) {
	m, db := client(t, quiet())
	ctx := context.Background()
	p := "read-" + testenv.RandomHex(3)
	require.NoError(t, putItem(ctx, db, p, "a"))
	get := func(sk string, consistent bool) {
		_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(testTable), Key: key(p, sk), ConsistentRead: aws.Bool(consistent)})
		require.NoError(t, err)
	}
	get("a", true)
	get("a", false)
	get("absent", true)
	require.Equal(t, 1+0.5+1, m.Stats()["GetItem"].RCU)

	// A hot partition's reads are throttled; BatchGetItem returns its keys
	// unprocessed and reads the others.
	cfg := quiet()
	cfg.NoThrottling = false
	cfg.PartitionRCU, cfg.Burst = 0.1, 30*time.Second // 3 units banked
	m, db = client(t, cfg)
	for range 3 {
		get("a", true)
	}
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(testTable), Key: key(p, "a"), ConsistentRead: aws.Bool(true)})
	var pte *types.ProvisionedThroughputExceededException
	require.ErrorAs(t, err, &pte)
	require.Equal(t, "TableReadKeyRangeThroughputExceeded", aws.ToString(pte.ThrottlingReasons[0].Reason))

	other := "read-other-" + testenv.RandomHex(3)
	require.NoError(t, putItem(ctx, db, other, "a"))
	out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		testTable: {Keys: []map[string]types.AttributeValue{key(p, "a"), key(other, "a")}, ConsistentRead: aws.Bool(true)},
	}})
	require.NoError(t, err)
	require.Len(t, out.Responses[testTable], 1)
	require.Equal(t, other, out.Responses[testTable][0]["pk"].(*types.AttributeValueMemberS).Value)
	require.Len(t, out.UnprocessedKeys[testTable].Keys, 1)
	require.Equal(t, p, out.UnprocessedKeys[testTable].Keys[0]["pk"].(*types.AttributeValueMemberS).Value)
	require.True(t, aws.ToBool(out.UnprocessedKeys[testTable].ConsistentRead))

	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		testTable: {Keys: []map[string]types.AttributeValue{key(p, "a")}},
	}})
	require.ErrorAs(t, err, &pte, "a batch with only throttled keys fails")

	// A Query of the hot partition, through the index too, is throttled.
	_, err = db.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(testTable), IndexName: aws.String("by_ix"),
		KeyConditionExpression:    aws.String("#p = :p"),
		ExpressionAttributeNames:  map[string]string{"#p": "pk"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(p)},
	})
	require.ErrorAs(t, err, &pte)
	q, err := db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(testTable),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(other)},
	})
	require.NoError(t, err)
	require.Len(t, q.Items, 1)
	require.Nil(t, q.ConsumedCapacity, "the capacity the model asked for is not passed on")
	require.Positive(t, m.Stats()["Query"].RCU)
}

// TestConcurrentTransactionsOnOneItem: many writers of one item through one
// model; every transaction either commits or is cancelled by a conflict,
// and the conflicts counted are the ones the clients saw.
func TestConcurrentTransactionsOnOneItem(t *testing.T) {
	cfg := quiet()
	cfg.NoConflicts = false
	cfg.TransactLatency, cfg.Jitter = 20*time.Millisecond, 0.5
	m, db := client(t, cfg)
	ctx := context.Background()
	p := "many-" + testenv.RandomHex(3)
	var (
		wg                  sync.WaitGroup
		mu                  sync.Mutex
		committed, conflict int
	)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				err := transactPut(ctx, db, put(p, "shared"), put(p, fmt.Sprintf("w%d-%d", w, i)))
				var tce *types.TransactionCanceledException
				mu.Lock()
				switch {
				case err == nil:
					committed++
				case errors.As(err, &tce):
					conflict++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 80, committed+conflict)
	require.Positive(t, conflict, "8 writers of one item conflict")
	require.EqualValues(t, conflict, m.Stats()["TransactWriteItems"].Conflicts)
	m.mu.Lock()
	defer m.mu.Unlock()
	require.Empty(t, m.inflight, "nothing stays in flight")
}

func TestParseConfig(t *testing.T) {
	d := DefaultConfig()
	for _, tc := range []struct {
		in   string
		want func(*Config)
		err  bool
	}{
		{in: "1", want: func(*Config) {}},
		{in: "on", want: func(*Config) {}},
		{in: "latency=1ms", want: func(c *Config) {
			c.ReadLatency, c.WriteLatency, c.TransactLatency = time.Millisecond, time.Millisecond, time.Millisecond
		}},
		{in: "read=2ms, tx=30ms,jitter=0", want: func(c *Config) {
			c.ReadLatency, c.TransactLatency, c.Jitter = 2*time.Millisecond, 30*time.Millisecond, 0
		}},
		{in: "wcu=500,rcu=1500,burst=2s", want: func(c *Config) { c.PartitionWCU, c.PartitionRCU, c.Burst = 500, 1500, 2*time.Second }},
		{in: "conflicts=off,throttling=false", want: func(c *Config) { c.NoConflicts, c.NoThrottling = true, true }},
		{in: "conflicts=on", want: func(*Config) {}},
		{in: "latency", err: true},
		{in: "speed=1", err: true},
		{in: "jitter=2", err: true},
		{in: "read=fast", err: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseConfig(tc.in)
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			want := d
			tc.want(&want)
			require.Equal(t, want, got)
		})
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(EnvVar, "latency=1ms,wcu=10")
	m, err := FromEnv()
	require.NoError(t, err)
	require.NotNil(t, m)
	require.Equal(t, time.Millisecond, m.Config().TransactLatency)
	require.Equal(t, 10.0, m.Config().PartitionWCU)
	again, err := FromEnv()
	require.NoError(t, err)
	require.Same(t, m, again, "one model per process")
}
