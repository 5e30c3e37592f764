package redimo

// The README and docs/ say what the code does: these tests check the
// statements that the code (or the scripts) can confirm, so a change to
// either shows up here.

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/testenv"
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

// TestLayers holds CONTRIBUTING.md's layer table to the code: a file of
// the package uses nothing declared only in a file of a higher layer (a
// command file's function from the writer, say). Names are matched without
// types: a plain identifier names one top-level declaration; a selector
// x.name counts when every method called name is declared in higher
// layers and no struct field or interface method shares the name. The
// Client struct and NewClient (client.go) alone name higher layers'
// types: the Client holds their state.
func TestLayers(t *testing.T) {
	doc, err := os.ReadFile("CONTRIBUTING.md")
	require.NoError(t, err)
	layerOf := map[string]int{} // file pattern → its row among the package's layers
	var patterns []string
	row := 0
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.Contains(cells[2], ".go`") {
			continue
		}
		for _, m := range regexp.MustCompile("`([a-z_*]+\\.go)`").FindAllStringSubmatch(cells[2], -1) {
			layerOf[m[1]], patterns = row, append(patterns, m[1])
		}
		row++
	}
	require.Greater(t, row, 3, "CONTRIBUTING.md's layer table")
	layer := func(file string) int {
		for _, p := range patterns {
			if ok, _ := filepath.Match(p, file); ok {
				return layerOf[p]
			}
		}
		t.Fatalf("CONTRIBUTING.md's layer table does not name %s", file)
		return 0
	}

	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	names, _ := filepath.Glob("*.go")
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		files[name] = f
	}
	top := map[string]string{}       // top-level name → its file
	methods := map[string][]string{} // method name → the files declaring one
	shared := map[string]bool{}      // field and interface-method names
	for name, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					methods[d.Name.Name] = append(methods[d.Name.Name], name)
				} else {
					top[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						top[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							top[n.Name] = name
						}
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if fl, ok := n.(*ast.FieldList); ok {
				for _, fd := range fl.List {
					for _, n := range fd.Names {
						shared[n.Name] = true
					}
				}
			}
			return true
		})
	}
	var bad []string
	for name, f := range files {
		own := layer(name)
		higher := func(file string) bool { return layer(file) > own }
		var visit func(n ast.Node) bool
		within := func(parts ...ast.Node) bool {
			for _, p := range parts {
				if p != nil && !reflect.ValueOf(p).IsNil() {
					ast.Inspect(p, visit)
				}
			}
			return false
		}
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if name == "client.go" && (n.Name.Name == "Client" || n.Name.Name == "shared") {
					return false // holds each layer's state
				}
			case *ast.FuncDecl:
				if name == "client.go" && n.Name.Name == "NewClient" {
					return false // makes that state
				}
				return within(n.Recv, n.Type, n.Body) // not its name
			case *ast.Field: // names a field or parameter: only its type uses names
				return within(n.Type)
			case *ast.KeyValueExpr: // a field name, not a use
				if _, ok := n.Key.(*ast.Ident); ok {
					return within(n.Value)
				}
			case *ast.SelectorExpr:
				if files := methods[n.Sel.Name]; len(files) > 0 && !ast.IsExported(n.Sel.Name) && !shared[n.Sel.Name] && !slices.ContainsFunc(files, func(f string) bool { return !higher(f) }) {
					bad = append(bad, fmt.Sprintf("%s uses .%s (%s)", fset.Position(n.Sel.Pos()), n.Sel.Name, strings.Join(files, ", ")))
				}
				return within(n.X)
			case *ast.Ident:
				if decl, ok := top[n.Name]; ok && n.Obj == nil && higher(decl) {
					bad = append(bad, fmt.Sprintf("%s uses %s (%s)", fset.Position(n.Pos()), n.Name, decl))
				}
			}
			return true
		}
		ast.Inspect(f, visit)
	}
	slices.Sort(bad)
	require.Empty(t, slices.Compact(bad), "uses of a higher layer (CONTRIBUTING.md)")
}

// TestREADMEOutsideModule does what a new user does: a module of its own,
// at the lowest Go version redimo supports, with nothing but a replace
// line pointing at this repository, builds the README's programs and runs
// the DynamoDB Local one against the test's DynamoDB Local.
func TestREADMEOutsideModule(t *testing.T) {
	needDB(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	if testing.Short() {
		t.Skip("-short: builds a module")
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	programs := regexp.MustCompile("(?s)```go\n(package main\n.*?)```").FindAllStringSubmatch(string(readme), -1)
	require.Len(t, programs, 2, "the README's two complete programs: DynamoDB Local, then AWS")
	local, onAWS := programs[0][1], programs[1][1]
	require.Contains(t, local, `"http://127.0.0.1:8000"`)

	repo, err := os.Getwd()
	require.NoError(t, err)
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(readFile(t, "go.mod"))[1]
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("go.mod", "module example.com/app\n\ngo "+goVersion+"\n\nreplace github.com/redimo-go/redimo => "+repo+"\n")
	write("main.go", strings.Replace(local, "http://127.0.0.1:8000", testEndpoint, 1))
	write("aws/main.go", onAWS)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	gocmd := func(args ...string) string {
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir = dir
		// -mod=mod: the go command adds the requirements itself, as
		// `go get` would; GOTOOLCHAIN=local: no toolchain download.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}
	// Both programs' imports resolved (go.mod gets its requirements);
	// the full suite also builds the AWS program (it is not run). go vet
	// would also analyse every dependency: half a minute of CPU.
	gocmd("list", "-deps", "./...")
	if testenv.Thorough() {
		gocmd("build", "./...")
	}
	out := gocmd("run", ".")
	require.Regexp(t, `^[02] new visitors, 2 in all\n$`, out)
	require.Contains(t, readFile(t, filepath.Join(dir, "go.mod")), "go "+goVersion+"\n", "the module stays at the lowest version")
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(b)
}

// TestREADMEShape: a README a newcomer reads in ten minutes (≤ 300 lines),
// which shows `make demo` and `make test` (the contract), one contiguous
// list of limits and differences, the version scheme, the licence, and a
// table of contents for the reference in docs/.
func TestREADMEShape(t *testing.T) {
	readme := readFile(t, "README.md")
	lines := strings.Count(readme, "\n")
	require.LessOrEqual(t, lines, 300, "README.md lines")
	for _, want := range []string{"make demo", "make test", "## Contributing", "## Limits and differences from Redis",
		"## Versions and stability", "v0.MINOR.PATCH", "(LICENSE)", "(CHANGELOG.md)", "(docs/README.md)"} {
		require.Contains(t, readme, want)
	}
	// The limits are one list: from its heading to the next, nothing but
	// list items (no paragraph splitting it).
	section := strings.SplitN(strings.SplitN(readme, "## Limits and differences from Redis\n", 2)[1], "\n## ", 2)[0]
	for _, para := range strings.Split(strings.TrimSpace(section), "\n- ") {
		require.NotContains(t, strings.TrimPrefix(para, "- "), "\n\n", "a paragraph inside the list")
	}
	require.Regexp(t, `^\s+Apache License\s+Version 2\.0, January 2004`, readFile(t, "LICENSE"))
	require.Contains(t, readFile(t, "CHANGELOG.md"), "## [Unreleased]")
}
