package httpapi

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"folio/actors/callback"
	"folio/actors/model/ratelimit"
	"folio/actors/people"
	"folio/transport/oauth"
)

// SignInDeps wire sign-in: mailed links, OAuth providers, claiming an agent's
// account (signin_*.go).
type SignInDeps struct {
	Mailer callback.Mailer
	// Providers by name ("github", "google"); one that is absent answers 404.
	Providers map[string]oauth.Provider
	// Abuse limits, each per Window (docs/behaviour.md): sign-in mails per e-mail
	// address and per client address (5 and 20), claim attempts per client address
	// and per person (10 each).
	LinksPerEmail, LinksPerClient    int
	ClaimsPerClient, ClaimsPerPerson int
	Window                           time.Duration
	// ClaimFailureBudget is the global budget of failed claim attempts per Window,
	// across all addresses (claim_budget.go; default 100).
	ClaimFailureBudget int
	// Claim mails at registration (owner_email) per recipient and per registering
	// client address, per RegisterMailWindow (3 and 10 per 24 hours): registration
	// is anonymous, so it must not become a way to mail anyone at will.
	RegisterMailsPerRecipient, RegisterMailsPerClient int
	RegisterMailWindow                                time.Duration
	// DefaultPlan is the plan of a workspace created at a first OAuth sign-in.
	DefaultPlan string
}

// signin is the mounted area.
type signin struct {
	*Server
	d      SignInDeps
	mails  chan mailJob       // sign-in and claim mails, sent in the background (signin_mail.go)
	links  *ratelimit.Limiter // by e-mail and by client address
	claims *ratelimit.Limiter // by person and by client address
	// regMails: claim mails at registration, by recipient and by client address.
	regMails *ratelimit.Limiter
	budget   *claimBudget // failed claims across every address
	welcome  welcomeKeys  // a first sign-in's new API key, until it is shown
}

// MountSignIn registers the sign-in routes (routes.go) and returns the loop that
// sends their mails (run it until stop closes).
func (s *Server) MountSignIn(d SignInDeps) (run func(stop <-chan struct{})) {
	if d.LinksPerEmail <= 0 {
		d.LinksPerEmail = 5
	}
	if d.LinksPerClient <= 0 {
		d.LinksPerClient = 20
	}
	if d.ClaimsPerClient <= 0 {
		d.ClaimsPerClient = 10
	}
	if d.ClaimsPerPerson <= 0 {
		d.ClaimsPerPerson = 10
	}
	if d.Window <= 0 {
		d.Window = 15 * time.Minute
	}
	if d.ClaimFailureBudget == 0 {
		d.ClaimFailureBudget = 100
	}
	if d.RegisterMailsPerRecipient <= 0 {
		d.RegisterMailsPerRecipient = 3
	}
	if d.RegisterMailsPerClient <= 0 {
		d.RegisterMailsPerClient = 10
	}
	if d.RegisterMailWindow <= 0 {
		d.RegisterMailWindow = 24 * time.Hour
	}
	si := &signin{Server: s, d: d, mails: make(chan mailJob, 1024),
		links: ratelimit.New(s.now, 0), claims: ratelimit.New(s.now, 0), regMails: ratelimit.New(s.now, 0),
		budget:  newClaimBudget(s.reg, s.now, d.ClaimFailureBudget, d.Window),
		welcome: welcomeKeys{m: map[string]welcome{}}}
	s.signin = si
	si.routes()
	return si.run
}

// startSession signs u in on this browser: any session the browser already had
// ends (a sign-in always yields a new token, so one planted beforehand is worth
// nothing), and the new one goes into the cookie.
func (si *signin) startSession(w http.ResponseWriter, r *http.Request, u people.User, method string) (people.Session, error) {
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

// welcomeKeys holds the API key of a workspace created at a first sign-in until
// the welcome page shows it (once), for at most welcomeTTL; it is never stored.
type welcomeKeys struct {
	mu sync.Mutex
	m  map[string]welcome // session id ->
}

type welcome struct {
	Key, TenantID string
	until         time.Time
}

const welcomeTTL = 10 * time.Minute

func (k *welcomeKeys) put(now time.Time, sessionID string, w welcome) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, e := range k.m {
		if now.After(e.until) {
			delete(k.m, id)
		}
	}
	w.until = now.Add(welcomeTTL)
	k.m[sessionID] = w
}

func (k *welcomeKeys) take(now time.Time, sessionID string) (welcome, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	w, ok := k.m[sessionID]
	delete(k.m, sessionID)
	return w, ok && now.Before(w.until)
}

// TakeWelcomeKey is the new API key of the workspace a session's first sign-in
// created, exactly once.
func (s *Server) TakeWelcomeKey(sessionID string) (key, tenantID string, ok bool) {
	if s.signin == nil {
		return "", "", false
	}
	w, ok := s.signin.welcome.take(s.now(), sessionID)
	return w.Key, w.TenantID, ok
}
