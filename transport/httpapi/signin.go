package httpapi

import (
	"log/slog"
	"net/http"

	"folio/actors/people"
	"folio/actors/people/signin"
	"folio/transport/oauth"
)

// SignInDeps wire sign-in: the rules of mailed links and claims
// (actors/people/signin) and the OAuth providers (signin_*.go).
type SignInDeps struct {
	// Rules are the sign-in and claim rules, with their limits and mail queue.
	Rules *signin.Rules
	// Providers by name ("github", "google"); one that is absent answers 404.
	Providers map[string]oauth.Provider
}

// signinArea is the mounted area: HTTP only (bodies, cookies, redirects,
// answers); every rule is its Rules'.
type signinArea struct {
	*Server
	d SignInDeps
}

// MountSignIn registers the sign-in routes (routes.go).
func (s *Server) MountSignIn(d SignInDeps) {
	si := &signinArea{Server: s, d: d}
	s.signin = si
	si.routes()
}

// startSession signs u in on this browser: any session the browser already had
// ends (a sign-in always yields a new token, so one planted beforehand is worth
// nothing), and the new one goes into the cookie.
func (si *signinArea) startSession(w http.ResponseWriter, r *http.Request, u people.User, method string) (people.Session, error) {
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		si.people.EndSession(c.Value)
	}
	token, sess, err := si.people.StartSession(u, method)
	if err != nil {
		return people.Session{}, err
	}
	si.SetSessionCookie(w, r, token, sess.ExpiresAt)
	si.log.Info("signed in", slog.String("user", u.ID), slog.String("method", method), slog.String("session", sess.ID))
	return sess, nil
}
