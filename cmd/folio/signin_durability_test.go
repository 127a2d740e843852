package main

import (
	"bytes"
	"net/http"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"folio/transport/node/nodetest/ports"
)

// TestKill9KeepsSignInsAndClaims: with the real binary and no SMTP server (mails go
// to the outbox folder), an owner follows the claim mail and a second person signs
// in by link and claims another agent by its code. Everything acknowledged before
// kill -9 is there after the restart: both sessions work, both claims stand, and a
// link used before the kill stays used.
func TestKill9KeepsSignInsAndClaims(t *testing.T) {
	dir, addr := t.TempDir(), ports.Free(t)
	p := start(t, dir, addr)
	_, first, _ := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "Owned Bot", "owner_email": "owner@example.com"})
	_, second, _ := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "Second Bot"})

	claimLink := outboxLink(t, dir, "owner@example.com")
	ownerSession := follow(t, claimLink)
	if st, _, _ := p.call("POST", "/v1/auth/magic-link/send", "", map[string]any{"email": "second@example.com"}); st != 200 {
		t.Fatalf("send: %d", st)
	}
	link := outboxLink(t, dir, "second@example.com")
	secondSession := follow(t, link)
	if st, m, _ := p.call("POST", "/v1/auth/claim", secondSession, claimProof(second)); st != 200 || m["claimed"] != true {
		t.Fatalf("claim: %d %v", st, m)
	}

	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	p2 := start(t, dir, addr)
	for _, c := range []struct{ session, tenant string }{{ownerSession, first["tenantId"].(string)}, {secondSession, second["tenantId"].(string)}} {
		st, me, _ := p2.call("GET", "/v1/auth/me", c.session, nil)
		if st != 200 || me["tenantId"] != c.tenant {
			t.Errorf("after kill -9, /v1/auth/me = %d %v, want the claimed tenant %s", st, me, c.tenant)
		}
	}
	if st, _, _ := p2.call("POST", "/v1/auth/claim", ownerSession, claimProof(first)); st != 409 {
		t.Errorf("claiming the owner's agent again after the restart: %d, want 409 (claimed)", st)
	}
	res := use(t, link)
	if loc := res.Header.Get("Location"); !strings.Contains(loc, "problem=link_used") {
		t.Errorf("a link used before the kill leads to %q after it, want the used-link page", loc)
	}
}

var verifyLink = regexp.MustCompile(`https?://\S+/login/link#ml_[0-9A-Za-z]+`)

// claimProof is the body of POST /v1/auth/claim for a registration: its claim code
// and the claim token after the # of its claimUrl.
func claimProof(reg map[string]any) map[string]any {
	u := reg["claimUrl"].(string)
	return map[string]any{"claimCode": reg["claimCode"], "claimToken": u[strings.IndexByte(u, '#')+1:]}
}

// outboxLink waits for the mail to `to` in the outbox folder and returns the link
// as it stands in the file: a person copies it from there, so it must be whole.
func outboxLink(t *testing.T, dataDir, to string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(dataDir, "outbox", "mail", "*.eml"))
		for _, f := range files {
			if link := linkIn(t, f, to); link != "" {
				return link
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no mail to %s in the outbox", to)
	return ""
}

// linkIn is the sign-in link in the raw file of the mail to `to`, if it is that.
func linkIn(t *testing.T, path, to string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil || !strings.EqualFold(m.Header.Get("To"), to) {
		return ""
	}
	link := verifyLink.FindString(string(raw))
	if link == "" {
		t.Fatalf("the mail %s has no whole sign-in link a person could copy:\n%s", path, raw)
	}
	return link
}

// use posts a sign-in link's token as its landing page does, without following
// the redirect.
func use(t *testing.T, link string) *http.Response {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	i := strings.Index(link, "/login/link#")
	res, err := c.PostForm(link[:i]+"/v1/auth/magic-link/verify", url.Values{"token": {link[i+len("/login/link#"):]}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// follow uses a sign-in link and returns the session it sets.
func follow(t *testing.T, link string) string {
	t.Helper()
	res := use(t, link)
	for _, c := range res.Cookies() {
		if c.Name == "folio_session" && c.Value != "" {
			return c.Value
		}
	}
	t.Fatalf("following %s set no session (%d %s)", link, res.StatusCode, res.Header.Get("Location"))
	return ""
}
