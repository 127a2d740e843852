package node_test

// The OpenAPI 3.0.3 rendering (GET /v1/openapi-3.0.json) is for code generators
// that do not read 3.1. These tests hold it to what such a user needs: a document a
// 3.0 loader accepts, with every route of the 3.1 one, from which oapi-codegen
// builds a Go client that really works against a node.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"folio/transport/httpapi"
	"folio/transport/node/nodetest"
)

// oapiCodegenVersion is the generator the test builds a client with (installed by
// make deps; the test installs it itself when it is missing).
const oapiCodegenVersion = "v2.8.2"

func TestOpenAPI30RenderingIsAValid30DocumentOfEveryRoute(t *testing.T) {
	e := nodetest.New(t)
	res, err := http.Get(e.Srv.URL + "/v1/openapi-3.0.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /v1/openapi-3.0.json: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}

	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("a 3.0 loader refuses the document: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Fatalf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the 3.0 document does not validate: %v", err)
	}

	// The same operations as the 3.1 document, none lost in the rendering.
	var full struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI(), &full); err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for path, item := range full.Paths {
		for method, raw := range item {
			var op struct {
				OperationID string `json:"operationId"`
			}
			if method == "parameters" || json.Unmarshal(raw, &op) != nil {
				continue
			}
			want = append(want, strings.ToUpper(method)+" "+path+" "+op.OperationID)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			got = append(got, method+" "+path+" "+op.OperationID)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Fatalf("operations differ:\n3.1: %v\n3.0: %v", want, got)
	}

	// Nothing of 3.1 is left that a 3.0 generator would choke on.
	var tree any
	_ = json.Unmarshal(raw, &tree)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch n := v.(type) {
		case map[string]any:
			if _, ok := n["type"].([]any); ok {
				t.Errorf("%s: a type list", path)
			}
			if n["type"] == "null" {
				t.Errorf("%s: type null", path)
			}
			for _, k := range []string{"const", "examples", "jsonSchemaDialect", "$defs", "prefixItems"} {
				if _, ok := n[k]; ok && !strings.HasSuffix(path, "/properties") && !strings.Contains(path, "/content/") {
					t.Errorf("%s: %s", path, k)
				}
			}
			for k, c := range n {
				walk(path+"/"+k, c)
			}
		case []any:
			for _, c := range n {
				walk(path, c)
			}
		}
	}
	walk("", tree)
}

// TestAGeneratedGoClientPublishesActsAndReadsComments generates a Go client with
// oapi-codegen from the served 3.0 document, builds the program in
// testdata/oapiclient against it, and runs it against a node: register, publish,
// comment, approve, a duplicate approval's 409, and the comments read back.
func TestAGeneratedGoClientPublishesActsAndReadsComments(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the generated client: %v", err)
	}
	gen := oapiCodegen(t, goBin)
	e := nodetest.New(t)

	dir := t.TempDir()
	res, err := http.Get(e.Srv.URL + "/v1/openapi-3.0.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	spec := filepath.Join(dir, "openapi-3.0.json")
	must(t, os.WriteFile(spec, raw, 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "folioapi"), 0o755))
	run(t, dir, gen, "-generate", "types,client", "-package", "folioapi", "-o", filepath.Join(dir, "folioapi", "client.go"), spec)

	prog, err := os.ReadFile(filepath.Join("testdata", "oapiclient", "main.go"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), prog, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module gen\n\ngo 1.22\n"), 0o644))
	run(t, dir, goBin, "mod", "tidy")
	out := run(t, dir, goBin, "run", ".", e.Srv.URL)

	for _, line := range []string{"published ", " active", "commented cmt_", "acted approve completed", "conflict CONFLICT", "comment Ada Looks right."} {
		if !strings.Contains(out, line) {
			t.Errorf("the generated client's run lacks %q:\n%s", line, out)
		}
	}
}

// oapiCodegen finds the pinned generator, installing it when it is missing.
func oapiCodegen(t *testing.T, goBin string) string {
	t.Helper()
	gobin := strings.TrimSpace(run(t, "", goBin, "env", "GOPATH"))
	bin := filepath.Join(strings.Split(gobin, string(os.PathListSeparator))[0], "bin", "oapi-codegen")
	if _, err := os.Stat(bin); err != nil {
		run(t, "", goBin, "install", "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@"+oapiCodegenVersion)
	}
	return bin
}

// run runs a command in dir (with a bound on its time) and returns its output; a
// failure fails the test with what it printed.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
