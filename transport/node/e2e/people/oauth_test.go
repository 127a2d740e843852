package people_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/fakeoauth"
)

// oauthSignIn runs a sign-in with provider in browser c (a cookie jar): start, the
// provider's authorization (the fake consents at once), then its redirect back to
// the callback. It returns the callback's reply.
func oauthSignIn(t *testing.T, e *nodetest.Env, c *http.Client, provider string) reply {
	t.Helper()
	start := call(t, e, c, req{method: "POST", path: "/v1/auth/oauth/" + provider})
	if _, _, ok := start.cookie("folio_oauth"); start.Status != 200 || !ok {
		t.Fatalf("start %s: %d %s, cookies %v", provider, start.Status, start.Body, start.SetCookie)
	}
	u, _ := start.JSON(t)["url"].(string)
	if len(start.JSON(t)) != 1 || u == "" {
		t.Fatalf("start %s: %s", provider, start.Body)
	}
	return call(t, e, c, req{method: "GET", path: backFrom(t, e, c, u)})
}

// backFrom is where the provider sends the browser back: the callback with code
// and state.
func backFrom(t *testing.T, e *nodetest.Env, c *http.Client, authURL string) string {
	t.Helper()
	at := call(t, e, c, req{method: "GET", path: authURL})
	if at.Status != http.StatusFound || !strings.HasPrefix(at.Location, e.Srv.URL+"/v1/auth/oauth/") {
		t.Fatalf("the provider's authorization: %d to %q: %s", at.Status, at.Location, at.Body)
	}
	return at.Location
}

var liveKeyRE = regexp.MustCompile(`sk_live_[0-9A-Za-z_-]+`)

// TestOAuthFirstSignInMakesAWorkspace: for both providers, a first sign-in leads
// to /welcome with a session; the welcome page shows the new workspace's API key
// once; the key works and the person belongs to its tenant. A second sign-in of
// the same account makes nothing new and leads home.
func TestOAuthFirstSignInMakesAWorkspace(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"github", "google"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.Start(t)
			f.SignInAs(fakeoauth.User{Subject: "4242", Email: "Octo@Example.com", Name: "Octo Cat", Verified: true})
			e := nodetest.New(t, providers(f))
			c := browser(e, true)

			r := oauthSignIn(t, e, c, provider)
			token, raw, ok := r.cookie(sessionCookie)
			if r.Status != 303 || r.Location != "/welcome" || !ok || !strings.HasPrefix(token, "sess_") || !strings.Contains(raw, "HttpOnly") {
				t.Fatalf("callback: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
			}
			welcome := call(t, e, c, req{method: "GET", path: "/welcome", accept: "text/html"})
			key := liveKeyRE.FindString(string(welcome.Body))
			if welcome.Status != 200 || key == "" {
				t.Fatalf("/welcome: %d, no sk_live_ key:\n%s", welcome.Status, nodetest.Excerpt(welcome.Body, 2000))
			}
			if again := call(t, e, c, req{method: "GET", path: "/welcome", accept: "text/html"}); again.Status != 200 || strings.Contains(string(again.Body), "sk_live_") {
				t.Fatalf("/welcome shown again: %d, key still shown: %v", again.Status, strings.Contains(string(again.Body), key))
			}
			tenantID := must(t, e, 200, req{method: "GET", path: "/v1/tenant", bearer: key}).JSON(t)["tenant_id"]
			who := must(t, e, 200, req{method: "GET", path: "/v1/auth/me", bearer: token}).JSON(t)
			if who["tenantId"] != tenantID || who["email"] != "octo@example.com" || who["type"] != "human" {
				t.Fatalf("/v1/auth/me = %v, want tenantId %v", who, tenantID)
			}

			r = oauthSignIn(t, e, browser(e, true), provider)
			second, _, ok := r.cookie(sessionCookie)
			if r.Status != 303 || r.Location != "/" || !ok || second == token {
				t.Fatalf("second sign-in: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
			}
			if who := must(t, e, 200, req{method: "GET", path: "/v1/auth/me", bearer: second}).JSON(t); who["tenantId"] != tenantID || who["id"] != accountOf(t, e, token) {
				t.Fatalf("second sign-in is another account or workspace: %v", who)
			}
		})
	}
}

// accountOf is the account id of a live session.
func accountOf(t *testing.T, e *nodetest.Env, token string) any {
	t.Helper()
	return must(t, e, 200, req{method: "GET", path: "/v1/auth/me", bearer: token}).JSON(t)["id"]
}

// TestOAuthRefusals: a callback in a browser that did not start the sign-in, a
// callback replayed, and an account without a verified address lead to the
// sign-in page with the problem named and no session; a redirect off this service
// is 400; a provider the node has not configured is 404.
func TestOAuthRefusals(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"github", "google"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := fakeoauth.Start(t)
			e := nodetest.New(t, providers(f))

			c := browser(e, true)
			start := call(t, e, c, req{method: "POST", path: "/v1/auth/oauth/" + provider})
			back := backFrom(t, e, c, start.JSON(t)["url"].(string))
			r := call(t, e, browser(e, false), req{method: "GET", path: back}) // another browser: no state cookie
			if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || r.Location != "/login?problem=oauth_state" || ok {
				t.Fatalf("callback without the state cookie: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
			}

			// A sign-in completes once: its callback replayed, even with the state
			// cookie, finds no flow.
			c = browser(e, false)
			start = call(t, e, c, req{method: "POST", path: "/v1/auth/oauth/" + provider})
			state, _, _ := start.cookie("folio_oauth")
			back = backFrom(t, e, c, start.JSON(t)["url"].(string))
			withState := req{method: "GET", path: back, cookies: []*http.Cookie{{Name: "folio_oauth", Value: state}}}
			if r := call(t, e, c, withState); r.Status != 303 || r.Location != "/welcome" {
				t.Fatalf("callback with the state cookie: %d to %q", r.Status, r.Location)
			}
			r = call(t, e, c, withState)
			if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || r.Location != "/login?problem=oauth_state" || ok {
				t.Fatalf("the callback replayed: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
			}

			wantError(t, "an off-site redirectUrl", call(t, e, nil, req{method: "POST", path: "/v1/auth/oauth/" + provider,
				body: map[string]any{"redirectUrl": "https://evil.test/"}}), 400, "INVALID_REQUEST", map[string]any{"constraint": "same_origin"})

			f.SignInAs(fakeoauth.User{Subject: "777", Email: "unverified@example.com", Verified: false})
			r = oauthSignIn(t, e, browser(e, true), provider)
			if _, _, ok := r.cookie(sessionCookie); r.Status != 303 || r.Location != "/login?problem=oauth_email" || ok {
				t.Fatalf("an unverified account: %d to %q, cookies %v", r.Status, r.Location, r.SetCookie)
			}
		})
	}
	t.Run("not configured", func(t *testing.T) {
		t.Parallel()
		e := nodetest.New(t)
		for _, provider := range []string{"github", "google"} {
			wantError(t, provider+" on a node without it", call(t, e, nil, req{method: "POST", path: "/v1/auth/oauth/" + provider}),
				404, "NOT_FOUND", map[string]any{"provider": provider})
		}
	})
}

// TestOAuthAndMagicLinkMeetInOneAccount: a person who signed in by a mailed link
// and later with a provider vouching for the same verified address is one account,
// and the workspace their first OAuth sign-in made is theirs either way.
func TestOAuthAndMagicLinkMeetInOneAccount(t *testing.T) {
	t.Parallel()
	in := newInbox(t)
	f := fakeoauth.Start(t)
	f.SignInAs(fakeoauth.User{Subject: "5150", Email: "dana@example.com", Name: "Dana", Verified: true})
	e := nodetest.New(t, providers(f), mailTo(in.SMTP))
	byLink := signIn(t, e, in, "dana@example.com")
	r := oauthSignIn(t, e, browser(e, true), "github")
	byGitHub, _, _ := r.cookie(sessionCookie)
	if r.Status != 303 || r.Location != "/welcome" {
		t.Fatalf("first OAuth sign-in: %d to %q", r.Status, r.Location)
	}
	a, b := me(t, e, byLink).JSON(t), me(t, e, byGitHub).JSON(t)
	if a["id"] != b["id"] || a["tenantId"] == nil || a["tenantId"] != b["tenantId"] {
		t.Fatalf("by link %v, by GitHub %v: want one account with one workspace", a, b)
	}
	// Google vouching for the same address finds the same account too.
	r = oauthSignIn(t, e, browser(e, true), "google")
	byGoogle, _, _ := r.cookie(sessionCookie)
	if r.Status != 303 || r.Location != "/" || me(t, e, byGoogle).JSON(t)["id"] != a["id"] {
		t.Fatalf("Google sign-in of the same address: %d to %q", r.Status, r.Location)
	}
}

// TestFirstSignInMakesOneWorkspaceEvenFromManyBrowsersAtOnce: a new person whose
// sign-ins in several browsers come back at the same moment gets one workspace:
// exactly one of the browsers is welcomed with a new key, the others lead home.
// Six people with twelve browsers each sign in at once.
func TestFirstSignInMakesOneWorkspaceEvenFromManyBrowsersAtOnce(t *testing.T) {
	t.Parallel()
	f := fakeoauth.Start(t)
	e := nodetest.New(t, providers(f))
	const people, browsers = 6, 12
	type attempt struct {
		person int
		client *http.Client
		back   string
		reply  reply
	}
	var attempts []*attempt
	for p := range people {
		// Codes keep the account they were issued for.
		f.SignInAs(fakeoauth.User{Subject: strconv.Itoa(9000 + p), Email: "person" + strconv.Itoa(p) + "@example.com", Verified: true})
		for range browsers {
			a := &attempt{person: p, client: browser(e, true)}
			start := call(t, e, a.client, req{method: "POST", path: "/v1/auth/oauth/github"})
			a.back = backFrom(t, e, a.client, start.JSON(t)["url"].(string))
			attempts = append(attempts, a)
		}
	}
	var wg sync.WaitGroup
	for _, a := range attempts {
		wg.Go(func() { a.reply = call(t, e, a.client, req{method: "GET", path: a.back}) })
	}
	wg.Wait()
	welcomed := make([]int, people)
	tenants := make([]map[any]bool, people)
	for _, a := range attempts {
		if r := a.reply; r.Status != 303 || (r.Location != "/welcome" && r.Location != "/") {
			t.Fatalf("callback of person %d: %d to %q", a.person, r.Status, r.Location)
		}
		if a.reply.Location == "/welcome" {
			welcomed[a.person]++
		}
		w := call(t, e, a.client, req{method: "GET", path: "/welcome", accept: "text/html"})
		if key := liveKeyRE.FindString(string(w.Body)); key != "" {
			if tenants[a.person] == nil {
				tenants[a.person] = map[any]bool{}
			}
			tenants[a.person][must(t, e, 200, req{method: "GET", path: "/v1/tenant", bearer: key}).JSON(t)["tenant_id"]] = true
		}
	}
	for p := range people {
		if welcomed[p] != 1 || len(tenants[p]) != 1 {
			t.Errorf("person %d: %d of %d simultaneous first sign-ins were welcomed, %d workspaces made; want exactly 1",
				p, welcomed[p], browsers, len(tenants[p]))
		}
	}
}
