package foliomcp_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	foliomcp "folio/transport/mcp"
	"folio/transport/node/nodetest"
)

// A client such as the TypeScript SDK checks every structured output against the
// output schema the tool lists. call does the same, on the client side: every
// tool call of these tests validates its answer against the tool's listed schema
// (checked records which tools were), so an output and its schema can't drift.

var (
	listedMu sync.Mutex
	listed   = map[*mcp.ClientSession]map[string]map[string]any{} // session -> tool -> output schema (as listed)
	checked  = map[*mcp.ClientSession]map[string]bool{}
)

// outputSchema is the output schema tool lists on the session, as JSON.
func outputSchema(t *testing.T, cs *mcp.ClientSession, tool string) map[string]any {
	t.Helper()
	listedMu.Lock()
	defer listedMu.Unlock()
	if listed[cs] == nil {
		m := map[string]map[string]any{}
		for tl, err := range cs.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			var s map[string]any
			b, _ := json.Marshal(tl.OutputSchema)
			_ = json.Unmarshal(b, &s)
			m[tl.Name] = s
		}
		listed[cs] = m
	}
	return listed[cs][tool]
}

// validate reports why out does not satisfy the schema s (nil when it does).
func validate(s map[string]any, out any) error {
	var sch jsonschema.Schema
	b, _ := json.Marshal(s)
	if err := json.Unmarshal(b, &sch); err != nil {
		return err
	}
	r, err := sch.Resolve(nil)
	if err != nil {
		return err
	}
	return r.Validate(out)
}

// checkOutput fails the test when the structured output of tool does not satisfy
// the output schema the tool lists.
func checkOutput(t *testing.T, cs *mcp.ClientSession, tool string, structured any) {
	t.Helper()
	var out any
	raw, _ := json.Marshal(structured)
	_ = json.Unmarshal(raw, &out)
	s := outputSchema(t, cs, tool)
	if s == nil {
		t.Fatalf("%s lists no output schema", tool)
	}
	if err := validate(s, out); err != nil {
		t.Errorf("%s answered %s, which its output schema refuses: %v", tool, raw, err)
	}
	listedMu.Lock()
	if checked[cs] == nil {
		checked[cs] = map[string]bool{}
	}
	checked[cs][tool] = true
	listedMu.Unlock()
}

// wasChecked reports whether a call of tool on cs had its output validated.
func wasChecked(cs *mcp.ClientSession, tool string) bool {
	listedMu.Lock()
	defer listedMu.Unlock()
	return checked[cs][tool]
}

// TestOutputSchemasAreStrictEnoughToRefuseAWrongMember: the check call makes is
// not vacuous. A real get_page and agent_events answer satisfy the listed schemas
// (members typed, no others allowed) and are refused once one member's schema is
// wrong: a page's status typed as a number, an event's data (raw JSON, an object)
// typed as the bytes the SDK would infer, a member the schema does not declare.
func TestOutputSchemasAreStrictEnoughToRefuseAWrongMember(t *testing.T) {
	cs, id := publishedPage(t)
	call(t, cs, "add_comment", map[string]any{"page_id": id, "content": "A question."})
	page := call(t, cs, "get_page", map[string]any{"page_id": id})
	events := call(t, cs, "agent_events", map[string]any{})
	if len(events["events"].([]any)) == 0 {
		t.Fatal("agent_events: none")
	}
	// What the descriptions promise: a member the API leaves unset is absent.
	for k, v := range page {
		if v == nil {
			t.Errorf("get_page: %s is null, want it absent", k)
		}
	}
	if _, ok := page["completed_at"]; ok {
		t.Errorf("get_page of an active page gives completed_at %v, want it absent", page["completed_at"])
	}
	wrong := []struct {
		tool, what string
		out        map[string]any
		edit       func(s map[string]any)
	}{
		{"get_page", "status typed as an integer", page, func(s map[string]any) {
			s["properties"].(map[string]any)["status"] = map[string]any{"type": "integer"}
		}},
		{"get_page", "blocks[].data typed as a string", page, func(s map[string]any) {
			items := s["properties"].(map[string]any)["blocks"].(map[string]any)["items"].(map[string]any)
			items["properties"].(map[string]any)["data"] = map[string]any{"type": "string"}
		}},
		{"get_page", "title no longer declared", page, func(s map[string]any) {
			delete(s["properties"].(map[string]any), "title")
		}},
		{"agent_events", "events[].data typed as bytes", events, func(s map[string]any) {
			items := s["properties"].(map[string]any)["events"].(map[string]any)["items"].(map[string]any)
			items["properties"].(map[string]any)["data"] = map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}
		}},
	}
	for _, w := range wrong {
		var s map[string]any
		b, _ := json.Marshal(outputSchema(t, cs, w.tool))
		_ = json.Unmarshal(b, &s)
		if err := validate(s, w.out); err != nil {
			t.Fatalf("%s: the listed schema refuses the real answer: %v", w.tool, err)
		}
		w.edit(s)
		if err := validate(s, w.out); err == nil {
			t.Errorf("%s with %s: the answer still validates, so the schema does not check that member", w.tool, w.what)
		}
	}
}

// publishedPage is a session of a new agent on a test node, and a page it
// published with a text and a code block.
func publishedPage(t *testing.T) (*mcp.ClientSession, string) {
	t.Helper()
	e := nodetest.New(t)
	key, _ := e.Register("mcp-outputs")
	cs, _ := session(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key})
	pub := call(t, cs, "publish_page", map[string]any{"title": "Merge the fix?", "blocks": []any{
		map[string]any{"type": "text", "data": map[string]any{"content": "Fixes the **race**."}},
		map[string]any{"type": "code", "data": map[string]any{"language": "go", "content": "mu.Lock()\ndefer mu.Unlock()"}}}})
	return cs, pub["pageId"].(string)
}
