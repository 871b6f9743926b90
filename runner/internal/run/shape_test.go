package run

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFields bounds the fields of the engine's own structs: a struct that
// needs more is a bag of state that stages fill in for each other, which
// the stages' values replace.
const maxFields = 12

// No unexported struct of the engine has more than maxFields fields.
func TestEngineStructsAreSmall(t *testing.T) {
	fset := token.NewFileSet()
	files := sourceFiles(t, fset)
	checked := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.IsExported() {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			checked++
			fields := 0
			for _, f := range st.Fields.List {
				fields += max(len(f.Names), 1)
			}
			if fields > maxFields {
				t.Errorf("%s: struct %s has %d fields, more than %d", fset.Position(ts.Pos()), ts.Name.Name, fields, maxFields)
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("only %d structs found: the test reads the wrong directory", checked)
	}
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
