package people_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestAChainDecidedFromAMailThenFromSlack (issue 35's two channels, one decision
// path): a two-step chain whose first assignee approves from the link in their
// e-mail and whose second approves from the button of the page's Slack message.
// Each step is recorded with the address its channel verified and how (email_link,
// slack) in the approval, the audit log and the step callbacks, and the page
// completes approved once.
func TestAChainDecidedFromAMailThenFromSlack(t *testing.T) {
	const token, secret = "xoxb-1-two-channels", "5a5e0c1f2d3b4a69788796a5b4c3d2e1"
	in := newInbox(t)
	fake := nodetest.StartSlack(t, token)
	fake.AddUser("U0BOB0001", "bob@example.com")
	e := nodetest.New(t, mailTo(in.SMTP), allowPrivate, func(c *node.Config) { c.SlackAPIURL = fake.APIURL() })
	key, _ := e.Register("two-channels")
	e.Must(200, "PUT", "/v1/integrations/slack", key, map[string]any{"bot_token": token, "signing_secret": secret})
	h := newHook(t)
	id := publishNotifying(t, e, key, h, map[string]any{
		"notify": map[string]any{"channels": []any{
			map[string]any{"type": "email", "target": "alice@example.com"},
			map[string]any{"type": "slack", "target": "C0RELEASES"},
		}},
		"approval_chain": map[string]any{"mode": "sequential", "steps": []any{
			map[string]any{"step_id": "lead", "assignees": []any{"alice@example.com"}},
			map[string]any{"step_id": "sec", "assignees": []any{"bob@example.com"}},
		}},
	})

	// Step 1, from the mail.
	if r := confirmLink(t, e, browser(e, true), decisionLinks(t, e, in.next(t, "alice@example.com"))["Approve"]); r.Status != 303 {
		t.Fatalf("alice's mail link: %d\n%s", r.Status, nodetest.Excerpt(r.Body, 1500))
	}
	first := h.next(t, "approval.step_completed")

	// Step 2, from Slack: the click is signed as Slack signs it.
	msg := fake.Wait(t, "chat.postMessage", 1, 10*time.Second)[0]
	btn := msg.Buttons()["Approve"]
	if btn == nil {
		t.Fatalf("the Slack message has no Approve button: %v", msg.Buttons())
	}
	body, hdr := nodetest.Click(secret, time.Now(), "U0BOB0001", msg, btn, fake.ResponseURL("bob"))
	hr, _ := http.NewRequest("POST", e.Srv.URL+"/v1/integrations/slack/interactions", bytes.NewReader(body))
	hr.Header = hdr
	res, err := e.Srv.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("bob's signed click: %d %s", res.StatusCode, raw)
	}
	second := h.next(t, "approval.step_completed")

	for _, c := range []struct {
		callback      map[string]any
		step, who, by string
	}{{first, "lead", "alice@example.com", "email_link"}, {second, "sec", "bob@example.com", "slack"}} {
		d, _ := c.callback["data"].(map[string]any)
		a, _ := c.callback["actor"].(map[string]any)
		if d["step_id"] != c.step || d["decided_by"] != c.who || a["identity"] != c.who || a["auth_method"] != c.by {
			t.Errorf("step %s's callback: data %v, actor %v; want %s by %s", c.step, d, a, c.who, c.by)
		}
	}
	ap := e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)
	if ap["chain_status"] != "approved" {
		t.Fatalf("the chain after both steps: %v", ap)
	}
	for i, want := range []struct{ who, by string }{{"alice@example.com", "email_link"}, {"bob@example.com", "slack"}} {
		dec := ap["steps"].([]any)[i].(map[string]any)["decisions"].([]any)[0].(map[string]any)
		if dec["identity"] != want.who || dec["auth_method"] != want.by {
			t.Errorf("step %d's decision: %v, want %s by %s", i+1, dec, want.who, want.by)
		}
	}
	if status, n := pageStatus(e, key, id); status != "completed" || n != 2 {
		t.Errorf("the page: %s with %d executions, want completed with one per step", status, n)
	}
	// The audit log records each step with its person and channel, and one completion.
	steps := auditEntries(e, key, id, "approval.step_completed")
	if len(steps) != 2 {
		t.Fatalf("%d approval.step_completed audit entries, want 2", len(steps))
	}
	for i, want := range []struct{ actor, by string }{{"user:alice@example.com", "email_link"}, {"user:bob@example.com", "slack"}} {
		d, _ := steps[i]["details"].(map[string]any)
		if steps[i]["actor"] != want.actor || d["auth_method"] != want.by {
			t.Errorf("audit step %d: %v by %v, want %s by %s", i+1, steps[i]["actor"], d["auth_method"], want.actor, want.by)
		}
	}
	if n := len(auditEntries(e, key, id, "page.completed")); n != 1 {
		t.Errorf("%d page.completed audit entries, want 1", n)
	}
}
