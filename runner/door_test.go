package runner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxExports bounds the names the runner package exports: it is the
// module's door (the types of a run's result and one file per service the
// CLI calls); the engine and its parts live under internal/.
const maxExports = 100

// The runner package exports at most maxExports top-level names (types,
// functions, constants and variables; methods and fields aside).
func TestDoorIsSmall(t *testing.T) {
	fset := token.NewFileSet()
	files := sourceFiles(t, fset)
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			names = append(names, exported(d)...)
		}
	}
	if len(names) > maxExports {
		t.Errorf("runner exports %d names, more than %d: %s", len(names), maxExports, strings.Join(names, " "))
	}
	if len(names) < 20 {
		t.Fatalf("only %d names found: the test reads the wrong directory", len(names))
	}
	t.Logf("runner exports %d names", len(names))
}

// sourceFiles parses the package's Go files in the current directory, its
// tests aside.
func sourceFiles(t *testing.T, fset *token.FileSet) []*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// exported lists the exported top-level names the declaration d declares
// (methods aside).
func exported(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil && d.Name.IsExported() {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					names = append(names, s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}
