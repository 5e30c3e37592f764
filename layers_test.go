package redimo

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

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
