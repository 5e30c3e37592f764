package redimo

// Databases: Redis's SELECT n as key namespaces in the one table.
//
// Database 0 is the keys as every Client stores them: partition key 'k' +
// key, and key index shard (ks) one byte. A Client of database n (1 to 15,
// from Client.WithDB) sends every request through dbAPI, which rewrites
// the two attributes that name a key. The partition key's first byte
// becomes another per database: 'k' becomes n (0x01 to 0x0f), 'K' (a long
// key's) 0x10 | n, and a RateLimiter's and a ShardedSet's records have
// theirs (dbNamespaces); none is a letter (database 0's) or another
// database's, so no item of one database can meet one of another,
// whatever their bytes. And ks becomes the two bytes n,
// shard (its own partitions of the key index, so SCAN, KEYS, DBSIZE,
// RANDOMKEY and FLUSHDB see the database's keys alone). Answers are
// rewritten back, so the rest of redimo never knows. The partition key
// keeps its length: keys up to MaxKeyLen fit in every database.
//
// The rewriting is by attribute: pk and ks in keys and items, and in
// expression values compared with them (#pk = :pk, SET #ks = :ks), found
// through the expression's attribute names. TestDBRawItems checks, on the
// raw table, that a database's every item carries its byte.

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// MaxDB is the highest database number: 16 databases, as Redis's default.
const MaxDB = 15

// WithDB returns a Client of database n (0 to MaxDB): the same table,
// options and DynamoDB client, with keys of its own, as Redis's SELECT.
// Database 0 is c's keys as every Client stores them. Write combining and
// the wake-ups of blocking pops work within one Client: use one Client per
// database.
//
// Cost: none; no I/O.
//
// [SELECT]: https://redis.io/docs/latest/commands/select/
func (c *Client) WithDB(n int) (*Client, error) {
	if n < 0 || n > MaxDB {
		return nil, argError("SELECT", "db", strconv.Itoa(n), ErrOutOfRange)
	}
	db := c.st.DB.(*api).db // the caller's DynamoDB client, under the metrics layer
	if d, ok := db.(dbAPI); ok {
		db = d.DynamoDBAPI
	}
	if n > 0 {
		db = dbAPI{DynamoDBAPI: db, n: byte(n)}
	}
	opts := c.opts
	return NewClient(db, func(o *Options) { *o = opts }), nil
}

// DB returns the Client's database number (0 unless made by WithDB).
func (c *Client) DB() int {
	if d, ok := c.st.DB.(*api).db.(dbAPI); ok {
		return int(d.n)
	}
	return 0
}

// dbAPI is the DynamoDBAPI of database n ≥ 1.
type dbAPI struct {
	DynamoDBAPI
	n byte
}

// fwd rewrites a key or item of database 0's encoding to database n's (a
// copy: callers resend their requests).
func (d dbAPI) fwd(it model.Item) model.Item {
	if it == nil {
		return nil
	}
	out := make(model.Item, len(it))
	for k, v := range it {
		out[k] = v
	}
	if v, ok := out[model.AttrPK].(*types.AttributeValueMemberB); ok {
		out[model.AttrPK] = d.fwdPK(v)
	}
	if v, ok := out[model.AttrKS].(*types.AttributeValueMemberB); ok {
		out[model.AttrKS] = d.fwdKS(v)
	}
	return out
}

// dbNamespaces are the first bytes of database n's partition keys, for
// each namespace of database 0 (internal/model/keys.go): the high nibble names the
// namespace, n is the low one, so no byte of any database is another's,
// and none is a letter (database 0's).
var dbNamespaces = map[byte]byte{
	model.NsKeys: 0x00, model.LongNS(model.NsKeys): 0x10,
	model.NsLimiter: 0x20, model.LongNS(model.NsLimiter): 0x30,
	model.NsSharded: 0x80, model.LongNS(model.NsSharded): 0x90,
}

func (d dbAPI) fwdPK(v *types.AttributeValueMemberB) types.AttributeValue {
	if len(v.Value) == 0 {
		return v
	}
	if hi, ok := dbNamespaces[v.Value[0]]; ok {
		return model.Bin(append([]byte{hi | d.n}, v.Value[1:]...))
	}
	return v
}

func (d dbAPI) fwdKS(v *types.AttributeValueMemberB) types.AttributeValue {
	if len(v.Value) != 1 {
		return v
	}
	return model.Bin([]byte{d.n, v.Value[0]})
}

// back rewrites an item of database n to database 0's encoding, in place
// (answers are fresh).
func (d dbAPI) back(it model.Item) {
	if v, ok := it[model.AttrPK].(*types.AttributeValueMemberB); ok && len(v.Value) > 0 && v.Value[0]&0x0f == d.n {
		for ns, hi := range dbNamespaces {
			if v.Value[0] == hi|d.n {
				it[model.AttrPK] = model.Bin(append([]byte{ns}, v.Value[1:]...))
				break
			}
		}
	}
	if v, ok := it[model.AttrKS].(*types.AttributeValueMemberB); ok && len(v.Value) == 2 && v.Value[0] == d.n {
		it[model.AttrKS] = model.Bin([]byte{v.Value[1]})
	}
}

func (d dbAPI) backAll(items []model.Item) {
	for _, it := range items {
		d.back(it)
	}
}

// values rewrites the expression values compared with (or assigned to)
// pk or ks in exprs.
func (d dbAPI) values(names map[string]string, values model.Item, exprs ...*string) model.Item {
	if len(values) == 0 {
		return values
	}
	var out model.Item
	for _, e := range exprs {
		if e == nil {
			continue
		}
		for _, m := range model.Compared.FindAllStringSubmatch(*e, -1) {
			attr := names[m[1]]
			v, ok := values[m[2]].(*types.AttributeValueMemberB)
			if !ok || attr != model.AttrPK && attr != model.AttrKS {
				continue
			}
			if out == nil {
				out = make(model.Item, len(values))
				for k, x := range values {
					out[k] = x
				}
			}
			if attr == model.AttrPK {
				out[m[2]] = d.fwdPK(v)
			} else {
				out[m[2]] = d.fwdKS(v)
			}
		}
	}
	if out == nil {
		return values
	}
	return out
}

// backErr rewrites the items a failed condition returns.
func (d dbAPI) backErr(err error) error {
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		for _, r := range cancelled.CancellationReasons {
			d.back(r.Item)
		}
	}
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		d.back(failed.Item)
	}
	return err
}

func (d dbAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	cp := *in
	cp.Key = d.fwd(in.Key)
	out, err := d.DynamoDBAPI.GetItem(ctx, &cp, o...)
	if err == nil && out.Item != nil {
		d.back(out.Item)
	}
	return out, err
}

func (d dbAPI) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	cp := *in
	cp.ExpressionAttributeValues = d.values(in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.KeyConditionExpression, in.FilterExpression)
	cp.ExclusiveStartKey = d.fwd(in.ExclusiveStartKey)
	out, err := d.DynamoDBAPI.Query(ctx, &cp, o...)
	if err == nil {
		d.backAll(out.Items)
		d.back(out.LastEvaluatedKey)
	}
	return out, err
}

func (d dbAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	cp := *in
	cp.RequestItems = make(map[string]types.KeysAndAttributes, len(in.RequestItems))
	for table, ka := range in.RequestItems {
		keys := make([]model.Item, len(ka.Keys))
		for i, k := range ka.Keys {
			keys[i] = d.fwd(k)
		}
		ka.Keys = keys
		cp.RequestItems[table] = ka
	}
	out, err := d.DynamoDBAPI.BatchGetItem(ctx, &cp, o...)
	if err == nil {
		for _, items := range out.Responses {
			d.backAll(items)
		}
		for _, ka := range out.UnprocessedKeys { // the caller sends them again
			d.backAll(ka.Keys)
		}
	}
	return out, err
}

// action is a transaction action's key (or item) and values, rewritten.
func (d dbAPI) action(key model.Item, names map[string]string, values model.Item, exprs ...*string) (model.Item, model.Item) {
	return d.fwd(key), d.values(names, values, exprs...)
}

func (d dbAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	cp := *in
	cp.TransactItems = make([]types.TransactWriteItem, len(in.TransactItems))
	for i, a := range in.TransactItems {
		switch {
		case a.Put != nil:
			a.Put = model.Edited(a.Put, func(x *types.Put) {
				x.Item, x.ExpressionAttributeValues = d.action(x.Item, x.ExpressionAttributeNames, x.ExpressionAttributeValues, x.ConditionExpression)
			})
		case a.Update != nil:
			a.Update = model.Edited(a.Update, func(x *types.Update) {
				x.Key, x.ExpressionAttributeValues = d.action(x.Key, x.ExpressionAttributeNames, x.ExpressionAttributeValues, x.UpdateExpression, x.ConditionExpression)
			})
		case a.Delete != nil:
			a.Delete = model.Edited(a.Delete, func(x *types.Delete) {
				x.Key, x.ExpressionAttributeValues = d.action(x.Key, x.ExpressionAttributeNames, x.ExpressionAttributeValues, x.ConditionExpression)
			})
		case a.ConditionCheck != nil:
			a.ConditionCheck = model.Edited(a.ConditionCheck, func(x *types.ConditionCheck) {
				x.Key, x.ExpressionAttributeValues = d.action(x.Key, x.ExpressionAttributeNames, x.ExpressionAttributeValues, x.ConditionExpression)
			})
		}
		cp.TransactItems[i] = a
	}
	out, err := d.DynamoDBAPI.TransactWriteItems(ctx, &cp, o...)
	return out, d.backErr(err)
}

func (d dbAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	cp := *in
	cp.Key = d.fwd(in.Key)
	cp.ExpressionAttributeValues = d.values(in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.UpdateExpression, in.ConditionExpression)
	out, err := d.DynamoDBAPI.UpdateItem(ctx, &cp, o...)
	if err == nil && out.Attributes != nil {
		d.back(out.Attributes)
	}
	return out, d.backErr(err)
}
