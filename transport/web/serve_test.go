package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOneErrorPathDrawsTheErrorPage: the handlers for people return their error
// and serve draws it (failed), so a refusal or a store that did not answer looks
// the same on every screen. Only serve and the helpers that answer by themselves
// (their callers see a bool, or drawing itself failed) call failed.
func TestOneErrorPathDrawsTheErrorPage(t *testing.T) {
	allowed := map[string]bool{"serve": true, "render": true, "pageForm": true, "ownerDesk": true, "renderLink": true}
	files, _ := filepath.Glob("*.go")
	files = slices.DeleteFunc(files, func(name string) bool { return strings.HasSuffix(name, "_test.go") })
	if len(files) < 20 {
		t.Fatalf("only %d source files found", len(files))
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || allowed[fn.Name.Name] {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "failed" {
						t.Errorf("%s: %s draws its own error page: return the error and let serve draw it", fset.Position(call.Pos()), fn.Name.Name)
					}
				}
				return true
			})
		}
	}
}
