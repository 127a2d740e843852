// Package nodetest starts whole Folio nodes behind real HTTP servers for tests:
// every area's end-to-end tests use it.
package nodetest

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

	"folio/actors/page"
	"folio/actors/people"
	"folio/persistence/storetest"
	"folio/transport/node"
)

// Env is a whole node on a temporary data directory behind a real HTTP server.
// Every response it sees is checked against the OpenAPI document (Check).
type Env struct {
	t    testing.TB
	Node *node.Node
	Srv  *httptest.Server
	Dir  string
	// Store is the node's store URL: empty (bbolt in Dir) unless FOLIO_TEST_STORE
	// is pg.
	Store string
	Clk   *Clock
}

// Clock is an adjustable time source shared by the node and the test.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Option adjusts the node configuration.
type Option func(*node.Config)

// New starts a node on a fresh temporary directory.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	dir := t.TempDir()
	return Open(t, dir, nil, opts...)
}

// Open starts a node on dir; clk (may be nil) is its clock.
func Open(t testing.TB, dir string, clk *Clock, opts ...Option) *Env {
	t.Helper()
	// The server's address is known before the node opens, so the node's own links
	// (pageUrl, sign-in and claim links in mails, OAuth redirect addresses) lead here.
	srv := httptest.NewUnstartedServer(nil)
	cfg := node.Config{DataDir: dir, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), ExpiryEvery: 50 * time.Millisecond,
		BaseURL: "http://" + srv.Listener.Addr().String()}
	if clk != nil {
		cfg.Now = clk.Now
	}
	cfg.Store = testStore(t, dir)
	for _, o := range opts {
		o(&cfg)
	}
	n, err := node.Open(cfg)
	if err != nil {
		srv.Close()
		t.Fatalf("open node: %v", err)
	}
	e := &Env{t: t, Node: n, Dir: dir, Store: cfg.Store, Clk: clk}
	srv.Config.Handler = Check(t, n.Handler())
	srv.Start()
	e.Srv = srv
	t.Cleanup(e.Close)
	return e
}

// Close stops the HTTP server and closes the node cleanly.
func (e *Env) Close() {
	if e.Srv == nil {
		return
	}
	e.Srv.Close()
	e.Srv = nil
	_ = e.Node.Close(context.Background())
}

// Reopen closes the node cleanly and starts a new one on the same data.
func (e *Env) Reopen(opts ...Option) *Env {
	e.Close()
	return Open(e.t, e.Dir, e.Clk, opts...)
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as an object.
func (r Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// ErrCode is the error envelope's code (empty when the body is not an error).
func (r Response) ErrCode(t testing.TB) string {
	m := r.JSON(t)
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// ErrDetails is the error envelope's details.
func (r Response) ErrDetails(t testing.TB) map[string]any {
	m := r.JSON(t)
	e, _ := m["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// Do sends a request; body may be nil, a string (sent raw) or a value (sent as JSON).
func (e *Env) Do(method, path, key string, body any) Response {
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
	req, err := http.NewRequest(method, e.Srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := e.Srv.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return Response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// Must sends a request and fails the test unless the status is want.
func (e *Env) Must(want int, method, path, key string, body any) map[string]any {
	e.t.Helper()
	r := e.Do(method, path, key, body)
	if r.Status != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.Status, want, r.Body)
	}
	if len(r.Body) == 0 {
		return nil
	}
	return r.JSON(e.t)
}

// Register makes a new agent tenant and returns its API key and tenant id.
func (e *Env) Register(name string) (key, tenantID string) {
	e.t.Helper()
	m := e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": name})
	return m["apiKey"].(string), m["tenantId"].(string)
}

// SignIn signs the person with this e-mail in by magic link, as a mailed link
// would, and returns the session token (the session cookie's value) and the user.
func (e *Env) SignIn(email string) (token string, u people.User) {
	e.t.Helper()
	u, _, err := e.Node.People.SignIn(people.Proof{Email: email})
	if err != nil {
		e.t.Fatal(err)
	}
	token, _, err = e.Node.People.StartSession(u, page.AuthMagicLink)
	if err != nil {
		e.t.Fatal(err)
	}
	return token, u
}

// Publish publishes an approval page with approve/reject actions and returns its id.
func (e *Env) Publish(key string, extra map[string]any) string {
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
	return e.Must(201, "POST", "/v1/publish", key, body)["pageId"].(string)
}

// testStore is the store of a node on dir: FOLIO_TEST_STORE=pg runs every node a
// test opens on PostgreSQL instead of bbolt, so the API suites check both engines:
// `FOLIO_TEST_STORE=pg go test ./transport/...`.
func testStore(t testing.TB, dir string) string { return storetest.URL(t, dir) }
