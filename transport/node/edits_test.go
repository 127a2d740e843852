package node_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// editPage is an approval page with an editable text block, an editable key_value
// block, a table marked editable and a chart marked editable (refused with a
// warning), its callbacks sent to url.
func editPage(url string) map[string]any {
	return map[string]any{
		"title": "Raise the limit?",
		"blocks": []any{
			map[string]any{"id": "note", "type": "text", "editable": true, "data": map[string]any{"content": "Raise the limit\nto 1000 per day.\n"}},
			map[string]any{"id": "limits", "type": "key_value", "editable": true, "data": map[string]any{"pairs": []any{
				map[string]any{"key": "Daily limit", "value": 1000}, map[string]any{"key": "Owner", "value": "ops"}}}},
			map[string]any{"id": "plain", "type": "text", "data": map[string]any{"content": "Not editable."}},
			map[string]any{"id": "chart", "type": "chart", "editable": true, "data": map[string]any{"chart_type": "bar",
				"data": map[string]any{"labels": []any{"a"}, "datasets": []any{map[string]any{"data": []any{1}}}}}},
		},
		"actions": []any{
			map[string]any{"action_id": "approve", "label": "Approve", "style": "primary"},
			map[string]any{"action_id": "reject", "label": "Reject", "style": "danger"},
		},
		"on_action": map[string]any{"default_url": url},
	}
}

// hooks records the callbacks a node sends.
type hooks struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
}

func newHooks(t *testing.T) *hooks {
	h := &hooks{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			h.mu.Lock()
			h.bodies = append(h.bodies, m)
			h.mu.Unlock()
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hooks) event(t *testing.T, typ string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		for _, b := range h.bodies {
			if b["event"] == typ {
				h.mu.Unlock()
				return b
			}
		}
		h.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s callback arrived", typ)
	return nil
}

func privateCallbacks(c *node.Config) { c.AllowPrivateCallbacks = true }

// TestAnApprovalCarriesTheReviewersEdits: a text block and a key_value block the
// agent marked editable are corrected with the approval. The response, the audit
// entry, the agent's action.executed, its callback and wait carry per block the
// data after the edit and a unified diff from the agent's version; the page keeps
// the agent's blocks and its content version (the decision names the version
// seen). A chart marked editable drew a warning at publish and is not editable.
func TestAnApprovalCarriesTheReviewersEdits(t *testing.T) {
	e := nodetest.New(t, privateCallbacks)
	key, _ := e.Register("edits")
	h := newHooks(t)
	pub := e.Must(201, "POST", "/v1/publish", key, editPage(h.srv.URL))
	id := pub["pageId"].(string)
	if w := strings.Join(anyStrings(pub["warnings"]), "\n"); !strings.Contains(w, "blocks[3].editable") {
		t.Fatalf("no warning for an editable chart: %q", w)
	}
	p := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	bs := p["blocks"].([]any)
	if bs[0].(map[string]any)["editable"] != true || bs[3].(map[string]any)["editable"] != nil {
		t.Fatalf("editable marks as stored: %v / %v", bs[0], bs[3])
	}
	hash := p["content_hash"].(string)

	c, err := do(e, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"page_version": 1,
		"actor": map[string]any{"identity": "ann@example.com"},
		"edits": []any{
			map[string]any{"block_id": "note", "content": "Raise the limit\nto 500 per day.\n"},
			map[string]any{"block_id": "limits", "values": []any{"500", "ops"}},
		}}, nil)
	if err != nil || c.status != 200 {
		t.Fatalf("approve with edits: %v %d %v", err, c.status, c.body)
	}
	check := func(where string, v any) {
		t.Helper()
		list, _ := v.([]any)
		if len(list) != 2 {
			t.Fatalf("%s: edits %v", where, v)
		}
		note, limits := list[0].(map[string]any), list[1].(map[string]any)
		diff := note["diff"].(string)
		if note["block_id"] != "note" || note["data"].(map[string]any)["content"] != "Raise the limit\nto 500 per day.\n" ||
			!strings.Contains(diff, "-to 1000 per day.\n+to 500 per day.\n") || !strings.HasPrefix(diff, "--- note (agent, version 1)\n+++ note (edited by ann@example.com)\n@@ ") {
			t.Fatalf("%s: the text edit %v", where, note)
		}
		pairs := limits["data"].(map[string]any)["pairs"].([]any)
		if limits["block_id"] != "limits" || pairs[0].(map[string]any)["value"] != 500.0 || pairs[1].(map[string]any)["value"] != "ops" ||
			!strings.Contains(limits["diff"].(string), "-Daily limit: 1000\n+Daily limit: 500\n") {
			t.Fatalf("%s: the key_value edit %v", where, limits)
		}
	}
	check("response", c.body["edits"])
	if c.body["page_version"] != 1.0 || c.body["content_hash"] != hash {
		t.Fatalf("the decision names the version seen: %v", c.body)
	}
	cb := h.event(t, "action.executed")
	check("callback", cb["data"].(map[string]any)["edits"])
	for _, it := range auditOf(t, e, key, id) {
		if it["event_type"] == "action.executed" {
			check("audit", it["details"].(map[string]any)["edits"])
		}
	}
	for _, x := range e.Must(200, "GET", "/v1/pages/"+id+"/agent-events", key, nil)["events"].([]any) {
		if x := x.(map[string]any); x["type"] == "action.executed" {
			check("agent event", x["data"].(map[string]any)["edits"])
		}
	}
	check("wait", e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=1s", key, nil)["data"].(map[string]any)["edits"])
	after := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	check("last_action", after["last_action"].(map[string]any)["edits"])
	if after["version"] != 1.0 || after["content_hash"] != hash ||
		after["blocks"].([]any)[0].(map[string]any)["data"].(map[string]any)["content"] != "Raise the limit\nto 1000 per day.\n" {
		t.Fatalf("the page keeps the agent's content and version: %v %v", after["version"], after["blocks"])
	}
}

// TestEditsAreRefusedWhereTheyDoNotBelong: an edit of a block the agent did not
// mark editable, of the chart whose mark was refused, an edit over the size bound,
// one of the wrong shape, one sent with a rejection, and one on a version that
// changed since are each refused (400 naming the field, 409 page_changed) and
// record nothing; then the page still takes a plain approval.
func TestEditsAreRefusedWhereTheyDoNotBelong(t *testing.T) {
	e := nodetest.New(t, privateCallbacks, func(c *node.Config) { c.EditBytes = 4096 })
	key, _ := e.Register("edits")
	id := e.Must(201, "POST", "/v1/publish", key, editPage("http://127.0.0.1:1/hook"))["pageId"].(string)
	approve := func(body map[string]any) call {
		t.Helper()
		c, err := do(e, "POST", "/v1/pages/"+id+"/actions/"+body["action"].(string), key, body, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name              string
		body              map[string]any
		status            int
		field, constraint string
	}{
		{"not editable", map[string]any{"action": "approve", "edits": []any{map[string]any{"block_id": "plain", "content": "x"}}}, 400, "edits[0].block_id", "editable"},
		{"editable refused at publish", map[string]any{"action": "approve", "edits": []any{map[string]any{"block_id": "chart", "content": "x"}}}, 400, "edits[0].block_id", "editable"},
		{"unknown block", map[string]any{"action": "approve", "edits": []any{map[string]any{"block_id": "nope", "content": "x"}}}, 400, "edits[0].block_id", "exists"},
		{"over the size bound", map[string]any{"action": "approve", "edits": []any{map[string]any{"block_id": "note", "content": strings.Repeat("x", 5000)}}}, 400, "edits[0]", "max_bytes"},
		{"wrong shape", map[string]any{"action": "approve", "edits": []any{map[string]any{"block_id": "limits", "content": "x"}}}, 400, "edits[0]", "shape"},
		{"one value short", map[string]any{"action": "approve", "edits": []any{map[string]any{"block_id": "limits", "values": []any{"1"}}}}, 400, "edits[0].values", "length"},
		{"a value that is not a scalar", map[string]any{"action": "approve", "edits": []any{map[string]any{"block_id": "limits", "values": []any{map[string]any{}, "ops"}}}}, 400, "edits[0].values[0]", "type"},
		{"with a rejection", map[string]any{"action": "reject", "edits": []any{map[string]any{"block_id": "note", "content": "no"}}}, 400, "edits", "approving_decision"},
	} {
		c := approve(tc.body)
		d := errDetails(c)
		if c.status != tc.status || d["field"] != tc.field || d["constraint"] != tc.constraint {
			t.Errorf("%s: %d %v", tc.name, c.status, c.body)
		}
	}
	// The agent changes the page: edits on the version seen before are 409.
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "more"}}}})
	c := approve(map[string]any{"action": "approve", "page_version": 1, "edits": []any{map[string]any{"block_id": "note", "content": "edited"}}})
	if d := errDetails(c); c.status != 409 || d["reason"] != "page_changed" || d["current_version"] != 2.0 {
		t.Fatalf("edits on a stale version: %d %v", c.status, c.body)
	}
	if p := e.Must(200, "GET", "/v1/pages/"+id, key, nil); p["status"] != "active" || p["last_action"] != nil {
		t.Fatalf("a refused decision recorded something: %v %v", p["status"], p["last_action"])
	}
	// An edit identical to the agent's version is no edit: the approval carries none.
	c = approve(map[string]any{"action": "approve", "page_version": 2, "edits": []any{map[string]any{"block_id": "note", "content": "Raise the limit\nto 1000 per day.\n"}}})
	if c.status != 200 || c.body["edits"] != nil {
		t.Fatalf("approve with an unchanged edit: %d %v", c.status, c.body)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range asList(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
