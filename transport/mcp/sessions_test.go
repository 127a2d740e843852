package foliomcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	foliomcp "folio/transport/mcp"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// from is an HTTP client whose connections leave from the loopback address src,
// so the node sees a peer of its own per src.
func from(src string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// connectHTTP opens an MCP session on the node's /mcp through hc.
func connectHTTP(t *testing.T, e *nodetest.Env, hc *http.Client, progress chan string) *mcp.ClientSession {
	t.Helper()
	var opts *mcp.ClientOptions
	if progress != nil {
		opts = &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params.Message:
			default:
			}
		}}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "http-agent", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.Srv.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// initialize opens a session with a bare initialize: its status, session id, body
// and headers.
func initialize(t *testing.T, e *nodetest.Env, hc *http.Client) (int, string, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.Srv.URL+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return res.StatusCode, res.Header.Get("Mcp-Session-Id"), m, res.Header
}

// waitMetric waits until the node's metric reads want.
func waitMetric(t *testing.T, e *nodetest.Env, name string, want float64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for nodetest.Metric(t, e.Srv.URL, name) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s is %v after %v, want %v", name, nodetest.Metric(t, e.Srv.URL, name), within, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAnIdleSessionEndsButACallInFlightIsNotCut: with a 300 ms idle timeout, a
// request_approval that waits three times as long for the person still gets their
// decision (a call in flight is not idle), and once the session has had no
// request for the timeout it ends: the node holds no session and the session id
// is unknown (404).
func TestAnIdleSessionEndsButACallInFlightIsNotCut(t *testing.T) {
	const idle = 300 * time.Millisecond
	e := nodetest.New(t, func(c *node.Config) { c.MCPSessions.Idle = idle })
	key, _ := e.Register("mcp-idle")
	progress := make(chan string, 64)
	cs := connectHTTP(t, e, &http.Client{Transport: bearerTransport{key: key, next: http.DefaultTransport}}, progress)
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request_approval",
			Arguments: map[string]any{"title": "Ship it?", "timeout_seconds": 60}, Meta: mcp.Meta{"progressToken": "p"}})
		done <- answer{res, err}
	}()
	var id string
	select {
	case msg := <-progress:
		if i := strings.Index(msg, e.Srv.URL+"/p/"); i >= 0 {
			id = strings.TrimPrefix(msg[i:], e.Srv.URL+"/p/")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification with the page's address")
	}
	if id == "" {
		t.Fatal("the first progress message does not give the page's address")
	}
	time.Sleep(3 * idle) // the person takes longer than the idle timeout
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", "", map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	var a answer
	select {
	case a = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("request_approval did not return after the decision")
	}
	if a.err != nil || a.res.IsError {
		t.Fatalf("request_approval across three idle timeouts: %v %s", a.err, text(a.res))
	}
	if raw, _ := json.Marshal(a.res.StructuredContent); !strings.Contains(string(raw), `"decision":"approved"`) {
		t.Fatalf("request_approval answered %s", raw)
	}

	// Now idle: the session ends.
	waitMetric(t, e, "folio_mcp_sessions", 0, 10*time.Second)
	req, _ := http.NewRequest("POST", e.Srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("a request of the idle session: %d, want 404 (ended)", res.StatusCode)
	}
}

// TestSessionsPastACallersOrTheNodesBoundAreRefused: with 2 sessions per caller
// and 3 on the node, a caller's third initialize is 429 RATE_LIMITED and the
// node's fourth session 503, each with Retry-After and a message saying what to
// do; ending a session (DELETE) frees its place.
func TestSessionsPastACallersOrTheNodesBoundAreRefused(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.MCPSessions = foliomcp.SessionLimits{PerCaller: 2, Max: 3} })
	a, b := from("127.0.0.2"), from("127.0.0.3")
	var first string
	for i := range 2 {
		st, sid, _, _ := initialize(t, e, a)
		if st != 200 || sid == "" {
			t.Fatalf("session %d of a caller: %d %q", i+1, st, sid)
		}
		if i == 0 {
			first = sid
		}
	}
	st, _, body, h := initialize(t, e, a)
	er, _ := body["error"].(map[string]any)
	d, _ := er["details"].(map[string]any)
	if st != 429 || h.Get("Retry-After") == "" || er["code"] != "RATE_LIMITED" || d["limit"] != "mcp_sessions" || d["max_sessions"] != 2.0 ||
		!strings.Contains(er["message"].(string), "DELETE /mcp") {
		t.Fatalf("a caller's third session: %d Retry-After %q %v", st, h.Get("Retry-After"), body)
	}
	if st, sid, _, _ := initialize(t, e, b); st != 200 || sid == "" {
		t.Fatalf("another caller's first session: %d", st)
	}
	st, _, body, h = initialize(t, e, b)
	er, _ = body["error"].(map[string]any)
	if st != 503 || h.Get("Retry-After") == "" || er["code"] != "SERVICE_UNAVAILABLE" || !strings.Contains(er["message"].(string), "retry in") {
		t.Fatalf("the node's fourth session: %d Retry-After %q %v", st, h.Get("Retry-After"), body)
	}
	waitMetric(t, e, "folio_mcp_sessions", 3, 5*time.Second)

	req, _ := http.NewRequest("DELETE", e.Srv.URL+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", first)
	res, err := a.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != 204 {
		t.Fatalf("DELETE: %d", res.StatusCode)
	}
	waitMetric(t, e, "folio_mcp_sessions", 2, 5*time.Second)
	if st, sid, body, _ := initialize(t, e, a); st != 200 || sid == "" {
		t.Fatalf("a new session once one ended: %d %v", st, body)
	}
}

// TestProvisioningIsLimitedPerCaller: twelve agents without a key, each from its
// own address, each get an account through /mcp (the registration limit, 10 a
// minute, is per caller address, not one bucket for every /mcp session); one
// address past its own ten is refused, with the 429 in the tool's answer.
func TestProvisioningIsLimitedPerCaller(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.EnforceLimits = true })
	provision := func(src string) *mcp.CallToolResult {
		cs := connectHTTP(t, e, from(src), nil)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_templates", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		_ = cs.Close()
		return res
	}
	for i := 2; i <= 13; i++ {
		src := fmt.Sprintf("127.0.0.%d", i)
		res := provision(src)
		var got map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &got)
		if res.IsError || got["account"] == nil {
			t.Fatalf("agent %d of 12, from %s: no account: %s", i-1, src, text(res))
		}
	}
	// 127.0.0.2 has one already; its bucket holds ten a minute and refills one every
	// 6 s. It is refused once the ten are spent: on a slow machine a little later, by
	// the refills the time taken allows, never more.
	started, admitted := time.Now(), 1
	for {
		res := provision("127.0.0.2")
		if res.IsError {
			if !strings.Contains(text(res), "429") {
				t.Fatalf("registration %d from one address: %s", admitted+1, text(res))
			}
			break
		}
		admitted++
		if allowed := 10 + int(time.Since(started)/(6*time.Second)) + 1; admitted > allowed {
			t.Fatalf("%d registrations from one address in %v: the bucket allows %d", admitted, time.Since(started).Round(time.Millisecond), allowed)
		}
	}
	if admitted < 10 {
		t.Fatalf("refused after %d registrations from one address: the limit is ten a minute", admitted)
	}
}

// TestANamedNodesSessionIdsStartWithItsName: a node started with --node-name
// node2 hands out session ids "node2.<random>" (what the balancer routes by), and
// a session opened so is served on its next request; a name a balancer could not
// match is refused.
func TestANamedNodesSessionIdsStartWithItsName(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.MCPSessions.Node = "node2" })
	st, sid, _, _ := initialize(t, e, http.DefaultClient)
	if st != 200 || !strings.HasPrefix(sid, "node2.") || len(sid) < len("node2.")+20 {
		t.Fatalf("initialize on node2: %d, session id %q, want node2.<random>", st, sid)
	}
	cs := connectHTTP(t, e, http.DefaultClient, nil)
	if !strings.HasPrefix(cs.ID(), "node2.") {
		t.Fatalf("the SDK client's session id %q", cs.ID())
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("a request of the session: %v", err)
	}
	for _, bad := range []string{"node.2", "node 2", "nœud", strings.Repeat("n", 33)} {
		if err := foliomcp.CheckNodeName(bad); err == nil {
			t.Errorf("CheckNodeName(%q) accepted it", bad)
		}
	}
	for _, good := range []string{"", "node2", "eu-west_3"} {
		if err := foliomcp.CheckNodeName(good); err != nil {
			t.Errorf("CheckNodeName(%q): %v", good, err)
		}
	}
}
