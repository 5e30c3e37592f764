package redimo

// A table that cannot serve redimo's commands is refused before any
// write, with the way out named.
//
// Without it, a program that skips CheckTable on a table of the wrong
// schema (pk and sk only, made by infrastructure code) had its SADD and
// ZADD succeed, then failed later with the SDK's "The table does not have
// the specified index: by_ix". So the first write of a Client on a table
// (and index name) that this process has not found fit checks it: one
// DescribeTable, no capacity units. A table found fit stays so for the
// process (local indexes never change after a table's creation), so no
// later command, of this Client or another on that table, pays for it;
// CreateTable and CheckTable record it too. A table found unfit is asked
// again at the next write: its error is the answer until it is fixed.
// Reads need no check: a read of an index the table lacks gets DynamoDB's
// error, which queryPage turns into the same one naming the way out
// (noIndex), at no cost.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// fitTables holds the tables this process found able to serve commands:
// tableFit → struct{}.
var fitTables sync.Map

// tableFit names a table and the local index redimo's commands read.
type tableFit struct{ table, index string }

func (c *Client) fitKey() tableFit { return tableFit{c.opts.TableName, c.opts.IndexName} }

// markFit records that the table has redimo's key schema and local index.
func (c *Client) markFit() { fitTables.Store(c.fitKey(), struct{}{}) }

// tableReady returns nil when the table can serve commands, else the
// schema error naming the fix (ErrTableMismatch) or the DescribeTable
// error (ErrTableNotFound, ...). It is the store's guard, called before
// every write. A missing key index (ErrNoKeyIndex) does not stop
// it: only SCAN, KEYS, DBSIZE, RANDOMKEY and FLUSHDB need that index.
func (c *Client) tableReady(ctx context.Context) error {
	if _, ok := fitTables.Load(c.fitKey()); ok {
		return nil
	}
	desc, err := c.st.DescribeTable(ctx)
	if err != nil {
		return err
	}
	if err := c.checkSchema(desc); err != nil && !errors.Is(err, ErrNoKeyIndex) {
		return err
	}
	return nil
}

// errNilDB is what every command of NewClient(nil) returns.
var errNilDB = errors.New("redimo: NewClient was given a nil DynamoDB client: " +
	"pass one, e.g. redimo.NewClient(dynamodb.NewFromConfig(cfg)) with cfg from config.LoadDefaultConfig")

// failingAPI is a DynamoDBAPI whose every call returns err: the store of
// NewClient(nil) (errNilDB) and of a transaction's Client, whose storage
// is EXEC's snapshot (model.ErrOutsideTx, view.go).
type failingAPI struct{ err error }

func (f failingAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, f.err
}

func (f failingAPI) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return nil, f.err
}

func (f failingAPI) BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return nil, f.err
}

func (f failingAPI) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return nil, f.err
}

func (f failingAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, f.err
}

func (f failingAPI) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return nil, f.err
}

func (f failingAPI) CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return nil, f.err
}

// orNilAPI is db, or failingAPI{errNilDB} when db is nil (a nil interface or a nil
// *dynamodb.Client).
func orNilAPI(db DynamoDBAPI) DynamoDBAPI {
	if c, ok := db.(*dynamodb.Client); db == nil || ok && c == nil {
		return failingAPI{errNilDB}
	}
	return db
}

// noIndex is the error of a Query of index, which the table lacks (cause:
// DynamoDB's "The table does not have the specified index").
func (c *Client) noIndex(index string, cause error) error {
	if index == c.opts.KeyIndexName {
		return fmt.Errorf("%w: %w: table %s has no global secondary index %s, which SCAN, KEYS, DBSIZE, RANDOMKEY and FLUSHDB read; "+
			"CheckTable's error gives the aws dynamodb update-table command that adds it (%w)",
			ErrTableMismatch, ErrNoKeyIndex, c.opts.TableName, index, cause)
	}
	return fmt.Errorf("%w (%w)", c.mismatch("has no index "+index), cause)
}

// mismatch is ErrTableMismatch with what is wrong and the way out.
func (c *Client) mismatch(what string) error {
	return fmt.Errorf("%w: table %s %s; a table's key schema and local secondary indexes are fixed at its creation: "+
		"create a new table with CreateTable (CLI: redimo --table NEW create-table; or deploy/cloudformation.yaml) "+
		"and point Options.TableName at it; if this table holds redimo data, copy every item into the new one "+
		"(Scan, then BatchWriteItem: the items' format is unchanged)", ErrTableMismatch, c.opts.TableName, what)
}

// tableCaps is what a table's indexes allow, learned once per table name
// and process (CreateTable, CheckTable, or the first read that needs it:
// one DescribeTable, no capacity units). Local indexes never change after
// a table's creation, so it stays true while the table lives.
type tableCaps struct {
	mu        sync.Mutex
	known     bool
	memberTTL bool // by_ix projects mx and by_exp exists
}

var capsByTable sync.Map // table name → *tableCaps

func capsOf(table string) *tableCaps {
	v, _ := capsByTable.LoadOrStore(table, &tableCaps{})
	return v.(*tableCaps)
}

func (t *tableCaps) set(memberTTL bool) {
	t.mu.Lock()
	t.known, t.memberTTL = true, memberTTL
	t.mu.Unlock()
}
