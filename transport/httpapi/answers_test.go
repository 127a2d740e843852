package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedAnswers are the handlers whose answers the Go client decodes with the same
// named types (transport/apitypes): they never answer with a map or an anonymous
// struct, whose fields nothing shares with the client.
var sharedAnswers = []string{"createWith", "publishDraft", "revoke", "renew", "execute", "listInbox", "getWorkflow", "createWorkflow",
	"getPage", "listPages", "updatePage", "agentInbox", "pageAgentEvents", "listComments", "listFiles", "pageAudit", "listTemplates",
	"appendBlocks", "fixBlock", "writeBlockList", "approval", "list", "retry",
	"register", "me", "getTenant", "dashboard", "presign", "upload"}

// maxUntypedAnswers is the number of answers still built as a map or an anonymous
// struct (46 before transport/apitypes, 24 before the account, sign-in, admin and
// view answers were named, counted this way): none may come back.
const maxUntypedAnswers = 0

// TestAnswersAreNamedTypes: the API's answers are named types. Every writeJSON
// whose value is a map literal, an anonymous struct, a variable built from one or
// a function returning a map counts as untyped; the handlers in sharedAnswers have
// none, and the rest at most maxUntypedAnswers.
func TestAnswersAreNamedTypes(t *testing.T) {
	untyped := untypedAnswers(t)
	total := 0
	for fn, n := range untyped {
		total += n
		if slices.Contains(sharedAnswers, fn) {
			t.Errorf("%s answers with a map or an anonymous struct %d time(s): answer with a named type of transport/apitypes", fn, n)
		}
	}
	if total > maxUntypedAnswers {
		t.Errorf("%d answers are maps or anonymous structs, more than %d: give the new ones a named type (transport/apitypes when the client reads them)", total, maxUntypedAnswers)
	}
	t.Logf("%d untyped answers: %v", total, untyped)
}

// untypedAnswers counts, per function of the package, the writeJSON calls that
// answer with a map or an anonymous struct.
func untypedAnswers(t *testing.T) map[string]int {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
	}
	// Functions of the package that return a map.
	mapFuncs := map[string]bool{}
	for _, f := range parsed {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Type.Results != nil && len(fd.Type.Results.List) > 0 {
				if _, ok := fd.Type.Results.List[0].Type.(*ast.MapType); ok {
					mapFuncs[fd.Name.Name] = true
				}
			}
		}
	}
	untypedExpr := func(e ast.Expr) bool {
		switch x := e.(type) {
		case *ast.CompositeLit:
			switch x.Type.(type) {
			case *ast.MapType, *ast.StructType:
				return true
			}
		case *ast.CallExpr:
			switch fn := x.Fun.(type) {
			case *ast.Ident:
				return mapFuncs[fn.Name]
			case *ast.SelectorExpr:
				return mapFuncs[fn.Sel.Name]
			}
		}
		return false
	}
	out := map[string]int{}
	for _, f := range parsed {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			// Local variables built as a map or an anonymous struct.
			untypedVars := map[string]bool{}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
					for i, rhs := range as.Rhs {
						if id, ok := as.Lhs[min(i, len(as.Lhs)-1)].(*ast.Ident); ok && untypedExpr(rhs) {
							untypedVars[id.Name] = true
						}
					}
				}
				return true
			})
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 3 {
					return true
				}
				if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "writeJSON" {
					return true
				}
				arg := call.Args[2]
				if id, ok := arg.(*ast.Ident); ok && untypedVars[id.Name] || untypedExpr(arg) {
					out[fd.Name.Name]++
				}
				return true
			})
		}
	}
	return out
}
