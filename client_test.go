package redimo

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/local"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/testenv"
)

func TestCreateTable(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	name := "redimo_ct_" + randomHex(4)
	c := NewClient(testDB, func(o *Options) { o.TableName = name })
	require.NoError(t, c.CreateTable(ctx))
	require.NoError(t, c.CreateTable(ctx), "a no-op when the table exists with the right schema")
	n, err := c.SAdd(ctx, "k", "a")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)

	// A table with another schema is refused, not used.
	other := "redimo_ct_other_" + randomHex(4)
	_, err = testDB.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(other),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	err = NewClient(testDB, func(o *Options) { o.TableName = other }).CreateTable(ctx)
	require.ErrorIs(t, err, ErrTableMismatch)

	// The right keys but no index under the configured name.
	err = NewClient(testDB, func(o *Options) { o.TableName = name; o.IndexName = "nope" }).CreateTable(ctx)
	require.ErrorIs(t, err, ErrTableMismatch)
}

func TestOptionsDefaults(t *testing.T) {
	o := NewClient(nil).Options()
	require.Equal(t, DefaultTableName, o.TableName)
	require.Equal(t, DefaultIndexName, o.IndexName)
	require.Equal(t, DefaultMaxAttempts, o.MaxAttempts)
	require.Equal(t, DefaultParallelism, o.Parallelism)
	require.False(t, o.EventuallyConsistent)
	require.NotNil(t, o.Now)
}

func TestEventuallyConsistentReads(t *testing.T) {
	ctx, c, _, p := setup(t, func(o *Options) { o.EventuallyConsistent = true })
	_, err := c.SAdd(ctx, p+"k", "a", "b")
	require.NoError(t, err)
	// DynamoDB Local is always consistent; this checks that the requests
	// are accepted with ConsistentRead false, on the table and the index.
	members, err := c.SMembers(ctx, p+"k")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, members)
	_, err = c.SRandMemberN(ctx, p+"k", 1)
	require.NoError(t, err)
	ok, err := c.SIsMember(ctx, p+"k", "a")
	require.NoError(t, err)
	require.True(t, ok)
}

// Each setup mistake a newcomer makes gives an error that errors.Is can
// tell and whose message names the fix.
func requireSetupError(t *testing.T, err, problem error, fixes ...string) {
	t.Helper()
	require.ErrorIs(t, err, problem)
	var se *SetupError
	require.ErrorAs(t, err, &se)
	for _, fix := range fixes {
		require.Contains(t, err.Error(), fix)
	}
	require.NotContains(t, err.Error(), "redimo: redimo:")
	require.Equal(t, 1, strings.Count(err.Error(), "redimo: "), "one prefix: %v", err)
}

func TestSetupTableNotFound(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	c := NewClient(testDB, func(o *Options) { o.TableName = "no_such_table_" + randomHex(3) })
	_, err := c.SAdd(ctx, "k", "a")
	requireSetupError(t, err, ErrTableNotFound, `redimo: SADD: table "no_such_table_`, "Client.CreateTable", "redimo create-table", "--create-table")
	var nf *types.ResourceNotFoundException
	require.ErrorAs(t, err, &nf, "the SDK's error stays reachable")

	_, err = c.ZRevRangeWithScores(ctx, "k", 0, 9) // a read, two requests in parallel
	requireSetupError(t, err, ErrTableNotFound, "CreateTable")

	err = c.CheckTable(ctx)
	requireSetupError(t, err, ErrTableNotFound, "redimo: CheckTable: table", "CreateTable")

	require.NoError(t, NewClient(testDB, func(o *Options) { o.TableName = testTable }).CheckTable(ctx))
}

func TestSetupNoRegion(t *testing.T) {
	c := NewClient(dynamodb.NewFromConfig(aws.Config{Credentials: aws.AnonymousCredentials{}}))
	_, err := c.SCard(context.Background(), "k")
	requireSetupError(t, err, ErrNoRegion, "AWS_REGION", "--region", "--endpoint")
}

func TestSetupNoCredentials(t *testing.T) {
	// The default credential chain with nothing to find: no variables, no
	// files, no instance metadata.
	testenv.IsolateAWS(t)
	t.Setenv("AWS_REGION", "us-east-1")
	cfg, err := config.LoadDefaultConfig(context.Background())
	require.NoError(t, err)
	c := NewClient(dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String("http://127.0.0.1:1") // never reached: signing fails first
	}))
	_, err = c.SAdd(context.Background(), "k", "a")
	requireSetupError(t, err, ErrNoCredentials, "AWS_ACCESS_KEY_ID", "AWS_PROFILE", "--endpoint")
}

func TestSetupUnreachable(t *testing.T) {
	c := NewClient(local.Client("http://127.0.0.1:1", nil, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }))
	_, err := c.SIsMember(context.Background(), "k", "a")
	requireSetupError(t, err, ErrUnreachable, "--endpoint", "BaseEndpoint") // issue 24: no repository-only command (make) in a library error

	// A cancelled context is the caller's doing, not a setup mistake.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.SIsMember(ctx, "k", "a")
	require.NotErrorIs(t, err, ErrUnreachable)
}

func TestExportedMethod(t *testing.T) {
	for fn, want := range map[string]string{
		"github.com/redimo-go/redimo.(*Client).SAdd":            "SAdd",
		"github.com/redimo-go/redimo.(*Client).SScan.func1":     "SScan",
		"github.com/redimo-go/redimo.(*Client).SScan.func1.2":   "SScan",
		"main.main.(*Client).SScan.func2.(*Client).query.func3": "SScan",
		"main.(*Client).Run.(*Client).SScan.func2":              "SScan",
		"github.com/redimo-go/redimo.(*ShardedSet).Add":         "ShardedSet.Add",
		"github.com/redimo-go/redimo.(*RateLimiter).Allow":      "RateLimiter.Allow",
		"github.com/redimo-go/redimo.(*Client).transact":        "",
		"github.com/redimo-go/redimo.(*ShardedSet).write.func1": "",
		"github.com/redimo-go/redimo.wrap":                      "",
		"main.main":                                             "",
	} {
		require.Equal(t, want, exportedMethod(fn), fn)
	}
}

// metricsLog collects what Options.Metrics reports.
type metricsLog struct {
	mu   sync.Mutex
	reqs []Request
}

func (l *metricsLog) record(_ context.Context, r Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r)
}

// take returns the requests reported since the last take.
func (l *metricsLog) take() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.reqs
	l.reqs = nil
	return r
}

// TestMetrics: every request is reported with the command that made it
// (parallel requests included), and the capacity units add up to what
// DynamoDB Local reported to the test's own counter.
func TestMetrics(t *testing.T) {
	var log metricsLog
	// Member items (small sets: TestSmallSetRequests).
	ctx, c, cnt, k := setup(t, func(o *Options) { o.Metrics = log.record; o.DisableSmallSets = true; o.DisableSmallSortedSets = true })
	for _, tc := range []struct {
		command string
		run     func() error
		ops     map[string]int // DynamoDB requests by operation
		read    bool           // it consumes read units
		write   bool           // it consumes write units
	}{
		{"SAdd", func() error { _, err := c.SAdd(ctx, k+"s", "a", "b", "c"); return err },
			map[string]int{"TransactWriteItems": 1}, false, true},
		// The Client wrote the set as member items (knownBig): the metadata
		// item and the member in one BatchGetItem.
		{"SIsMember", func() error { _, err := c.SIsMember(ctx, k+"s", "a"); return err },
			map[string]int{"BatchGetItem": 1}, true, false},
		{"SInter", func() error { _, err := c.SInter(ctx, k+"s", k+"s"); return err }, nil, true, false},
		{"ZAdd", func() error { _, err := c.ZAdd(ctx, k+"z", Z{1, "a"}, Z{2, "b"}); return err },
			map[string]int{"TransactWriteItems": 1}, false, true},
		{"ZRevRangeWithScores", func() error { _, err := c.ZRevRangeWithScores(ctx, k+"z", 0, 0); return err },
			map[string]int{"Query": 1, "GetItem": 1}, true, false},
		{"SScan", func() error {
			for _, err := range c.SScan(ctx, k+"s", "*") {
				if err != nil {
					return err
				}
			}
			return nil
		}, nil, true, false},
		{"ShardedSet.Add", func() error { _, err := c.ShardedSet(k+"sh", 4).Add(ctx, "a", "b", "c", "d", "e"); return err }, nil, false, true},
		{"Expire", func() error { _, err := c.Expire(ctx, k+"s", time.Hour); return err },
			map[string]int{"GetItem": 1, "UpdateItem": 1}, true, true},
	} {
		cnt.reset()
		require.NoError(t, tc.run(), tc.command)
		reqs := log.take()
		require.NotEmpty(t, reqs, tc.command)
		ops := map[string]int{}
		var read, write float64
		for _, r := range reqs {
			require.Equal(t, tc.command, r.Command, "%+v", r)
			require.GreaterOrEqual(t, r.Attempts, 1)
			require.Positive(t, r.Latency)
			ops[r.Operation]++
			read += r.ReadUnits
			write += r.WriteUnits
		}
		if tc.ops != nil {
			require.Equal(t, tc.ops, ops, tc.command)
		}
		require.Equal(t, int(cnt.requests.Load()), len(reqs), tc.command)
		require.InDelta(t, cnt.units(), read+write, 1e-9, "%s: the units DynamoDB reported", tc.command)
		require.Equal(t, tc.read, read > 0, "%s read %v", tc.command, read)
		require.Equal(t, tc.write, write > 0, "%s wrote %v", tc.command, write)
	}
}

// TestPricedUnits: the cost model (price.go) on redimo's own requests to
// DynamoDB Local, which reports the units of one item for a whole
// transaction and no index writes: 2 WCU per KB of each item a
// transaction writes, 2 per index entry it puts or deletes (4 when a
// changed index key deletes one and puts one), reads as reported.
func TestPricedUnits(t *testing.T) {
	var log metricsLog
	// Member items: the units of member-item writes (small sets:
	// TestSmallSetRequests).
	ctx, c, _, k := setup(t, func(o *Options) { o.Metrics = log.record; o.DisableSmallSets = true; o.DisableSmallSortedSets = true })
	// one checks the command's last request (before it, a ZADD's first
	// try may be cancelled).
	one := func(what string, wcu, rcu float64) {
		t.Helper()
		reqs := log.take()
		for _, r := range reqs[:len(reqs)-1] {
			require.Error(t, r.Err, what)
		}
		r := reqs[len(reqs)-1]
		require.Equal(t, wcu, r.PricedWriteUnits, "%s: write units", what)
		require.Equal(t, rcu, r.PricedReadUnits, "%s: read units", what)
		if r.Operation == "TransactWriteItems" {
			require.Equal(t, wcu, r.TransactWriteUnits, what)
		} else {
			require.Zero(t, r.TransactWriteUnits, what)
		}
	}
	must := func(_ any, err error) { t.Helper(); require.NoError(t, err) }

	must(c.SAdd(ctx, k+"s", numbered("m%d", 10)...))
	one("SADD of 10 to a new key: 10 member items (no index entry: internal/model/keys.go), the metadata item (its by_key entry, made once per key, is not seen)", 22, 0)
	must(c.SAdd(ctx, k+"s", "n"))
	one("SADD of 1 to a set: member item, metadata item", 4, 0)
	must(c.SAdd(ctx, k+"big", strings.Repeat("x", 1000)))
	one("SADD of a 1,000-byte member: its item is over 1 KB", 6, 0)
	must(c.SRem(ctx, k+"s", "n"))
	one("SREM: member item, metadata item", 4, 0)
	must(c.SAdd(ctx, k+"s", "m1"))
	reqs := log.take()
	require.Len(t, reqs, 1)
	require.Error(t, reqs[0].Err, "cancelled: m1 is there")
	require.Equal(t, 4.0, reqs[0].PricedWriteUnits, "SADD of a member already there: a cancelled transaction costs its 2 items' units, no index entry")
	require.Zero(t, reqs[0].TransactWriteUnits, "the deprecated field stays as it was: committed transactions only")
	must(c.SCard(ctx, k+"s"))
	one("SCARD: one item read, as reported", 0, 1)

	must(c.ZAdd(ctx, k+"z", Z{Score: 1, Member: "a"}, Z{Score: 2, Member: "b"}))
	one("ZADD of 2 new members", 10, 0)
	must(c.ZAdd(ctx, k+"z", Z{Score: 3, Member: "a"}))
	one("ZADD of a new score: member item, its by_ix entry deleted and put, metadata item", 8, 0)

	must(c.Expire(ctx, k+"z", time.Hour))
	log.take() // the GetItem
	must(c.Persist(ctx, k+"z"))
	one("PERSIST: UpdateItem of the metadata item, x (projected into by_key) removed", 2, 0)

	if ttl, err := c.view().memberTTL(ctx); err == nil && ttl {
		must(c.SExpire(ctx, k+"s", time.Hour, ExpireAlways, "m1"))
		reqs := log.take()
		last := reqs[len(reqs)-1]
		require.Equal(t, 8.0, last.PricedWriteUnits, "SEXPIRE of a member: its item, by_exp entry put, metadata item and its by_key entry (mn projected)")
	}
}

// TestPricedMissingReads: a read of an item that is not there is priced as
// DynamoDB bills it, one read unit strongly consistent (half eventually
// consistent), though DynamoDB Local reports 0 for the missing items of a
// BatchGetItem.
func TestPricedMissingReads(t *testing.T) {
	var log metricsLog
	ctx, c, _, k := setup(t, func(o *Options) { o.Metrics = log.record; o.DisableSmallSets = true; o.DisableSmallSortedSets = true })
	_, err := c.SAdd(ctx, k+"s", "a")
	require.NoError(t, err)
	log.take()

	// A set of member items the Client wrote: the metadata item and the
	// three members in one strongly consistent BatchGetItem; two of the
	// members are missing.
	_, err = c.SMIsMember(ctx, k+"s", "a", "x", "y")
	require.NoError(t, err)
	reqs := log.take()
	require.Len(t, reqs, 1)
	require.Equal(t, "BatchGetItem", reqs[0].Operation)
	require.Equal(t, 4.0, reqs[0].PricedReadUnits, "4 keys read, 2 of them missing, a unit each (DynamoDB Local reported %v)", reqs[0].ReadUnits)

	// Only missing members: DynamoDB Local reports nothing at all.
	_, err = c.SMIsMember(ctx, k+"s", "x", "y", "z")
	require.NoError(t, err)
	reqs = log.take()
	require.Len(t, reqs, 1)
	require.Equal(t, 4.0, reqs[0].PricedReadUnits, "the metadata item and 3 missing members (DynamoDB Local reported %v)", reqs[0].ReadUnits)

	// A key that is not there, met by a Client that knows nothing of it:
	// one BatchGetItem of its metadata item and the member (setProbe),
	// both missing, a unit each.
	_, err = c.SIsMember(ctx, k+"none", "a")
	require.NoError(t, err)
	reqs = log.take()
	require.Len(t, reqs, 1)
	require.Equal(t, "BatchGetItem", reqs[0].Operation)
	require.Equal(t, 2.0, reqs[0].PricedReadUnits, "%+v", reqs[0])
}

// TestMetricsAttempts: a request the SDK retried reports its attempts.
func TestMetricsAttempts(t *testing.T) {
	needDB(t)
	var log metricsLog
	fail := &failFirst{next: http.DefaultTransport}
	fail.left.Store(1)
	c := NewClient(local.Client(testEndpoint, attrChecker{next: fail}), func(o *Options) {
		o.TableName = testTable
		o.Metrics = log.record
	})
	_, err := c.SCard(context.Background(), "attempts:"+randomHex(3))
	require.NoError(t, err)
	reqs := log.take()
	require.Len(t, reqs, 1)
	require.Equal(t, 2, reqs[0].Attempts)
	require.Equal(t, "SCard", reqs[0].Command)
}

// failFirst answers its first requests with HTTP 500 (which the SDK retries).
type failFirst struct {
	next http.RoundTripper
	left atomic.Int64
}

func (f *failFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.left.Add(-1) >= 0 {
		return &http.Response{StatusCode: 500, Status: "500 Internal Server Error", Header: http.Header{},
			Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
	}
	return f.next.RoundTrip(r)
}

func TestIsConflict(t *testing.T) {
	require.True(t, model.IsConflict(&types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{
		{Code: aws.String("None")}, {Code: aws.String("TransactionConflict")}}}))
	require.False(t, model.IsConflict(&types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{
		{Code: aws.String("ConditionalCheckFailed")}}}))
	require.True(t, model.IsConflict(&types.TransactionConflictException{}))
	require.False(t, model.IsConflict(errors.New("x")))
}
