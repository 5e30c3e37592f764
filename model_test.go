package redimo

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
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

// The data model (internal/model/keys.go's attributes) is the whole schema: every request
// the tests send to the run's table is checked against it, and doc.go and
// the README document every attribute of it.

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
