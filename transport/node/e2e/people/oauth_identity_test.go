package people_test

import (
	"strings"
	"testing"

	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/fakeoauth"
)

// TestOAuthIdentityFollowsTheProvider (issue 31, item 4): after the provider
// changed a subject's only verified address from frank@corp.example to a personal
// one, the next sign-in is the same account at the new address: the session (and
// /v1/auth/me) carry the new address, a page shared with corp.example is no longer
// served to it, and the session opened under the old address has ended. A second
// provider account verified with an address whose Folio account signs in with
// another subject does not land in that account: it is sent to the sign-in page,
// which says what happened and what to do, with no session.
func TestOAuthIdentityFollowsTheProvider(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"github", "google"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.Start(t)
			e := nodetest.New(t, providers(f))
			key, _ := e.Register("owner")
			id := e.Publish(key, map[string]any{"access": sharedWith("corp.example")})
			review := func(session string) reply {
				return call(t, e, nil, req{method: "GET", path: "/p/" + id, cookie: session, accept: "text/html"})
			}

			f.SignInAs(fakeoauth.User{Subject: "31337", Email: "frank@corp.example", Name: "Frank", Verified: true})
			atCorp, _, _ := oauthSignIn(t, e, browser(e, true), provider).cookie(sessionCookie)
			if r := review(atCorp); r.Status != 200 || !strings.Contains(string(r.Body), "Ready to ship.") {
				t.Fatalf("frank@corp.example on the corp.example page: %d", r.Status)
			}
			account := accountOf(t, e, atCorp)

			f.SignInAs(fakeoauth.User{Subject: "31337", Email: "frank@personal.example", Name: "Frank", Verified: true})
			r := oauthSignIn(t, e, browser(e, true), provider)
			personal, _, ok := r.cookie(sessionCookie)
			if r.Status != 303 || r.Location != "/" || !ok {
				t.Fatalf("sign-in after the address changed: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
			}
			if who := me(t, e, personal).JSON(t); who["id"] != account || who["email"] != "frank@personal.example" {
				t.Fatalf("/v1/auth/me after the change = %v, want account %v at frank@personal.example", who, account)
			}
			if r := review(personal); r.Status != 403 || strings.Contains(string(r.Body), "Ready to ship.") {
				t.Fatalf("the corp.example page served to the account now at frank@personal.example: %d", r.Status)
			}
			// The workspace the first sign-in made stays the account's, listed under
			// the address it has now.
			if r := call(t, e, nil, req{method: "GET", path: "/members", cookie: personal, accept: "text/html"}); r.Status != 200 ||
				!strings.Contains(string(r.Body), "frank@personal.example") || strings.Contains(string(r.Body), "frank@corp.example") {
				t.Fatalf("/members after the change: %d\n%s", r.Status, nodetest.Excerpt(r.Body, 3000))
			}
			if r := review(atCorp); r.Status != 401 || strings.Contains(string(r.Body), "Ready to ship.") {
				t.Fatalf("the session opened as frank@corp.example after the change: %d, want 401 (ended)", r.Status)
			}

			// Another account at the provider, verified with frank's new address.
			f.SignInAs(fakeoauth.User{Subject: "4444", Email: "frank@personal.example", Name: "Not Frank", Verified: true})
			r = oauthSignIn(t, e, browser(e, true), provider)
			if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || r.Location != "/login?problem=oauth_other_account" || ok {
				t.Fatalf("a second subject with a bound address: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
			}
			page := call(t, e, nil, req{method: "GET", path: r.Location, accept: "text/html"})
			if page.Status != 200 || !strings.Contains(string(page.Body), "signs in with a different account there") {
				t.Fatalf("the sign-in page does not explain the refusal: %d\n%s", page.Status, nodetest.Excerpt(page.Body, 2000))
			}
			// Frank's subject presenting that other subject's address: refused too.
			f.SignInAs(fakeoauth.User{Subject: "4444", Email: "other@corp.example", Verified: true})
			oauthSignIn(t, e, browser(e, true), provider) // a new account at other@corp.example
			f.SignInAs(fakeoauth.User{Subject: "31337", Email: "other@corp.example", Verified: true})
			r = oauthSignIn(t, e, browser(e, true), provider)
			if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || r.Location != "/login?problem=oauth_address_taken" || ok {
				t.Fatalf("a known subject at another account's address: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
			}
			if who := me(t, e, personal).JSON(t); who["email"] != "frank@personal.example" {
				t.Fatalf("a refused sign-in changed the account: %v", who)
			}
		})
	}
}
