package model

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
//     value of Projected attributes in the index key schema, but does not
//     change the value of any indexed key attribute, one write is required"
//     (GSI.html#GSI.Writes, LSI.html#LSI.ThroughputConsiderations.Writes).
//     An index entry costs one unit per KB of its size (the table's key,
//     the index key and the Projected attributes, plus 100 bytes); inside a
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
// says nothing (a Delete's entries, a Projected attribute's change),
// what items of that sort key carry (ItemIndexes) decides. So the creation
// of a key's by_key entry is left out (2 units once per key created, seen
// only in what DynamoDB reports); item sizes are estimated from the
// attributes sent (an Update's from its key and values, a Delete's from
// its key), as DynamoDB bills the larger of the item before and after.

import (
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// IndexShape is a secondary index as the cost model sees it.
type IndexShape struct {
	Keys      []string // its key attributes, other than the table's
	Projected []string // the non-key attributes it projects
}

// IndexShapes are the indexes of the table redimo creates (schema).
func IndexShapes(in *dynamodb.CreateTableInput) []IndexShape {
	var out []IndexShape
	add := func(ks []types.KeySchemaElement, p *types.Projection) {
		var s IndexShape
		for _, k := range ks {
			if n := aws.ToString(k.AttributeName); n != AttrPK && n != AttrSK {
				s.Keys = append(s.Keys, n)
			}
		}
		if p != nil {
			s.Projected = p.NonKeyAttributes
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

// ItemIndexes reports, for a write whose request does not show it,
// whether an item with primary key key has an entry in index s: a
// metadata item (sort key MetaSK) in the index of ks and kh, a
// sorted-set member item in the index of ix (a set member has no ix:
// keys.go). (A member's mx shows in its writes' conditions: member
// expiry guards them, memberttl.go.)
func ItemIndexes(key Item, s IndexShape) bool {
	sk := BytesAttr(key, AttrSK)
	if len(sk) == 1 && sk[0] == MetaSK[0] {
		return slices.Contains(s.Keys, AttrKS)
	}
	if len(sk) > 0 && sk[0] == MemberPrefix(TypeZSet) {
		return slices.Contains(s.Keys, AttrIX)
	}
	return false
}

// PricedTransact is the cost model's write units of a TransactWriteItems
// that returned err. A transaction cancelled by a failed condition or a
// conflict costs its items' units and writes no index entry: "DynamoDB
// performs two underlying writes for each item — one to prepare the
// transaction and one to commit it ... This capacity is consumed even when
// the transaction is canceled (for example, because a condition check
// fails)" (read-write-operations.html). One refused for throttling or as
// invalid, or that failed otherwise, costs nothing here.
func PricedTransact(in *dynamodb.TransactWriteItemsInput, ixs []IndexShape, err error) float64 {
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
			units += 2 * PricedWrite("Put", a.Put.Item, a.Put.Item, nil, a.Put.ConditionExpression, a.Put.ExpressionAttributeNames, nil, ixs)
		case a.Update != nil:
			u := a.Update
			units += 2 * PricedWrite("Update", u.Key, u.ExpressionAttributeValues, u.UpdateExpression, u.ConditionExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues, ixs)
		case a.Delete != nil:
			d := a.Delete
			units += 2 * PricedWrite("Delete", d.Key, nil, nil, d.ConditionExpression, d.ExpressionAttributeNames, d.ExpressionAttributeValues, ixs)
		case a.ConditionCheck != nil:
			units += 2 * Kb(ItemSize(a.ConditionCheck.Key), 1024)
		}
	}
	return units
}

// PricedWrite is the write units of one Put, Update or Delete (kind)
// outside a transaction: its item's KBs plus its index entries' (see the
// rules above). key is its primary key, sent the attributes whose size
// stands for the item's (a Put's item, an Update's values).
func PricedWrite(kind string, key, sent Item, update, cond *string, names map[string]string, values Item, ixs []IndexShape) float64 {
	var units float64
	switch kind {
	case "Put":
		units = Kb(ItemSize(sent), 1024)
	case "Update":
		units = Kb(ItemSize(key)+ItemSize(sent), 1024)
	default:
		units = Kb(ItemSize(key), 1024)
	}
	c := ParseCondition(aws.ToString(cond), names)
	u := ParseUpdate(aws.ToString(update), names)
	for _, s := range ixs {
		entry := Kb(ItemSize(key)+100+EntrySize(sent, s), 1024)
		units += entry * float64(EntryWrites(kind, key, sent, u, c, s))
	}
	return units
}

// EntryWrites is how many writes of index s's entry a write makes: 0, 1
// (put or delete) or 2 (delete and put).
func EntryWrites(kind string, key, item Item, u Update, c Condition, s IndexShape) int {
	switch kind {
	case "Put":
		for _, k := range s.Keys {
			if _, ok := item[k]; !ok {
				return 0
			}
		}
		return 1
	case "Delete":
		for _, k := range s.Keys {
			switch {
			case c.Absent[k]:
				return 0
			case c.Named[k]:
				return 1
			}
		}
		if ItemIndexes(key, s) {
			return 1
		}
		return 0
	}
	// An Update.
	had := ItemIndexes(key, s)
	for _, k := range s.Keys {
		switch {
		case c.Absent[k] || c.Absent[AttrPK]:
			had = false
		case c.Named[k]:
			had = true
		}
	}
	for _, k := range s.Keys {
		switch {
		case u.Removed[k]:
			if had {
				return 1
			}
			return 0
		case u.Set[k] != "" && c.Same[k] == u.Set[k]:
			// Set to the value the condition requires it has: unchanged.
		case u.Set[k] != "" && (c.Absent[k] || c.Absent[AttrPK]):
			return 1 // a new entry
		case u.Set[k] != "" && c.Named[k]:
			return 2 // compared with its old value: changed (delete, put)
		}
	}
	if !had {
		return 0
	}
	for _, p := range s.Projected {
		if u.Removed[p] || u.Added[p] || (u.Set[p] != "" && c.Same[p] != u.Set[p]) {
			return 1
		}
	}
	return 0
}

// EntrySize is the bytes of s's entry of the item, besides the table's
// key and the 100 bytes of overhead: the index key and Projected
// attributes the write sends.
func EntrySize(sent Item, s IndexShape) int {
	n := 0
	for _, a := range append(slices.Clone(s.Keys), s.Projected...) {
		if v, ok := sent[a]; ok {
			n += ItemSize(Item{a: v})
		}
	}
	return n
}

// Kb is size in units of unit bytes, rounded up, at least 1.
func Kb(size, unit int) float64 { return float64(max(1, (size+unit-1)/unit)) }

// Update is what an UpdateExpression does, by attribute name: set maps an
// attribute set to the value placeholder it is set to ("?" for an
// expression other than one placeholder).
type Update struct {
	Set            map[string]string
	Added, Removed map[string]bool
}

var ClauseWord = regexp.MustCompile(`(?i)\b(SET|REMOVE|ADD|DELETE)\b`)

// ParseUpdate reads an UpdateExpression (redimo's own: top-level clauses
// of comma-separated actions on top-level attributes).
func ParseUpdate(expr string, names map[string]string) Update {
	u := Update{Set: map[string]string{}, Added: map[string]bool{}, Removed: map[string]bool{}}
	locs := ClauseWord.FindAllStringIndex(expr, -1)
	for i, loc := range locs {
		end := len(expr)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		word := strings.ToUpper(expr[loc[0]:loc[1]])
		for _, act := range SplitTop(expr[loc[1]:end]) {
			act = strings.TrimSpace(act)
			switch word {
			case "SET":
				path, value, _ := strings.Cut(act, "=")
				value = strings.TrimSpace(value)
				if !strings.HasPrefix(value, ":") || strings.ContainsAny(value, " (+-") {
					value = "?"
				}
				u.Set[AttrName(path, names)] = value
			case "REMOVE":
				u.Removed[AttrName(act, names)] = true
			default: // ADD, DELETE
				path, _, _ := strings.Cut(act, " ")
				u.Added[AttrName(path, names)] = true
			}
		}
	}
	return u
}

// SplitTop splits s at the commas outside parentheses.
func SplitTop(s string) []string {
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

// AttrName resolves a path's #placeholder.
func AttrName(path string, names map[string]string) string {
	path = strings.TrimSpace(path)
	if n, ok := names[path]; ok {
		return n
	}
	return path
}

// Condition is what a ConditionExpression says of attributes before the
// write: absent (attribute_not_exists), named (any other mention: the
// attribute exists), same (compared equal to a value placeholder).
type Condition struct {
	Absent, Named map[string]bool
	Same          map[string]string
}

var (
	NotExists = regexp.MustCompile(`attribute_not_exists\(\s*(#?[A-Za-z0-9_]+)\s*\)`)
	Equals    = regexp.MustCompile(`(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)`)
	NameTok   = regexp.MustCompile(`#?[A-Za-z0-9_]+`)
)

// ParseCondition reads a ConditionExpression. An attribute both compared
// and allowed absent ("attribute_not_exists(#t) OR #t = :t") is absent
// and same: new, or unchanged.
func ParseCondition(expr string, names map[string]string) Condition {
	c := Condition{Absent: map[string]bool{}, Named: map[string]bool{}, Same: map[string]string{}}
	for _, m := range NotExists.FindAllStringSubmatch(expr, -1) {
		c.Absent[AttrName(m[1], names)] = true
	}
	for _, m := range Equals.FindAllStringSubmatch(expr, -1) {
		c.Same[AttrName(m[1], names)] = m[2]
	}
	rest := NotExists.ReplaceAllString(expr, "")
	for _, tok := range NameTok.FindAllString(rest, -1) {
		if strings.HasPrefix(tok, "#") {
			c.Named[AttrName(tok, names)] = true
		}
	}
	return c
}

// PricedRead is the cost model's read units of a read that DynamoDB
// reported reported units for: those (DynamoDB and DynamoDB Local apply
// the documented rule to the items read), else from the items returned:
// one unit per 4 KB (half eventually consistent), at least one.
func PricedRead(reported float64, consistent *bool, items ...Item) float64 {
	if reported > 0 {
		return reported
	}
	size := 0
	for _, it := range items {
		size += ItemSize(it)
	}
	units := Kb(size, 4096)
	if !aws.ToBool(consistent) {
		units /= 2
	}
	return units
}

// PricedBatchRead is the cost model's read units of a BatchGetItem that
// asked for keys items (those DynamoDB left unprocessed not counted) and
// returned items: each key is read as a GetItem of it, and "If you perform
// a read operation on an item that doesn't exist, DynamoDB will still
// consume read throughput" (read-write-operations.html): a missing item
// costs what the smallest item does, one unit strongly consistent, half
// eventually consistent. DynamoDB Local reports
// 0 units for the missing items of a batch (it reports them for a GetItem
// and for an empty Query): the metrics layer (api.go) takes the larger of
// the units reported and these.
func PricedBatchRead(consistent *bool, keys int, items []Item) float64 {
	units := 0.0
	for _, it := range items {
		units += PricedRead(0, consistent, it)
	}
	if missing := keys - len(items); missing > 0 {
		units += float64(missing) * PricedRead(0, consistent)
	}
	return units
}

// ItemSize estimates the bytes of attributes as DynamoDB counts them: each
// name plus its value.
func ItemSize(attrs map[string]types.AttributeValue) int {
	n := 0
	for name, v := range attrs {
		n += len(name)
		switch v := v.(type) {
		case *types.AttributeValueMemberB:
			n += len(v.Value)
		case *types.AttributeValueMemberS:
			n += len(v.Value)
		case *types.AttributeValueMemberN:
			n += len(v.Value)/2 + 1
		case *types.AttributeValueMemberBS: // a small set's members (small.go)
			for _, b := range v.Value {
				n += len(b)
			}
		default:
			n += 8
		}
	}
	return n
}
