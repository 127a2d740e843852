package web_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"folio/transport/node"
	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/fakeoauth"
)

// These tests sign people in as they would: a real SMTP listener catches the mails
// (the link is taken out of the mail the person would read), and OAuth runs against
// a local fake provider the test starts.

var linkRe = regexp.MustCompile(`https?://[^\s"<>]+/login/link#ml_[0-9A-Za-z]+`)

// mailedLink waits for a mail to `to` and returns the sign-in link in its text part
// (checking the HTML part carries the same link).
func mailedLink(t *testing.T, smtp *nodetest.SMTP, to string) (string, nodetest.Mail) {
	t.Helper()
	m := smtp.Wait(t, 10*time.Second, func(m nodetest.Mail) bool {
		for _, r := range m.To {
			if strings.EqualFold(r, to) {
				return true
			}
		}
		return false
	})
	link := linkRe.FindString(m.Text)
	if link == "" {
		t.Fatalf("the mail to %s has no sign-in link:\n%s", to, m.Text)
	}
	if !strings.Contains(m.HTML, strings.ReplaceAll(link, "&", "&amp;")) {
		t.Errorf("the HTML part of the mail to %s does not carry the link %s", to, link)
	}
	return link, m
}

func withSMTP(smtp *nodetest.SMTP) nodetest.Option {
	return func(c *node.Config) { c.SMTPAddr = smtp.Addr() }
}

// authenticatedPage is an approval page shared with alice@example.com and the
// domain corp.test only.
func authenticatedPage(extra map[string]any) map[string]any {
	p := approvalPage(map[string]any{"access": map[string]any{"mode": "authenticated", "allowed_identities": []any{
		map[string]any{"type": "email", "value": "Alice@Example.com"},
		map[string]any{"type": "domain", "value": "corp.test"},
	}}})
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// signInByMail signs the tab in as `email` from the sign-in box on the page it
// shows, with the keyboard, and follows the link that arrives.
func (tb *tab) signInByMail(smtp *nodetest.SMTP, email string) {
	tb.t.Helper()
	tb.do(chromedp.Focus(chromedp.CSS("#signin-email")), chromedp.SendKeys(chromedp.CSS("#signin-email"), email+kb.Enter))
	tb.until("the check-your-mail page", `document.body.innerText.indexOf("Check your e-mail") >= 0`)
	link, _ := mailedLink(tb.t.(*testing.T), smtp, email)
	tb.do(chromedp.Navigate(link))
}

// TestMagicLinkSignInOnAnAuthenticatedPage: a person opens a page shared with them,
// meets the sign-in gate (nothing of the page shows), asks for a link with the
// keyboard, follows the link from the real mail, lands on the page signed in, and
// approves. The receiver's callback says who decided and how it was verified.
func TestMagicLinkSignInOnAnAuthenticatedPage(t *testing.T) {
	smtp := nodetest.StartSMTP(t)
	rv := newReceiver(t)
	e := nodetest.New(t, allowPrivate, withSMTP(smtp))
	key, _ := e.Register("signin")
	id := publish(t, e, key, authenticatedPage(map[string]any{"on_action": map[string]any{"default_url": rv.srv.URL}}))

	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
	tb.until("the gate", `!!document.querySelector("#signin-email")`)
	if body := tb.text("body"); strings.Contains(body, "Deploy v2.4.1") || !strings.Contains(body, "Sign-in required") {
		t.Fatalf("the gate shows the page's content or no sign-in:\n%s", body)
	}
	tb.shot("signin-gate")
	tb.signInByMail(smtp, "alice@example.com")
	tb.until("the page, signed in", `!!(document.querySelector("#page-title") && document.querySelector(".as-me"))`)
	if got := tb.text(".decide .as-me"); !containsAll(got, "alice@example.com", "verified") {
		t.Fatalf("the decision form says %q, want the verified address", got)
	}
	if got := tb.text(".me-email"); got != "alice@example.com" {
		t.Errorf("the bar shows %q, want the signed-in address", got)
	}
	tb.shot("signin-page-signed-in")
	tb.do(chromedp.Click(chromedp.CSS(`button[value="approve"]`)))
	tb.until("the decision", `!!document.querySelector(".outcome-approved")`)
	if got := tb.text(".outcome"); !strings.Contains(got, "alice@example.com") {
		t.Errorf("the outcome reads %q, want the decider", got)
	}
	ev, _ := rv.event(t, "action.executed")
	actor, _ := ev["actor"].(map[string]any)
	if actor["identity"] != "alice@example.com" || actor["auth_method"] != "magic_link" {
		t.Fatalf("callback actor = %v, want alice@example.com by magic_link", actor)
	}
}

// TestAPersonNotAllowedIsRefusedAtTheGateAndByTheAPI: someone who signs in with an
// address the page was not shared with sees that, and nothing of the page; the API
// refuses their session too.
func TestAPersonNotAllowedIsRefusedAtTheGateAndByTheAPI(t *testing.T) {
	smtp := nodetest.StartSMTP(t)
	e := nodetest.New(t, withSMTP(smtp))
	key, _ := e.Register("gate")
	id := publish(t, e, key, authenticatedPage(nil))

	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL + "/login"))
	tb.signInByMail(smtp, "mallory@evil.test")
	tb.until("signed in", `!!document.querySelector(".me-email")`)
	tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
	tb.until("the refusal", `document.body.innerText.indexOf("not shared with you") >= 0`)
	if body := tb.text("body"); strings.Contains(body, "Deploy v2.4.1") || !strings.Contains(body, "mallory@evil.test") {
		t.Fatalf("the refusal shows the page or not who is signed in:\n%s", body)
	}
	tb.shot("signin-not-shared")

	// The API: the same person's session (taken from the browser's cookie jar).
	sess := sessionCookie(tb)
	r := e.Do("GET", "/v1/pages/"+id+"/comments", sess, nil)
	if r.Status != http.StatusForbidden || r.ErrCode(t) != "FORBIDDEN" {
		t.Fatalf("comments with mallory's session: %d %s, want 403 FORBIDDEN", r.Status, r.Body)
	}
	r = e.Do("POST", "/v1/pages/"+id+"/actions/approve", sess, map[string]any{})
	if r.Status != http.StatusForbidden {
		t.Fatalf("approving with mallory's session: %d %s, want 403", r.Status, r.Body)
	}
}

// TestOAuthSignInCreatesAWorkspaceAndShowsItsKeyOnce: a first sign-in with the
// code-hosting provider (a local fake of it) makes a workspace; the welcome page
// shows its API key once, the key works, and the page does not show it again.
func TestOAuthSignInCreatesAWorkspaceAndShowsItsKeyOnce(t *testing.T) {
	idp := fakeoauth.Start(t)
	e := nodetest.New(t, func(c *node.Config) {
		c.GitHub = node.OAuthConfig{ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret,
			AuthURL: idp.GitHubAuthURL(), TokenURL: idp.GitHubTokenURL(), APIURL: idp.GitHubAPIURL()}
	})
	idp.SignInAs(fakeoauth.User{Subject: "4242", Email: "Octo@Example.com", Name: "Octo Cat", Verified: true})
	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL + "/login"))
	tb.until("the provider button", `!!document.querySelector(".provider-github")`)
	if eval[bool](tb, `!!document.querySelector(".provider-google")`) {
		t.Error("the sign-in page offers Google, which this node has not configured")
	}
	tb.shot("signin-login")
	tb.do(chromedp.Click(chromedp.CSS(".provider-github")))
	tb.until("the welcome page", `!!document.querySelector("#new-key")`)
	k := tb.text("#new-key")
	if !strings.HasPrefix(k, "sk_live_") {
		t.Fatalf("the welcome page shows %q, want a live key", k)
	}
	tb.shot("signin-welcome")
	if got := tb.text(".me-email"); got != "octo@example.com" {
		t.Errorf("signed in as %q, want octo@example.com", got)
	}
	ten := e.Must(200, "GET", "/v1/tenant", k, nil)
	if !strings.Contains(ten["name"].(string), "Octo Cat") {
		t.Errorf("the workspace is named %q", ten["name"])
	}
	me := e.Must(200, "GET", "/v1/auth/me", sessionCookie(tb), nil)
	if me["tenantId"] != ten["tenant_id"] || me["type"] != "human" {
		t.Errorf("/v1/auth/me = %v, want the new workspace", me)
	}
	tb.do(chromedp.Reload())
	tb.until("the welcome page again", `document.body.innerText.indexOf("Welcome to Folio") >= 0`)
	if body := tb.text("body"); strings.Contains(body, k) || strings.Contains(body, "sk_live_") {
		t.Fatal("the key is shown a second time")
	}
}

// TestClaimingFromTheMailAndFromTheClaimPage: an agent names its owner at
// registration; the owner follows the claim mail and owns the account at once.
// Another agent's owner opens the claim address with its code, signs in there and
// claims. Both agents' keys keep working.
func TestClaimingFromTheMailAndFromTheClaimPage(t *testing.T) {
	smtp := nodetest.StartSMTP(t)
	e := nodetest.New(t, withSMTP(smtp))

	reg := e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Release Bot", "owner_email": "owner@example.com"})
	link, m := mailedLink(t, smtp, "owner@example.com")
	if m.Subject != "Claim your agent's account on Folio" || !strings.Contains(m.Text, "\u201cRelease Bot\u201d") || !strings.Contains(m.Text, reg["claimCode"].(string)) {
		t.Errorf("the claim mail (%q) does not quote the agent's name or give its code:\n%s", m.Subject, m.Text)
	}
	tb := newTab(t)
	tb.do(chromedp.Navigate(link))
	tb.until("the claim", `document.body.innerText.indexOf("You now own Release Bot") >= 0`)
	tb.shot("claim-done")
	e.Must(200, "GET", "/v1/tenant", reg["apiKey"].(string), nil)

	reg2 := e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Data Bot"})
	tb2 := newTab(t)
	tb2.do(chromedp.Navigate(reg2["claimUrl"].(string)))
	tb2.until("the claim page offers sign-in", `!!document.querySelector("#signin-email")`)
	tb2.shot("claim-signed-out")
	tb2.signInByMail(smtp, "second@example.com")
	tb2.until("the claim form, signed in", `!!document.querySelector("#claim-code")`)
	if got := eval[string](tb2, `document.querySelector("#claim-code").value`); got != reg2["claimCode"] {
		t.Fatalf("the claim code field holds %q, want %q", got, reg2["claimCode"])
	}
	// The claim token came back through the sign-in after the #, and the page's
	// script put it in the form (the person only confirms the code).
	claimURL := reg2["claimUrl"].(string)
	if got := eval[string](tb2, `document.querySelector("#claim-token").value + (document.querySelector("#claim-token-field").hidden ? " hidden" : "")`); got != claimURL[strings.IndexByte(claimURL, '#')+1:]+" hidden" {
		t.Fatalf("the claim token field holds %q, want the claimUrl's token, hidden", got)
	}
	tb2.shot("claim-signed-in")
	tb2.do(chromedp.Click(chromedp.CSS(`form[action="/claim"] button[type=submit]`)))
	tb2.until("the claim", `document.body.innerText.indexOf("You now own Data Bot") >= 0`)
	me := e.Must(200, "GET", "/v1/auth/me", sessionCookie(tb2), nil)
	if me["tenantId"] != reg2["tenantId"] {
		t.Errorf("after claiming, /v1/auth/me tenantId = %v, want %v", me["tenantId"], reg2["tenantId"])
	}
	e.Must(200, "GET", "/v1/tenant", reg2["apiKey"].(string), nil)
}

// TestACrossSiteFormPostIsRefused: another site (a server on another port, which a
// browser counts as the same site, so SameSite=Lax alone would let the cookie
// through) makes a signed-in person's browser post an approval to Folio. Folio
// refuses it and the page stays undecided.
func TestACrossSiteFormPostIsRefused(t *testing.T) {
	smtp := nodetest.StartSMTP(t)
	e := nodetest.New(t, withSMTP(smtp))
	key, _ := e.Register("csrf")
	id := publish(t, e, key, authenticatedPage(nil))
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>Win a prize</title><form id="f" method="post" action="` + e.Srv.URL + `/p/` + id + `/act">` +
			`<input name="action" value="approve"></form><script>document.getElementById("f").submit()</script>`))
	}))
	t.Cleanup(evil.Close)

	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
	tb.signInByMail(smtp, "alice@example.com")
	tb.until("signed in on the page", `!!document.querySelector(".as-me")`)
	tb.do(chromedp.Navigate(evil.URL))
	tb.until("Folio's answer to the forged post", `location.href.indexOf("/act") >= 0 && document.body.innerText.indexOf("another site") >= 0`)
	p := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	if p["status"] != "active" {
		t.Fatalf("after the forged post the page is %v, want still active", p["status"])
	}
}

// TestSignInPagesAreAccessible: axe-core finds no serious or critical violation on
// the sign-in page, the gate, the claim page (signed out and in) and the welcome
// page, in light and dark; at 360 px none scrolls sideways.
func TestSignInPagesAreAccessible(t *testing.T) {
	smtp := nodetest.StartSMTP(t)
	idp := fakeoauth.Start(t)
	e := nodetest.New(t, withSMTP(smtp), func(c *node.Config) {
		c.GitHub = node.OAuthConfig{ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret,
			AuthURL: idp.GitHubAuthURL(), TokenURL: idp.GitHubTokenURL(), APIURL: idp.GitHubAPIURL()}
		c.Google = node.OAuthConfig{ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret, Issuer: idp.GoogleIssuer()}
	})
	key, _ := e.Register("a11y-signin")
	id := publish(t, e, key, authenticatedPage(nil))
	reg := e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Claimable"})

	tb := newTab(t)
	check := func(where, path, ready string) {
		t.Helper()
		tb.width(1000)
		tb.do(chromedp.Navigate(e.Srv.URL + path))
		tb.until(where, ready)
		tb.noSeriousViolations(where)
		tb.width(360)
		tb.noSideways(where)
		tb.shot("a11y-" + strings.NewReplacer(" ", "-", "(", "", ")", "").Replace(where) + "-360")
	}
	check("the sign-in page", "/login", `!!document.querySelector(".provider-google")`)
	tb.dark(true)
	tb.shot("signin-login-dark-360")
	tb.dark(false)
	check("the gate", "/p/"+id, `!!document.querySelector("#signin-email")`)
	check("the claim page signed out", "/claim?code="+reg["claimCode"].(string), `!!document.querySelector("#signin-email")`)
	check("the sign-in link's landing page", "/login/link", `!!document.querySelector("#link-token")`)
	tb.width(1000)
	tb.do(chromedp.Navigate(e.Srv.URL + "/login"))
	tb.until("the sign-in page", `!!document.querySelector(".provider-github")`)
	tb.do(chromedp.Click(chromedp.CSS(".provider-github")))
	tb.until("the welcome page", `!!document.querySelector("#new-key")`)
	tb.noSeriousViolations("the welcome page")
	tb.width(360)
	tb.noSideways("the welcome page")
	tb.shot("a11y-welcome-360")
	check("the claim page signed in", "/claim?code="+reg["claimCode"].(string), `!!document.querySelector("#claim-code")`)
	check("the dashboard", "/", `!!document.querySelector(".dash-nav")`)
}

// noSideways is noSideways for a page that may still be settling at a new width.
func (tb *tab) noSideways(where string) {
	tb.t.Helper()
	tb.until(where+" to fit", `document.documentElement.scrollWidth <= document.documentElement.clientWidth`)
}

// sessionCookie is the tab's session token (the cookie is HttpOnly: scripts on the
// page cannot read it; the test reads it through the browser's protocol).
func sessionCookie(tb *tab) string {
	tb.t.Helper()
	res, err := chromedp.Call(tb.ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		tb.t.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == "folio_session" {
			if !c.HTTPOnly {
				tb.t.Error("the session cookie is readable by scripts")
			}
			return c.Value
		}
	}
	tb.t.Fatal("the browser holds no session cookie")
	return ""
}
