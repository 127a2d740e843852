package foliomcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	foliomcp "folio/transport/mcp"
	"folio/transport/node/nodetest"
)

// TestToolsAreAnnotatedAndTheirSchemasPortable: every tool, as a client lists it,
// carries its hints (read-only, destructive, idempotent, open world), and its
// schemas are portable by the MCP Inspector's rules: no `type` list, every schema
// constrains its value; the closed sets of values are enums.
func TestToolsAreAnnotatedAndTheirSchemasPortable(t *testing.T) {
	e := nodetest.New(t)
	cs, _ := session(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: "unused"})
	listed := map[string]map[string]any{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		b, _ := json.Marshal(tool) // as on the wire
		_ = json.Unmarshal(b, &m)
		listed[tool.Name] = m
	}
	if len(listed) != len(tools) {
		t.Fatalf("%d tools listed, want %d", len(listed), len(tools))
	}
	// readOnly, destructive, idempotent, openWorld
	hints := map[string][4]bool{
		"get_page": {true, false, true, false}, "list_inbox": {true, false, true, false}, "wait_for_decision": {true, false, true, false},
		"agent_events": {true, false, true, false}, "revoke_page": {false, true, true, false}, "update_page": {false, true, true, false},
		"request_approval": {false, false, false, true}, "publish_page": {false, false, false, true}, "append_blocks": {false, false, false, false},
	}
	for name, tool := range listed {
		a, _ := tool["annotations"].(map[string]any)
		for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := a[h].(bool); !ok {
				t.Errorf("%s: annotation %s missing (%v)", name, h, a)
			}
		}
		if want, ok := hints[name]; ok {
			got := [4]bool{a["readOnlyHint"] == true, a["destructiveHint"] == true, a["idempotentHint"] == true, a["openWorldHint"] == true}
			if got != want {
				t.Errorf("%s: hints (readOnly, destructive, idempotent, openWorld) %v, want %v", name, got, want)
			}
		}
		for _, kind := range []string{"inputSchema", "outputSchema"} {
			for _, p := range unportable(tool[kind], kind) {
				t.Errorf("%s: %s", name, p)
			}
		}
	}
	enums := []struct {
		tool, path string
		want       []string
	}{
		{"request_approval", "inputSchema.properties.priority", []string{"low", "normal", "high", "urgent"}},
		{"publish_page", "inputSchema.properties.actions.items.properties.style", []string{"primary", "secondary", "danger"}},
		{"publish_page", "inputSchema.properties.actions.items.properties.decision", []string{"approve", "reject", "none"}},
		{"create_draft", "inputSchema.properties.approval_chain.properties.mode", []string{"sequential", "parallel"}},
		{"update_page", "inputSchema.properties.actions.items.properties.style", []string{"primary", "secondary", "danger"}},
		{"list_inbox", "inputSchema.properties.status", []string{"unread", "read", "archived"}},
		{"list_inbox", "inputSchema.properties.priority", []string{"low", "normal", "high", "urgent"}},
		{"publish_template", "inputSchema.properties.priority", []string{"low", "normal", "high", "urgent"}},
		{"wait_for_decision", "outputSchema.properties.status", []string{"pending", "completed", "expired", "revoked", "draft"}},
		{"request_approval", "outputSchema.properties.decision", []string{"approved", "rejected"}},
		{"request_approval", "outputSchema.properties.auth_method", []string{"magic_link", "oauth", "email_link", "slack", "link", "api_key", "timeout"}},
	}
	for _, c := range enums {
		got := fmt.Sprint(at(listed[c.tool], c.path)["enum"])
		if want := fmt.Sprint(c.want); got != want {
			t.Errorf("%s %s: enum %s, want %s", c.tool, c.path, got, want)
		}
	}
	for _, name := range []string{"request_approval", "wait_for_decision"} {
		if m := at(listed[name], "inputSchema.properties.timeout_seconds")["minimum"]; m != 1.0 {
			t.Errorf("%s timeout_seconds: minimum %v, want 1", name, m)
		}
	}
	for _, path := range []string{"approval_chain", "on_action"} {
		if p := at(listed["publish_page"], "inputSchema.properties."+path); p["type"] != "object" || p["properties"] == nil {
			t.Errorf("publish_page %s is not a typed object: %v", path, p)
		}
	}
}

// unportable lists what the MCP Inspector (tools/list --strict) would warn about in
// a schema: a `type` list, or a schema that constrains nothing.
func unportable(s any, path string) []string {
	m, ok := s.(map[string]any)
	if !ok {
		if s == nil {
			return nil
		}
		return []string{path + ": not a schema object"}
	}
	var out []string
	if _, ok := m["type"].([]any); ok {
		out = append(out, fmt.Sprintf("%s: type is a list %v", path, m["type"]))
	}
	constrains := false
	for _, k := range []string{"type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "minimum", "maximum", "pattern", "format", "required", "minItems", "maxItems", "minLength", "maxLength"} {
		if _, ok := m[k]; ok {
			constrains = true
		}
	}
	if !constrains && !strings.HasSuffix(path, ".not") {
		out = append(out, path+": accepts any value (no type)")
	}
	for _, k := range []string{"properties", "$defs", "patternProperties"} {
		if sub, ok := m[k].(map[string]any); ok {
			names := make([]string, 0, len(sub))
			for n := range sub {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				out = append(out, unportable(sub[n], path+"."+k+"."+n)...)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if sub, ok := m[k].(map[string]any); ok {
			out = append(out, unportable(sub, path+"."+k)...)
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if subs, ok := m[k].([]any); ok {
			for i, sub := range subs {
				out = append(out, unportable(sub, fmt.Sprintf("%s.%s[%d]", path, k, i))...)
			}
		}
	}
	return out
}

// at is the schema at a dotted path in a listed tool (nil when absent).
func at(tool map[string]any, path string) map[string]any {
	var cur any = tool
	for _, k := range strings.Split(path, ".") {
		m, _ := cur.(map[string]any)
		cur = m[k]
	}
	m, _ := cur.(map[string]any)
	return m
}
