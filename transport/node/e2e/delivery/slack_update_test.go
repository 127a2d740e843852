package delivery_test

import (
	"strings"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestSlackMessageSaysADecisionTakenElsewhereAfterARestart: a page decided away
// from Slack (here over the API; the review page, a mail link and a deadline's
// default outcome take the same command) has the message the integration posted
// rewritten in place, "Approved by … at …" without its buttons, through a durable
// delivery: Slack failing the first chat.update and the node restarting before
// the retry do not lose it.
func TestSlackMessageSaysADecisionTakenElsewhereAfterARestart(t *testing.T) {
	fake := nodetest.StartSlack(t, slackToken)
	opt := func(c *node.Config) { c.SlackAPIURL = fake.APIURL() }
	clk := nodetest.NewClock(time.Now())
	e := nodetest.Open(t, t.TempDir(), clk, allowPrivate, opt)
	key, _ := e.Register("elsewhere")
	e.Must(200, "PUT", "/v1/integrations/slack", key, map[string]any{"bot_token": slackToken, "signing_secret": slackSecret})
	id := publish(e, key, map[string]any{
		"notify": map[string]any{"channels": []any{map[string]any{"type": "slack", "target": "C0APPROVALS"}}},
	})["pageId"].(string)
	msg := fake.Wait(t, "chat.postMessage", 1, 5*time.Second)[0]
	eventually(t, 5*time.Second, "the post recorded as sent", func() bool {
		return deliveryFor(t, e, key, id, "page.published")["status"] == "succeeded"
	})

	fake.Fail("chat.update", "internal_error")
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "alice@example.com"}})
	fake.Wait(t, "chat.update", 1, 5*time.Second)
	eventually(t, 5*time.Second, "the failed update waiting for its retry", func() bool {
		d := deliveryFor(t, e, key, id, "action.executed")
		return d["status"] == "pending" && d["attemptCount"] == float64(1) && d["channel"] == "slack" && d["target"] == "C0APPROVALS"
	})

	// Down past the retry's due time: the restarted node owes it at once.
	e.Close()
	clk.Advance(2 * time.Minute)
	e = e.Reopen(allowPrivate, opt)
	upd := fake.Wait(t, "chat.update", 2, 10*time.Second)[1]
	if upd.Body["channel"] != "C0APPROVALS" || upd.Body["ts"] != msg.TS {
		t.Errorf("updated %v/%v, want the posted message %s", upd.Body["channel"], upd.Body["ts"], msg.TS)
	}
	if txt := upd.Text(); !strings.Contains(txt, "*Approved* by alice@example.com at ") || !strings.Contains(txt, "Deploy v2 to production?") {
		t.Errorf("the updated message does not say who approved:\n%s", txt)
	}
	if b := upd.Buttons(); len(b) != 1 || b["Open page"] == nil {
		t.Errorf("the decided message still has action buttons: %v", b)
	}
	eventually(t, 5*time.Second, "the update recorded as sent", func() bool {
		d := deliveryFor(t, e, key, id, "action.executed")
		return d["status"] == "succeeded" && d["attemptCount"] == float64(2)
	})
	if n := len(fake.Calls("chat.update")); n != 2 {
		t.Errorf("%d chat.update calls, want the failed one and its retry", n)
	}
}

// TestSlackMessageKeepsItsButtonsUntilTheChainIsDone: a chain's first step decided
// on the review page's command rewrites the message with that decision and keeps
// the buttons for the next step; the last step removes them.
func TestSlackMessageKeepsItsButtonsUntilTheChainIsDone(t *testing.T) {
	e, fake, key := slackNode(t)
	id := publish(e, key, map[string]any{
		"notify": map[string]any{"channels": []any{map[string]any{"type": "slack", "target": "C0APPROVALS"}}},
		"approval_chain": map[string]any{"mode": "sequential", "steps": []any{
			map[string]any{"name": "Lead", "assignees": []any{"alice@example.com"}},
			map[string]any{"name": "Security", "assignees": []any{"bob@example.com"}},
		}},
	})["pageId"].(string)
	msg := fake.Wait(t, "chat.postMessage", 1, 5*time.Second)[0]
	eventually(t, 5*time.Second, "the post recorded as sent", func() bool {
		return deliveryFor(t, e, key, id, "page.published")["status"] == "succeeded"
	})
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "alice@example.com"}})
	first := fake.Wait(t, "chat.update", 1, 5*time.Second)[0]
	if first.Body["ts"] != msg.TS || !strings.Contains(first.Text(), "by alice@example.com") || first.Buttons()["Approve"] == nil {
		t.Errorf("after step 1 the message = %v", first.Body)
	}
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "bob@example.com"}})
	last := fake.Wait(t, "chat.update", 2, 5*time.Second)[1]
	if txt := last.Text(); !strings.Contains(txt, "by alice@example.com") || !strings.Contains(txt, "by bob@example.com") || last.Buttons()["Approve"] != nil {
		t.Errorf("after the last step the message = %s %v", txt, last.Buttons())
	}
}
