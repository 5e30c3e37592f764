package redimo

// The README and docs/ say what the code does: these tests check the
// statements that the code (or the scripts) can confirm, so a change to
// either shows up here.

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// oneLine is text with every run of white space made one space, so that
// a statement may wrap anywhere.
func oneLine(text string) string { return strings.Join(strings.Fields(text), " ") }

// docFiles are the README and every page of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	return append([]string{"README.md"}, pages...)
}

// slug is GitHub's anchor of a heading.
func slug(heading string) string {
	s := strings.ToLower(strings.TrimSpace(heading))
	s = regexp.MustCompile(`[^a-z0-9 _-]`).ReplaceAllString(s, "")
	return strings.ReplaceAll(s, " ", "-")
}

// Every relative link of the README and docs/ reaches a file, and its
// anchor a heading of that file.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range docFiles(t) {
		for _, m := range link.FindAllStringSubmatch(readFile(t, page), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			info, err := os.Stat(path)
			require.NoError(t, err, "%s links to %s", page, target)
			if anchor == "" || info.IsDir() {
				continue
			}
			var slugs []string
			for _, h := range regexp.MustCompile(`(?m)^#+ (.*)$`).FindAllStringSubmatch(readFile(t, path), -1) {
				slugs = append(slugs, slug(h[1]))
			}
			require.Contains(t, slugs, anchor, "%s links to %s", page, target)
		}
	}
}

// docs/README.md lists every page of docs/.
func TestDocsTableOfContents(t *testing.T) {
	toc := readFile(t, "docs/README.md")
	for _, page := range docFiles(t)[1:] {
		if name := filepath.Base(page); name != "README.md" {
			require.Contains(t, toc, "]("+name+")", "docs/README.md lists %s", name)
		}
	}
}

// docs/schema.md describes the indexes CreateTable makes (Client.schema):
// names, keys and projections (the README of old said "keys only" for an
// index that projects mx).
func TestDocsSchemaIndexes(t *testing.T) {
	doc := oneLine(readFile(t, "docs/schema.md"))
	ops := oneLine(readFile(t, "docs/operations.md"))
	in := NewClient(nil).schema()
	keys := func(ks []types.KeySchemaElement) string {
		return "(`" + aws.ToString(ks[0].AttributeName) + "`, `" + aws.ToString(ks[1].AttributeName) + "`)"
	}
	projection := func(p *types.Projection) string {
		if p.ProjectionType == types.ProjectionTypeKeysOnly {
			return "`KEYS_ONLY`"
		}
		return "`" + string(p.ProjectionType) + "` `" + strings.Join(p.NonKeyAttributes, "`, `") + "`"
	}
	var want []string
	for _, ix := range in.LocalSecondaryIndexes {
		want = append(want, "`"+aws.ToString(ix.IndexName)+"`: local secondary index on "+keys(ix.KeySchema)+", projection "+projection(ix.Projection))
	}
	for _, ix := range in.GlobalSecondaryIndexes {
		want = append(want, "`"+aws.ToString(ix.IndexName)+"`: global secondary index on "+keys(ix.KeySchema)+", projection "+projection(ix.Projection))
	}
	require.Len(t, want, 3)
	for _, w := range want {
		require.Contains(t, doc, w)
	}
	require.Contains(t, doc, "Key: `pk` (B, partition key), `sk` (B, sort key).")
	require.Equal(t, types.BillingModePayPerRequest, in.BillingMode)
	require.Contains(t, doc, "on-demand (`PAY_PER_REQUEST`)")
	// The template's description in operations.md.
	require.Contains(t, ops, "the local secondary indexes `by_ix` (on `ix`, projecting `mx`) and `by_exp` (on `mx`, keys only) and the global secondary index `by_key` (on `ks`, `kh`, projecting `t`, `x`, `mn`)")
}

// What the docs say of DynamoDB Local is what scripts/with-services.sh and
// docker-compose.yml do: the npm package installed, -inMemory -sharedDb,
// and (when the jar is installed) its version.
func TestDocsDynamoDBLocal(t *testing.T) {
	script := readFile(t, "scripts/with-services.sh")
	pkg := regexp.MustCompile(`(?m)^DDB_NPM_PKG=(\S+)$`).FindStringSubmatch(script)
	require.NotNil(t, pkg)
	readme, ops := oneLine(readFile(t, "README.md")), oneLine(readFile(t, "docs/operations.md"))
	for _, doc := range []string{readme, ops} {
		require.Contains(t, doc, "`"+pkg[1]+"`")
		require.Contains(t, doc, "-sharedDb")
		require.Contains(t, doc, "in memory")
	}
	require.Regexp(t, `java .*DynamoDBLocal\.jar" \\\n\s+-inMemory -sharedDb -port`, script)
	require.Contains(t, readFile(t, "docker-compose.yml"), "-inMemory -sharedDb")
	require.Contains(t, ops, "-jar DynamoDBLocal.jar -inMemory -sharedDb -port 8000")

	// The jar's own release notes, when with-services.sh has installed it.
	dir := os.Getenv("REDIMO_LOCAL_DIR")
	if dir == "" {
		dir = ".local"
	}
	notes, _ := filepath.Glob(filepath.Join(dir, "dynamodb-local/package/lib/dynamodb_local_*/README.txt"))
	if len(notes) == 0 {
		t.Log("DynamoDB Local not installed: its version is not checked")
		return
	}
	b, err := os.ReadFile(notes[len(notes)-1])
	require.NoError(t, err)
	first := regexp.MustCompile(`(\d{4}-\d\d-\d\d) \((\d+\.\d+\.\d+)\)`).FindStringSubmatch(string(b))
	require.NotNil(t, first, "release notes of %s", notes[len(notes)-1])
	require.Contains(t, ops, "DynamoDB Local "+first[2]+" (the jar of "+first[1]+")")
}

// The README names every field of Options.
func TestREADMENamesEveryOption(t *testing.T) {
	readme := readFile(t, "README.md")
	typ := reflect.TypeOf(Options{})
	for i := range typ.NumField() {
		require.Contains(t, readme, "`"+typ.Field(i).Name+"`", "README's Options list")
	}
}

// TestContributingMapsEveryFile: CONTRIBUTING.md's layer table names every
// production file of the root package (by name or by a pattern such as
// rank*.go), so the map of the code stays true.
func TestContributingMapsEveryFile(t *testing.T) {
	doc, err := os.ReadFile("CONTRIBUTING.md")
	require.NoError(t, err)
	var named []string
	for _, m := range regexp.MustCompile("`([a-z_*]+\\.go)`").FindAllStringSubmatch(string(doc), -1) {
		named = append(named, m[1])
	}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		found := slices.ContainsFunc(named, func(p string) bool { ok, _ := filepath.Match(p, f); return ok })
		require.True(t, found, "CONTRIBUTING.md's layer table does not name %s", f)
	}
}
