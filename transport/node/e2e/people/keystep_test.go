package people_test

import (
	"html"
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

// chainFor is an approval chain of one step decided by assignee.
func chainFor(assignee string) map[string]any {
	return map[string]any{"steps": []any{map[string]any{"step_id": "lead", "name": "Team lead", "assignees": []any{assignee}}}}
}

// TestChainStepRecordedByAKeySaysSo (issue 31, item 9): a tenant API key that
// decides a step by naming its assignee is recorded as the key's doing, not as the
// person's own: GET /approval gives the step and the decision auth_method api_key
// with the key's name and prefix, the step_completed callback and the audit carry
// the same, and the review page says "recorded by key <name> (<prefix>…) for
// alice@example.com" instead of "by alice@example.com".
func TestChainStepRecordedByAKeySaysSo(t *testing.T) {
	t.Parallel()
	rv := newHook(t)
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("deploy-bot")
	keys := must(t, e, 200, req{method: "GET", path: "/v1/account/api-keys", bearer: key}).JSON(t)["keys"].([]any)
	k := keys[0].(map[string]any)
	name, prefix := k["name"].(string), k["prefix"].(string)
	id := e.Publish(key, map[string]any{"approval_chain": chainFor("alice@example.com"), "on_action": map[string]any{"default_url": rv.URL()}})

	must(t, e, 200, req{method: "POST", path: "/v1/pages/" + id + "/actions/approve", bearer: key,
		body: map[string]any{"actor": map[string]any{"identity": "alice@example.com"}}})

	ap := must(t, e, 200, req{method: "GET", path: "/v1/pages/" + id + "/approval", bearer: key}).JSON(t)
	step := ap["steps"].([]any)[0].(map[string]any)
	wantKey := func(what string, v any) {
		t.Helper()
		got, _ := v.(map[string]any)
		if got["name"] != name || got["prefix"] != prefix || got["id"] == "" {
			t.Errorf("%s: key %v, want name %q prefix %q", what, v, name, prefix)
		}
	}
	if step["decided_by"] != "alice@example.com" || step["auth_method"] != "api_key" {
		t.Errorf("approval step = %v, want decided_by alice@example.com with auth_method api_key", step)
	}
	wantKey("approval step", step["key"])
	dec := step["decisions"].([]any)[0].(map[string]any)
	if dec["auth_method"] != "api_key" {
		t.Errorf("approval decision = %v, want auth_method api_key", dec)
	}
	wantKey("approval decision", dec["key"])

	cb := rv.next(t, "approval.step_completed")
	actor, _ := cb["actor"].(map[string]any)
	if actor["identity"] != "alice@example.com" || actor["auth_method"] != "api_key" {
		t.Errorf("step_completed callback actor = %v", cb["actor"])
	}
	wantKey("step_completed callback", actor["key"])

	found := false
	for _, it := range must(t, e, 200, req{method: "GET", path: "/v1/pages/" + id + "/audit", bearer: key}).JSON(t)["items"].([]any) {
		entry := it.(map[string]any)
		if entry["event_type"] == "approval.step_completed" {
			found = true
			d, _ := entry["details"].(map[string]any)
			if d["auth_method"] != "api_key" {
				t.Errorf("audit approval.step_completed details = %v, want auth_method api_key", d)
			}
			wantKey("audit", d["key"])
		}
	}
	if !found {
		t.Error("no approval.step_completed audit entry")
	}

	page := call(t, e, nil, req{method: "GET", path: "/p/" + id, accept: "text/html"})
	text := html.UnescapeString(string(page.Body))
	want := "recorded by key " + name + " (" + prefix + "…) for alice@example.com"
	if page.Status != 200 || !strings.Contains(text, "Approved, "+want) {
		t.Fatalf("the review page does not say %q: %d\n%s", want, page.Status, nodetest.Excerpt(page.Body, 3000))
	}
	if strings.Contains(text, "Approved by alice@example.com") {
		t.Fatal("the review page still says the step was approved by alice@example.com herself")
	}
}

// TestRequireVerifiedStepsRefuseAKey: on a page with require_verified, a key
// naming the assignee decides nothing (403 verification_required, saying the person
// must sign in); the assignee signed in decides the step, recorded as verified.
func TestRequireVerifiedStepsRefuseAKey(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	key, _ := e.Register("owner")
	id := e.Publish(key, map[string]any{"approval_chain": chainFor("alice@example.com"), "require_verified": true})
	if p := must(t, e, 200, req{method: "GET", path: "/v1/pages/" + id, bearer: key}).JSON(t); p["require_verified"] != true {
		t.Fatalf("page require_verified = %v", p["require_verified"])
	}
	approve := "/v1/pages/" + id + "/actions/approve"
	r := call(t, e, nil, req{method: "POST", path: approve, bearer: key, body: map[string]any{"actor": map[string]any{"identity": "alice@example.com"}}})
	wantError(t, "a key naming the assignee on a require_verified page", r, 403, "FORBIDDEN", map[string]any{"reason": "verification_required"})
	if msg := r.JSON(t)["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "sign in") {
		t.Errorf("the refusal does not say the person must sign in: %q", msg)
	}

	alice := signIn(t, e, in, "alice@example.com")
	must(t, e, 200, req{method: "POST", path: approve, bearer: alice})
	step := e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)["steps"].([]any)[0].(map[string]any)
	if step["status"] != "completed" || step["decided_by"] != "alice@example.com" || step["auth_method"] != "magic_link" || step["key"] != nil {
		t.Fatalf("approval step = %v, want completed by alice@example.com, magic_link, no key", step)
	}
}
