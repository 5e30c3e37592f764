package model

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MetaWrite is an action on a key's metadata item, as data: what it
// requires of the item (the Require methods, all of which must hold) and
// what it changes (Set, Add, Remove, Delete). Every action on a metadata
// item is built here, by the writer (metaAction), EXEC's commit, purges,
// EXPIRE and PERSIST and the count-item builds, and rendered once
// (Action, Update), so the rules of the item's attributes live in one
// place:
//
//   - NewVersion stores a fresh version token (AttrVer, which WATCH
//     compares) and (re)writes the key-index attributes (KeyIndexSet);
//     every change of the key's members or type calls it;
//   - NewExpToken stores a fresh expiry token (AttrExpTok), with every
//     change of the key's expiry;
//   - an action that changes nothing is a ConditionCheck, and Delete's
//     writes no attribute.
//
// Placeholders are fixed per attribute (metaNames), so requirements given
// as expressions (Require) use the same names as the rest.
type MetaWrite struct {
	key                 string
	del                 bool
	conds               []string
	sets, adds, removes []string
	dels                []string // DELETE: elements out of a set attribute
	values              Item
	lanes               map[string]string // placeholders of writer-lane attributes (WriteToken)
	names               map[string]string // placeholders of a build's journal entries (Journal)
}

// metaNames are the placeholders of the metadata item's attributes.
var metaNames = map[string]string{
	"#pk": AttrPK, "#t": AttrType, "#n": AttrCard, "#x": AttrExp, "#xt": AttrExpTok,
	"#v": AttrVer, "#mn": AttrMemTTL, "#rk": AttrRanked, "#ks": AttrKS, "#kh": AttrKH, "#kk": AttrKey,
	"#sm": AttrSmall, "#sb": AttrSmallLen, "#zm": AttrSmallZ, "#wt": AttrWriteTok, "#gc": AttrGC, "#cs": AttrConverted,
	"#rb": AttrBuild, "#j": AttrJourn,
}

var (
	placeholder      = regexp.MustCompile(`#[a-z]+`)
	valuePlaceholder = regexp.MustCompile(`:[a-z0-9]+`)
)

// NewMetaWrite starts an action on key's metadata item.
func NewMetaWrite(key string) *MetaWrite { return &MetaWrite{key: key, values: Item{}} }

// Require adds a requirement written over the placeholders of metaNames
// and values given with Value.
func (m *MetaWrite) Require(expr string) *MetaWrite {
	if strings.Contains(expr, " OR ") {
		expr = "(" + expr + ")"
	}
	m.conds = append(m.conds, expr)
	return m
}

// Value gives a value placeholder of a requirement.
func (m *MetaWrite) Value(name string, v types.AttributeValue) *MetaWrite {
	m.values[name] = v
	return m
}

// RequireType requires the key to be of type t.
func (m *MetaWrite) RequireType(t KeyType) *MetaWrite {
	return m.Value(":t", Str(string(t))).Require("#t = :t")
}

// RequireTypeOrAbsent requires the key to be of type t or missing.
func (m *MetaWrite) RequireTypeOrAbsent(t KeyType) *MetaWrite {
	return m.Value(":t", Str(string(t))).Require("attribute_not_exists(#t) OR #t = :t")
}

// RequireExists requires the key to exist (expired or not).
func (m *MetaWrite) RequireExists() *MetaWrite { return m.Require("attribute_exists(#t)") }

// RequireLive requires the key not to have expired at now.
func (m *MetaWrite) RequireLive(now int64) *MetaWrite {
	return m.Value(":now", Num(now)).Require("attribute_not_exists(#x) OR #x > :now")
}

// RequireExpiring requires the key to have an expiry after now.
func (m *MetaWrite) RequireExpiring(now int64) *MetaWrite {
	return m.Value(":now", Num(now)).Require("#x > :now")
}

// RequireExpiry requires the key's expiry to be one of exps.
func (m *MetaWrite) RequireExpiry(exps ...int64) *MetaWrite {
	var or []string
	for i, x := range exps {
		name := ":x" + string(rune('0'+i))
		if x == DeadExp {
			name = ":dead"
		}
		m.Value(name, Num(x))
		or = append(or, "#x = "+name)
	}
	return m.Require(strings.Join(or, " OR "))
}

// RequireCard requires the key's count to compare with n by op (=, >, >=).
func (m *MetaWrite) RequireCard(op string, n int64) *MetaWrite {
	return m.Value(":k", Num(n)).Require("#n " + op + " :k")
}

// RequireVersion requires the key's version token to be ver.
func (m *MetaWrite) RequireVersion(ver []byte) *MetaWrite {
	return m.Value(":rv", Bin(ver)).Require("#v = :rv")
}

// RequireRanked requires the sorted set's count items to exist (rk set)
// or not.
func (m *MetaWrite) RequireRanked(ranked bool) *MetaWrite {
	if ranked {
		return m.Require("attribute_exists(#rk)")
	}
	return m.Require("attribute_not_exists(#rk)")
}

// RequireBuild requires the sorted set's count-item build in progress
// (rank.go) to be the one of token tok, or none when tok is nil.
func (m *MetaWrite) RequireBuild(tok []byte) *MetaWrite {
	if tok == nil {
		return m.Require("attribute_not_exists(#rb)")
	}
	return m.Value(":rb", Bin(tok)).Require("#rb = :rb")
}

// RequireAsRead requires the item to be exactly as raw (nil: missing),
// in every attribute a write changes: EXEC's condition on a key it read.
// rk and rb too: a build (rank.go) sets them without a new version, and a
// transaction that read the key unranked keeps no count items.
func (m *MetaWrite) RequireAsRead(raw Item) *MetaWrite {
	if raw == nil {
		return m.Require("attribute_not_exists(#pk)")
	}
	for _, p := range []string{"#t", "#n", "#x", "#v", "#xt", "#rk", "#rb"} {
		if v, ok := raw[metaNames[p]]; ok {
			m.Value(":r"+p[1:], v).Require(p + " = :r" + p[1:])
		} else {
			m.Require("attribute_not_exists(" + p + ")")
		}
	}
	return m
}

// set adds expr to the update's SET, with the value of its placeholder.
func (m *MetaWrite) set(expr, name string, v types.AttributeValue) *MetaWrite {
	m.values[name] = v
	m.sets = append(m.sets, expr)
	return m
}

// add adds expr to the update's ADD, with the value of its placeholder.
func (m *MetaWrite) add(expr, name string, v types.AttributeValue) *MetaWrite {
	m.values[name] = v
	m.adds = append(m.adds, expr)
	return m
}

// SetType stores the key's type. The key lives: an item kept for its
// write tokens (DeleteKey) stops being one DynamoDB's TTL may delete.
func (m *MetaWrite) SetType(t KeyType) *MetaWrite {
	m.removes = append(m.removes, "#gc")
	return m.set("#t = :t", ":t", Str(string(t)))
}

// SetCard stores the key's count.
func (m *MetaWrite) SetCard(n int64) *MetaWrite {
	return m.set("#n = :n", ":n", Num(n))
}

// AddCard adds d to the key's count.
func (m *MetaWrite) AddCard(d int64) *MetaWrite {
	return m.add("#n :d", ":d", Num(d))
}

// AddTTLs adds d to the number of members with an expiry (mn).
func (m *MetaWrite) AddTTLs(d int64) *MetaWrite {
	return m.add("#mn :dt", ":dt", Num(d))
}

// SetExp stores the key's expiry, at.
func (m *MetaWrite) SetExp(at int64) *MetaWrite {
	return m.set("#x = :at", ":at", Num(at))
}

// Kill marks the key dead (expired at DeadExp, a fresh version token, which
// WATCH compares): it is missing for every reader from this write on, and
// its items go after (a purge: the root package's reclaim), by whichever
// client gets there first.
func (m *MetaWrite) Kill() *MetaWrite {
	m.SetExp(DeadExp)
	return m.set("#v = :v", ":v", Bin(VersionToken()))
}

// RemoveExp removes the key's expiry.
func (m *MetaWrite) RemoveExp() *MetaWrite {
	m.removes = append(m.removes, "#x")
	return m
}

// NewExpToken stores tok as the token of the key's last expiry change.
func (m *MetaWrite) NewExpToken(tok string) *MetaWrite {
	return m.set("#xt = :xt", ":xt", Str(tok))
}

// NewVersion stores a fresh version token and the key-index attributes.
func (m *MetaWrite) NewVersion() *MetaWrite {
	m.values[":v"] = Bin(VersionToken())
	names := map[string]string{}
	m.sets = append(m.sets, "#v = :v", KeyIndexSet(m.key, names, m.values))
	return m
}

// SetRanked marks the sorted set's count items built (rk).
func (m *MetaWrite) SetRanked() *MetaWrite {
	return m.set("#rk = :one", ":one", Num(1))
}

// RemoveRanked marks the sorted set unranked: its ranks are counted. A
// build in progress is cancelled (RemoveBuild).
func (m *MetaWrite) RemoveRanked() *MetaWrite {
	m.removes = append(m.removes, "#rk")
	return m.RemoveBuild()
}

// StartBuild records a build of the sorted set's count items in
// progress: its token tok and an empty journal (rank.go).
func (m *MetaWrite) StartBuild(tok []byte) *MetaWrite {
	m.values[":rj"] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
	m.sets = append(m.sets, "#j = :rj")
	return m.set("#rb = :rbt", ":rbt", Bin(tok))
}

// RemoveBuild ends (or cancels) the build in progress: its token and
// journal go.
func (m *MetaWrite) RemoveBuild() *MetaWrite {
	m.removes = append(m.removes, "#rb", "#j")
	return m
}

// Journal records in the build's journal, for each member item sort key
// of entries not written since the build began, the range it was in then
// (entries' value; -1: absent). The first write of a member after the
// build began is the one that knows it: later ones leave its entry as
// it is (if_not_exists). Entries are named by JournalKey.
func (m *MetaWrite) Journal(entries map[string]int) *MetaWrite {
	if m.names == nil {
		m.names = map[string]string{}
	}
	// Short placeholders: a transaction's 98 entries must fit, with the
	// rest, in an update expression of 4 KB (TestRankJournalFitsAnExpression).
	i := 0
	for sk, r := range entries {
		name := "#j" + letters(i)
		m.names[name] = JournalKey([]byte(sk))
		v := ":j" + letters(r+1) // one value per range
		m.values[v] = Num(int64(r))
		m.sets = append(m.sets, "#j."+name+" = if_not_exists(#j."+name+", "+v+")")
		i++
	}
	return m
}

// JournalKey is a member's name in a build's journal: the first 12 bytes
// of its item sort key's SHA-256, in hex (a member may be up to 400,000
// bytes; a journal lives on the metadata item).
func JournalKey(sk []byte) string {
	h := sha256.Sum256(sk)
	return hex.EncodeToString(h[:12])
}

// IsJournalKey reports whether name is a JournalKey: a name inside a
// build's journal, not an attribute of an item.
func IsJournalKey(name string) bool {
	_, err := hex.DecodeString(name)
	return len(name) == 24 && err == nil
}

// letters is i in base 26, in letters (placeholders are letters only).
func letters(i int) string {
	s := string(rune('a' + i%26))
	for i /= 26; i > 0; i /= 26 {
		s = string(rune('a'+i%26)) + s
	}
	return s
}

// Delete makes the action the item's deletion (on its requirements).
func (m *MetaWrite) Delete() *MetaWrite {
	m.del = true
	return m
}

// render is the action's expressions, with the placeholders they use.
func (m *MetaWrite) render() (update, cond *string, names map[string]string, values Item) {
	var u []string
	if !m.del {
		if len(m.sets) > 0 {
			u = append(u, "SET "+strings.Join(m.sets, ", "))
		}
		if len(m.removes) > 0 {
			slices.Sort(m.removes)
			u = append(u, "REMOVE "+strings.Join(slices.Compact(m.removes), ", "))
		}
		if len(m.adds) > 0 {
			u = append(u, "ADD "+strings.Join(m.adds, ", "))
		}
		if len(m.dels) > 0 {
			u = append(u, "DELETE "+strings.Join(m.dels, ", "))
		}
	}
	c := strings.Join(m.conds, " AND ")
	all := strings.Join(u, " ") + " " + c
	names = map[string]string{}
	for _, p := range placeholder.FindAllString(all, -1) {
		if n, ok := m.lanes[p]; ok {
			names[p] = n
		} else if n, ok := m.names[p]; ok {
			names[p] = n
		} else {
			names[p] = metaNames[p]
		}
	}
	values = Item{}
	for _, p := range valuePlaceholder.FindAllString(all, -1) {
		values[p] = m.values[p]
	}
	if len(u) > 0 {
		update = aws.String(strings.Join(u, " "))
	}
	if c != "" {
		cond = aws.String(c)
	}
	if len(values) == 0 {
		values = nil
	}
	return update, cond, names, values
}

// Action is the action in a TransactWriteItems: a Delete, an Update, or a
// ConditionCheck when it changes nothing. A failed condition returns the
// item as it is.
func (m *MetaWrite) Action(table *string) types.TransactWriteItem {
	update, cond, names, values := m.render()
	onFail := types.ReturnValuesOnConditionCheckFailureAllOld
	key, t := MetaKey(m.key), table
	switch {
	case m.del:
		return types.TransactWriteItem{Delete: &types.Delete{TableName: t, Key: key, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: onFail}}
	case update == nil:
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: t, Key: key, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: onFail}}
	}
	return types.TransactWriteItem{Update: &types.Update{TableName: t, Key: key, UpdateExpression: update, ConditionExpression: cond,
		ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: onFail}}
}

// Update is the action as one UpdateItem. A failed condition returns the
// item as it is.
func (m *MetaWrite) Update(table *string) *dynamodb.UpdateItemInput {
	update, cond, names, values := m.render()
	return &dynamodb.UpdateItemInput{TableName: table, Key: MetaKey(m.key), UpdateExpression: update,
		ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}
}
