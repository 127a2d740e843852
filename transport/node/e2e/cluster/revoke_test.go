//go:build linux

package cluster_test

import (
	"net/http"
	neturl "net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/persistence/pgtest"
	"folio/transport/bus"
	"folio/transport/node"
	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/ports"
)

// streamEnds waits for a page stream's reset (its reason) or its end.
func streamEnds(t *testing.T, ch <-chan sseEvent, within time.Duration) string {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return "closed"
			}
			if ev.Type == "reset" {
				return "reset"
			}
		case <-deadline:
			t.Fatalf("the stream still runs after %s", within)
		}
	}
}

// TestKeyDeletedOnOneNodeEndsItsStreamsOnAnother: an API key deleted through node A
// is refused by node B on the next request, and the stream B opened with it ends
// within the periodic check.
func TestKeyDeletedOnOneNodeEndsItsStreamsOnAnother(t *testing.T) {
	ns := busNodes(t, 2, true, 200*time.Millisecond)
	a, b := ns[0], ns[1]
	key, _ := a.Register("revoker")
	second := a.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "short-lived"})
	k2 := second["key"].(string)
	id := a.Publish(key, nil)
	b.Must(200, "GET", "/v1/pages/"+id, k2, nil) // B knows the key
	events := pageStream(t, b.Srv.URL, id, k2)
	a.Must(204, "DELETE", "/v1/account/api-keys/"+second["id"].(string), key, nil)
	if r := b.Do("GET", "/v1/pages/"+id, k2, nil); r.Status != 401 {
		t.Fatalf("node B after the key was deleted through A: %d, want 401", r.Status)
	}
	if how := streamEnds(t, events, 5*time.Second); how != "reset" {
		t.Fatalf("B's stream opened with the deleted key: %s, want a reset", how)
	}
}

var linkRE = regexp.MustCompile(`http://[0-9.:]+/login/link#(ml_[0-9A-Za-z]+)`)

// TestSignOutOnOneNodeEndsTheSessionOnAnother: a person signs out through node A;
// node B refuses the session at once and ends the stream it opened with it.
func TestSignOutOnOneNodeEndsTheSessionOnAnother(t *testing.T) {
	url, mail := pgtest.URL(t), nodetest.StartSMTP(t)
	cfg := func(listen, routes string) nodetest.Option {
		return func(c *node.Config) {
			c.Store, c.SMTPAddr = url, mail.Addr()
			c.Bus = bus.Config{Listen: listen, Routes: routes, Check: 200 * time.Millisecond}
		}
	}
	la := ports.Free(t)
	a := nodetest.Open(t, t.TempDir(), nil, cfg(la, ""))
	b := nodetest.Open(t, t.TempDir(), nil, cfg(ports.Free(t), "nats://"+la))
	key, _ := a.Register("owner")
	id := a.Publish(key, nil)

	a.Must(200, "POST", "/v1/auth/magic-link/send", "", map[string]any{"email": "p@example.com"})
	m := mail.Wait(t, 10*time.Second, func(m nodetest.Mail) bool { return len(m.To) == 1 && m.To[0] == "p@example.com" })
	link := linkRE.FindStringSubmatch(m.Text)
	if link == nil {
		t.Fatalf("no sign-in link in:\n%s", m.Text)
	}
	// The landing page's script posts the token after the link's #.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.PostForm(a.Srv.URL+"/v1/auth/magic-link/verify", neturl.Values{"token": {link[1]}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var token string
	for _, c := range res.Cookies() {
		if c.Name == "folio_session" {
			token = c.Value
		}
	}
	if !strings.HasPrefix(token, "sess_") {
		t.Fatalf("signing in: %d, no session cookie", res.StatusCode)
	}
	b.Must(200, "GET", "/v1/auth/me", token, nil) // B knows the session
	events := pageStream(t, b.Srv.URL, id, token)
	a.Must(204, "POST", "/v1/auth/logout", token, nil)
	if r := b.Do("GET", "/v1/auth/me", token, nil); r.Status != 401 {
		t.Fatalf("node B after signing out through A: %d, want 401", r.Status)
	}
	if how := streamEnds(t, events, 5*time.Second); how != "reset" {
		t.Fatalf("B's stream opened with the session: %s, want a reset", how)
	}
}
