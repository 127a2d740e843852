package httpapi

import (
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/people"
	"folio/transport/oauth"
)

// flowCookie binds an OAuth sign-in to the browser that started it: the callback
// must come with the same state in the query and in this cookie, so nobody can
// complete a sign-in they started in someone else's browser.
const flowCookie = "folio_oauth"

// oauthRedirect is where to send the browser to sign in with a provider.
type oauthRedirect struct {
	URL string `json:"url"`
}

// oauthStart is POST /v1/auth/oauth/:provider → {url}: where to send the browser.
// An optional body {redirectUrl} says where to land afterwards.
func (si *signinArea) oauthStart(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var req struct {
		RedirectURL string `json:"redirectUrl"`
	}
	if err := si.decode(w, r, &req, true); err != nil {
		return err
	}
	u, err := si.StartOAuth(w, r, ps.ByName("provider"), req.RedirectURL)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, oauthRedirect{URL: u})
	return nil
}

// StartOAuth begins a sign-in with a provider: a flow (state + PKCE verifier) kept
// server-side, its state in a cookie, and the provider's address to go to. A
// provider this node has not configured is 404.
func (s *Server) StartOAuth(w http.ResponseWriter, r *http.Request, name, redirect string) (string, error) {
	p, err := s.provider(name)
	if err != nil {
		return "", err
	}
	to, err := s.signin.d.Rules.SafeRedirect(redirect, "")
	if err != nil {
		return "", err
	}
	verifier := oauth.NewVerifier()
	state, err := s.people.StartFlow(people.Flow{Provider: p.Name(), Verifier: verifier, Redirect: to})
	if err != nil {
		return "", err
	}
	http.SetCookie(w, &http.Cookie{Name: flowCookie, Value: state, Path: "/v1/auth/oauth/", MaxAge: int(s.people.Lifetimes().Flow.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
	u := p.AuthURL(state, verifier)
	if u == "" { // the provider's discovery document could not be fetched
		return "", fault.New(fault.Unavailable, "sign-in with "+name+" is unavailable right now: its provider could not be reached", map[string]any{"provider": name})
	}
	return u, nil
}

func (s *Server) provider(name string) (oauth.Provider, error) {
	if s.signin != nil {
		if p, ok := s.signin.d.Providers[name]; ok {
			return p, nil
		}
	}
	return nil, fault.New(fault.NotFound, "sign-in with "+name+" is not configured on this server (set --"+name+"-client-id and --"+name+"-client-secret)",
		map[string]any{"provider": name})
}

// Providers names the configured OAuth providers (for the sign-in page's buttons).
func (s *Server) Providers() []string {
	var out []string
	for _, name := range []string{"github", "google"} {
		if _, err := s.provider(name); err == nil {
			out = append(out, name)
		}
	}
	return out
}

// oauthCallback is GET /v1/auth/oauth/:provider/callback: the provider sends the
// browser back with a code. The state must match the cookie and a live flow (used
// once); the code is exchanged with the flow's PKCE verifier for a verified
// e-mail. The person is signed in with a new session; one who belongs to no
// workspace yet gets one, with an API key the welcome page shows once. A failure
// leads to the sign-in page, which says what went wrong.
func (si *signinArea) oauthCallback(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	fail := func(problem string) error {
		http.Redirect(w, r, "/login?problem="+problem, http.StatusSeeOther)
		return nil
	}
	p, err := si.provider(ps.ByName("provider"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	state := q.Get("state")
	http.SetCookie(w, &http.Cookie{Name: flowCookie, Value: "", Path: "/v1/auth/oauth/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: si.secure(r)})
	c, cerr := r.Cookie(flowCookie)
	if cerr != nil || state == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(state)) != 1 {
		return fail("oauth_state")
	}
	flow, err := si.people.TakeFlow(state)
	if err != nil || flow.Provider != p.Name() {
		return fail("oauth_state")
	}
	if q.Get("error") != "" || q.Get("code") == "" {
		return fail("oauth_denied")
	}
	id, err := p.Identity(r.Context(), q.Get("code"), flow.Verifier)
	if err != nil {
		si.log.Info("oauth sign-in failed", slog.String("provider", p.Name()), slog.Any("err", err))
		if errors.Is(err, oauth.ErrNoVerifiedEmail) {
			return fail("oauth_email")
		}
		return fail("oauth_failed")
	}
	// The account's address is the one the provider vouches for now; an address
	// that is another account's signs nobody in (people.SignIn).
	u, _, err := si.people.SignIn(people.Proof{Email: id.Email, Name: id.Name, Provider: id.Provider, Subject: id.Subject})
	switch {
	case errors.Is(err, people.ErrAddressTaken):
		si.log.Info("oauth sign-in refused: the provider's address is another account's", slog.String("provider", p.Name()))
		return fail("oauth_address_taken")
	case errors.Is(err, people.ErrOtherSubject):
		si.log.Info("oauth sign-in refused: the address's account is linked to another subject", slog.String("provider", p.Name()))
		return fail("oauth_other_account")
	case err != nil:
		return err
	}
	sess, err := si.startSession(w, r, u, page.AuthOAuth)
	if err != nil {
		return err
	}
	to := flow.Redirect
	welcome, err := si.d.Rules.FirstWorkspace(r.Context(), u, sess.ID)
	if err != nil {
		return err
	}
	if welcome {
		to = "/welcome"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}
