package redimo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/redimo-go/redimo/internal/store"
	"go.opentelemetry.io/otel/trace"
)

// DynamoDBAPI is the set of DynamoDB operations redimo calls: GetItem,
// Query, BatchGetItem, TransactWriteItems, UpdateItem, DescribeTable and
// CreateTable, each with the signature of *dynamodb.Client's method of the
// name (their one declaration is internal/store's API). A
// *dynamodb.Client satisfies it, and so does a user's wrapper around one
// (tracing, metrics, request counting).
type DynamoDBAPI interface{ store.API }

var _ DynamoDBAPI = (*dynamodb.Client)(nil)

// Defaults of Options.
const (
	// DefaultTableName is the table redimo uses unless Options.TableName is set.
	DefaultTableName = "redimo"
	// DefaultIndexName is the local secondary index on (pk, ix).
	DefaultIndexName = "by_ix"
	// DefaultKeyIndexName is the global secondary index on (ks, kh) that
	// lists keys: metadata items only.
	DefaultKeyIndexName = "by_key"
	// DefaultExpiryIndexName is the local secondary index on (pk, mx):
	// the members that have an expiry of their own (memberttl.go).
	DefaultExpiryIndexName = "by_exp"
	// DefaultMaxAttempts is Options.MaxAttempts's default: the attempts of
	// a command that keeps losing to concurrent writers or throttling.
	DefaultMaxAttempts = 100
	// DefaultMaxTransactions is Options.MaxTransactions's default: 0, no
	// Client-wide cap on write transactions in flight (only one per key).
	// It was 4 until the cap was found to cost throughput on many keys
	// (CHANGELOG.md).
	DefaultMaxTransactions = 0
	// DefaultParallelism bounds the concurrent DynamoDB requests of one
	// command (batch reads of set algebra, for example).
	DefaultParallelism = 8
)

// Options configure a Client. The zero value of each field means its default.
type Options struct {
	// TableName is the DynamoDB table. Default DefaultTableName.
	TableName string
	// IndexName is the table's local secondary index on (pk, ix). Default DefaultIndexName.
	IndexName string
	// KeyIndexName is the table's global secondary index on (ks, kh),
	// which SCAN, KEYS, DBSIZE, RANDOMKEY and FLUSHDB read. Default
	// DefaultKeyIndexName.
	KeyIndexName string
	// ExpiryIndexName is the table's local secondary index on (pk, mx),
	// which member expiry needs (SExpire, ZExpire and their kin). Default
	// DefaultExpiryIndexName. Local indexes exist only from a table's
	// creation: a table created before redimo had member expiry lacks it,
	// and member-expiry commands on it fail with ErrNoMemberExpiry (every
	// other command works there).
	ExpiryIndexName string
	// EventuallyConsistent makes reads eventually consistent: half the read
	// capacity, but a read may miss a write that just succeeded. Default
	// false: every read is strongly consistent.
	EventuallyConsistent bool
	// MaxAttempts bounds every retry of a command (internal/store): the
	// attempts of one transaction, of one request refused for a conflict
	// or throttling, of a batch read answering nothing, the rounds of a
	// pop whose picks other clients take. Running out returns
	// ErrContention. Default DefaultMaxAttempts.
	MaxAttempts int
	// Parallelism bounds the concurrent requests of one command. Default DefaultParallelism.
	Parallelism int
	// DisableWriteCombining sends every write command's transaction on
	// its own. Default false: the write commands of this Client that run
	// at the same time share transactions, at most one in flight per key
	// (see combine.go), which multiplies the writes per second of a busy
	// key and avoids DynamoDB's transaction conflicts between them.
	DisableWriteCombining bool
	// MaxTransactions, when positive, bounds the write transactions of
	// this Client in flight at once when write combining is on; writes
	// that find every slot busy wait and share the next transaction.
	// Default DefaultMaxTransactions (0): no Client-wide cap, only one
	// transaction in flight per key, so writes of different keys go out
	// in parallel at DynamoDB's latency. A cap trades throughput for
	// fewer concurrent requests: under the model of real DynamoDB, 64
	// writers over 1,000 keys with a cap of 4 make each write wait for
	// others' round trips (BENCHMARKS.md, BenchmarkManyKeysModel).
	MaxTransactions int
	// DisableKeyExpiry declares that no key of the table ever has an
	// expiry: Expire and its kin fail with ErrKeyExpiryDisabled. Reads
	// still read a key's metadata item beside the members they find: a
	// DEL marks the key dead in one write and reclaims its members after,
	// so a member item alone does not show a live key. Default false:
	// Redis's key expiry works.
	DisableKeyExpiry bool
	// DisableSmallSets turns off the small-set encoding for the sets this
	// client creates and grows (smallset.go): every member is an item, as
	// before issue 26. Small sets other clients made are still read and
	// written (a write that needs member items converts them). For
	// comparisons (benchmarks); default false.
	DisableSmallSets bool
	// DisableSmallSortedSets is DisableSmallSets for sorted sets
	// (smallz.go): the sorted sets this client creates and grows are
	// member items with their index entries, as before. Default false.
	DisableSmallSortedSets bool
	// Now is the clock of key expiry, member expiry and rate limits.
	// Default time.Now. All clients of one table should have clocks in
	// sync (NTP): an expiry or a window is judged by the clock of the
	// client that reads or writes it. Skew shifts when a key expires by
	// up to the skew, never a count: see expire.go.
	Now func() time.Time
	// Metrics, when set, is called after every DynamoDB request the client
	// makes, with its command, operation, consumed capacity (read and write
	// units, as DynamoDB reports them), SDK attempts, transaction conflict
	// and latency: what a command costs, request by request. It is called
	// from the goroutine that made the request, concurrently for a
	// command's parallel requests, so it must be safe for concurrent use
	// and quick. ctx is the command's context (carrying whatever the caller
	// put in it). Setting it makes every request ask for
	// ReturnConsumedCapacity INDEXES, which costs nothing. Default nil.
	Metrics func(ctx context.Context, r Request)
	// TracerProvider, when set, traces the client with OpenTelemetry: a
	// span per command (named after the method: "SAdd"), and beneath it a
	// span per DynamoDB request ("DynamoDB.TransactWriteItems") with the
	// capacity DynamoDB reported, the cost model's units (as Metrics
	// reports them), the SDK's attempts and the error. Spans are children
	// of the span in the command's ctx. Setting it makes every request ask
	// for ReturnConsumedCapacity INDEXES, as Metrics does. Default nil: no
	// spans, and nothing measurable spent on them (tracing_test.go).
	TracerProvider trace.TracerProvider
	// MaxPollInterval is the longest delay between two reads of a blocking
	// pop (BZPopMin, BZMPop) waiting for members that no write of this
	// Client added: the latency of seeing another process's write, traded
	// against one read unit per key and poll. Default
	// DefaultMaxPollInterval.
	MaxPollInterval time.Duration
}

// DefaultMaxPollInterval is the longest delay between two reads of a
// blocking pop that was not woken by a write of its own Client.
const DefaultMaxPollInterval = time.Second

// Client runs Redis set and sorted-set commands on one DynamoDB table. It is
// safe for concurrent use by multiple goroutines, and by many processes on
// the same table.
type Client struct {
	st      *store.Store // the table: what sends the requests (internal/store)
	opts    Options
	*shared // what the Client knows and shares with its transactions
	// snap is the storage of a transaction's Client (view.go): its
	// commands read EXEC's snapshot and write into it, and its store
	// refuses every request. nil for a Client of the table.
	snap *snapshot
	// tracer makes the spans of Options.TracerProvider (tracing.go); nil
	// without one.
	tracer trace.Tracer
}

// shared is the state of a Client that its transactions share.
type shared struct {
	combiner   *combiner           // nil when write combining is off
	waiters    waiters             // blocking pops waiting for members (zpop.go)
	ranks      rankState           // what the Client knows of ranked keys (rank.go)
	caps       *tableCaps          // what the table's indexes allow (memberttl.go)
	seenCounts keyCache[seenCount] // last validated live counts of keys with member expiries (live.go)
	// setEnc is the encoding this Client last saw each set in: true made
	// of member items, whose writes skip the single-item attempt of a small
	// set; false small or missing, whose reads need only the metadata item
	// (smallset.go: knownBig, knownSmall).
	setEnc keyCache[bool]
	// rescores is whether this Client's last ZINCRBY (or ZADD INCR) of
	// each sorted set met an existing member: its next one reads the
	// member before writing (table.go: memberGuess).
	rescores keyCache[bool]
	// zixs is the index value this Client last wrote to each sorted-set
	// member of its one-member writes (key 0x00 member): the next
	// re-score's first write assumes it (table.go: memberGuess).
	zixs keyCache[[]byte]
	// lanes are the writer lanes of this Client's single-item writes in
	// flight, and staleTokens the stale tokens it saw on keys, which its
	// next write of the key removes (smallset.go).
	lanes       lanes
	staleTokens keyCache[[]string]
	// zitems is the metadata item of each small sorted set as this
	// Client's last write of it left it (ALL_NEW) or a refusal showed it:
	// the next write plans from it without a read (smallz.go).
	zitems keyCache[model.Item]
	// zgate lets one write of each small sorted set of this Client be in
	// flight at a time (smallz.go: smallZ), as the combiner does for
	// transactions.
	zgate keyGate
	// readCheck is how long a read may take before it is checked against
	// the key's metadata item (live.go: leased): readLease, which tests
	// that count requests exactly raise (main_test.go).
	readCheck time.Duration
}

// NewClient returns a Client over db. It does no I/O; CreateTable creates
// the table when it does not exist yet. The Client's first write to a
// table this process has not checked yet makes one DescribeTable first
// (see CheckTable), so a table that cannot serve commands is refused
// before anything is written. A nil db is a programming error: every
// command then returns an error saying so (no nil dereference).
func NewClient(db DynamoDBAPI, optFns ...func(*Options)) *Client {
	o := Options{}
	for _, f := range optFns {
		f(&o)
	}
	if o.TableName == "" {
		o.TableName = DefaultTableName
	}
	if o.IndexName == "" {
		o.IndexName = DefaultIndexName
	}
	if o.KeyIndexName == "" {
		o.KeyIndexName = DefaultKeyIndexName
	}
	if o.ExpiryIndexName == "" {
		o.ExpiryIndexName = DefaultExpiryIndexName
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.Parallelism <= 0 {
		o.Parallelism = DefaultParallelism
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxPollInterval <= 0 {
		o.MaxPollInterval = DefaultMaxPollInterval
	}
	if o.MaxTransactions < 0 {
		o.MaxTransactions = DefaultMaxTransactions
	}
	c := &Client{opts: o, shared: &shared{caps: capsOf(o.TableName), lanes: lanes{writer: model.NewWriterID()}, readCheck: readLease}}
	if o.TracerProvider != nil {
		c.tracer = o.TracerProvider.Tracer(tracerName)
	}
	c.st = c.storeOver(&api{db: orNilAPI(db), table: o.TableName, metrics: o.Metrics, tracer: c.tracer})
	c.st.DB.(*api).indexes = model.IndexShapes(c.schema())
	c.st.Guard = c.tableReady
	if !o.DisableWriteCombining {
		c.combiner = &combiner{c: c, busy: map[string]bool{}}
	}
	return c
}

// storeOver is the Client's store (internal/store) over db, shaped by its
// options.
func (c *Client) storeOver(db DynamoDBAPI) *store.Store {
	return &store.Store{DB: db, Name: c.opts.TableName, Eventual: c.opts.EventuallyConsistent,
		MaxAttempts: c.opts.MaxAttempts, Parallelism: c.opts.Parallelism, Label: c.labelled}
}

// Options returns the client's options, defaults filled in.
func (c *Client) Options() Options { return c.opts }

// schema is the table redimo needs: see doc.go.
func (c *Client) schema() *dynamodb.CreateTableInput {
	b := types.ScalarAttributeTypeB
	return &dynamodb.CreateTableInput{
		TableName:   c.st.Table(),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(model.AttrPK), AttributeType: b},
			{AttributeName: aws.String(model.AttrSK), AttributeType: b},
			{AttributeName: aws.String(model.AttrIX), AttributeType: b},
			{AttributeName: aws.String(model.AttrKS), AttributeType: b},
			{AttributeName: aws.String(model.AttrKH), AttributeType: b},
			{AttributeName: aws.String(model.AttrMemExp), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(model.AttrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(model.AttrSK), KeyType: types.KeyTypeRange},
		},
		// by_ix projects mx, so that range reads skip expired members
		// without reading the table; only members with an expiry carry it.
		// by_exp holds those members only (a sparse index), so counting
		// the expired ones reads nothing else (memberttl.go).
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName: aws.String(c.opts.IndexName),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(model.AttrPK), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(model.AttrIX), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{model.AttrMemExp}},
		}, {
			IndexName: aws.String(c.opts.ExpiryIndexName),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(model.AttrPK), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(model.AttrMemExp), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
		// Only metadata items have ks and kh: the index lists keys, not
		// members. It projects the type, the expiry and mn (members
		// with an expiry), which change when a key is created, deleted
		// or given an expiry, or a member one, not on every write: an
		// index write per key created or deleted.
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String(c.opts.KeyIndexName),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(model.AttrKS), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(model.AttrKH), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude,
				NonKeyAttributes: []string{model.AttrType, model.AttrExp, model.AttrMemTTL}},
		}},
	}
}

// CheckTable checks that the table exists with the schema redimo needs.
// It returns nil, or an error wrapping ErrTableNotFound (a *SetupError
// naming the fix), ErrTableMismatch, or another setup mistake
// (ErrNoCredentials, ErrNoRegion, ErrUnreachable): programs call it at
// start to fail at once instead of on their first command. (Without it,
// a Client makes the same check before its first write, and refuses a
// table that cannot serve commands before writing anything.)
//
// Cost: one DescribeTable (no capacity units).
func (c *Client) CheckTable(ctx context.Context) (err error) {
	ctx, traced := c.command(ctx, "CheckTable")
	defer traced.end(&err)
	desc, err := c.st.DescribeTable(ctx)
	if err != nil {
		return wrap("CheckTable", err)
	}
	return c.checkSchema(desc)
}

// CreateTable creates the table and its index (on-demand billing) and waits
// until it is active. It does nothing when the table already exists with the
// schema redimo needs, and returns an error wrapping ErrTableMismatch when it
// exists with another.
//
// Cost: one DescribeTable, plus CreateTable and DescribeTable polls when the
// table is new.
func (c *Client) CreateTable(ctx context.Context) (err error) {
	ctx, traced := c.command(ctx, "CreateTable")
	defer traced.end(&err)
	desc, err := c.st.DescribeTable(ctx)
	switch {
	case err == nil:
		return c.checkSchema(desc)
	case !errors.Is(err, ErrTableNotFound):
		return wrap("CreateTable", err)
	}
	if err := c.st.CreateTable(ctx, c.schema()); err != nil {
		var inUse *types.ResourceInUseException
		if !errors.As(err, &inUse) { // a concurrent CreateTable won the race
			return wrap("CreateTable", err)
		}
	} else {
		c.caps.set(true)
		c.markFit()
	}
	if err := c.st.WaitActive(ctx); err != nil {
		return wrap("CreateTable", err)
	}
	return wrap("CreateTable", c.enableGC(ctx))
}

// ttlAPI is the part of DynamoDB's client that turns TTL on; a db given
// to NewClient that lacks it (DynamoDBAPI does not require it) leaves TTL
// as it is.
type ttlAPI interface {
	UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

// enableGC turns DynamoDB's TTL on for model.AttrGC, by which the items
// kept only for their write tokens go once those are stale (smallset.go);
// a table whose TTL is on already (for this attribute or another) is left
// as it is.
func (c *Client) enableGC(ctx context.Context) error {
	a, ok := c.st.DB.(*api)
	if !ok {
		return nil
	}
	db, ok := a.db.(ttlAPI)
	if !ok {
		return nil
	}
	_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: c.st.Table(),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(model.AttrGC), Enabled: aws.Bool(true)}})
	if err != nil && strings.Contains(err.Error(), "TimeToLive is already enabled") {
		return nil
	}
	return err
}

func (c *Client) checkSchema(t *types.TableDescription) error {
	want := c.schema()
	types_ := map[string]types.ScalarAttributeType{}
	for _, d := range t.AttributeDefinitions {
		types_[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	sameKeys := func(a, b []types.KeySchemaElement) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			name := aws.ToString(a[i].AttributeName)
			typ := types.ScalarAttributeTypeB
			if name == model.AttrMemExp {
				typ = types.ScalarAttributeTypeN
			}
			if name != aws.ToString(b[i].AttributeName) || a[i].KeyType != b[i].KeyType || types_[name] != typ {
				return false
			}
		}
		return true
	}
	if !sameKeys(t.KeySchema, want.KeySchema) {
		return c.mismatch("needs key (pk B, sk B)")
	}
	lsi, projectsMX, byExp := false, false, false
	for _, ix := range t.LocalSecondaryIndexes {
		switch aws.ToString(ix.IndexName) {
		case c.opts.IndexName:
			lsi = sameKeys(ix.KeySchema, want.LocalSecondaryIndexes[0].KeySchema)
			projectsMX = ix.Projection != nil && (ix.Projection.ProjectionType == types.ProjectionTypeAll ||
				slices.Contains(ix.Projection.NonKeyAttributes, model.AttrMemExp))
		case c.opts.ExpiryIndexName:
			byExp = sameKeys(ix.KeySchema, want.LocalSecondaryIndexes[1].KeySchema)
		}
	}
	// A table made before member expiry (by_ix keys only, no by_exp)
	// serves every other command.
	c.caps.set(lsi && projectsMX && byExp)
	if !lsi {
		return c.mismatch(fmt.Sprintf("needs local secondary index %s on (pk B, ix B)", c.opts.IndexName))
	}
	c.markFit()
	for _, ix := range t.GlobalSecondaryIndexes {
		if aws.ToString(ix.IndexName) == c.opts.KeyIndexName && sameKeys(ix.KeySchema, want.GlobalSecondaryIndexes[0].KeySchema) {
			return nil
		}
	}
	return fmt.Errorf("%w: %w: table %s needs global secondary index %s on (ks B, kh B), projecting t, x and mn, "+
		"for SCAN, KEYS, DBSIZE, RANDOMKEY and FLUSHDB; add it with: aws dynamodb update-table --table-name %s "+
		"--attribute-definitions AttributeName=ks,AttributeType=B AttributeName=kh,AttributeType=B "+
		`--global-secondary-index-updates '[{"Create":{"IndexName":"%s","KeySchema":[{"AttributeName":"ks","KeyType":"HASH"},`+
		`{"AttributeName":"kh","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["t","x","mn"]}}}]' `+
		"(keys written before are listed once written again)",
		ErrTableMismatch, ErrNoKeyIndex, c.opts.TableName, c.opts.KeyIndexName, c.opts.TableName, c.opts.KeyIndexName)
}
