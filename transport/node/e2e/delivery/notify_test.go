package delivery_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

func TestNotificationsOnPublish(t *testing.T) {
	mail := nodetest.StartSMTP(t)
	e := nodetest.New(t, allowPrivate, func(c *node.Config) {
		c.SMTPAddr, c.SMTPFrom = mail.Addr(), "Folio <noreply@folio.test>"
	})
	key, _ := e.Register("notifier")
	slack, hook := newReceiver(t, nil), newReceiver(t, nil)
	pub := publish(e, key, map[string]any{"priority": "high", "notify": map[string]any{"channels": []any{
		map[string]any{"type": "email", "target": "alice@example.com"},
		map[string]any{"type": "slack", "target": slack.URL()},
		map[string]any{"type": "webhook", "target": hook.URL(), "secret": "hook-secret"},
		map[string]any{"type": "pager", "target": "555-0100"},
	}}})
	if w := warnings(pub); len(w) != 1 || !strings.Contains(w[0], "notify.channels[3].type") {
		t.Errorf("warnings = %v, want one for the unknown channel type", w)
	}
	id, url := pub["pageId"].(string), pub["pageUrl"].(string)

	m := mail.Wait(t, 5*time.Second, nil)
	if n := len(mail.Messages()); n != 1 {
		t.Errorf("%d e-mails, want 1", n)
	}
	if m.From != "noreply@folio.test" || len(m.To) != 1 || m.To[0] != "alice@example.com" {
		t.Errorf("envelope: from %q to %v", m.From, m.To)
	}
	if !strings.Contains(m.Raw, "To: alice@example.com") || m.Subject != "[HIGH] Deploy v2 to production?" {
		t.Errorf("e-mail headers: Subject %q\n%s", m.Subject, m.Raw)
	}
	for _, want := range []string{"All checks passed.", url} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("e-mail text lacks %q:\n%s", want, m.Text)
		}
	}

	sl := slack.waitEvents("", 1, 5*time.Second) // Slack messages have no event field
	sm := sl[0].json(t)
	text := string(sl[0].Body)
	if !strings.Contains(sm["text"].(string), "Deploy v2 to production?") || !strings.Contains(text, "All checks passed.") ||
		!strings.Contains(text, "high") || !strings.Contains(text, url) {
		t.Errorf("slack message = %s", sl[0].Body)
	}

	wh := hook.waitEvents("page.published", 1, 5*time.Second)[0]
	verifyBoth(t, "hook-secret", wh)
	data := wh.json(t)["data"].(map[string]any)
	if data["title"] != "Deploy v2 to production?" || data["priority"] != "high" || data["page_url"] != url || data["summary"] != "All checks passed." {
		t.Errorf("webhook data = %v", data)
	}

	var log []map[string]any
	eventually(t, 3*time.Second, "three notifications recorded as sent", func() bool {
		log = deliveries(e, key, id)
		n := 0
		for _, d := range log {
			if d["status"] == "succeeded" {
				n++
			}
		}
		return n == 3
	})
	channels := map[string]bool{}
	for _, d := range log {
		channels[d["channel"].(string)] = true
	}
	if !channels["email"] || !channels["slack"] || !channels["webhook"] || len(log) != 3 {
		t.Errorf("delivery log = %v", log)
	}
	for _, d := range log {
		if d["channel"] == "slack" && (d["target"] == slack.URL() || !strings.HasSuffix(d["target"].(string), "/...")) {
			t.Errorf("the slack webhook path is shown: %v", d["target"])
		}
	}
}

func TestNotificationsOfDraftsAndTestKeys(t *testing.T) {
	mail := nodetest.StartSMTP(t)
	e := nodetest.New(t, allowPrivate, func(c *node.Config) { c.SMTPAddr = mail.Addr() })
	key, _ := e.Register("drafts")
	// A draft notifies when it is published, with the channels given as overrides.
	draft := e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "Draft page"})["pageId"].(string)
	time.Sleep(50 * time.Millisecond)
	if n := len(mail.Messages()); n != 0 {
		t.Fatalf("a draft sent %d e-mails", n)
	}
	e.Must(200, "POST", "/v1/pages/"+draft+"/publish", key, map[string]any{"notify": map[string]any{"channels": []any{
		map[string]any{"type": "email", "target": "bob@example.com"}}}})
	mail.Wait(t, 5*time.Second, nil)
	if n := len(mail.Messages()); n != 1 {
		t.Errorf("%d e-mails after the draft was published, want 1", n)
	}

	// sk_test_ pages record notifications without sending them.
	testKey := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "ci", "mode": "test"})["key"].(string)
	if !strings.HasPrefix(testKey, "sk_test_") {
		t.Fatalf("test key %q", testKey)
	}
	hook := newReceiver(t, nil)
	id := publish(e, testKey, map[string]any{"notify": map[string]any{"channels": []any{
		map[string]any{"type": "email", "target": "carol@example.com"},
		map[string]any{"type": "webhook", "target": hook.URL()}}}})["pageId"].(string)
	log := deliveries(e, testKey, id)
	if len(log) != 2 {
		t.Fatalf("test page deliveries = %v", log)
	}
	for _, d := range log {
		if d["status"] != "skipped" || d["attemptCount"] != 0.0 || d["note"] == nil {
			t.Errorf("test notification = %v", d)
		}
	}
	if r := e.Do("POST", "/v1/deliveries/"+log[0]["id"].(string)+"/retry", testKey, nil); r.Status != 409 {
		t.Errorf("retrying a test notification: %d", r.Status)
	}
	time.Sleep(100 * time.Millisecond)
	if len(mail.Messages()) != 1 || len(hook.all()) != 0 {
		t.Errorf("a test page's notifications were sent: %d e-mails, %d webhooks", len(mail.Messages()), len(hook.all()))
	}
}

func TestEmailWithoutSMTPGoesToTheOutboxDirectory(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("outbox")
	id := publish(e, key, map[string]any{"notify": map[string]any{"channels": []any{
		map[string]any{"type": "email", "target": "dana@example.com"}}}})["pageId"].(string)
	var d map[string]any
	eventually(t, 5*time.Second, "the e-mail recorded", func() bool {
		d = deliveryFor(t, e, key, id, "page.published")
		return d["status"] == "succeeded"
	})
	b, err := os.ReadFile(filepath.Join(e.Dir, "outbox", "mail", d["id"].(string)+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "To: dana@example.com") || !strings.Contains(string(b), "/p/"+id) {
		t.Errorf("outbox message:\n%s", b)
	}
}
