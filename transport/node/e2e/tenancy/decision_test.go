package tenancy_test

import (
	"testing"

	"folio/transport/node/nodetest"
)

// TestARejectionIsNotAnAcceptance: approve, reject and revoke one page each. The
// rejected page is completed with decision "rejected" (page object, inbox entry,
// action.executed on the agent stream), and the quality score and dashboard count
// only the approval as accepted: acceptanceRate 33.33, approval_rate 0.3333. An
// action may declare its polarity; without it deny/decline ids and the danger
// style reject.
func TestARejectionIsNotAnAcceptance(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("polarity")
	approved, rejected, revoked := e.Publish(key, nil), e.Publish(key, nil), e.Publish(key, nil)
	e.Must(200, "POST", "/v1/pages/"+approved+"/actions/approve", key, nil)
	e.Must(200, "POST", "/v1/pages/"+rejected+"/actions/reject", key, nil)
	e.Must(200, "POST", "/v1/pages/"+revoked+"/revoke", key, map[string]any{"reason": "x"})

	for id, want := range map[string]any{approved: "approved", rejected: "rejected", revoked: nil} {
		if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["decision"]; got != want {
			t.Errorf("page %s decision %v, want %v", id, got, want)
		}
	}
	for _, en := range e.Must(200, "GET", "/v1/inbox", key, nil)["entries"].([]any) {
		en := en.(map[string]any)
		if en["pageId"] == rejected && en["decision"] != "rejected" {
			t.Errorf("inbox entry of the rejected page: %v", en)
		}
	}
	q := e.Must(200, "GET", "/v1/quality-score", key, nil)
	if q["acceptanceRate"] != 33.33 || q["totalDecisions"] != 3.0 {
		t.Errorf("quality score: %v", q)
	}
	if m := e.Must(200, "GET", "/v1/tenant/dashboard", key, nil)["metrics"].(map[string]any); m["approval_rate"] != 0.3333 {
		t.Errorf("dashboard: %v", m)
	}

	// Declared and inferred polarity.
	for _, c := range []struct {
		action map[string]any
		want   string
	}{
		{map[string]any{"action_id": "ship", "label": "Ship", "decision": "approve"}, "approved"},
		{map[string]any{"action_id": "hold", "label": "Hold", "decision": "reject"}, "rejected"},
		{map[string]any{"action_id": "deny", "label": "Deny"}, "rejected"},
		{map[string]any{"action_id": "Decline", "label": "No thanks"}, "rejected"},
		{map[string]any{"action_id": "abort", "label": "Abort", "style": "danger"}, "rejected"},
		{map[string]any{"action_id": "ok", "label": "OK", "style": "primary"}, "approved"},
	} {
		id := e.Must(201, "POST", "/v1/publish", key, map[string]any{"title": "t", "actions": []any{c.action}})["pageId"].(string)
		e.Must(200, "POST", "/v1/pages/"+id+"/actions/"+c.action["action_id"].(string), key, nil)
		if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["decision"]; got != c.want {
			t.Errorf("%v: decision %v, want %s", c.action, got, c.want)
		}
	}
	if r := e.Do("POST", "/v1/publish", key, map[string]any{"title": "t", "actions": []any{map[string]any{"action_id": "x", "label": "X", "decision": "maybe"}}}); r.Status != 400 || r.ErrDetails(t)["field"] != "actions[0].decision" {
		t.Fatalf("an unknown decision: %d %s", r.Status, r.Body)
	}
}
