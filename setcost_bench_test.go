package redimo

// BenchmarkSetCosts: what single SET commands cost in DynamoDB, counted
// from the items they change, on DynamoDB Local.
//
// DynamoDB Local reports one item's units for a whole transaction and no
// index writes, so the write figures are counted here instead, as
// DynamoDB documents its prices: an audit wrapper (indexAudit) reads each
// item a TransactWriteItems or UpdateItem touches before and after it
// (reads that are not counted), and charges every action 2 write units
// per KB of the larger of the two (1 outside a transaction), plus, per
// secondary-index entry the change writes, the same again: a local index
// entry (by_ix, by_exp) is written when the item gains or loses the
// index's sort-key attribute (1) or changes it (2: a delete and a put),
// and the key index (by_key, global) when the item's ks/kh or the
// attributes it projects change. Requests, read units and the write units
// DynamoDB Local reported (local-reported-WCU) are what the Client's
// Options.Metrics reports.
//
//	make bench BENCHFLAGS='-bench BenchmarkSetCosts -benchtime 20x'

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redimo-go/redimo/internal/model"
)

// indexAudit is a DynamoDBAPI that counts, from the items, the write
// units and index entries of the writes it passes on (see the file
// comment).
type indexAudit struct {
	DynamoDBAPI
	mu              sync.Mutex
	wcu             float64 // at DynamoDB's documented prices, index writes included
	lsi, gsi        int     // local and global index entries written
	transactWrites  int     // actions of committed TransactWriteItems
	tableIndexAttrs []string
}

func newIndexAudit(db DynamoDBAPI) *indexAudit {
	return &indexAudit{DynamoDBAPI: db, tableIndexAttrs: []string{model.AttrIX, model.AttrMemExp}}
}

func (a *indexAudit) take() (wcu float64, lsi, gsi, actions int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	wcu, lsi, gsi, actions = a.wcu, a.lsi, a.gsi, a.transactWrites
	a.wcu, a.lsi, a.gsi, a.transactWrites = 0, 0, 0, 0
	return
}

// read returns the item at key as stored (nil when none), uncounted.
func (a *indexAudit) read(ctx context.Context, table *string, key model.Item) model.Item {
	out, err := a.DynamoDBAPI.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil
	}
	return out.Item
}

// charge adds what changing before into after cost, as one action of a
// transaction (tx) or a single write.
func (a *indexAudit) charge(before, after model.Item, tx bool) {
	size := max(model.ItemSize(before), model.ItemSize(after))
	units := math.Ceil(float64(max(size, 1)) / 1024)
	lsi := 0
	for _, attr := range a.tableIndexAttrs {
		lsi += auditEntryWrites(before, after, []string{attr}, nil)
	}
	gsi := auditEntryWrites(before, after, []string{model.AttrKS, model.AttrKH}, []string{model.AttrType, model.AttrExp, model.AttrMemTTL})
	per := 1.0
	if tx {
		per = 2
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.wcu += per * (units + float64(lsi+gsi))
	a.lsi += lsi
	a.gsi += gsi
	if tx {
		a.transactWrites++
	}
}

// auditEntryWrites is how many writes an index with the key attributes keys
// and the model.Projected attributes proj takes when before becomes after: 1
// for an entry added or removed, 2 for one whose key changes, 1 for one
// whose model.Projected attributes change, 0 otherwise.
func auditEntryWrites(before, after model.Item, keys, proj []string) int {
	in := func(it model.Item) bool {
		for _, k := range keys {
			if it[k] == nil {
				return false
			}
		}
		return it != nil
	}
	same := func(names []string) bool {
		for _, k := range names {
			if !avEqual(before[k], after[k]) {
				return false
			}
		}
		return true
	}
	switch b, a := in(before), in(after); {
	case b != a:
		return 1
	case !b:
		return 0
	case !same(keys):
		return 2
	case !same(proj):
		return 1
	}
	return 0
}

func avEqual(x, y types.AttributeValue) bool {
	switch xv := x.(type) {
	case nil:
		return y == nil
	case *types.AttributeValueMemberB:
		yv, ok := y.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(xv.Value, yv.Value)
	case *types.AttributeValueMemberS:
		yv, ok := y.(*types.AttributeValueMemberS)
		return ok && xv.Value == yv.Value
	case *types.AttributeValueMemberN:
		yv, ok := y.(*types.AttributeValueMemberN)
		return ok && xv.Value == yv.Value
	}
	return false
}

func (a *indexAudit) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	type target struct {
		table *string
		key   model.Item
	}
	targets := make([]target, len(in.TransactItems))
	before := make([]model.Item, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		switch {
		case ti.Put != nil:
			targets[i] = target{ti.Put.TableName, model.Item{model.AttrPK: ti.Put.Item[model.AttrPK], model.AttrSK: ti.Put.Item[model.AttrSK]}}
		case ti.Update != nil:
			targets[i] = target{ti.Update.TableName, ti.Update.Key}
		case ti.Delete != nil:
			targets[i] = target{ti.Delete.TableName, ti.Delete.Key}
		case ti.ConditionCheck != nil:
			targets[i] = target{ti.ConditionCheck.TableName, ti.ConditionCheck.Key}
		}
		before[i] = a.read(ctx, targets[i].table, targets[i].key)
	}
	out, err := a.DynamoDBAPI.TransactWriteItems(ctx, in, opts...)
	if err != nil {
		return out, err
	}
	for i, t := range targets {
		after := before[i]
		if in.TransactItems[i].ConditionCheck == nil {
			after = a.read(ctx, t.table, t.key)
		}
		a.charge(before[i], after, true)
	}
	return out, nil
}

func (a *indexAudit) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	before := a.read(ctx, in.TableName, in.Key)
	out, err := a.DynamoDBAPI.UpdateItem(ctx, in, opts...)
	if err == nil {
		a.charge(before, a.read(ctx, in.TableName, in.Key), false)
	}
	return out, err
}

// costTally sums what Options.Metrics reports.
type costTally struct {
	mu            sync.Mutex
	requests      int
	rcu, reported float64
}

func (t *costTally) add(_ context.Context, r Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	t.rcu += r.ReadUnits
	t.reported += r.WriteUnits
}

func (t *costTally) take() (requests int, rcu, reported float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	requests, rcu, reported = t.requests, t.rcu, t.reported
	t.requests, t.rcu, t.reported = 0, 0, 0
	return
}

func BenchmarkSetCosts(b *testing.B) {
	needDB(b)
	audit := newIndexAudit(testDB)
	tally := &costTally{}
	c := NewClient(audit, func(o *Options) { o.TableName = testTable; o.Metrics = tally.add })
	ctx := context.Background()
	p := "SetCosts:" + randomHex(3) + ":"
	const size = 10_000
	key := p + "s"
	if _, err := c.SAdd(ctx, key, benchMembers("member", size)...); err != nil {
		b.Fatal(err)
	}
	type figures struct {
		requests, lsi, gsi, actions int
		rcu, wcu, reported          float64
	}
	var fresh int
	newMembers := func(n int) []string {
		fresh++
		return numbered(fmt.Sprintf("new%05d-", fresh)+"%03d", n)
	}
	cmds := []struct {
		name string
		run  func() error
	}{
		{"SADD-1-new", func() error { _, err := c.SAdd(ctx, key, newMembers(1)...); return err }},
		{"SADD-100-new", func() error { _, err := c.SAdd(ctx, key, newMembers(100)...); return err }},
		{"SADD-1-existing", func() error { _, err := c.SAdd(ctx, key, "member000007"); return err }},
		{"SADD-1-newkey", func() error { _, err := c.SAdd(ctx, p+"k"+randomHex(4), "a"); return err }},
		{"SREM-1", func() error {
			ms := newMembers(1)
			if _, err := c.SAdd(ctx, key, ms...); err != nil {
				return err
			}
			tally.take()
			audit.take()
			_, err := c.SRem(ctx, key, ms...)
			return err
		}},
		{"SISMEMBER", func() error { _, err := c.SIsMember(ctx, key, "member000042"); return err }},
		{"SRANDMEMBER", func() error { _, _, err := c.SRandMember(ctx, key); return err }},
		{"SRANDMEMBER-10", func() error { _, err := c.SRandMemberN(ctx, key, 10); return err }},
		{"SPOP", func() error { _, _, err := c.SPop(ctx, key); return err }},
	}
	for _, cmd := range cmds {
		var sum figures
		for range b.N {
			tally.take()
			audit.take()
			if err := cmd.run(); err != nil {
				b.Fatal(cmd.name, err)
			}
			req, rcu, reported := tally.take()
			wcu, lsi, gsi, actions := audit.take()
			sum.requests += req
			sum.rcu += rcu
			sum.reported += reported
			sum.wcu += wcu
			sum.lsi += lsi
			sum.gsi += gsi
			sum.actions += actions
		}
		n := float64(b.N)
		b.ReportMetric(float64(sum.requests)/n, cmd.name+"-requests")
		b.ReportMetric(sum.rcu/n, cmd.name+"-RCU")
		b.ReportMetric(sum.wcu/n, cmd.name+"-WCU")
		b.ReportMetric(sum.reported/n, cmd.name+"-local-reported-WCU")
		b.ReportMetric(float64(sum.lsi)/n, cmd.name+"-local-index-entries")
		b.ReportMetric(float64(sum.gsi)/n, cmd.name+"-key-index-entries")
		b.ReportMetric(float64(sum.actions)/n, cmd.name+"-tx-actions")
	}
}
