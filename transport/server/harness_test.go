package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// testEnv is a whole node on a temporary data directory behind a real HTTP server.
// Every response it sees is checked against the OpenAPI document (openapiCheck).
type testEnv struct {
	t    testing.TB
	node *Node
	srv  *httptest.Server
	dir  string
	clk  *clock
}

// clock is an adjustable time source shared by the node and the test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type envOption func(*Config)

func newEnv(t testing.TB, opts ...envOption) *testEnv {
	t.Helper()
	dir := t.TempDir()
	return openEnv(t, dir, nil, opts...)
}

func openEnv(t testing.TB, dir string, clk *clock, opts ...envOption) *testEnv {
	t.Helper()
	cfg := Config{DataDir: dir, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), ExpiryEvery: 50 * time.Millisecond}
	if clk != nil {
		cfg.Now = clk.Now
	}
	for _, o := range opts {
		o(&cfg)
	}
	n, err := Open(cfg)
	if err != nil {
		t.Fatalf("open node: %v", err)
	}
	e := &testEnv{t: t, node: n, dir: dir, clk: clk}
	e.srv = httptest.NewServer(openapiCheck(t, n.Handler()))
	t.Cleanup(e.close)
	return e
}

func (e *testEnv) close() {
	if e.srv == nil {
		return
	}
	e.srv.Close()
	e.srv = nil
	_ = e.node.Close(context.Background())
}

// reopen closes the node cleanly and starts a new one on the same data.
func (e *testEnv) reopen(opts ...envOption) *testEnv {
	e.close()
	return openEnv(e.t, e.dir, e.clk, opts...)
}

type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// errCode is the error envelope's code (empty when the body is not an error).
func (r response) errCode(t testing.TB) string {
	m := r.JSON(t)
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (r response) errDetails(t testing.TB) map[string]any {
	m := r.JSON(t)
	e, _ := m["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// do sends a request; body may be nil, a string (sent raw) or a value (sent as JSON).
func (e *testEnv) do(method, path, key string, body any) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// must sends a request and fails the test unless the status is want.
func (e *testEnv) must(want int, method, path, key string, body any) map[string]any {
	e.t.Helper()
	r := e.do(method, path, key, body)
	if r.Status != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.Status, want, r.Body)
	}
	if len(r.Body) == 0 {
		return nil
	}
	return r.JSON(e.t)
}

// register makes a new agent tenant and returns its API key and tenant id.
func (e *testEnv) register(name string) (key, tenantID string) {
	e.t.Helper()
	m := e.must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": name})
	return m["apiKey"].(string), m["tenantId"].(string)
}

// publish publishes an approval page with approve/reject actions and returns its id.
func (e *testEnv) publish(key string, extra map[string]any) string {
	e.t.Helper()
	body := map[string]any{
		"title":     "Deploy v2 to production?",
		"page_type": "approval",
		"blocks":    []any{map[string]any{"type": "text", "data": map[string]any{"content": "Ready to ship."}}},
		"actions": []any{
			map[string]any{"action_id": "approve", "label": "Approve", "style": "primary"},
			map[string]any{"action_id": "reject", "label": "Reject", "style": "danger"},
		},
	}
	for k, v := range extra {
		body[k] = v
	}
	return e.must(201, "POST", "/v1/publish", key, body)["pageId"].(string)
}
