package build

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// The Engine is a coordinator over owners that each hold their own state
// (published, sink, pageCache, extras, progress, options, onDisk): it
// grew once into a god object of 35 fields and 123 methods, each feature
// arriving as fields and methods on it (issue 27). These bounds hold the
// line. A new feature brings its own type, with its state, its methods
// and its tests, and the Engine gains a field for it at most: raising a
// bound needs a reason that a new type would not serve.
const (
	// maxEngineFields is the bound the design sets.
	maxEngineFields = 15
	// maxEngineMethods is the count after the split (85), and a few
	// more: the steps of the publish pipeline are the coordinator's.
	maxEngineMethods = 90
	// maxFuncLines bounds every function of the package: a longer one is
	// steps of a pipeline that want names.
	maxFuncLines = 60
)

// TestEngineShape parses the package and fails when the Engine outgrows
// its bounds, or a function its length.
func TestEngineShape(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, en := range entries {
		if n := en.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			f, err := parser.ParseFile(fset, n, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	fields, methods := -1, 0
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "Engine" {
						fields = countFields(ts.Type.(*ast.StructType))
					}
				}
			case *ast.FuncDecl:
				if receiver(d) == "Engine" {
					methods++
				}
				start, end := fset.Position(d.Pos()), fset.Position(d.End())
				if n := end.Line - start.Line + 1; n > maxFuncLines {
					t.Errorf("%s: %s is %d lines, more than %d: name its steps", start, name(d), n, maxFuncLines)
				}
			}
		}
	}
	if fields < 0 {
		t.Fatal("type Engine not found")
	}
	if fields > maxEngineFields {
		t.Errorf("Engine has %d fields, more than %d: give the new state an owner of its own", fields, maxEngineFields)
	}
	if methods > maxEngineMethods {
		t.Errorf("Engine has %d methods, more than %d: give the new logic a type of its own", methods, maxEngineMethods)
	}
}

func countFields(st *ast.StructType) int {
	n := 0
	for _, f := range st.Fields.List {
		n += max(len(f.Names), 1) // an embedded field has no name
	}
	return n
}

// receiver is the name of a method's receiver type, "" for a function.
func receiver(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func name(d *ast.FuncDecl) string {
	if r := receiver(d); r != "" {
		return r + "." + d.Name.Name
	}
	return d.Name.Name
}
