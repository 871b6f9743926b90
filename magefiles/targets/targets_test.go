package targets

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tagged magefile imports this package (mage:import), so every exported
// function with a target's signature is a target: exactly these, each with
// a doc comment whose first sentence is its help.
func TestTargets(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || !isTarget(fn.Type) {
				continue
			}
			got = append(got, fn.Name.Name)
			if fn.Doc == nil || !strings.HasPrefix(fn.Doc.Text(), fn.Name.Name+" ") {
				t.Errorf("target %s has no help (a doc comment starting with its name)", fn.Name.Name)
			}
		}
	}
	slices.Sort(got)
	if want := []string{"Bench", "Demo", "Dist", "E2E", "Install", "InstallTest", "Lint", "NpmPack", "Release", "Soak", "Test", "Tidy"}; !slices.Equal(got, want) {
		t.Errorf("targets = %v, want %v", got, want)
	}
}

// isTarget reports whether mage takes a function of type ft for a target:
// an optional context.Context, then arguments of basic types, returning
// nothing or an error.
func isTarget(ft *ast.FuncType) bool {
	if r := ft.Results; r != nil && (len(r.List) != 1 || exprString(r.List[0].Type) != "error") {
		return false
	}
	for i, p := range ft.Params.List {
		switch typ := exprString(p.Type); {
		case i == 0 && typ == "context.Context":
		case slices.Contains([]string{"string", "int", "float64", "bool", "time.Duration"}, typ):
		default:
			return false
		}
	}
	return true
}

// exprString renders a parameter or result type.
func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	}
	return "?"
}
