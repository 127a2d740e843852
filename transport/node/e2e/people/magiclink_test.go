package people_test

import (
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestMagicLinkSignsInAndTheSessionDecides: the whole way of a person invited to an
// authenticated page. The link is mailed to an address the page names (in another
// case), leads back to the page with a session cookie (HttpOnly, SameSite=Lax),
// and the session reads the page, is refused a write without the page's CSRF token,
// decides with it, and the callback records the person as signed in by magic link.
// The same session as a Bearer token needs no CSRF token.
func TestMagicLinkSignsInAndTheSessionDecides(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	rv := newHook(t)
	e := nodetest.New(t, allowPrivate, mailTo(in.SMTP))
	key, _ := e.Register("inviter")
	const title = "Quarterly budget sign-off"
	extra := map[string]any{"title": title, "access": sharedWith("Alice@Example.com", "corp.test"),
		"on_action": map[string]any{"default_url": rv.URL()}}
	id := e.Publish(key, extra)

	wantSent(t, sendLink(t, e, "alice@example.com", id, "/p/"+id))
	m := in.next(t, "alice@example.com")
	if m.Subject != "Sign in to review a page on Folio" || !strings.Contains(m.Text, "\u201c"+title+"\u201d") {
		t.Errorf("subject %q, or the text does not quote the page's title:\n%s", m.Subject, m.Text)
	}
	link := linkIn(t, e, m)
	if !strings.Contains(m.HTML, link) {
		t.Errorf("the HTML part lacks the link %s:\n%s", link, m.HTML)
	}

	r := follow(t, e, link, "")
	token, raw, ok := r.cookie(sessionCookie)
	if r.Status != 303 || r.Location != "/p/"+id || !ok {
		t.Fatalf("following the link: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
	}
	if !strings.HasPrefix(token, "sess_") || !strings.Contains(raw, "HttpOnly") || !strings.Contains(raw, "SameSite=Lax") || !strings.Contains(raw, "Path=/") {
		t.Fatalf("session cookie %q", raw)
	}

	who := must(t, e, 200, req{method: "GET", path: "/v1/auth/me", cookie: token}).JSON(t)
	if len(who) != 4 || who["email"] != "alice@example.com" || who["tenantId"] != nil || who["type"] != "human" ||
		!strings.HasPrefix(who["id"].(string), "usr_") {
		t.Fatalf("/v1/auth/me = %v", who)
	}

	view := must(t, e, 200, req{method: "GET", path: "/p/" + id, cookie: token, accept: "text/html"})
	if !strings.Contains(string(view.Body), title) {
		t.Fatalf("the review page does not show the title:\n%s", nodetest.Excerpt(view.Body, 2000))
	}
	csrf := csrfOf(t, view.Body)

	approve := req{method: "POST", path: "/v1/pages/" + id + "/actions/approve", cookie: token, body: map[string]any{}}
	wantError(t, "approving by cookie without the CSRF token", call(t, e, nil, approve), 403, "FORBIDDEN", map[string]any{"reason": "csrf"})
	forged := approve
	forged.csrf, forged.origin = csrf, "https://evil.test"
	wantError(t, "approving by cookie from another origin", call(t, e, nil, forged), 403, "FORBIDDEN", map[string]any{"reason": "csrf"})
	wrong := approve
	wrong.csrf = csrf + "x"
	wantError(t, "approving by cookie with a wrong CSRF token", call(t, e, nil, wrong), 403, "FORBIDDEN", map[string]any{"reason": "csrf"})
	approve.csrf = csrf
	if ps := must(t, e, 200, approve).JSON(t)["page_state"].(map[string]any); ps["current"] != "completed" {
		t.Fatalf("page_state after approving = %v", ps)
	}
	wantActor(t, rv.next(t, "action.executed"), "alice@example.com", "magic_link")

	// The same session as a Bearer token is not sent by a browser on its own: no CSRF token.
	id2 := e.Publish(key, extra)
	must(t, e, 200, req{method: "POST", path: "/v1/pages/" + id2 + "/actions/reject", bearer: token})
	wantActor(t, rv.next(t, "action.executed"), "alice@example.com", "magic_link")
}

// TestMagicLinksGoOnlyToWhomThePageAdmits: an address the page does not admit gets
// the same answer and no mail; an address of an allowed domain gets one; without a
// page any address gets one. Malformed addresses and redirects off this service
// are refused.
func TestMagicLinksGoOnlyToWhomThePageAdmits(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP))
	key, _ := e.Register("inviter")
	id := e.Publish(key, map[string]any{"access": sharedWith("Alice@Example.com", "corp.test")})

	// Each allowed mail takes 100 ms at the server: the refusal of mallory's, queued
	// first, is decided long before the allowed ones arrive.
	in.SetDelay(100 * time.Millisecond)
	wantSent(t, sendLink(t, e, "mallory@evil.test", id, ""))
	wantSent(t, sendLink(t, e, "alice@example.com", id, ""))
	wantSent(t, sendLink(t, e, "bob@corp.test", id, ""))
	for _, to := range []string{"alice@example.com", "bob@corp.test"} {
		m := in.next(t, to)
		if m.Subject != "Sign in to review a page on Folio" || !strings.Contains(m.Text, "Deploy v2 to production?") {
			t.Errorf("mail to %s: subject %q, text:\n%s", to, m.Subject, m.Text)
		}
		// Without a redirectUrl, the link leads to the page.
		if r := follow(t, e, linkIn(t, e, m), ""); r.Status != 303 || r.Location != "/p/"+id {
			t.Errorf("%s's link: %d to %q, want the page", to, r.Status, r.Location)
		}
	}
	if n := in.to("mallory@evil.test"); n != 0 {
		t.Fatalf("an address the page does not admit got %d mails", n)
	}
	// A page that does not exist admits nobody either.
	wantSent(t, sendLink(t, e, "carol@corp.test", "pg_doesnotexist", ""))
	in.SetDelay(0)

	// Without a page, any address may sign in.
	wantSent(t, sendLink(t, e, "mallory@evil.test", "", ""))
	m := in.next(t, "mallory@evil.test")
	linkIn(t, e, m)
	if m.Subject != "Your Folio sign-in link" {
		t.Errorf("subject of a sign-in mail without a page: %q", m.Subject)
	}
	if n := in.to("carol@corp.test"); n != 0 {
		t.Fatalf("a link for a page that does not exist was mailed (%d)", n)
	}

	for _, bad := range []string{"", "not-an-address", "alice@", "a b@example.com"} {
		wantError(t, "email "+bad, sendLink(t, e, bad, "", ""), 400, "INVALID_REQUEST", map[string]any{"field": "email"})
	}
	for _, to := range []string{"https://evil.test/x", "//evil.test", `/\evil.test`, "javascript:alert(1)"} {
		wantError(t, "redirectUrl "+to, sendLink(t, e, "alice@example.com", id, to), 400, "INVALID_REQUEST",
			map[string]any{"field": "redirectUrl", "constraint": "same_origin"})
	}
	// An absolute address on this service is kept as its path.
	wantSent(t, sendLink(t, e, "dora@example.com", "", e.Srv.URL+"/p/"+id+"?x=1"))
	if r := follow(t, e, linkIn(t, e, in.next(t, "dora@example.com")), ""); r.Status != 303 || r.Location != "/p/"+id+"?x=1" {
		t.Fatalf("a same-origin absolute redirect: %d to %q", r.Status, r.Location)
	}
}

// TestMagicLinkSendTakesTheSameTimeWhoeverAsks: with a mail server that takes 300 ms
// a message, asking for a link for an allowed address and for an unknown one
// answers at once, in the same time, with the same bytes: neither the answer nor
// its timing tells whether an address may read the page. (Not parallel: it measures
// time.)
func TestMagicLinkSendTakesTheSameTimeWhoeverAsks(t *testing.T) {
	in := newInbox(t)
	e := nodetest.New(t, mailTo(in.SMTP), func(c *node.Config) { c.LinksPerClient = 100 })
	key, _ := e.Register("inviter")
	id := e.Publish(key, map[string]any{"access": sharedWith("corp.test")})
	in.SetDelay(300 * time.Millisecond)

	var allowed, unknown []time.Duration
	var bodies [][]byte
	for i := range 10 {
		for _, addr := range []string{"member" + string(rune('a'+i)) + "@corp.test", "stranger" + string(rune('a'+i)) + "@evil.test"} {
			r := sendLink(t, e, addr, id, "")
			wantSent(t, r)
			bodies = append(bodies, r.Body)
			if strings.HasSuffix(addr, "@corp.test") {
				allowed = append(allowed, r.Took)
			} else {
				unknown = append(unknown, r.Took)
			}
		}
	}
	a, u := median(allowed), median(unknown)
	t.Logf("median answer: %s for allowed addresses, %s for unknown ones", a, u)
	if a >= 100*time.Millisecond || u >= 100*time.Millisecond || (a-u).Abs() >= 50*time.Millisecond {
		t.Fatalf("median answer: %s for allowed addresses, %s for unknown ones; want both under 100ms, within 50ms", a, u)
	}
	for _, b := range bodies {
		if string(b) != string(bodies[0]) {
			t.Fatalf("bodies differ: %q and %q", b, bodies[0])
		}
	}
	// The allowed addresses do get their mails, later.
	in.next(t, "membera@corp.test")
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// TestMagicLinkWorksOnceAndExpires: a link signs in once (a second use leads to
// the sign-in page saying so, without a cookie), expires after 15 minutes, and of
// eight simultaneous uses exactly one signs in.
func TestMagicLinkWorksOnceAndExpires(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	clk := nodetest.NewClock(time.Now())
	e := nodetest.Open(t, t.TempDir(), clk, mailTo(in.SMTP))

	wantSent(t, sendLink(t, e, "alice@example.com", "", ""))
	link := linkIn(t, e, in.next(t, "alice@example.com"))
	if r := follow(t, e, link, ""); r.Status != 303 || r.Location != "/" {
		t.Fatalf("first use: %d to %q", r.Status, r.Location)
	}
	r := follow(t, e, link, "")
	if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || r.Location != "/login?problem=link_used" || ok {
		t.Fatalf("second use: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
	}

	wantSent(t, sendLink(t, e, "alice@example.com", "", ""))
	late := linkIn(t, e, in.next(t, "alice@example.com"))
	clk.Advance(16 * time.Minute)
	r = follow(t, e, late, "")
	if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || r.Location != "/login?problem=link_expired" || ok {
		t.Fatalf("use after 16 minutes: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
	}

	wantSent(t, sendLink(t, e, "carol@example.com", "", ""))
	fresh := linkIn(t, e, in.next(t, "carol@example.com"))
	var wg sync.WaitGroup
	replies := make([]reply, 8)
	for i := range replies {
		wg.Go(func() { replies[i] = follow(t, e, fresh, "") })
	}
	wg.Wait()
	signedIn := 0
	for _, r := range replies {
		if _, _, ok := r.cookie(sessionCookie); ok {
			signedIn++
			continue
		}
		if r.Status != 303 || r.Location != "/login?problem=link_used" {
			t.Errorf("a losing use: %d to %q", r.Status, r.Location)
		}
	}
	if signedIn != 1 {
		t.Fatalf("%d of 8 simultaneous uses of one link signed in, want exactly 1", signedIn)
	}
}

// TestMagicLinkSendIsRateLimited: the sixth link for one address within 15
// minutes, and the twenty-first from one client, are 429 with Retry-After.
func TestMagicLinkSendIsRateLimited(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t) // no SMTP: mails go to the outbox directory
	for range 5 {
		wantSent(t, sendLink(t, e, "alice@example.com", "", ""))
	}
	r := sendLink(t, e, "Alice@Example.com", "", "")
	wantError(t, "the sixth link for one address", r, 429, "RATE_LIMITED",
		map[string]any{"scope": "email", "per_window": 5.0, "window_seconds": 900.0})
	if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" || r.Header.Get("RateLimit-Policy") != `"sign_in_links";q=5;w=900` {
		t.Fatalf("Retry-After %q, RateLimit-Policy %q", ra, r.Header.Get("RateLimit-Policy"))
	}
	for i := range 15 {
		wantSent(t, sendLink(t, e, "user"+string(rune('a'+i))+"@example.com", "", ""))
	}
	r = sendLink(t, e, "zed@example.com", "", "")
	wantError(t, "the 21st link from one client", r, 429, "RATE_LIMITED", map[string]any{"scope": "address", "per_window": 20.0})
	if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
}
