package foliomcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	foliomcp "folio/transport/mcp"
	"folio/transport/node/nodetest"
)

// These tests drive the MCP server with the SDK's own client, over the in-memory
// transport, against a real Folio node (every HTTP answer the tools get is checked
// against the OpenAPI document by the test node).

// session connects a client to a server made with o; progress notifications land
// in the returned channel.
func session(t *testing.T, o foliomcp.Options) (*mcp.ClientSession, chan string) {
	t.Helper()
	progress := make(chan string, 64)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params.Message:
			default:
			}
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := foliomcp.NewServer(o).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs, progress
}

// call calls a tool and decodes its structured answer; a tool error, or an answer
// its listed output schema refuses (checkOutput), fails the test.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text(res))
	}
	checkOutput(t, cs, name, res.StructuredContent)
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, raw, err)
	}
	return out
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var page = map[string]any{
	"title": "Deploy v2.4.1 to production?", "summary": "All checks passed.",
	"blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "Ready to **ship**."}}},
}

var tools = []string{"publish_page", "create_draft", "publish_draft", "get_page", "update_page", "append_blocks", "revoke_page",
	"renew_page", "list_inbox", "get_comments", "add_comment", "list_templates", "publish_template", "publish_a2ui", "publish_ag_ui",
	"get_approval", "agent_events", "request_approval", "wait_for_decision"}

// TestEveryToolWorksAgainstARealServer lists the tools (each with a description
// and typed input and output schemas) and calls every one.
func TestEveryToolWorksAgainstARealServer(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-tools")
	cs, _ := session(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key})
	ctx := context.Background()
	listed := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed[tool.Name] = tool
	}
	for _, name := range tools {
		tool, ok := listed[name]
		switch {
		case !ok:
			t.Errorf("tool %s is not listed", name)
		case len(tool.Description) < 40 || tool.InputSchema == nil || tool.OutputSchema == nil:
			t.Errorf("tool %s lacks a description for a model or typed schemas", name)
		}
	}

	pub := call(t, cs, "publish_page", page)
	id := pub["pageId"].(string)
	if !strings.HasPrefix(pub["pageUrl"].(string), e.Srv.URL+"/p/") {
		t.Fatalf("publish_page: %v", pub)
	}
	if got := call(t, cs, "get_page", map[string]any{"page_id": id}); got["title"] != page["title"] || got["status"] != "active" {
		t.Errorf("get_page: %v", got)
	}
	call(t, cs, "update_page", map[string]any{"page_id": id, "summary": "Checks passed; canary healthy."})
	call(t, cs, "append_blocks", map[string]any{"page_id": id, "blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "Canary: 0 errors."}}}})
	if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil); got["summary"] != "Checks passed; canary healthy." || len(got["blocks"].([]any)) != 2 {
		t.Errorf("after update_page and append_blocks the page is %v", got)
	}
	call(t, cs, "add_comment", map[string]any{"page_id": id, "content": "Ask me anything."})
	if got := call(t, cs, "get_comments", map[string]any{"page_id": id}); len(got["comments"].([]any)) != 1 {
		t.Errorf("get_comments: %v", got)
	}
	if got := call(t, cs, "list_inbox", map[string]any{}); got["total"].(float64) < 1 {
		t.Errorf("list_inbox: %v", got)
	}
	draft := call(t, cs, "create_draft", page)
	if got := call(t, cs, "publish_draft", map[string]any{"page_id": draft["pageId"]}); got["status"] != "active" {
		t.Errorf("publish_draft: %v", got)
	}
	call(t, cs, "renew_page", map[string]any{"page_id": id})
	if got := call(t, cs, "revoke_page", map[string]any{"page_id": draft["pageId"], "reason": "superseded"}); got["status"] != "revoked" {
		t.Errorf("revoke_page: %v", got)
	}

	templates := call(t, cs, "list_templates", map[string]any{})["templates"].([]any)
	if len(templates) == 0 {
		t.Fatal("list_templates: none")
	}
	first := templates[0].(map[string]any)
	vars := map[string]any{}
	for _, v := range first["variables"].([]any) {
		vm := v.(map[string]any)
		if vm["required"] == true {
			vars[vm["key"].(string)] = sample(vm)
		}
	}
	if got := call(t, cs, "publish_template", map[string]any{"name": first["name"], "variables": vars}); got["pageId"] == "" {
		t.Errorf("publish_template: %v", got)
	}
	a2ui := map[string]any{"payload": map[string]any{"version": "0.9", "title": "From A2UI", "updateComponents": map[string]any{
		"components": []any{map[string]any{"id": "root", "component": "Text", "text": "Hello from A2UI"}}}}}
	if got := call(t, cs, "publish_a2ui", a2ui); got["status"] != "active" {
		t.Errorf("publish_a2ui: %v", got)
	}
	agui := map[string]any{"title": "A run", "events": []any{
		map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
		map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Done."},
		map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "m1"}}}
	if got := call(t, cs, "publish_ag_ui", agui); got["status"] != "active" {
		t.Errorf("publish_ag_ui: %v", got)
	}

	chain := map[string]any{"title": "Two steps", "actions": []any{map[string]any{"action_id": "approve", "label": "Approve"}},
		"approval_chain": map[string]any{"mode": "sequential", "steps": []any{map[string]any{"name": "Lead", "assignees": []any{"lead@example.com"}}}}}
	cid := call(t, cs, "publish_page", chain)["pageId"].(string)
	if got := call(t, cs, "get_approval", map[string]any{"page_id": cid}); got["chain_status"] != "in_progress" {
		t.Errorf("get_approval: %v", got)
	}
	ev := call(t, cs, "agent_events", map[string]any{})
	if len(ev["events"].([]any)) < 5 || ev["cursor"] == "0" {
		t.Errorf("agent_events from the start: %d events, cursor %v", len(ev["events"].([]any)), ev["cursor"])
	}
	call(t, cs, "add_comment", map[string]any{"page_id": id, "content": "One more."})
	next := call(t, cs, "agent_events", map[string]any{"after": ev["cursor"]})
	if evs := next["events"].([]any); len(evs) != 1 || evs[0].(map[string]any)["type"] != "comment.added" {
		t.Errorf("agent_events after the cursor: %v, want only the new comment", evs)
	}

	aid := call(t, cs, "publish_page", map[string]any{"title": "Approve?", "actions": []any{map[string]any{"action_id": "approve", "label": "Approve"}}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+aid+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}, "comment": "Go"})
	if got := call(t, cs, "wait_for_decision", map[string]any{"page_id": aid, "timeout_seconds": 5}); got["decision"] != "approved" || got["decided_by"] != "ann@example.com" {
		t.Errorf("wait_for_decision on a decided page: %v", got)
	}
	// request_approval: its own test below.
	for _, name := range tools {
		if !wasChecked(cs, name) && name != "request_approval" {
			t.Errorf("%s: no call checked its answer against its output schema", name)
		}
	}
}

// TestRequestApprovalReturnsTheDecisionAPersonMade: an agent asks over MCP and
// waits; it hears the page was published and opened; a person decides over HTTP;
// the tool answers with the decision, who made it, how that was verified and
// their comment.
func TestRequestApprovalReturnsTheDecisionAPersonMade(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-approval")
	cs, progress := session(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key})
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request_approval",
			Arguments: map[string]any{"title": "Rotate the database password?", "timeout_seconds": 30},
			Meta:      mcp.Meta{"progressToken": "t1"}})
		done <- answer{res, err}
	}()
	var url string
	select {
	case msg := <-progress:
		if i := strings.Index(msg, e.Srv.URL+"/p/"); i >= 0 {
			url = msg[i:]
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification with the page's address")
	}
	if url == "" {
		t.Fatal("the first progress message does not give the page's address")
	}
	id := strings.TrimPrefix(url, e.Srv.URL+"/p/")
	// A person opens the page (the agent hears it), then rejects it, naming themself.
	req, _ := http.NewRequest("POST", e.Srv.URL+"/internal/pages/"+id+"/view", nil)
	req.Header.Set("User-Agent", "person-browser")
	if res, err := e.Srv.Client().Do(req); err == nil {
		_ = res.Body.Close()
	}
	select {
	case msg := <-progress:
		if !strings.Contains(msg, "opened") {
			t.Errorf("progress after a view: %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Error("no progress notification when the page was opened")
	}
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/reject", "", map[string]any{"actor": map[string]any{"identity": "dba@example.com"}, "comment": "Not during the freeze"})
	var a answer
	select {
	case a = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("request_approval did not return after the decision")
	}
	if a.err != nil || a.res.IsError {
		t.Fatalf("request_approval: %v %s", a.err, text(a.res))
	}
	checkOutput(t, cs, "request_approval", a.res.StructuredContent)
	var got map[string]any
	raw, _ := json.Marshal(a.res.StructuredContent)
	_ = json.Unmarshal(raw, &got)
	if got["decision"] != "rejected" || got["action_id"] != "reject" || got["decided_by"] != "dba@example.com" ||
		got["auth_method"] != "link" || got["comment"] != "Not during the freeze" || got["timed_out"] != false {
		t.Fatalf("request_approval answered %v", got)
	}
}

// TestAWaitTimesOutAndCanBeCancelled: a short wait answers timed_out with the page
// still open; a wait the client cancels ends, and the session goes on.
func TestAWaitTimesOutAndCanBeCancelled(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-cancel")
	cs, _ := session(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key})
	id := call(t, cs, "publish_page", page)["pageId"].(string)
	if got := call(t, cs, "wait_for_decision", map[string]any{"page_id": id, "timeout_seconds": 1}); got["timed_out"] != true || got["status"] != "pending" {
		t.Errorf("a 1 s wait: %v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_decision", Arguments: map[string]any{"page_id": id, "timeout_seconds": 600}})
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the wait begin; cancelling earlier is just as valid
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("a cancelled call returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling did not end the wait")
	}
	if got := call(t, cs, "get_page", map[string]any{"page_id": id}); got["status"] != "active" {
		t.Errorf("after the cancelled wait the page is %v", got["status"])
	}
}

// TestAnAgentWithoutAKeyGetsAnAccountAndKeepsIt: the first tool call of an agent
// without a key creates its account and answers with the key, the claim code, the
// claim address and what to tell its human; the key is kept (0600) and the next
// run uses the same account.
func TestAnAgentWithoutAKeyGetsAnAccountAndKeepsIt(t *testing.T) {
	e := nodetest.New(t)
	dir := t.TempDir()
	keys := foliomcp.FileKeys{Dir: dir, Server: e.Srv.URL}
	cs, _ := session(t, foliomcp.Options{BaseURL: e.Srv.URL, Keys: keys})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "publish_page", Arguments: page})
	if err != nil || res.IsError {
		t.Fatalf("publish_page: %v %s", err, text(res))
	}
	out := text(res)
	var got map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &got)
	acct, _ := got["account"].(map[string]any)
	apiKey, _ := acct["apiKey"].(string)
	if !strings.HasPrefix(apiKey, "sk_live_") || acct["claimCode"] == "" || !strings.Contains(acct["claimUrl"].(string), "/claim?code=") ||
		!strings.Contains(out, "claim it at") {
		t.Fatalf("the first answer does not give the account: %v\n%s", acct, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "mcp-key-*"))
	if len(files) != 1 {
		t.Fatalf("the key was not kept: %v", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("the kept key's file mode is %v, want 0600", fi.Mode().Perm())
	}
	// Within the session, and in the next run: the same account, no new one.
	if again := call(t, cs, "list_inbox", map[string]any{}); again["account"] != nil {
		t.Error("a second call in the session made another account")
	}
	next, _ := session(t, foliomcp.Options{BaseURL: e.Srv.URL, Keys: keys})
	p2 := call(t, next, "publish_page", page)
	if p2["account"] != nil {
		t.Fatal("the next run made another account")
	}
	if got := e.Must(200, "GET", "/v1/pages/"+p2["pageId"].(string), apiKey, nil); got["title"] != page["title"] {
		t.Errorf("the next run's page is not in the first account: %v", got)
	}
}

// TestTheHTTPEndpointWithAndWithoutAKey: /mcp on the node, with the SDK's
// streamable HTTP client: with a Bearer key the tools act for that tenant; without
// one the session gets an account of its own on its first call.
func TestTheHTTPEndpointWithAndWithoutAKey(t *testing.T) {
	e := nodetest.New(t)
	key, tenantID := e.Register("mcp-http")
	connect := func(bearer string) *mcp.ClientSession {
		hc := &http.Client{Transport: bearerTransport{key: bearer, next: http.DefaultTransport}}
		c := mcp.NewClient(&mcp.Implementation{Name: "http-agent", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.Srv.URL + "/mcp", HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	with := connect(key)
	id := call(t, with, "publish_page", page)["pageId"].(string)
	if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil); got["title"] != page["title"] {
		t.Fatalf("the page published over /mcp is not the key's tenant's: %v", got)
	}
	without := connect("")
	first := call(t, without, "publish_page", page)
	acct, _ := first["account"].(map[string]any)
	if acct == nil || acct["tenantId"] == tenantID {
		t.Fatalf("a session without a key: %v", first)
	}
	if again := call(t, without, "get_page", map[string]any{"page_id": first["pageId"]}); again["title"] != page["title"] || again["account"] != nil {
		t.Errorf("the session's second call: %v", again)
	}
	if acct["apiKey"] == key {
		t.Error("the provisioned key is the other session's")
	}
}

// bearerTransport adds Authorization: Bearer key to every request.
type bearerTransport struct {
	key  string
	next http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.key != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return b.next.RoundTrip(r)
}

// sample is a value of a template variable's type.
func sample(v map[string]any) any {
	switch v["type"] {
	case "number", "integer":
		return 3
	case "boolean":
		return true
	case "url":
		return "https://example.com/x"
	case "email":
		return "someone@example.com"
	case "date":
		return "2026-11-24"
	case "datetime":
		return "2026-11-24T10:00:00Z"
	case "enum":
		return v["options"].([]any)[0]
	case "list":
		return []any{"one"}
	case "map":
		return map[string]any{"a": "b"}
	case "rows":
		return []any{map[string]any{"a": "b"}}
	}
	return "value"
}
