package redimo

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/redimo-go/redimo/internal/model"
	"github.com/stretchr/testify/require"
)

var (
	undeclaredMu sync.Mutex
	undeclared   = map[string]string{} // attribute → the operation that used it
)

// attrChecker is an http.RoundTripper that reads every request to the
// run's table and notes the attribute names it uses that attributes does
// not declare; TestMain fails the run when there are any.
type attrChecker struct{ next http.RoundTripper }

func (a attrChecker) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && testTable != "" {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		if bytes.Contains(body, []byte(testTable)) {
			notePartitions(body)
			for _, name := range attributeNames(body) {
				if !declared(name) {
					undeclaredMu.Lock()
					undeclared[name] = req.Header.Get("X-Amz-Target")
					undeclaredMu.Unlock()
				}
			}
		}
	}
	return a.next.RoundTrip(req)
}

func declared(name string) bool {
	if strings.HasPrefix(name, model.AttrLanePrefix) { // w.<writer><lane>
		return true
	}
	for _, a := range model.Attributes {
		if a.Name == name {
			return true
		}
	}
	return model.IsJournalKey(name) // a member's entry in a build's journal (rj), a map
}

// partitions holds every partition key a request to the run's table named
// in an item or a key (as a string): the partitions the tests may have
// written, which checkStoredCounts reads instead of scanning the table.
var partitions sync.Map

// notePartitions adds to partitions the partition keys of the items and
// keys a DynamoDB JSON request names.
func notePartitions(body []byte) {
	eachObject(body, func(m map[string]any) {
		if pk, ok := m[model.AttrPK].(map[string]any); ok {
			if b, ok := pk["B"].(string); ok {
				if raw, err := base64.StdEncoding.DecodeString(b); err == nil {
					partitions.Store(string(raw), true)
				}
			}
		}
	})
}

// eachObject calls f with every JSON object of a DynamoDB JSON request,
// nested ones included.
func eachObject(body []byte, f func(map[string]any)) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			f(v)
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
}

// attributeNames returns the attribute names a DynamoDB JSON request
// names: placeholder values, item and key attributes, key schemas and
// projections.
func attributeNames(body []byte) []string {
	var out []string
	keysOf := func(v any) {
		if m, ok := v.(map[string]any); ok {
			for k := range m {
				out = append(out, k)
			}
		}
	}
	each := func(v any, f func(any)) {
		if l, ok := v.([]any); ok {
			for _, x := range l {
				f(x)
			}
		}
	}
	eachObject(body, func(m map[string]any) {
		for k, x := range m {
			switch k {
			case "ExpressionAttributeNames":
				if names, ok := x.(map[string]any); ok {
					for _, n := range names {
						out = append(out, fmt.Sprint(n))
					}
				}
			case "Item", "Key", "ExclusiveStartKey":
				keysOf(x)
			case "Keys":
				each(x, keysOf)
			case "AttributeName":
				out = append(out, fmt.Sprint(x))
			case "NonKeyAttributes":
				each(x, func(n any) { out = append(out, fmt.Sprint(n)) })
			}
		}
	})
	return out
}

// undeclaredReport is what TestMain prints when requests used attributes
// the model does not declare ("" when none did).
func undeclaredReport() string {
	undeclaredMu.Lock()
	defer undeclaredMu.Unlock()
	if len(undeclared) == 0 {
		return ""
	}
	var lines []string
	for name, op := range undeclared {
		lines = append(lines, fmt.Sprintf("  %q (first seen in %s)", name, op))
	}
	sort.Strings(lines)
	return "requests used attributes that internal/model/keys.go's attributes does not declare:\n" + strings.Join(lines, "\n")
}

// The checker catches an undeclared attribute, in each place a request
// can name one, and lets declared ones pass.
func TestAttrCheckerFindsUndeclared(t *testing.T) {
	for _, body := range []string{
		`{"TableName":"T","Item":{"pk":{"B":"a"},"zz":{"S":"x"}}}`,
		`{"TableName":"T","ExpressionAttributeNames":{"#a":"zz"}}`,
		`{"TransactItems":[{"Update":{"TableName":"T","Key":{"pk":{"B":"a"},"zz":{"B":"b"}}}}]}`,
		`{"RequestItems":{"T":{"Keys":[{"zz":{"B":"a"}}]}}}`,
		`{"TableName":"T","ExclusiveStartKey":{"zz":{"B":"a"}}}`,
	} {
		names := attributeNames([]byte(body))
		require.Contains(t, names, "zz", body)
		for _, n := range names {
			require.True(t, n == "zz" || declared(n), n)
		}
	}
}

// doc.go's and docs/schema.md's schema tables name every attribute of the
// model, and docs/schema.md's names no other. (The table moved from the
// README to docs/schema.md, issue 24.)
func TestSchemaDocumented(t *testing.T) {
	readme, err := os.ReadFile("docs/schema.md")
	require.NoError(t, err)
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	table := section(t, string(readme), "## Attributes", "\n## ")
	schema := section(t, string(doc), "// # The table", "// Binary attributes")
	for _, a := range model.Attributes {
		require.Contains(t, table, "`"+a.Name+"`", "README's table lacks %s (%s)", a.Name, a.Holds)
		require.Regexp(t, `\b`+a.Name+`\b`, schema, "doc.go's table lacks %s (%s)", a.Name, a.Holds)
	}
	for _, m := range regexp.MustCompile("(?m)^\\| ((?:`[a-z]+`(?:, )?)+) \\|").FindAllStringSubmatch(table, -1) {
		for _, name := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(m[1], -1) {
			require.True(t, declared(name[1]), "the README's table names %s, which internal/model/keys.go does not declare", name[1])
		}
	}
}

func section(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	require.GreaterOrEqual(t, i, 0, "no %q", from)
	j := strings.Index(s[i+len(from):], to)
	require.GreaterOrEqual(t, j, 0, "no %q after %q", to, from)
	return s[i : i+len(from)+j]
}

// FuzzScoreEncoding: for any two non-NaN floats, the encoding round-trips
// (bit for bit, -0 as +0), preserves order, and the index value of (score,
// member) lies in the score's BETWEEN range and orders like (score, member).
func FuzzScoreEncoding(f *testing.F) {
	for _, s := range [][2]float64{{0, math.Copysign(0, -1)}, {1e308, -1e308}, {5e-324, -5e-324}, {0.1, 0.2}, {math.Inf(1), math.Inf(-1)}, {1, 1}} {
		f.Add(math.Float64bits(s[0]), math.Float64bits(s[1]), "a", "b")
	}
	f.Fuzz(func(t *testing.T, abits, bbits uint64, ma, mb string) {
		a, b := math.Float64frombits(abits), math.Float64frombits(bbits)
		if math.IsNaN(a) || math.IsNaN(b) {
			return
		}
		for _, x := range []float64{a, b} {
			want := x
			if x == 0 {
				want = 0
			}
			if got := model.DecodeScore(model.EncodeScore(x)); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("round trip %v → %v", x, got)
			}
			if got := model.ScoreOfIX(model.ZsetIX(x, ma)); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("ix round trip %v → %v", x, got)
			}
			ix := model.ZsetIX(x, ma)
			if bytes.Compare(ix, model.ScoreBound(x)) < 0 || bytes.Compare(ix, model.ScoreBoundAfter(x)) > 0 {
				t.Fatalf("ix of %v outside its BETWEEN range", x)
			}
		}
		ea, eb := model.EncodeScore(a), model.EncodeScore(b)
		switch {
		case a < b && ea >= eb, a > b && ea <= eb, a == b && ea != eb:
			t.Fatalf("order: %v vs %v encoded %x vs %x", a, b, ea, eb)
		}
		want := 0
		switch {
		case a < b:
			want = -1
		case a > b:
			want = 1
		default:
			want = bytes.Compare([]byte(ma), []byte(mb))
		}
		if got := bytes.Compare(model.ZsetIX(a, ma), model.ZsetIX(b, mb)); got != want {
			t.Fatalf("(%v,%q) vs (%v,%q): compare %d, want %d", a, ma, b, mb, got, want)
		}
		if a < b && bytes.Compare(model.ZsetIX(b, mb), model.ScoreBoundAfter(a)) <= 0 {
			t.Fatalf("a greater score falls inside the range of %v", a)
		}
	})
}

// FuzzMemberKey: sort keys of members never collide with the metadata
// item, with each other, or across types, and decode back.
func FuzzMemberKey(f *testing.F) {
	for _, s := range []string{"", "\x00", "a", "\xff\xfe", "héllo", "#pk", ":v"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, typ := range []model.KeyType{model.TypeSet, model.TypeZSet} {
			sk := model.MemberSK(typ, a)
			if bytes.Equal(sk, model.MetaSK) {
				t.Fatal("member sort key equals the metadata item's")
			}
			m, gotTyp, ok := model.MemberOf(model.Item{model.AttrSK: model.Bin(sk)})
			if !ok || m != a || gotTyp != typ {
				t.Fatalf("round trip %q → %q %v %v", a, m, gotTyp, ok)
			}
			if a != b && bytes.Equal(sk, model.MemberSK(typ, b)) {
				t.Fatal("distinct members share a sort key")
			}
		}
		if bytes.Equal(model.MemberSK(model.TypeSet, a), model.MemberSK(model.TypeZSet, b)) {
			t.Fatal("a set member and a zset member share a sort key")
		}
	})
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		match      bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*", "abc", true}, {"a*", "bac", false},
		{"?", "a", true}, {"?", "", false}, {"a?c", "abc", true},
		{"[abc]", "b", true}, {"[^abc]", "b", false}, {"[a-c]x", "bx", true}, {"[c-a]x", "bx", true},
		{`\*`, "*", true}, {`\*`, "a", false}, {"a[", "a", false}, {"user:*:x", "user:1:x", true},
	}
	for _, tc := range cases {
		require.Equal(t, tc.match, model.GlobMatch(tc.pattern, tc.s), "%q %q", tc.pattern, tc.s)
	}
	require.Equal(t, "user:", model.GlobPrefix("user:*"))
	require.Equal(t, "a*b", model.GlobPrefix(`a\*b?`))
}

// TestSetMemberSK: a set member's sort key is 's' + 7 bytes of its
// SHA-256 + the member (internal/model/keys.go): at most 1023 bytes when short, exactly
// 1024 when long, and inside the Query bounds of the bucket its position
// falls in (readArc), whatever the number of buckets.
func TestSetMemberSK(t *testing.T) {
	for _, n := range []int{0, 1, 1014, model.InlineMemberLen, model.InlineMemberLen + 1, 5000} {
		m := strings.Repeat("\xff", n)
		sk := model.MemberSK(model.TypeSet, m)
		h := sha256.Sum256([]byte(m))
		require.Equal(t, append([]byte{model.PrefixSet}, h[:model.SetHashLen]...), sk[:1+model.SetHashLen], "%d bytes: the hash first", n)
		if n <= model.InlineMemberLen {
			require.Len(t, sk, 1+model.SetHashLen+n)
			require.False(t, model.IsLongSK(sk), "%d bytes: short", n)
		} else {
			require.Len(t, sk, model.LongSKLen)
			require.True(t, model.IsLongSK(sk), "%d bytes: long", n)
			require.Equal(t, h[model.SetHashLen], sk[model.LongSKLen-1], "a long member's sort key ends with the hash's 8th byte")
		}
		pos := binary.BigEndian.Uint64(append(make([]byte, 8-model.SetHashLen), h[:model.SetHashLen]...))
		for _, b := range []int{1, 10, 30, 8 * model.SetHashLen} {
			j := pos >> (8*model.SetHashLen - b)
			lo := j << (8*model.SetHashLen - b)
			hi := lo | (1<<(8*model.SetHashLen-b) - 1)
			end := append(model.SetSKAt(hi), bytes.Repeat([]byte{0xFF}, model.LongSKLen-1-model.SetHashLen)...)
			require.True(t, bytes.Compare(model.SetSKAt(lo), sk) <= 0 && bytes.Compare(sk, end) <= 0, "%d bytes, %d bucket bits: in its bucket", n, b)
			if j > 0 {
				require.Negative(t, bytes.Compare(append(model.SetSKAt(lo-1), bytes.Repeat([]byte{0xFF}, model.LongSKLen-1-model.SetHashLen)...), sk), "after the previous bucket")
			}
		}
	}
	require.LessOrEqual(t, model.BucketBits(math.MaxInt64), 8*model.SetHashLen, "no more buckets than positions")
}
