package oauth

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"folio/transport/node/nodetest/fakeoauth"

	"golang.org/x/oauth2"
)

// redirectURL is registered with the fake; the test never follows the redirect to it.
const redirectURL = "http://127.0.0.1:9/auth/callback"

// providers are both providers, configured against one fake.
func providers(f *fakeoauth.Server) []Provider {
	return []Provider{
		NewGitHub(GitHubConfig{
			ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret, RedirectURL: redirectURL,
			AuthURL: f.GitHubAuthURL(), TokenURL: f.GitHubTokenURL(), APIURL: f.GitHubAPIURL(),
		}),
		NewGoogle(GoogleConfig{
			ClientID: fakeoauth.ClientID, ClientSecret: fakeoauth.ClientSecret, RedirectURL: redirectURL,
			Issuer: f.GoogleIssuer(),
		}),
	}
}

// authorize sends the browser to p.AuthURL and returns the code the provider sends
// back. The test fails unless the answer is a redirect to redirectURL carrying state
// unchanged.
func authorize(t *testing.T, p Provider, state, verifier string) string {
	t.Helper()
	u := p.AuthURL(state, verifier)
	if u == "" {
		t.Fatalf("%s: AuthURL is empty", p.Name())
	}
	browser := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := browser.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("%s: authorize answered %s", p.Name(), res.Status)
	}
	back, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Scheme + "://" + back.Host + back.Path; got != redirectURL {
		t.Fatalf("%s: redirected to %s, want %s", p.Name(), got, redirectURL)
	}
	if got := back.Query().Get("state"); got != state {
		t.Fatalf("%s: state came back as %q, want %q", p.Name(), got, state)
	}
	code := back.Query().Get("code")
	if code == "" {
		t.Fatalf("%s: no code in %s", p.Name(), back)
	}
	return code
}

// refused fails the test unless err is an error fit for a log: one that names none of
// the secrets of the sign-in.
func refused(t *testing.T, err error, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("Identity succeeded, want an error")
	}
	for _, s := range append(secrets, fakeoauth.ClientSecret) {
		if strings.Contains(err.Error(), s) {
			t.Fatalf("error %q reveals %q", err, s)
		}
	}
}

func TestSignInReturnsTheVerifiedIdentityLowerCased(t *testing.T) {
	f := fakeoauth.Start(t)
	f.SignInAs(fakeoauth.User{Subject: "4242", Email: "Octo.Cat@Example.COM", Name: "Octo Cat", Verified: true})
	for i, p := range providers(f) {
		verifier := NewVerifier()
		code := authorize(t, p, "state-"+p.Name(), verifier)

		q := f.LastAuthorize()
		if got, want := q.Get("code_challenge"), oauth2.S256ChallengeFromVerifier(verifier); got != want || q.Get("code_challenge_method") != "S256" {
			t.Errorf("%s: authorize got challenge %q (%s), want %q (S256)", p.Name(), got, q.Get("code_challenge_method"), want)
		}
		if strings.Contains(p.AuthURL("s", verifier), verifier) {
			t.Errorf("%s: AuthURL carries the verifier itself", p.Name())
		}

		id, err := p.Identity(t.Context(), code, verifier)
		if err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		want := Identity{Provider: p.Name(), Subject: "4242", Email: "octo.cat@example.com", Name: "Octo Cat"}
		if id != want {
			t.Errorf("%s: Identity = %+v, want %+v", p.Name(), id, want)
		}
		if got := f.Exchanges(); got != i+1 {
			t.Errorf("%s: %d exchanges, want %d", p.Name(), got, i+1)
		}
	}
}

func TestScopesAreTheLeastThatReadAVerifiedEmail(t *testing.T) {
	f := fakeoauth.Start(t)
	want := map[string]string{"github": "read:user user:email", "google": "openid email profile"}
	for _, p := range providers(f) {
		authorize(t, p, "s", NewVerifier())
		if got := f.LastAuthorize().Get("scope"); got != want[p.Name()] {
			t.Errorf("%s: scope %q, want %q", p.Name(), got, want[p.Name()])
		}
	}
}

func TestGoogleSendsANonceBoundToTheVerifier(t *testing.T) {
	f := fakeoauth.Start(t)
	g := providers(f)[1]
	verifier := NewVerifier()
	authorize(t, g, "s", verifier)
	if got := f.LastAuthorize().Get("nonce"); got == "" || got != nonceFor(verifier) || got == oauth2.S256ChallengeFromVerifier(verifier) {
		t.Fatalf("nonce %q, want nonceFor(verifier) = %q, distinct from the challenge", got, nonceFor(verifier))
	}
	if nonceFor(verifier) == nonceFor(NewVerifier()) {
		t.Fatal("two verifiers give one nonce")
	}
}

func TestStateRoundTripsUnchanged(t *testing.T) {
	f := fakeoauth.Start(t)
	for _, p := range providers(f) {
		for _, state := range []string{"plain", "a b&c=d/e?f#g%h+é", NewVerifier()} {
			authorize(t, p, state, NewVerifier()) // fails the test if state changed
		}
	}
}

func TestWrongVerifierIsRefused(t *testing.T) {
	f := fakeoauth.Start(t)
	for _, p := range providers(f) {
		verifier, wrong := NewVerifier(), NewVerifier()
		code := authorize(t, p, "s", verifier)
		_, err := p.Identity(t.Context(), code, wrong)
		refused(t, err, verifier, wrong, code)
	}
	if got := f.Exchanges(); got != 0 {
		t.Fatalf("%d exchanges succeeded, want 0", got)
	}
}

func TestCodeIsRedeemedOnce(t *testing.T) {
	f := fakeoauth.Start(t)
	for _, p := range providers(f) {
		verifier := NewVerifier()
		code := authorize(t, p, "s", verifier)
		if _, err := p.Identity(t.Context(), code, verifier); err != nil {
			t.Fatalf("%s: first use: %v", p.Name(), err)
		}
		_, err := p.Identity(t.Context(), code, verifier)
		refused(t, err, verifier, code)
	}
	if got := f.Exchanges(); got != 2 {
		t.Fatalf("%d exchanges succeeded, want 2 (one per provider)", got)
	}
}

func TestCodeOfOneProviderIsRefusedByTheOther(t *testing.T) {
	f := fakeoauth.Start(t)
	ps := providers(f)
	verifier := NewVerifier()
	code := authorize(t, ps[0], "s", verifier)
	authorize(t, ps[1], "s", NewVerifier()) // discovery, so the refusal is the code's
	_, err := ps[1].Identity(t.Context(), code, verifier)
	refused(t, err, verifier, code)
}

func TestUnverifiedEmailIsErrNoVerifiedEmail(t *testing.T) {
	f := fakeoauth.Start(t)
	f.SignInAs(fakeoauth.User{Subject: "77", Email: "new@example.com", Name: "New", Verified: false})
	for _, p := range providers(f) {
		verifier := NewVerifier()
		code := authorize(t, p, "s", verifier)
		_, err := p.Identity(t.Context(), code, verifier)
		if !errors.Is(err, ErrNoVerifiedEmail) {
			t.Errorf("%s: Identity error %v, want ErrNoVerifiedEmail", p.Name(), err)
		}
	}
}

func TestGitHubTakesThePrimaryVerifiedEmailElseAnyVerified(t *testing.T) {
	got, ok := verifiedEmail([]gitHubEmail{
		{Email: "old@example.com", Verified: true},
		{Email: "main@example.com", Primary: true, Verified: true},
	})
	if !ok || got != "main@example.com" {
		t.Errorf("primary verified: got %q, %v", got, ok)
	}
	got, ok = verifiedEmail([]gitHubEmail{
		{Email: "main@example.com", Primary: true},
		{Email: "other@example.com", Verified: true},
	})
	if !ok || got != "other@example.com" {
		t.Errorf("primary unverified: got %q, %v", got, ok)
	}
	if got, ok = verifiedEmail([]gitHubEmail{{Email: "main@example.com", Primary: true}}); ok {
		t.Errorf("none verified: got %q", got)
	}
}
