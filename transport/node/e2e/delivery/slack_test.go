package delivery_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// Slack's Web API and interactivity against a fake Slack of ours (nodetest.Slack):
// a slack channel whose target is a channel id posts a Block Kit message with a
// button per action; a signed click decides through the page's one decision
// command as the person Slack names; everything else is refused and changes nothing.

const (
	slackToken  = "xoxb-1-folio-test-token"
	slackSecret = "8f742231b10e8888abcd99yyyzzz85a5"
)

// slackNode starts a node talking to a fake Slack, and a tenant whose Slack app is
// set up; it returns the node, the fake, and the tenant's key.
func slackNode(t *testing.T) (*nodetest.Env, *nodetest.Slack, string) {
	t.Helper()
	fake := nodetest.StartSlack(t, slackToken)
	e := nodetest.New(t, allowPrivate, func(c *node.Config) { c.SlackAPIURL = fake.APIURL() })
	key, _ := e.Register("slacker")
	e.Must(200, "PUT", "/v1/integrations/slack", key, map[string]any{"bot_token": slackToken, "signing_secret": slackSecret})
	return e, fake, key
}

// interact posts an interaction request as Slack does.
func interact(t *testing.T, e *nodetest.Env, body []byte, h http.Header) nodetest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", e.Srv.URL+"/v1/integrations/slack/interactions", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	res, err := e.Srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return nodetest.Response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// click is user clicking the button labelled label on msg, now, signed with the
// tenant's secret; it expects 200 (a verified click).
func click(t *testing.T, e *nodetest.Env, fake *nodetest.Slack, user string, msg nodetest.SlackCall, label, answer string) {
	t.Helper()
	btn := msg.Buttons()[label]
	if btn == nil {
		t.Fatalf("the message has no %q button: %v", label, msg.Buttons())
	}
	body, h := nodetest.Click(slackSecret, time.Now(), user, msg, btn, fake.ResponseURL(answer))
	if r := interact(t, e, body, h); r.Status != 200 {
		t.Fatalf("a signed click by %s: %d %s", user, r.Status, r.Body)
	}
}

// ephemeral waits for the answer posted to response_url name.
func ephemeral(t *testing.T, fake *nodetest.Slack, name string) string {
	t.Helper()
	eventually(t, 5*time.Second, "the ephemeral answer "+name, func() bool {
		for _, c := range fake.Calls("response_url") {
			if c.Body["_name"] == name {
				return true
			}
		}
		return false
	})
	for _, c := range fake.Calls("response_url") {
		if c.Body["_name"] == name {
			if c.Body["response_type"] != "ephemeral" || c.Body["replace_original"] != false {
				t.Errorf("answer %s is not ephemeral: %v", name, c.Body)
			}
			return c.Body["text"].(string)
		}
	}
	return ""
}

func pageStatus(t *testing.T, e *nodetest.Env, key, id string) (string, int) {
	t.Helper()
	pg := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	return pg["status"].(string), len(auditOf(e, key, id, "action.executed"))
}

func TestSlackMessageHasAButtonPerActionAndAClickDecidesAsTheVerifiedPerson(t *testing.T) {
	e, fake, key := slackNode(t)
	fake.AddUser("U0ALICE01", "Alice@Example.com")
	fake.AddUser("U0BOB0001", "bob@example.com")
	view := e.Must(200, "GET", "/v1/integrations/slack", key, nil)
	if raw, _ := json.Marshal(view); strings.Contains(string(raw), slackToken) || strings.Contains(string(raw), slackSecret) ||
		view["bot_token"].(map[string]any)["last4"] != "oken" || view["configured"] != true {
		t.Errorf("the integration view shows a credential or not its state: %s", raw)
	}
	rv := newReceiver(t, nil)
	id := publish(e, key, map[string]any{
		"on_action": map[string]any{"default_url": rv.URL()},
		"notify":    map[string]any{"channels": []any{map[string]any{"type": "slack", "target": "C0APPROVALS"}}},
	})["pageId"].(string)

	msg := fake.Wait(t, "chat.postMessage", 1, 5*time.Second)[0]
	if msg.Auth != "Bearer "+slackToken || msg.Body["channel"] != "C0APPROVALS" {
		t.Errorf("posted with %q to %v", msg.Auth, msg.Body["channel"])
	}
	btns := msg.Buttons()
	if len(btns) != 3 || btns["Approve"] == nil || btns["Reject"] == nil || btns["Open page"] == nil {
		t.Fatalf("buttons = %v, want Approve, Reject and Open page", btns)
	}
	var v struct {
		P string `json:"p"`
		A string `json:"a"`
		V int    `json:"v"`
	}
	if err := json.Unmarshal([]byte(btns["Approve"]["value"].(string)), &v); err != nil || v.P != id || v.A != "approve" || v.V != 1 {
		t.Errorf("the Approve button's value %v names %+v", btns["Approve"]["value"], v)
	}
	if btns["Reject"]["style"] != "danger" || btns["Reject"]["confirm"] == nil || !strings.Contains(msg.Text(), "All checks passed.") ||
		!strings.Contains(msg.Text(), "Deploy v2 to production?") || btns["Open page"]["url"] != e.Srv.URL+"/p/"+id {
		t.Errorf("message = %v", msg.Body)
	}
	eventually(t, 3*time.Second, "the slack delivery recorded as sent", func() bool {
		d := deliveryFor(t, e, key, id, "page.published")
		return d["status"] == "succeeded" && d["target"] == "C0APPROVALS"
	})

	click(t, e, fake, "U0ALICE01", msg, "Approve", "alice")
	upd := fake.Wait(t, "chat.update", 1, 5*time.Second)[0]
	if upd.Body["channel"] != "C0APPROVALS" || upd.Body["ts"] != msg.TS {
		t.Errorf("updated %v/%v, want the posted message %s", upd.Body["channel"], upd.Body["ts"], msg.TS)
	}
	if txt := upd.Text(); !strings.Contains(txt, "*Approved* by alice@example.com at ") {
		t.Errorf("the updated message does not say who approved:\n%s", txt)
	}
	if b := upd.Buttons(); len(b) != 1 || b["Open page"] == nil {
		t.Errorf("the decided message still has action buttons: %v", b)
	}

	ex := auditOf(e, key, id, "action.executed")
	if len(ex) != 1 || ex[0]["actor"] != "user:alice@example.com" || ex[0]["details"].(map[string]any)["auth_method"] != "slack" {
		t.Fatalf("audit = %v, want one execution by user:alice@example.com with auth_method slack", ex)
	}
	cb := rv.waitEvents("action.executed", 1, 5*time.Second)[0].json(t)
	if a := cb["actor"].(map[string]any); a["identity"] != "alice@example.com" || a["auth_method"] != "slack" {
		t.Errorf("callback actor = %v", a)
	}
	if st, _ := pageStatus(t, e, key, id); st != "completed" {
		t.Errorf("page status %s after the approval", st)
	}

	// A second click on the same message: one winner; the rest hear why, privately.
	click(t, e, fake, "U0BOB0001", msg, "Reject", "bob")
	if txt := ephemeral(t, fake, "bob"); !strings.Contains(txt, "Nothing was decided") {
		t.Errorf("the loser's answer = %q", txt)
	}
	if _, n := pageStatus(t, e, key, id); n != 1 || len(fake.Calls("chat.update")) != 1 {
		t.Errorf("a second click changed something: %d executions, %d updates", n, len(fake.Calls("chat.update")))
	}
}

func TestSlackForgedReplayedAndUnlistedClicksChangeNothing(t *testing.T) {
	e, fake, key := slackNode(t)
	fake.AddUser("U0ALICE01", "alice@example.com")
	fake.AddUser("U0MALLORY", "mallory@example.net")
	id := publish(e, key, map[string]any{
		"access": map[string]any{"mode": "authenticated", "allowed_identities": []any{map[string]any{"type": "email", "value": "alice@example.com"}}},
		"notify": map[string]any{"channels": []any{map[string]any{"type": "slack", "target": "C0APPROVALS"}}},
	})["pageId"].(string)
	msg := fake.Wait(t, "chat.postMessage", 1, 5*time.Second)[0]
	approve := msg.Buttons()["Approve"]

	// Forged: signed with another secret.
	body, h := nodetest.Click("not-the-secret", time.Now(), "U0ALICE01", msg, approve, fake.ResponseURL("forged"))
	if r := interact(t, e, body, h); r.Status != 401 || r.ErrCode(t) != "UNAUTHORIZED" || r.ErrDetails(t)["reason"] != "signature" {
		t.Errorf("a forged click: %d %s, want 401 signature", r.Status, r.Body)
	}
	// Tampered: a signed body whose button was changed afterwards.
	body, h = nodetest.Click(slackSecret, time.Now(), "U0ALICE01", msg, approve, fake.ResponseURL("tampered"))
	body = bytes.Replace(body, []byte("approve"), []byte("reject0"), 1)
	if r := interact(t, e, body, h); r.Status != 401 {
		t.Errorf("a tampered click: %d %s, want 401", r.Status, r.Body)
	}
	// Replayed: rightly signed, but 6 minutes old.
	body, h = nodetest.Click(slackSecret, time.Now().Add(-6*time.Minute), "U0ALICE01", msg, approve, fake.ResponseURL("replayed"))
	if r := interact(t, e, body, h); r.Status != 401 || r.ErrDetails(t)["reason"] != "timestamp" {
		t.Errorf("a replayed click: %d %s, want 401 timestamp", r.Status, r.Body)
	}
	// Bounded: a body over --slack-max-body (256 KiB) is not read to its end.
	big := append([]byte("payload="), bytes.Repeat([]byte("x"), 300<<10)...)
	if r := interact(t, e, big, h); r.Status != 413 || r.ErrCode(t) != "PAYLOAD_TOO_LARGE" {
		t.Errorf("a 300 KiB interaction: %d %s, want 413", r.Status, r.Body)
	}
	// A member of the workspace the page is not shared with.
	click(t, e, fake, "U0MALLORY", msg, "Approve", "mallory")
	if txt := ephemeral(t, fake, "mallory"); !strings.Contains(txt, "mallory@example.net may not decide it") {
		t.Errorf("the unlisted user's answer = %q", txt)
	}
	// Someone Slack does not know.
	click(t, e, fake, "U0NOBODY0", msg, "Approve", "nobody")
	if txt := ephemeral(t, fake, "nobody"); !strings.Contains(txt, "does not know your Slack account") {
		t.Errorf("the unknown user's answer = %q", txt)
	}
	if st, n := pageStatus(t, e, key, id); st != "active" || n != 0 || len(fake.Calls("chat.update")) != 0 {
		t.Fatalf("refused clicks changed the page: %s, %d executions, %d updates", st, n, len(fake.Calls("chat.update")))
	}
	for _, c := range fake.Calls("response_url") {
		if n := c.Body["_name"]; n == "forged" || n == "tampered" || n == "replayed" {
			t.Errorf("an unverified click was answered in Slack: %v", c.Body)
		}
	}
	// The allowed person decides from the same message.
	click(t, e, fake, "U0ALICE01", msg, "Approve", "alice")
	fake.Wait(t, "chat.update", 1, 5*time.Second)
	if st, n := pageStatus(t, e, key, id); st != "completed" || n != 1 {
		t.Errorf("alice's click: %s, %d executions", st, n)
	}

	// sk_test_ pages record the Slack message without posting it.
	testKey := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "ci", "mode": "test"})["key"].(string)
	tid := publish(e, testKey, map[string]any{"notify": map[string]any{"channels": []any{map[string]any{"type": "slack", "target": "C0APPROVALS"}}}})["pageId"].(string)
	if d := deliveryFor(t, e, testKey, tid, "page.published"); d["status"] != "skipped" {
		t.Errorf("a test page's slack delivery = %v, want skipped", d)
	}
	if n := len(fake.Calls("chat.postMessage")); n != 1 {
		t.Errorf("%d messages posted, want 1 (the test page's is skipped)", n)
	}
}

func TestSlackChainStepIsApprovedByItsAssignee(t *testing.T) {
	e, fake, key := slackNode(t)
	fake.AddUser("U0CAROL01", "carol@example.com")
	fake.AddUser("U0DAVE001", "dave@example.com")
	rv := newReceiver(t, nil)
	id := publish(e, key, map[string]any{
		"on_action": map[string]any{"default_url": rv.URL()},
		"notify":    map[string]any{"channels": []any{map[string]any{"type": "slack", "target": "C0APPROVALS"}}},
		"approval_chain": map[string]any{"mode": "sequential", "steps": []any{
			map[string]any{"step_id": "lead", "name": "Team lead", "assignees": []any{"carol@example.com"}},
			map[string]any{"step_id": "security", "name": "Security", "assignees": []any{"dave@example.com"}},
		}},
	})["pageId"].(string)
	msg := fake.Wait(t, "chat.postMessage", 1, 5*time.Second)[0]

	// Dave is not an assignee of the open step yet.
	click(t, e, fake, "U0DAVE001", msg, "Approve", "dave-early")
	if txt := ephemeral(t, fake, "dave-early"); !strings.Contains(txt, "not an assignee of the step awaiting a decision") {
		t.Errorf("the early answer = %q", txt)
	}
	click(t, e, fake, "U0CAROL01", msg, "Approve", "carol")
	upd := fake.Wait(t, "chat.update", 1, 5*time.Second)[0]
	if b := upd.Buttons(); b["Approve"] == nil || !strings.Contains(upd.Text(), "*Approved* by carol@example.com") {
		t.Errorf("after step 1 the message = %v (buttons %v), want carol's approval and the buttons kept", upd.Text(), b)
	}
	click(t, e, fake, "U0DAVE001", upd, "Approve", "dave")
	upd = fake.Wait(t, "chat.update", 2, 5*time.Second)[1]
	if b := upd.Buttons(); b["Approve"] != nil || !strings.Contains(upd.Text(), "*Approved* by dave@example.com") {
		t.Errorf("after step 2 the message = %v (buttons %v)", upd.Text(), b)
	}
	ap := e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)
	if ap["chain_status"] != "approved" {
		t.Fatalf("chain = %v", ap)
	}
	d := ap["steps"].([]any)[1].(map[string]any)["decisions"].([]any)[0].(map[string]any)
	if d["identity"] != "dave@example.com" || d["auth_method"] != "slack" {
		t.Errorf("step 2 decision = %v", d)
	}
	var found bool
	for _, h := range rv.waitEvents("approval.step_completed", 2, 5*time.Second) {
		if a, _ := h.json(t)["actor"].(map[string]any); a["identity"] == "dave@example.com" && a["auth_method"] == "slack" {
			found = true
		}
	}
	if !found {
		t.Errorf("no approval.step_completed callback names dave with auth_method slack")
	}
}

func TestSlackButtonOfAnOlderVersionDoesNotDecide(t *testing.T) {
	e, fake, key := slackNode(t)
	fake.AddUser("U0ALICE01", "alice@example.com")
	id := publish(e, key, map[string]any{
		"notify": map[string]any{"channels": []any{map[string]any{"type": "slack", "target": "C0APPROVALS"}}},
	})["pageId"].(string)
	msg := fake.Wait(t, "chat.postMessage", 1, 5*time.Second)[0]
	e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"summary": "Two checks failed."})

	click(t, e, fake, "U0ALICE01", msg, "Approve", "stale")
	if txt := ephemeral(t, fake, "stale"); !strings.Contains(txt, "The page changed after this message was posted") || !strings.Contains(txt, "/p/"+id) {
		t.Errorf("the stale click's answer = %q", txt)
	}
	if st, n := pageStatus(t, e, key, id); st != "active" || n != 0 || len(fake.Calls("chat.update")) != 0 {
		t.Errorf("a button of version 1 decided version 2: %s, %d executions", st, n)
	}
}

// TestSlackClickDecidesOnlyPagesOfTheVerifyingTenantAndNoRequireVerifiedStep: a
// click verified with one tenant's secret cannot name another tenant's page, and a
// require_verified step needs the person signed in to Folio, not Slack's word.
func TestSlackClickDecidesOnlyPagesOfTheVerifyingTenantAndNoRequireVerifiedStep(t *testing.T) {
	e, fake, key := slackNode(t)
	fake.AddUser("U0CAROL01", "carol@example.com")
	id := publish(e, key, map[string]any{
		"notify":           map[string]any{"channels": []any{map[string]any{"type": "slack", "target": "C0APPROVALS"}}},
		"approval_chain":   map[string]any{"mode": "sequential", "steps": []any{map[string]any{"name": "Lead", "assignees": []any{"carol@example.com"}}}},
		"require_verified": true,
	})["pageId"].(string)
	msg := fake.Wait(t, "chat.postMessage", 1, 5*time.Second)[0]
	click(t, e, fake, "U0CAROL01", msg, "Approve", "verified")
	if txt := ephemeral(t, fake, "verified"); !strings.Contains(txt, "needs you to sign in to Folio") {
		t.Errorf("the require_verified answer = %q", txt)
	}

	// Tenant B, with a Slack app of its own, signs a click naming itself and a
	// public page of A's.
	open := publish(e, key, nil)["pageId"].(string)
	keyB, tenantB := e.Register("other")
	e.Must(200, "PUT", "/v1/integrations/slack", keyB, map[string]any{"bot_token": slackToken, "signing_secret": "secret-of-b"})
	value, _ := json.Marshal(map[string]any{"t": tenantB, "p": open, "a": "approve", "v": 1})
	body, h := nodetest.Click("secret-of-b", time.Now(), "U0CAROL01", msg,
		map[string]any{"action_id": "folio_action_0", "value": string(value)}, fake.ResponseURL("cross"))
	if r := interact(t, e, body, h); r.Status != 200 {
		t.Fatalf("tenant B's signed click: %d %s", r.Status, r.Body)
	}
	if txt := ephemeral(t, fake, "cross"); !strings.Contains(txt, "no longer exists") {
		t.Errorf("the cross-tenant answer = %q", txt)
	}
	for _, p := range []string{id, open} {
		if st, n := pageStatus(t, e, key, p); st != "active" || n != 0 || len(fake.Calls("chat.update")) != 0 {
			t.Errorf("refused clicks changed page %s: %s, %d executions", p, st, n)
		}
	}

	// A tenant without a Slack app: the delivery fails at once, saying what to do.
	keyC, _ := e.Register("unset")
	idC := publish(e, keyC, map[string]any{"notify": map[string]any{"channels": []any{map[string]any{"type": "slack", "target": "C0APPROVALS"}}}})["pageId"].(string)
	var d map[string]any
	eventually(t, 5*time.Second, "the unconfigured slack delivery failed", func() bool {
		d = deliveryFor(t, e, keyC, idC, "page.published")
		return d["status"] == "failed"
	})
	if at := d["attempts"].([]any); len(at) != 1 || !strings.Contains(at[0].(map[string]any)["error"].(string), "PUT /v1/integrations/slack") {
		t.Errorf("the unconfigured delivery = %v", d)
	}
}
