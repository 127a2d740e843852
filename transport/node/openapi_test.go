package node_test

// Tests of the OpenAPI document itself and of its checker (nodetest.Check, which
// every end-to-end test's traffic passes through).

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"folio/transport/httpapi"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

func TestOpenAPIDocumentIsValid(t *testing.T) {
	// A fresh parse (not the shared one) so this test reports the loader's own error.
	spec, err := nodetest.ParseDocument(httpapi.OpenAPI())
	if err != nil {
		t.Fatalf("the document is not a valid OpenAPI 3.1 document: %v", err)
	}
	documented := spec.DocumentedRoutes()
	// With an admin token, so the operator routes (/v1/admin/*) are mounted too.
	e := nodetest.New(t, func(c *node.Config) { c.AdminToken = "openapi-admin-token" })

	// The document and the routes the router really registers agree, both ways.
	want := e.Node.API.Routes()
	sort.Strings(want)
	for _, r := range want {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is registered but not documented", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(want, r) {
			t.Errorf("route %s is documented but not registered", r)
		}
	}

	// Every operation declares the errors its kind of route can give.
	for _, tp := range spec.Templates() {
		for method, op := range tp.Item.Operations() {
			name := method + " " + tp.Path
			secured := spec.Doc().Security
			if op.Security != nil {
				secured = *op.Security
			}
			if len(secured) > 0 && op.Responses.Value("401") == nil {
				t.Errorf("%s needs an API key but does not declare 401", name)
			}
			if op.RequestBody != nil && (op.Responses.Value("400") == nil || op.Responses.Value("413") == nil) {
				t.Errorf("%s takes a body but does not declare both 400 and 413", name)
			}
			if op.Responses.Value("500") == nil {
				t.Errorf("%s does not declare 500", name)
			}
			if op.Description == "" || op.OperationID == "" {
				t.Errorf("%s needs an operationId and a description", name)
			}
		}
	}

	// Walk the real router: every documented route exists (it does not answer the
	// router's "no route for …" 404 nor 405). Path parameters get a dummy value, so
	// page routes answer 404 "page not found" and body routes 400, which are
	// themselves checked against the document by openapiCheck.
	// Streams are left out: with a valid key they answer 200 and stay open; their
	// existence is proven by the realtime e2e tests.
	streams := map[string]bool{}
	for _, tp := range spec.Templates() {
		for method, op := range tp.Item.Operations() {
			if ok := op.Responses.Value("200"); ok != nil && ok.Value != nil && ok.Value.Content.Get("text/event-stream") != nil {
				streams[method+" "+tp.Path] = true
			}
		}
	}
	key, _ := e.Register("openapi-walker")
	for _, r := range documented {
		if streams[r] {
			continue
		}
		method, tmpl, _ := strings.Cut(r, " ")
		path := tmpl
		for _, seg := range strings.Split(tmpl, "/") {
			if strings.HasPrefix(seg, "{") {
				path = strings.Replace(path, seg, "dummy", 1)
			}
		}
		res := e.Do(method, path, key, nil)
		if res.Status == http.StatusMethodNotAllowed {
			t.Errorf("%s is documented but the router answers 405 for %s %s: %s", r, method, path, res.Body)
		}
		if res.Status == http.StatusNotFound && bytes.Contains(res.Body, []byte(`"no route for`)) {
			t.Errorf("%s is documented but the router has no such route: %s", r, res.Body)
		}
	}
}

func TestOpenAPIServedAtV1(t *testing.T) {
	e := nodetest.New(t)
	res := e.Do("GET", "/v1/openapi.json", "", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("GET /v1/openapi.json: status %d, want 200: %s", res.Status, nodetest.Excerpt(res.Body, 300))
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" {
		t.Errorf("Content-Type %q, want application/json", res.Header.Get("Content-Type"))
	}
	if v := res.JSON(t)["openapi"]; v != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", v)
	}
	if !bytes.Equal(res.Body, httpapi.OpenAPI()) {
		t.Errorf("the served document differs from httpapi.OpenAPI()")
	}
}

// tbRecorder is a testing.TB that records failures instead of failing.
type tbRecorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *tbRecorder) Helper() {}

func (r *tbRecorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *tbRecorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func (r *tbRecorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

func TestOpenAPICatchesDrift(t *testing.T) {
	const ts = "2026-01-02T03:04:05.123456789Z"
	publish := func(body string) string {
		return `{"pageId":"pg_1","pageUrl":"http://x/p/pg_1","shortUrl":"http://x/s/abc","status":"active",` +
			`"createdAt":"` + ts + `","publishedAt":"` + ts + `",` + body + `}`
	}
	cases := []struct {
		name        string
		method      string
		path        string
		status      int
		contentType string
		body        string
		want        string // substring of the reported failure; "" means no failure
	}{
		{"valid publish", "POST", "/v1/publish", 201, "application/json", publish(`"expiresAt":"` + ts + `","warnings":[]`), ""},
		{"publish without pageId", "POST", "/v1/publish", 201, "application/json",
			`{"pageUrl":"u","shortUrl":"s","status":"active","createdAt":"` + ts + `","expiresAt":"` + ts + `","warnings":[]}`, "pageId"},
		{"publish with a bad timestamp", "POST", "/v1/publish", 201, "application/json", publish(`"expiresAt":"tomorrow","warnings":[]`), "expiresAt"},
		{"publish with null expiry", "POST", "/v1/publish", 201, "application/json", publish(`"expiresAt":null,"warnings":[]`), "expiresAt"},
		{"undeclared status", "POST", "/v1/publish", 418, "application/json", `{}`, "status 418 is not declared"},
		{"error code does not match status", "GET", "/v1/pages/pg_1", 404, "application/json",
			`{"error":{"code":"CONFLICT","message":"m","details":{}}}`, "code"},
		{"error without details", "GET", "/v1/pages/pg_1", 404, "application/json",
			`{"error":{"code":"NOT_FOUND","message":"m"}}`, "details"},
		{"page with unknown status", "GET", "/v1/pages/pg_1", 200, "application/json", `{"status":"archived"}`, "status"},
		{"text where JSON is declared", "GET", "/v1/pages/pg_1", 404, "text/plain", "not found", "declares a JSON body"},
		{"undocumented route", "GET", "/v1/not-documented", 200, "application/json", `{}`, "not in the OpenAPI document"},
		{"undocumented method", "DELETE", "/v1/pages/pg_1", 204, "", ``, "not in the OpenAPI document"},
		{"router 404 on an unknown path", "GET", "/v1/nope", 404, "application/json",
			`{"error":{"code":"NOT_FOUND","message":"no route for GET /v1/nope","details":{"path":"/v1/nope"}}}`, ""},
		{"router 404 on a documented route", "GET", "/v1/tenant", 404, "application/json",
			`{"error":{"code":"NOT_FOUND","message":"no route for GET /v1/tenant","details":{}}}`, "router has no such route"},
		{"redirect without Location", "GET", "/s/abc", 302, "text/html", "<a>Found</a>", "Location"},
		{"stream is not validated", "GET", "/v1/pages/pg_1", 200, "text/event-stream", "data: {}\n\n", ""},
		{"literal segment wins over parameter", "PUT", "/v1/pages/pg_1/blocks/reorder", 200, "application/json",
			`{"pageId":"pg_1","version":2,"totalBlocks":0,"blockIds":[]}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &tbRecorder{TB: t}
			h := nodetest.Check(rec, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				w.WriteHeader(tc.status)
				if tc.contentType == "text/event-stream" {
					w.(http.Flusher).Flush()
				}
				_, _ = io.WriteString(w, tc.body)
			}))
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tc.method, tc.path, nil))
			got := rec.failures()
			coverage := strings.Contains(tc.want, "not declared") || strings.Contains(tc.want, "not in the OpenAPI document")
			if coverage && !nodetest.StrictCoverage {
				// While coverage is lenient the checker must stay quiet on these...
				if len(got) > 0 {
					t.Errorf("lenient coverage reported %v", got)
				}
				return // ...and TestOpenAPIDocumentIsValid enforces that every route is documented.
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("the checker reported a valid response: %v", got)
			case tc.want != "" && len(got) == 0:
				t.Errorf("the checker did not report the drift (want a failure mentioning %q)", tc.want)
			case tc.want != "" && !strings.Contains(strings.Join(got, "\n"), tc.want):
				t.Errorf("the failure does not mention %q: %v", tc.want, got)
			}
		})
	}
}

// TestOpenAPIEveryRouteAnswers drives every documented route through its success
// answer and its typical refusals, so each response shape the handlers produce today
// is checked against the document by nodetest.Check (the assertions here are only the
// statuses; the schemas are the checker's job).
func TestOpenAPIEveryRouteAnswers(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("openapi-tour")

	e.Must(200, "GET", "/healthz", "", nil)
	if r := e.Do("GET", "/metrics", "", nil); r.Status != 200 {
		t.Fatalf("GET /metrics: %d", r.Status)
	}
	e.Must(401, "GET", "/v1/tenant", "", nil)
	e.Must(401, "GET", "/v1/tenant", "sk_live_unknown", nil)
	e.Must(200, "GET", "/v1/tenant", key, nil)
	e.Must(200, "GET", "/v1/audit/verify", key, nil)

	created := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "ci", "mode": "test"})
	e.Must(200, "GET", "/v1/account/api-keys", key, nil)
	e.Must(400, "POST", "/v1/account/api-keys", key, map[string]any{"name": ""})
	e.Must(204, "DELETE", "/v1/account/api-keys/"+created["id"].(string), key, nil)
	e.Must(404, "DELETE", "/v1/account/api-keys/"+created["id"].(string), key, nil)
	e.Must(400, "POST", "/v1/auth/agent/register", "", "{not json")

	body := map[string]any{
		"version": "1.0", "title": "Ship it?", "page_type": "approval", "priority": "high", "summary": "s",
		"tags":      []any{"release"},
		"blocks":    []any{map[string]any{"type": "text", "data": map[string]any{"content": "Ready."}}, map[string]any{"type": "callout", "data": map[string]any{"message": "m"}}},
		"actions":   []any{map[string]any{"action_id": "approve", "label": "Approve", "style": "primary"}, map[string]any{"action_id": "reject", "style": "odd"}},
		"notify":    map[string]any{"channels": []any{map[string]any{"type": "email", "target": "a@example.com"}}},
		"on_action": map[string]any{"default_url": "https://example.com/hook", "hmac_secret": "s3cret"},
	}
	pub := e.Must(201, "POST", "/v1/publish", key, body)
	id := pub["pageId"].(string)
	e.Must(400, "POST", "/v1/publish", key, map[string]any{"summary": "no title"})
	e.Must(413, "POST", "/v1/publish", key, `{"title":"`+strings.Repeat("x", 2<<20)+`"}`)

	e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	e.Must(404, "GET", "/v1/pages/pg_missing", key, nil)
	e.Must(200, "GET", "/v1/pages?status=active&page_type=approval&limit=5", key, nil)
	e.Must(400, "GET", "/v1/pages?limit=0", key, nil)
	e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"title": "Ship it now?", "approval_chain": map[string]any{"mode": "sequential", "steps": []any{map[string]any{"assignees": []any{"alice@example.com"}}}}})
	app := e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{map[string]any{"type": "divider", "data": map[string]any{}}}})
	newID := app["appendedBlockIds"].([]any)[0].(string)
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/"+newID, key, map[string]any{"title": "Line", "group": "g"})
	e.Must(404, "PATCH", "/v1/pages/"+id+"/blocks/b_nope", key, map[string]any{"title": "x"})
	e.Must(200, "PUT", "/v1/pages/"+id+"/blocks/reorder", key, map[string]any{"block_order": []any{newID}})
	e.Must(400, "PUT", "/v1/pages/"+id+"/blocks/reorder", key, map[string]any{"block_order": []any{"b_nope"}})
	e.Must(200, "POST", "/v1/pages/"+id+"/blocks/insert", key, map[string]any{"position": 99, "block": map[string]any{"type": "text", "data": map[string]any{"content": "end"}}})
	e.Must(400, "POST", "/v1/pages/"+id+"/blocks/insert", key, map[string]any{"position": -1, "block": map[string]any{"type": "text", "data": map[string]any{}}})
	e.Must(200, "POST", "/v1/pages/"+id+"/renew", key, nil)
	e.Must(200, "GET", "/v1/pages/"+id+"/audit?per_page=2", key, nil)
	e.Must(400, "GET", "/v1/pages/"+id+"/audit?page=0", key, nil)

	if r := e.Do("GET", "/p/"+id, "", nil); r.Status != 200 {
		t.Errorf("GET /p/%s: %d", id, r.Status)
	}
	short := pub["shortUrl"].(string)
	if r := e.Do("GET", short[strings.Index(short, "/s/"):], "", nil); r.Status != 200 { // follows the 302
		t.Errorf("GET %s: %d", short, r.Status)
	}
	if r := e.Do("GET", "/s/nope", "", nil); r.Status != 404 {
		t.Errorf("GET /s/nope: %d", r.Status)
	}
	if r := e.Do("GET", "/p/pg_missing", "", nil); r.Status != 404 {
		t.Errorf("GET /p/pg_missing: %d", r.Status)
	}

	e.Must(404, "POST", "/v1/pages/"+id+"/actions/nope", key, nil)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"comment": "ok", "form_data": nil, "actor": map[string]any{"identity": "alice@example.com"}})
	e.Must(409, "POST", "/v1/pages/"+id+"/actions/reject", key, nil)
	e.Must(409, "PATCH", "/v1/pages/"+id, key, map[string]any{"title": "late"})
	e.Must(409, "POST", "/v1/pages/"+id+"/revoke", key, nil)
	e.Must(200, "GET", "/v1/pages/"+id, key, nil)

	draft := e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "Draft", "access": map[string]any{"mode": "authenticated",
		"allowed_identities": []any{map[string]any{"type": "domain", "value": "example.com"}}}})
	did := draft["pageId"].(string)
	e.Must(409, "POST", "/v1/pages/"+did+"/renew", key, nil)
	e.Must(200, "POST", "/v1/pages/"+did+"/publish", key, nil)
	e.Must(409, "POST", "/v1/pages/"+did+"/publish", key, nil)
	if r := e.Do("GET", "/p/"+did, "", nil); r.Status != 401 {
		t.Errorf("GET /p/%s (authenticated page): %d", did, r.Status)
	}
	e.Must(200, "POST", "/v1/pages/"+did+"/revoke", key, map[string]any{"reason": "wrong"})
	if r := e.Do("GET", "/p/"+did, "", nil); r.Status != 410 {
		t.Errorf("GET /p/%s (revoked): %d", did, r.Status)
	}
	e.Must(200, "GET", "/v1/pages", key, nil)

	// The router's own answers, checked against components.responses.Error.
	e.Must(404, "GET", "/v1/nothing-here", key, nil)
	e.Must(405, "DELETE", "/v1/publish", key, nil)
}
