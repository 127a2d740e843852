package foliomcp_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	foliomcp "folio/transport/mcp"
	"folio/transport/node/nodetest"
)

// verdictActions declare every outcome: a neutral step that leaves the page open
// (snooze), and a final approval and rejection.
func verdictActions() []any {
	return []any{
		map[string]any{"action_id": "snooze", "label": "Snooze 1 day", "decision": "none", "final": false},
		map[string]any{"action_id": "ship", "label": "Ship it", "decision": "approve"},
		map[string]any{"action_id": "stop", "label": "Stop", "decision": "reject", "final": true},
	}
}

// TestAnActionOverMCPDeclaresItsOutcomeAndWhetherItIsFinal: the tools that take
// actions (publish_page, create_draft, request_approval, update_page) list
// decision with the enum approve, reject, none and final as a boolean, and store
// the actions exactly as the HTTP API stores the same request. Pressing the
// neutral, non-final Snooze leaves the page active (decided by nobody), and
// wait_for_decision then answers the final Ship it as approved.
func TestAnActionOverMCPDeclaresItsOutcomeAndWhetherItIsFinal(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-verdict")
	cs, _ := session(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key, DecisionWait: 5 * time.Second})
	for _, name := range []string{"publish_page", "create_draft", "request_approval", "update_page"} {
		props := "inputSchema.properties.actions.items.properties."
		tool := listedTool(t, cs, name)
		if got := at(tool, props+"decision")["enum"]; !reflect.DeepEqual(got, []any{"approve", "reject", "none"}) {
			t.Errorf("%s: actions[].decision has enum %v, want [approve reject none]", name, got)
		}
		if got := at(tool, props+"final")["type"]; got != "boolean" {
			t.Errorf("%s: actions[].final has type %v, want boolean", name, got)
		}
	}
	actionsOf := func(id string) string {
		b, _ := json.Marshal(e.Must(200, "GET", "/v1/pages/"+id, key, nil)["actions"])
		return string(b)
	}
	byAPI := actionsOf(e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "Deploy 4.2?", "actions": verdictActions()})["pageId"].(string))

	published := call(t, cs, "publish_page", map[string]any{"title": "Deploy 4.2?", "actions": verdictActions()})["pageId"].(string)
	drafted := call(t, cs, "create_draft", map[string]any{"title": "Deploy 4.2?", "actions": verdictActions()})["pageId"].(string)
	asked := call(t, cs, "request_approval", map[string]any{"title": "Deploy 4.2?", "actions": verdictActions(), "timeout_seconds": 1})["pageId"].(string)
	updated := call(t, cs, "publish_page", map[string]any{"title": "Deploy 4.2?"})["pageId"].(string)
	call(t, cs, "update_page", map[string]any{"page_id": updated, "actions": verdictActions()})
	for tool, id := range map[string]string{"publish_page": published, "create_draft": drafted, "request_approval": asked, "update_page": updated} {
		if got := actionsOf(id); got != byAPI {
			t.Errorf("%s stored the actions %s, the API %s", tool, got, byAPI)
		}
	}

	snoozed := e.Must(200, "POST", "/v1/pages/"+published+"/actions/snooze", "", map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	if page := e.Must(200, "GET", "/v1/pages/"+published, key, nil); page["status"] != "active" || page["decision"] != nil {
		t.Fatalf("after Snooze (final false, decision none) the page is %v with decision %v, want active and undecided (execution %v)",
			page["status"], page["decision"], snoozed)
	}
	e.Must(200, "POST", "/v1/pages/"+published+"/actions/ship", "", map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	if got := call(t, cs, "wait_for_decision", map[string]any{"page_id": published}); got["status"] != "completed" ||
		got["decision"] != "approved" || got["action_id"] != "ship" || got["outcome"] != "approved" {
		t.Fatalf("wait_for_decision after Ship it: %v", got)
	}
}
