package redimo

// What a new user meets first (issue 24): a table of the wrong schema,
// DynamoDB Local shared across credentials, a nil client, error texts.

import (
	"context"
	"encoding/json"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
)

// keysOnlyTable is rawTable of a table keyed by pk and sk of type typ,
// with no index: what infrastructure code makes without redimo.
func keysOnlyTable(t *testing.T, prefix string, typ types.ScalarAttributeType) string {
	return rawTable(t, prefix, &dynamodb.CreateTableInput{
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: typ}, {AttributeName: aws.String("sk"), AttributeType: typ}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
	})
}

// rawTable creates a table with in's schema under a fresh name, deleted
// when the test ends, and returns its name.
func rawTable(t *testing.T, prefix string, in *dynamodb.CreateTableInput) string {
	t.Helper()
	name := prefix + randomHex(4)
	in.TableName = aws.String(name)
	_, err := testDB.CreateTable(context.Background(), in)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = testDB.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name}) })
	return name
}

// Fix: a table without redimo's local index (pk and sk only, made by
// infrastructure code) is refused before any write, and the error says
// a local index exists only from a table's creation and what to do.
func TestWrongSchemaRefusedBeforeAnyWrite(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	name := keysOnlyTable(t, "redimo_pksk_", types.ScalarAttributeTypeB)
	cnt := &counter{db: testDB}
	c := NewClient(cnt, func(o *Options) { o.TableName = name })
	_, err := c.SAdd(ctx, "k", "a")
	require.ErrorIs(t, err, ErrTableMismatch)
	for _, want := range []string{"local secondary index by_ix", "fixed at its creation", "create a new table", "copy every item"} {
		require.Contains(t, err.Error(), want)
	}
	require.NotContains(t, err.Error(), "make ", "a library error names no repository command")
	require.ErrorIs(t, errOf(c.ZAdd(ctx, "z", Z{Score: 1, Member: "a"})), ErrTableMismatch)
	// A sorted set's metadata item written by hand, so that ZRANGE reads on
	// to the index the table lacks.
	_, err = testDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: &name, Item: model.Item{
		model.AttrPK: model.Bin(model.Partition(model.NsKeys, "z")), model.AttrSK: model.Bin(model.MetaSK),
		model.AttrType: &types.AttributeValueMemberS{Value: "zset"}, model.AttrCard: &types.AttributeValueMemberN{Value: "1"},
	}})
	require.NoError(t, err)
	_, err = c.ZRange(ctx, "z", 0, -1)
	require.ErrorIs(t, err, ErrTableMismatch, "reads: not the SDK's bare missing-index error")
	require.Contains(t, err.Error(), "needs local secondary index by_ix on (pk B, ix B); a table's key schema and local secondary indexes are fixed",
		"reads check the table first, as writes (issue 33)")
	require.ErrorIs(t, c.CheckTable(ctx), ErrTableMismatch)
	cnt.mu.Lock()
	require.Zero(t, cnt.byOp["TransactWriteItems"]+cnt.byOp["UpdateItem"], "no write was sent: %v", cnt.byOp)
	require.Positive(t, cnt.byOp["DescribeTable"])
	cnt.mu.Unlock()
	out, err := testDB.Scan(ctx, &dynamodb.ScanInput{TableName: &name})
	require.NoError(t, err)
	require.EqualValues(t, 1, out.Count, "nothing written but the test's own item")
}

// Fix: the check is one DescribeTable per table and process, before the
// first command; the commands after it cost what they did before.
func TestTableCheckedOnce(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	name := rawTable(t, "redimo_once_", NewClient(nil).schema())
	require.NoError(t, NewClient(testDB, func(o *Options) { o.TableName = name }).st.WaitActive(ctx))
	fitTables.Delete(tableFit{name, DefaultIndexName}) // as a fresh process knows it
	cnt := &counter{db: testDB}
	c := NewClient(cnt, func(o *Options) { o.TableName = name })
	ops := func() map[string]int64 {
		cnt.mu.Lock()
		defer cnt.mu.Unlock()
		m := cnt.byOp
		cnt.byOp = nil
		return m
	}
	returns(t, int64(1))(c.SAdd(ctx, "k", "a"))
	first := ops()
	require.EqualValues(t, 1, first["DescribeTable"], "%v", first)
	returns(t, int64(1))(c.SAdd(ctx, "k", "b"))
	second := ops()
	require.Zero(t, second["DescribeTable"], "%v", second)
	delete(first, "DescribeTable")
	require.Equal(t, second, first, "the first SADD costs the check and nothing else more")
	// Another Client on the table, in this process: no check either.
	returns(t, int64(2))(NewClient(cnt, func(o *Options) { o.TableName = name }).SCard(ctx, "k"))
	require.Equal(t, map[string]int64{"GetItem": 1}, ops())
}

// Fix: DynamoDB Local runs with -sharedDb (scripts/with-services.sh), so
// an app signing with other dummy credentials and another region sees the
// tables the CLI and redimo-server see.
func TestLocalSharedAcrossCredentials(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	client := func(key, region string) *Client {
		db := dynamodb.NewFromConfig(aws.Config{
			Region:      region,
			Credentials: credentials.NewStaticCredentialsProvider(key, key+"-secret", ""),
		}, func(o *dynamodb.Options) {
			o.BaseEndpoint = aws.String(testEndpoint)
			o.DisableValidateResponseChecksum = true
		})
		return NewClient(db, func(o *Options) { o.TableName = testTable })
	}
	// The run's table was made with credentials "local" in us-east-1.
	cli := client("local", "us-east-1")
	app := client("AKIDEXAMPLE"+strings.ToUpper(randomHex(2)), "eu-west-3")
	require.NoError(t, app.CheckTable(ctx), "the app sees the table: DynamoDB Local needs -sharedDb")
	key := t.Name() + ":" + randomHex(3)
	returns(t, int64(2))(app.SAdd(ctx, key, "u1", "u2"))
	returns(t, int64(2))(cli.SCard(ctx, key))
	returns(t, int64(1))(cli.Del(ctx, key))
}

// Fix: NewClient(nil) builds a Client whose commands return an error
// naming the fix, not a nil dereference.
func TestNewClientNil(t *testing.T) {
	var typed *dynamodb.Client
	for _, db := range []DynamoDBAPI{nil, typed} {
		c := NewClient(db)
		_, err := c.SAdd(context.Background(), "k", "a")
		require.ErrorContains(t, err, "NewClient was given a nil DynamoDB client: pass one")
		require.ErrorContains(t, c.CheckTable(context.Background()), "dynamodb.NewFromConfig")
	}
}

// Fix: the update-table command that adds the key index projects what
// CreateTable's key index projects (t, x and mn), not a stale list.
func TestNoKeyIndexCommandProjectsSchema(t *testing.T) {
	c := NewClient(nil)
	in := c.schema()
	desc := &types.TableDescription{AttributeDefinitions: in.AttributeDefinitions, KeySchema: in.KeySchema}
	for _, ix := range in.LocalSecondaryIndexes {
		desc.LocalSecondaryIndexes = append(desc.LocalSecondaryIndexes,
			types.LocalSecondaryIndexDescription{IndexName: ix.IndexName, KeySchema: ix.KeySchema, Projection: ix.Projection})
	}
	err := c.checkSchema(desc)
	require.ErrorIs(t, err, ErrNoKeyIndex)
	want, _ := json.Marshal(in.GlobalSecondaryIndexes[0].Projection.NonKeyAttributes)
	require.Contains(t, err.Error(), `"NonKeyAttributes":`+string(want))
}

// Fix: one "redimo:" prefix per error, naming the command called
// (SMEMBERS, not SMEMBERS then SSCAN), also inside argument errors.
func TestErrorsOnePrefix(t *testing.T) {
	ctx := context.Background()
	c := NewClient(nil)
	_, err := c.SMembers(ctx, "k")
	require.Error(t, err)
	require.Equal(t, 1, strings.Count(err.Error(), "redimo:"), err.Error())
	require.True(t, strings.HasPrefix(err.Error(), "redimo: SMEMBERS: NewClient was given"), err.Error())
	require.NotContains(t, err.Error(), "SSCAN")

	// Fix: ErrMemberTooLong states the limit.
	_, err = c.SAdd(ctx, "k", strings.Repeat("m", MaxMemberLen+1))
	require.ErrorIs(t, err, ErrMemberTooLong)
	require.Contains(t, err.Error(), "member longer than 400000 bytes (MaxMemberLen")
	require.Equal(t, 1, strings.Count(err.Error(), "redimo:"), err.Error())
	_, err = c.SAdd(ctx, strings.Repeat("k", MaxKeyLen+1), "m")
	require.ErrorIs(t, err, ErrKeyTooLong)
	require.Contains(t, err.Error(), "key longer than 400000 bytes (MaxKeyLen")
}

// Fix: a ShardedSet with 0 shards is an error of ShardedSet's argument,
// naming the range, whatever method found it (not "SADD").
func TestShardedSetZeroShardsError(t *testing.T) {
	ctx := context.Background()
	s := NewClient(nil).ShardedSet("visitors", 0)
	_, err := s.Add(ctx, "u1")
	require.ErrorIs(t, err, ErrOutOfRange)
	require.Equal(t, `redimo: ShardedSet: invalid shards "0": value is out of range: 1 to 99 (MaxShards)`, err.Error())
	_, err = s.Card(ctx)
	require.NotContains(t, err.Error(), "SCARD")
	require.Contains(t, err.Error(), "ShardedSet")
}

// Fix: a library error names no command that exists only in redimo's
// repository (make ddb-local): a program's user has no Makefile.
func TestSetupFixesNameNoMakeTarget(t *testing.T) {
	for _, p := range []error{ErrTableNotFound, ErrNoCredentials, ErrNoRegion, ErrUnreachable} {
		fix := (&SetupError{Problem: p, Table: "t", Err: context.Canceled}).Fix()
		require.NotEmpty(t, fix)
		require.NotContains(t, fix, "make ", p.Error())
	}
}

// Fix: examples/walkthrough imports no internal package, so it can be
// copied into an app's module as it is.
func TestWalkthroughImportsNoInternal(t *testing.T) {
	files, err := filepath.Glob("examples/walkthrough/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(gotoken.NewFileSet(), name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			require.NotContains(t, imp.Path.Value, "/internal/", name)
		}
	}
}

// A table made before the key index (no by_key) is not refused by the
// first-use check: every command but the key listings works there
// (docs/operations.md), while CheckTable names the update-table fix.
func TestNoKeyIndexTableServesCommands(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	in := NewClient(nil).schema()
	in.GlobalSecondaryIndexes = nil
	in.AttributeDefinitions = slices.DeleteFunc(in.AttributeDefinitions, func(d types.AttributeDefinition) bool {
		return *d.AttributeName == model.AttrKS || *d.AttributeName == model.AttrKH
	})
	name := rawTable(t, "redimo_nokeyix_", in)
	c := NewClient(testDB, func(o *Options) { o.TableName = name })
	require.NoError(t, c.st.WaitActive(ctx))
	returns(t, int64(2))(c.SAdd(ctx, "k", "a", "b"))
	returns(t, int64(2))(c.SCard(ctx, "k"))
	require.ErrorIs(t, c.CheckTable(ctx), ErrNoKeyIndex)
	_, _, err := c.Scan(ctx, 0, "", 0)
	require.ErrorIs(t, err, ErrNoKeyIndex, "SCAN names the fix, not the SDK's bare missing-index error")
	require.Contains(t, err.Error(), "update-table")
}

// TestReadsCheckTable (issue 33, 4): a read on a table with another key
// schema is refused as writes are (ErrTableMismatch), not with DynamoDB's
// raw "Type mismatch for key".
func TestReadsCheckTable(t *testing.T) {
	needDB(t)
	ctx := context.Background()
	name := keysOnlyTable(t, "redimo_strkeys_", types.ScalarAttributeTypeS)
	c := NewClient(testDB, func(o *Options) { o.TableName = name })
	_, err := c.SCard(ctx, "k")
	require.ErrorIs(t, err, ErrTableMismatch)
	require.NotContains(t, err.Error(), "Type mismatch")
	_, err = c.SMembers(ctx, "k")
	require.ErrorIs(t, err, ErrTableMismatch)
	_, err = c.SIsMember(ctx, "k", "a")
	require.ErrorIs(t, err, ErrTableMismatch)
}
