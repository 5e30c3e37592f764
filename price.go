package redimo

// The cost model: what a DynamoDB request costs at DynamoDB's documented
// rates, computed from the request (and, for reads, its response), index
// writes included. Options.Metrics reports it in Request.PricedReadUnits
// and Request.PricedWriteUnits; Tally sums it and Cost.Dollars prices it;
// `make demo`, `redimo --cost`, redimo-server's INFO and the cost tables
// of docs/costs.md all show these figures.
//
// The rules, from the DynamoDB Developer Guide:
//
//   - "One write request unit represents one write for an item up to 1 KB
//     in size"; "Transactional write requests require 2 write request units
//     to perform one write for items up to 1 KB"; "One read request unit
//     represents one strongly consistent read request, or two eventually
//     consistent read requests, for an item up to 4 KB in size"
//     (HowItWorks.ReadWriteCapacityMode.html). A ConditionCheck in a
//     transaction is priced as a write of its item.
//   - A secondary index's entry is written when a write to the table
//     creates, changes or removes it: "If you write a new item to the table
//     that defines an indexed attribute ... one write operation is required
//     to put the item into the index. If an update to the table changes the
//     value of an indexed key attribute (from A to B), two writes are
//     required, one to delete the previous item from the index and another
//     write to put the new item into the index. If an item was present in
//     the index, but a write to the table caused the indexed attribute to
//     be deleted, one write is required ... If an item is not present in
//     the index before or after the item is updated, there is no additional
//     write cost for the index. If an update to the table only changes the
//     value of projected attributes in the index key schema, but does not
//     change the value of any indexed key attribute, one write is required"
//     (GSI.html#GSI.Writes, LSI.html#LSI.ThroughputConsiderations.Writes).
//     An index entry costs one unit per KB of its size (the table's key,
//     the index key and the projected attributes, plus 100 bytes); inside a
//     TransactWriteItems it is counted at the transactional rate, 2.
//   - "This capacity is consumed even when the transaction is canceled (for
//     example, because a condition check fails)"
//     (read-write-operations.html), and "If the expression evaluates to
//     false, DynamoDB still consumes write capacity units from the table"
//     for a conditional UpdateItem: a write refused by its condition costs
//     its items' units (no index entry is written).
//
// A request shows what it writes but not the item before it, so each
// index write is read from the request: what a Put's item carries (ix:
// a by_ix entry, mx: by_exp, ks and kh: by_key: the key attributes of the
// table's indexes, from Client.schema), and what an Update or Delete's
// condition says of the attribute before (attribute_not_exists(#a): no
// entry before; #a = :old: an entry of another value; #a = :v with the
// value it sets: unchanged). An update that sets an index key without
// a condition on it (the metadata item's ks and kh, derived from the key)
// rewrites the value the item holds: no index write. Where the request
// says nothing (a Delete's entries, a projected attribute's change),
// what items of that sort key carry (itemIndexes) decides. So the creation
// of a key's by_key entry is left out (2 units once per key created, seen
// only in what DynamoDB reports); item sizes are estimated from the
// attributes sent (an Update's from its key and values, a Delete's from
// its key), as DynamoDB bills the larger of the item before and after.

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Prices are DynamoDB's prices of capacity units, in US dollars per
// million units.
type Prices struct {
	PerMillionReadUnits, PerMillionWriteUnits float64
}

// OnDemandPrices are DynamoDB's on-demand prices in us-east-1 (Standard
// table class): $0.125 per million read request units, $0.625 per million
// write request units (aws.amazon.com/dynamodb/pricing/on-demand, 2026).
var OnDemandPrices = Prices{PerMillionReadUnits: 0.125, PerMillionWriteUnits: 0.625}

// Cost is what some DynamoDB requests cost, as Tally sums them.
type Cost struct {
	Requests int
	// ReadUnits and WriteUnits are the cost model's units
	// (Request.PricedReadUnits and PricedWriteUnits).
	ReadUnits, WriteUnits float64
	// ReportedWriteUnits are the write units DynamoDB reported
	// (Request.WriteUnits): on DynamoDB Local far fewer for a transaction.
	ReportedWriteUnits float64
}

// Plus is the sum of c and o.
func (c Cost) Plus(o Cost) Cost {
	return Cost{Requests: c.Requests + o.Requests, ReadUnits: c.ReadUnits + o.ReadUnits,
		WriteUnits: c.WriteUnits + o.WriteUnits, ReportedWriteUnits: c.ReportedWriteUnits + o.ReportedWriteUnits}
}

// Dollars is what c's units cost at p.
func (c Cost) Dollars(p Prices) float64 {
	return (c.ReadUnits*p.PerMillionReadUnits + c.WriteUnits*p.PerMillionWriteUnits) / 1e6
}

// Tally sums the cost of requests as they are made, from any goroutine:
// its Add is an Options.Metrics.
//
//	var t redimo.Tally
//	rdb := redimo.NewClient(db, func(o *redimo.Options) { o.Metrics = t.Add })
//	... commands ...
//	c := t.Take() // c.WriteUnits, c.Dollars(redimo.OnDemandPrices)
type Tally struct {
	mu  sync.Mutex
	sum Cost
}

// Add adds what r cost.
func (t *Tally) Add(_ context.Context, r Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sum = t.sum.Plus(Cost{Requests: 1, ReadUnits: r.PricedReadUnits, WriteUnits: r.PricedWriteUnits, ReportedWriteUnits: r.WriteUnits})
}

// Take returns the sum since the last Take and zeroes it.
func (t *Tally) Take() Cost {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sum
	t.sum = Cost{}
	return s
}

// indexShape is a secondary index as the cost model sees it.
type indexShape struct {
	keys      []string // its key attributes, other than the table's
	projected []string // the non-key attributes it projects
}

// indexShapes are the indexes of the table redimo creates (schema).
func indexShapes(in *dynamodb.CreateTableInput) []indexShape {
	var out []indexShape
	add := func(ks []types.KeySchemaElement, p *types.Projection) {
		var s indexShape
		for _, k := range ks {
			if n := aws.ToString(k.AttributeName); n != attrPK && n != attrSK {
				s.keys = append(s.keys, n)
			}
		}
		if p != nil {
			s.projected = p.NonKeyAttributes
		}
		out = append(out, s)
	}
	for _, ix := range in.LocalSecondaryIndexes {
		add(ix.KeySchema, ix.Projection)
	}
	for _, ix := range in.GlobalSecondaryIndexes {
		add(ix.KeySchema, ix.Projection)
	}
	return out
}

// itemIndexes reports, for a write whose request does not show it,
// whether an item with primary key key has an entry in index s: a
// metadata item (sort key metaSK) in the index of ks and kh, a
// sorted-set member item in the index of ix (a set member has no ix:
// keys.go). (A member's mx shows in its writes' conditions: member
// expiry guards them, memberttl.go.)
func itemIndexes(key item, s indexShape) bool {
	sk := bytesAttr(key, attrSK)
	if len(sk) == 1 && sk[0] == metaSK[0] {
		return slices.Contains(s.keys, attrKS)
	}
	if len(sk) > 0 && sk[0] == memberPrefix(typeZSet) {
		return slices.Contains(s.keys, attrIX)
	}
	return false
}

// pricedTransact is the cost model's write units of a TransactWriteItems
// that returned err. A transaction cancelled by a failed condition or a
// conflict costs its items' units and writes no index entry: "DynamoDB
// performs two underlying writes for each item — one to prepare the
// transaction and one to commit it ... This capacity is consumed even when
// the transaction is canceled (for example, because a condition check
// fails)" (read-write-operations.html). One refused for throttling or as
// invalid, or that failed otherwise, costs nothing here.
func pricedTransact(in *dynamodb.TransactWriteItemsInput, ixs []indexShape, err error) float64 {
	if err != nil {
		var cancelled *types.TransactionCanceledException
		if !errors.As(err, &cancelled) {
			return 0
		}
		for _, r := range cancelled.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "ThrottlingError", "ProvisionedThroughputExceeded", "ValidationError":
				return 0
			}
		}
		ixs = nil // no index entry is written
	}
	units := 0.0
	for _, a := range in.TransactItems {
		switch {
		case a.Put != nil:
			units += 2 * pricedWrite("Put", a.Put.Item, a.Put.Item, nil, a.Put.ConditionExpression, a.Put.ExpressionAttributeNames, nil, ixs)
		case a.Update != nil:
			u := a.Update
			units += 2 * pricedWrite("Update", u.Key, u.ExpressionAttributeValues, u.UpdateExpression, u.ConditionExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues, ixs)
		case a.Delete != nil:
			d := a.Delete
			units += 2 * pricedWrite("Delete", d.Key, nil, nil, d.ConditionExpression, d.ExpressionAttributeNames, d.ExpressionAttributeValues, ixs)
		case a.ConditionCheck != nil:
			units += 2 * kb(itemSize(a.ConditionCheck.Key), 1024)
		}
	}
	return units
}

// pricedWrite is the write units of one Put, Update or Delete (kind)
// outside a transaction: its item's KBs plus its index entries' (see the
// rules above). key is its primary key, sent the attributes whose size
// stands for the item's (a Put's item, an Update's values).
func pricedWrite(kind string, key, sent item, update, cond *string, names map[string]string, values item, ixs []indexShape) float64 {
	var units float64
	switch kind {
	case "Put":
		units = kb(itemSize(sent), 1024)
	case "Update":
		units = kb(itemSize(key)+itemSize(sent), 1024)
	default:
		units = kb(itemSize(key), 1024)
	}
	c := parseCondition(aws.ToString(cond), names)
	u := parseUpdate(aws.ToString(update), names)
	for _, s := range ixs {
		entry := kb(itemSize(key)+100+entrySize(sent, s), 1024)
		units += entry * float64(entryWrites(kind, key, sent, u, c, s))
	}
	return units
}

// entryWrites is how many writes of index s's entry a write makes: 0, 1
// (put or delete) or 2 (delete and put).
func entryWrites(kind string, key, item item, u update, c condition, s indexShape) int {
	switch kind {
	case "Put":
		for _, k := range s.keys {
			if _, ok := item[k]; !ok {
				return 0
			}
		}
		return 1
	case "Delete":
		for _, k := range s.keys {
			switch {
			case c.absent[k]:
				return 0
			case c.named[k]:
				return 1
			}
		}
		if itemIndexes(key, s) {
			return 1
		}
		return 0
	}
	// An Update.
	had := itemIndexes(key, s)
	for _, k := range s.keys {
		switch {
		case c.absent[k] || c.absent[attrPK]:
			had = false
		case c.named[k]:
			had = true
		}
	}
	for _, k := range s.keys {
		switch {
		case u.removed[k]:
			if had {
				return 1
			}
			return 0
		case u.set[k] != "" && c.same[k] == u.set[k]:
			// Set to the value the condition requires it has: unchanged.
		case u.set[k] != "" && (c.absent[k] || c.absent[attrPK]):
			return 1 // a new entry
		case u.set[k] != "" && c.named[k]:
			return 2 // compared with its old value: changed (delete, put)
		}
	}
	if !had {
		return 0
	}
	for _, p := range s.projected {
		if u.removed[p] || u.added[p] || (u.set[p] != "" && c.same[p] != u.set[p]) {
			return 1
		}
	}
	return 0
}

// entrySize is the bytes of s's entry of the item, besides the table's
// key and the 100 bytes of overhead: the index key and projected
// attributes the write sends.
func entrySize(sent item, s indexShape) int {
	n := 0
	for _, a := range append(slices.Clone(s.keys), s.projected...) {
		if v, ok := sent[a]; ok {
			n += itemSize(item{a: v})
		}
	}
	return n
}

// kb is size in units of unit bytes, rounded up, at least 1.
func kb(size, unit int) float64 { return float64(max(1, (size+unit-1)/unit)) }

// update is what an UpdateExpression does, by attribute name: set maps an
// attribute set to the value placeholder it is set to ("?" for an
// expression other than one placeholder).
type update struct {
	set            map[string]string
	added, removed map[string]bool
}

var clauseWord = regexp.MustCompile(`(?i)\b(SET|REMOVE|ADD|DELETE)\b`)

// parseUpdate reads an UpdateExpression (redimo's own: top-level clauses
// of comma-separated actions on top-level attributes).
func parseUpdate(expr string, names map[string]string) update {
	u := update{set: map[string]string{}, added: map[string]bool{}, removed: map[string]bool{}}
	locs := clauseWord.FindAllStringIndex(expr, -1)
	for i, loc := range locs {
		end := len(expr)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		word := strings.ToUpper(expr[loc[0]:loc[1]])
		for _, act := range splitTop(expr[loc[1]:end]) {
			act = strings.TrimSpace(act)
			switch word {
			case "SET":
				path, value, _ := strings.Cut(act, "=")
				value = strings.TrimSpace(value)
				if !strings.HasPrefix(value, ":") || strings.ContainsAny(value, " (+-") {
					value = "?"
				}
				u.set[attrName(path, names)] = value
			case "REMOVE":
				u.removed[attrName(act, names)] = true
			default: // ADD, DELETE
				path, _, _ := strings.Cut(act, " ")
				u.added[attrName(path, names)] = true
			}
		}
	}
	return u
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// attrName resolves a path's #placeholder.
func attrName(path string, names map[string]string) string {
	path = strings.TrimSpace(path)
	if n, ok := names[path]; ok {
		return n
	}
	return path
}

// condition is what a ConditionExpression says of attributes before the
// write: absent (attribute_not_exists), named (any other mention: the
// attribute exists), same (compared equal to a value placeholder).
type condition struct {
	absent, named map[string]bool
	same          map[string]string
}

var (
	notExists = regexp.MustCompile(`attribute_not_exists\(\s*(#?[A-Za-z0-9_]+)\s*\)`)
	equals    = regexp.MustCompile(`(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)`)
	nameTok   = regexp.MustCompile(`#?[A-Za-z0-9_]+`)
)

// parseCondition reads a ConditionExpression. An attribute both compared
// and allowed absent ("attribute_not_exists(#t) OR #t = :t") is absent
// and same: new, or unchanged.
func parseCondition(expr string, names map[string]string) condition {
	c := condition{absent: map[string]bool{}, named: map[string]bool{}, same: map[string]string{}}
	for _, m := range notExists.FindAllStringSubmatch(expr, -1) {
		c.absent[attrName(m[1], names)] = true
	}
	for _, m := range equals.FindAllStringSubmatch(expr, -1) {
		c.same[attrName(m[1], names)] = m[2]
	}
	rest := notExists.ReplaceAllString(expr, "")
	for _, tok := range nameTok.FindAllString(rest, -1) {
		if strings.HasPrefix(tok, "#") {
			c.named[attrName(tok, names)] = true
		}
	}
	return c
}

// pricedRead is the cost model's read units of a read that DynamoDB
// reported reported units for: those (DynamoDB and DynamoDB Local apply
// the documented rule to the items read), else from the items returned:
// one unit per 4 KB (half eventually consistent), at least one.
func pricedRead(reported float64, consistent *bool, items ...item) float64 {
	if reported > 0 {
		return reported
	}
	size := 0
	for _, it := range items {
		size += itemSize(it)
	}
	units := kb(size, 4096)
	if !aws.ToBool(consistent) {
		units /= 2
	}
	return units
}
