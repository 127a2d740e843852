package delivery_test

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// smtpServer is a minimal SMTP listener on 127.0.0.1 that keeps every message.
type smtpServer struct {
	ln   net.Listener
	mu   sync.Mutex
	msgs []mailMsg
}

type mailMsg struct {
	From string
	To   []string
	Data string
}

func newSMTP(t *testing.T) *smtpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *smtpServer) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	say := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
	say("220 test.local ESMTP")
	var m mailMsg
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250-test.local")
			say("250 8BITMIME")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			m = mailMsg{From: between(line, "<", ">")}
			say("250 OK")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			m.To = append(m.To, between(line, "<", ">"))
			say("250 OK")
		case cmd == "DATA":
			say("354 go ahead")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			m.Data = b.String()
			s.mu.Lock()
			s.msgs = append(s.msgs, m)
			s.mu.Unlock()
			say("250 queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		case cmd == "RSET", cmd == "NOOP":
			say("250 OK")
		default:
			say("502 not implemented")
		}
	}
}

func between(s, open, close string) string {
	_, rest, _ := strings.Cut(s, open)
	v, _, _ := strings.Cut(rest, close)
	return v
}

func (s *smtpServer) messages() []mailMsg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]mailMsg(nil), s.msgs...)
}

func TestNotificationsOnPublish(t *testing.T) {
	mail := newSMTP(t)
	e := nodetest.New(t, allowPrivate, func(c *node.Config) {
		c.SMTPAddr, c.SMTPFrom = mail.ln.Addr().String(), "Folio <noreply@folio.test>"
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

	eventually(t, 5*time.Second, "the e-mail", func() bool { return len(mail.messages()) == 1 })
	m := mail.messages()[0]
	if m.From != "noreply@folio.test" || len(m.To) != 1 || m.To[0] != "alice@example.com" {
		t.Errorf("envelope: from %q to %v", m.From, m.To)
	}
	for _, want := range []string{"To: alice@example.com", "Subject: [HIGH] Deploy v2 to production?", "All checks passed.", url} {
		if !strings.Contains(strings.ReplaceAll(m.Data, "=\r\n", ""), want) {
			t.Errorf("e-mail lacks %q:\n%s", want, m.Data)
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
	mail := newSMTP(t)
	e := nodetest.New(t, allowPrivate, func(c *node.Config) { c.SMTPAddr = mail.ln.Addr().String() })
	key, _ := e.Register("drafts")
	// A draft notifies when it is published, with the channels given as overrides.
	draft := e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "Draft page"})["pageId"].(string)
	time.Sleep(50 * time.Millisecond)
	if n := len(mail.messages()); n != 0 {
		t.Fatalf("a draft sent %d e-mails", n)
	}
	e.Must(200, "POST", "/v1/pages/"+draft+"/publish", key, map[string]any{"notify": map[string]any{"channels": []any{
		map[string]any{"type": "email", "target": "bob@example.com"}}}})
	eventually(t, 5*time.Second, "the e-mail of the published draft", func() bool { return len(mail.messages()) == 1 })

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
	if len(mail.messages()) != 1 || len(hook.all()) != 0 {
		t.Errorf("a test page's notifications were sent: %d e-mails, %d webhooks", len(mail.messages()), len(hook.all()))
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
