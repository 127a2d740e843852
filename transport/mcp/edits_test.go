package foliomcp_test

import (
	"strings"
	"testing"
	"time"

	foliomcp "folio/transport/mcp"
	"folio/transport/node/nodetest"
)

// TestWaitForDecisionCarriesTheReviewersEdits: a person approves with a correction
// of a block the agent marked editable; wait_for_decision answers it with the
// block's data after the edit and the diff from the agent's version.
func TestWaitForDecisionCarriesTheReviewersEdits(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-edits")
	cs, _ := waitSession(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key, DecisionWait: 5 * time.Second})
	id := e.Must(201, "POST", "/v1/publish", key, map[string]any{"title": "Send this reply?",
		"blocks":  []any{map[string]any{"id": "reply", "type": "text", "editable": true, "data": map[string]any{"content": "Dear customer,\nno refund.\n"}}},
		"actions": []any{map[string]any{"action_id": "approve", "label": "Send"}}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", "", map[string]any{"actor": map[string]any{"identity": "ann@example.com"},
		"edits": []any{map[string]any{"block_id": "reply", "content": "Dear customer,\na full refund.\n"}}})
	got := call(t, cs, "wait_for_decision", map[string]any{"page_id": id})
	edits, _ := got["edits"].([]any)
	if got["decision"] != "approved" || len(edits) != 1 {
		t.Fatalf("wait_for_decision: %v", got)
	}
	ed := edits[0].(map[string]any)
	if ed["block_id"] != "reply" || ed["data"].(map[string]any)["content"] != "Dear customer,\na full refund.\n" ||
		!strings.Contains(ed["diff"].(string), "-no refund.\n+a full refund.\n") {
		t.Fatalf("the edit as MCP answers it: %v", ed)
	}
}
