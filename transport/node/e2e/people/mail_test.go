package people_test

import (
	"net/url"
	"strings"
	"testing"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestMailsCarryNoCallerTextInSubjects: registration and sign-in mails go to
// addresses anonymous callers name, so their subjects are fixed, and an agent's
// name or a page's title is in the body only, quoted as someone else's words: on
// one line, clipped, never a link (no "." ":" "/" "@" a mail client would link),
// and escaped in the HTML part.
func TestMailsCarryNoCallerTextInSubjects(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	const name = "URGENT <b>pay</b> at https://evil.example/pay or mail boss@evil.example\nBcc: x"
	register(t, e, name, "victim@example.com")
	m := in.next(t, "victim@example.com")
	if m.Subject != "Claim your agent's account on Folio" {
		t.Errorf("claim mail subject %q: want the fixed subject", m.Subject)
	}
	for _, part := range []string{m.Text, m.HTML} {
		for _, bad := range []string{"evil.example", "https://", "boss@", "\nBcc: x"} {
			if strings.Contains(part, bad) {
				t.Errorf("the claim mail carries %q as written:\n%s", bad, part)
			}
		}
	}
	if !strings.Contains(m.Text, "as it gave it") || !strings.Contains(m.Text, "\u201cURGENT <b>pay<\u2215b> at https\u2236\u2215\u2215evil\u2024example") {
		t.Errorf("the text part does not quote the agent's name as its words:\n%s", m.Text)
	}
	if strings.Contains(m.HTML, "<b>pay") || !strings.Contains(m.HTML, "&lt;b&gt;pay&lt;\u2215b&gt;") || !strings.Contains(m.HTML, "<blockquote") {
		t.Errorf("the HTML part does not quote the name escaped:\n%s", m.HTML)
	}

	key, _ := e.Register("publisher")
	id := e.Publish(key, map[string]any{"title": "Your account is locked: sign in at https://evil.example/login"})
	wantSent(t, sendLink(t, e, "reader@example.com", id, ""))
	m = in.next(t, "reader@example.com")
	if m.Subject != "Sign in to review a page on Folio" {
		t.Errorf("sign-in mail subject %q: want the fixed subject", m.Subject)
	}
	if strings.Contains(m.Text, "evil.example") || strings.Contains(m.HTML, "evil.example") ||
		!strings.Contains(m.Text, "as its author wrote it") || !strings.Contains(m.Text, "\u201cYour account is locked") {
		t.Errorf("the sign-in mail does not quote the title as data:\n%s", m.Text)
	}
}

// TestRegistrationMailIsLimitedPerRecipientAndSender: anonymous registrations
// mail one address at most --register-mails-per-recipient times, and one client
// address may ask for at most --register-mails-per-client mails; past either the
// registration still succeeds and its message says no mail went out.
func TestRegistrationMailIsLimitedPerRecipientAndSender(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), func(c *node.Config) { c.RegisterMailsPerRecipient, c.RegisterMailsPerClient = 2, 4 })
	reg := func(owner string) string {
		return e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Bot", "owner_email": owner})["message"].(string)
	}
	const notSent = "No claim mail was sent"
	for i, owner := range []string{"victim@example.com", "victim@example.com", "VICTIM@example.com", "o1@example.com", "o2@example.com"} {
		msg := reg(owner)
		// The third to the victim: its recipient's limit. The fifth: the sender's (4 asked for).
		if want := i == 2 || i == 4; strings.Contains(msg, notSent) != want {
			t.Errorf("registration %d (owner %s): message %q, want a mail sent: %v", i+1, owner, msg, !want)
		}
	}
	in.next(t, "victim@example.com")
	in.next(t, "victim@example.com")
	in.next(t, "o1@example.com")
	if n, o2 := in.to("victim@example.com"), in.to("o2@example.com"); n != 2 || o2 != 0 {
		t.Fatalf("mails: %d to the victim (want 2), %d to o2 (want 0: the sender's limit)", n, o2)
	}
}

// TestMagicLinkGETNeverSignsInNorSpendsTheToken: the mailed link carries its
// token only after # (no request line a browser sends holds it); opening it, or a
// link of the older ?token= form, is a landing page that signs no one in and
// spends nothing; the landing page's POST signs in, once; a POST another site
// makes a browser send is refused.
func TestMagicLinkGETNeverSignsInNorSpendsTheToken(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	wantSent(t, sendLink(t, e, "alice@example.com", "", ""))
	m := in.next(t, "alice@example.com")
	link := linkIn(t, e, m)
	token := tokenOf(link)
	u, err := url.Parse(link)
	if err != nil || u.Fragment != token || strings.Contains(u.RequestURI(), token) {
		t.Fatalf("the link %s: the token must be only in the fragment (request line %q)", link, u.RequestURI())
	}
	for _, part := range []string{m.Text, m.HTML} {
		if strings.Contains(part, "?token=") || strings.Count(part, token) != strings.Count(part, "#"+token) {
			t.Fatalf("the mail carries the token outside a fragment:\n%s", part)
		}
	}

	page := call(t, e, nil, req{method: "GET", path: link, accept: "text/html"})
	if _, _, ok := page.cookie(sessionCookie); page.Status != 200 || ok ||
		!strings.Contains(string(page.Body), `action="/v1/auth/magic-link/verify"`) || strings.Contains(string(page.Body), token) {
		t.Fatalf("GET of the link: %d, cookies %v, want the landing page without a session:\n%s", page.Status, page.SetCookie, nodetest.Excerpt(page.Body, 1500))
	}
	old := call(t, e, nil, req{method: "GET", path: "/v1/auth/magic-link/verify?token=" + token})
	if _, _, ok := old.cookie(sessionCookie); old.Status != 303 || ok || old.Location != "/login/link#"+token {
		t.Fatalf("GET of an old-form link: %d to %q, cookies %v", old.Status, old.Location, old.SetCookie)
	}
	forged := call(t, e, nil, req{method: "POST", path: "/v1/auth/magic-link/verify", origin: "https://evil.test", body: map[string]any{"token": token}})
	wantError(t, "a cross-site use", forged, 403, "FORBIDDEN", map[string]any{"reason": "csrf"})

	r := follow(t, e, link, "")
	if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || r.Location != "/" || !ok {
		t.Fatalf("the landing page's POST after the GETs: %d to %q, cookies %v, want signed in", r.Status, r.Location, r.SetCookie)
	}
	r = follow(t, e, link, "")
	if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || r.Location != "/login?problem=link_used" || ok {
		t.Fatalf("a second POST: %d to %q", r.Status, r.Location)
	}
}

// TestMailedLinksLeadToTheAppURL: with --app-url set apart from --base-url (the
// people's app behind another address), the sign-in mail and the claim mail link
// to the app URL, as the flag says, never to the API's base.
func TestMailedLinksLeadToTheAppURL(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	const app = "https://app.folio.test"
	e := nodetest.New(t, mailTo(in.SMTP), func(c *node.Config) { c.AppURL = app })
	wantSent(t, sendLink(t, e, "ada@example.com", "", ""))
	if m := in.next(t, "ada@example.com"); !strings.Contains(m.Text, app+"/login/link#ml_") || strings.Contains(m.Text, e.Srv.URL) {
		t.Errorf("the sign-in mail does not link to %s:\n%s", app, m.Text)
	}
	e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Bot", "owner_email": "owner@example.com"})
	if m := in.next(t, "owner@example.com"); !strings.Contains(m.Text, app+"/claim?code=") || !strings.Contains(m.Text, app+"/login/link#ml_") || strings.Contains(m.Text, e.Srv.URL) {
		t.Errorf("the claim mail does not link to %s:\n%s", app, m.Text)
	}
}
