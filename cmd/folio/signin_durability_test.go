package main

import (
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKill9KeepsSignInsAndClaims: with the real binary and no SMTP server (mails go
// to the outbox folder), an owner follows the claim mail and a second person signs
// in by link and claims another agent by its code. Everything acknowledged before
// kill -9 is there after the restart: both sessions work, both claims stand, and a
// link used before the kill stays used.
func TestKill9KeepsSignInsAndClaims(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
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
	if st, m, _ := p.call("POST", "/v1/auth/claim", secondSession, map[string]any{"claimCode": second["claimCode"]}); st != 200 || m["claimed"] != true {
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
	if st, _, _ := p2.call("POST", "/v1/auth/claim", ownerSession, map[string]any{"claimCode": first["claimCode"]}); st != 409 {
		t.Errorf("claiming the owner's agent again after the restart: %d, want 409 (claimed)", st)
	}
	res := get(t, link)
	if loc := res.Header.Get("Location"); !strings.Contains(loc, "problem=link_used") {
		t.Errorf("a link used before the kill leads to %q after it, want the used-link page", loc)
	}
}

var verifyLink = regexp.MustCompile(`https?://\S+/v1/auth/magic-link/verify\?token=[A-Za-z0-9_%.-]+`)

// outboxLink waits for the mail to `to` in the outbox folder and returns the link in
// its text part.
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

func linkIn(t *testing.T, path, to string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	m, err := mail.ReadMessage(f)
	if err != nil || !strings.EqualFold(m.Header.Get("To"), to) {
		return ""
	}
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		t.Fatalf("the sign-in mail %s is not multipart: %v", path, err)
	}
	part, err := multipart.NewReader(m.Body, params["boundary"]).NextPart()
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(quotedprintable.NewReader(part))
	if err != nil {
		t.Fatal(err)
	}
	return verifyLink.FindString(string(text))
}

// get fetches url without following a redirect.
func get(t *testing.T, url string) *http.Response {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// follow uses a sign-in link and returns the session it sets.
func follow(t *testing.T, link string) string {
	t.Helper()
	res := get(t, link)
	for _, c := range res.Cookies() {
		if c.Name == "folio_session" && c.Value != "" {
			return c.Value
		}
	}
	t.Fatalf("following %s set no session (%d %s)", link, res.StatusCode, res.Header.Get("Location"))
	return ""
}
