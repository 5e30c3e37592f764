package ddbmodel

// Reading DynamoDB's JSON: key schemas, item identities and item sizes.

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
)

// item is a DynamoDB item (or key) as JSON: attribute name → AttributeValue
// ({"S": "..."}, {"B": "base64"}, ...).
type item map[string]json.RawMessage

// schema is what the model needs of a table: its key attributes, its local
// secondary indexes (their sort-key attribute) and its global ones.
type schema struct {
	table, arn string
	hash, rng  string
	lsi        map[string]string // index name → sort-key attribute
	gsi        map[string]bool
}

// tableDescription is the part of DescribeTable's Table (and CreateTable's
// TableDescription) the model reads.
type tableDescription struct {
	TableName             string
	TableArn              string
	KeySchema             []keyElement
	LocalSecondaryIndexes []struct {
		IndexName string
		KeySchema []keyElement
	}
	GlobalSecondaryIndexes []struct{ IndexName string }
}

type keyElement struct{ AttributeName, KeyType string }

func newSchema(d tableDescription) *schema {
	s := &schema{table: d.TableName, arn: d.TableArn, lsi: map[string]string{}, gsi: map[string]bool{}}
	if s.arn == "" {
		s.arn = "arn:aws:dynamodb:local:000000000000:table/" + d.TableName
	}
	for _, k := range d.KeySchema {
		if k.KeyType == "HASH" {
			s.hash = k.AttributeName
		} else {
			s.rng = k.AttributeName
		}
	}
	for _, ix := range d.LocalSecondaryIndexes {
		for _, k := range ix.KeySchema {
			if k.KeyType == "RANGE" {
				s.lsi[ix.IndexName] = k.AttributeName
			}
		}
	}
	for _, ix := range d.GlobalSecondaryIndexes {
		s.gsi[ix.IndexName] = true
	}
	return s
}

// canonical is v with insignificant white space removed, so that equal
// values compare equal.
func canonical(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// keyOf is the primary key of it (a full item or a key).
func (s *schema) keyOf(it item) item {
	k := item{s.hash: it[s.hash]}
	if s.rng != "" {
		k[s.rng] = it[s.rng]
	}
	return k
}

// itemID identifies the item with key k across the model.
func (s *schema) itemID(k item) string {
	id := s.partitionID(k[s.hash])
	if s.rng != "" {
		id += "\x00" + canonical(k[s.rng])
	}
	return id
}

// partitionID identifies the partition-key value pk of the table. Items
// of one partition key value, and their local secondary index entries,
// share one partition: "A local secondary index is "local" in the sense
// that every partition of a local secondary index is scoped to a base
// table partition that has the same partition key value"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.CoreComponents.html).
func (s *schema) partitionID(pk json.RawMessage) string {
	return s.table + "\x00" + canonical(pk)
}

// indexWrites is how many local-secondary-index writes a write of kind
// ("Put", "Update", "Delete", "ConditionCheck") causes: "If you write a new
// item to the table that defines an indexed attribute ... one write
// operation is required to put the item into the index. If an update to
// the table changes the value of an indexed key attribute (from A to B), two
// writes are required: one to delete the previous item from the index and
// another write to put the new item into the index ... If an item was
// present in the index, but a write to the table caused the indexed
// attribute to be deleted, one write is required"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ThroughputConsiderations.Writes).
//
// The model sees only the request, not the item before it: a Put that
// defines an indexed attribute counts 1 (as if the item were new), an
// Update whose update expression names one counts 2 (as if it changed), and
// a Delete counts 1 when the table has a local secondary index (as if the
// item had an entry).
func (s *schema) indexWrites(kind string, a *action) int {
	n := 0
	for _, attr := range s.lsi {
		switch kind {
		case "Put":
			if _, ok := a.Item[attr]; ok {
				n++
			}
		case "Update":
			if mentions(a.UpdateExpression, a.ExpressionAttributeNames, attr) {
				n += 2
			}
		case "Delete":
			n++
		}
	}
	return n
}

var nameToken = regexp.MustCompile(`#?[A-Za-z0-9_]+`)

// mentions reports whether expr names attribute attr, directly or through a
// #placeholder of names.
func mentions(expr string, names map[string]string, attr string) bool {
	for _, tok := range nameToken.FindAllString(expr, -1) {
		if tok == attr || (strings.HasPrefix(tok, "#") && names[tok] == attr) {
			return true
		}
	}
	return false
}

var equality = regexp.MustCompile(`(#?[A-Za-z0-9_.]+)\s*=\s*(:[A-Za-z0-9_]+)`)

// queryPartition returns the partition-key value a Query's key condition
// selects (a Query always names exactly one), or nil when it cannot tell.
func (s *schema) queryPartition(cond string, names map[string]string, values item) json.RawMessage {
	for _, m := range equality.FindAllStringSubmatch(cond, -1) {
		name := m[1]
		if strings.HasPrefix(name, "#") {
			name = names[name]
		}
		if name == s.hash {
			return values[m[2]]
		}
	}
	return nil
}

// itemSize approximates an item's size as DynamoDB counts it: "the sum of
// the lengths of its attribute names and values"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html);
// numbers count about one byte per two digits plus one.
func itemSize(it item) int {
	n := 0
	for name, v := range it {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(raw json.RawMessage) int {
	var v map[string]json.RawMessage
	if json.Unmarshal(raw, &v) != nil {
		return len(raw)
	}
	n := 0
	for typ, x := range v {
		switch typ {
		case "S":
			var s string
			_ = json.Unmarshal(x, &s)
			n += len(s)
		case "N":
			var s string
			_ = json.Unmarshal(x, &s)
			n += numberSize(s)
		case "B":
			var b []byte
			_ = json.Unmarshal(x, &b)
			n += len(b)
		case "SS":
			var ss []string
			_ = json.Unmarshal(x, &ss)
			for _, s := range ss {
				n += len(s)
			}
		case "NS":
			var ss []string
			_ = json.Unmarshal(x, &ss)
			for _, s := range ss {
				n += numberSize(s)
			}
		case "BS":
			var bs [][]byte
			_ = json.Unmarshal(x, &bs)
			for _, b := range bs {
				n += len(b)
			}
		case "L":
			var l []json.RawMessage
			_ = json.Unmarshal(x, &l)
			n += 3
			for _, e := range l {
				n += 1 + valueSize(e)
			}
		case "M":
			var mm map[string]json.RawMessage
			_ = json.Unmarshal(x, &mm)
			n += 3
			for k, e := range mm {
				n += len(k) + 1 + valueSize(e)
			}
		default: // BOOL, NULL
			n++
		}
	}
	return n
}

func numberSize(s string) int {
	digits := strings.Trim(strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s), "0")
	return (len(digits)+1)/2 + 1
}

// units is size in capacity units of unit bytes, rounded up, at least 1.
func units(size, unit int) float64 {
	return max(1, math.Ceil(float64(size)/float64(unit)))
}
