package web_test

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"folio/actors/page"
	"folio/actors/people"
	"folio/transport/httpapi"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestPresenceShowsWhoElseHasThePageOpen: Alice and Bob have a page shared with
// them open in two browsers. Alice's page says, quietly under its header, that Bob
// is here as soon as he opens it, and says nothing once he has left; Bob's names
// Alice and never himself. At 1280 and 390 px, light and dark, axe-clean.
func TestPresenceShowsWhoElseHasThePageOpen(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.PresenceEvery = 100 * time.Millisecond })
	key, _ := e.Register("presence")
	url := e.Srv.URL + "/p/" + publish(t, e, key, authenticatedPage(nil))
	alice, bob := newTab(t), newTab(t)
	for _, p := range []struct {
		tb    *tab
		email string
	}{{alice, "alice@example.com"}, {bob, "bob@corp.test"}} {
		p.tb.signedIn(e, p.email)
		p.tb.do(chromedp.Navigate(url))
		p.tb.until("the page, live", `!!document.querySelector("#page-title") && `+liveJS)
	}
	const bobHere = `(function(){var p=document.querySelector("#presence");return !!p && !p.hidden && p.innerText === "Also here: bob@corp.test"})()`
	const nobody = `(function(){var p=document.querySelector("#presence");return !!p && p.hidden && p.innerText === ""})()`
	// below is where the first drawn element after the line begins on the page.
	const below = `(function(){for (var e = document.querySelector("#presence").nextElementSibling; e; e = e.nextElementSibling) { var r = e.getBoundingClientRect(); if (r.height) return r.top + scrollY } return -1})()`
	alice.until("Bob named on Alice's page", bobHere)
	bob.until("Alice named on Bob's page", `document.querySelector("#presence").innerText === "Also here: alice@example.com"`)
	if got := eval[string](alice, `document.querySelector("#presence").getAttribute("aria-live")`); got != "polite" {
		t.Errorf("the presence line is aria-live %q, want polite", got)
	}
	for i, l := range layouts {
		alice.layout(l.width, l.dark)
		if i > 0 { // Bob comes back (from the back/forward cache: his stream starts again)
			bob.eval0(`setTimeout(function(){history.back()}, 0)`)
			alice.until("Bob's arrival on Alice's page ("+l.name+")", bobHere)
		}
		alice.until("the theme's colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
		withBob := eval[float64](alice, below)
		alice.view("presence-" + l.name)
		alice.noSidewaysScroll("presence " + l.name)
		if v := alice.axe(); len(v) > 0 {
			t.Errorf("axe on the page with Bob here (%s): %v", l.name, v)
		}
		bob.do(chromedp.Navigate("about:blank")) // Bob leaves (his page may stay in the back/forward cache)
		alice.until("Bob's departure on Alice's page ("+l.name+")", nobody)
		if alone := eval[float64](alice, below); alone != withBob {
			t.Errorf("at %s what follows the presence line moved from %.1f px down the page to %.1f when Bob left", l.name, withBob, alone)
		}
	}
	if got := alice.text("#presence"); got != "" {
		t.Errorf("with nobody else here the line reads %q", got)
	}
}

// signedIn gives the tab a session of email's account, as following a mailed
// sign-in link would (the mail itself is tested in signin_test.go).
func (tb *tab) signedIn(e *nodetest.Env, email string) {
	tb.t.Helper()
	u, _, err := e.Node.People.SignIn(people.Proof{Email: email})
	if err != nil {
		tb.t.Fatal(err)
	}
	token, _, err := e.Node.People.StartSession(u, page.AuthMagicLink)
	if err != nil {
		tb.t.Fatal(err)
	}
	if _, err := chromedp.Call(tb.ctx, network.SetCookie, network.SetCookieParams{Name: httpapi.SessionCookie, Value: token, URL: e.Srv.URL}); err != nil {
		tb.t.Fatal(err)
	}
}
