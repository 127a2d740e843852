package credential

import (
	"context"
	"net/http"
	"time"

	"folio/actors/model/fault"
	"folio/actors/people"
	"folio/actors/tenant"
	"folio/persistence"
)

// Resolver reads who a request is, once per request (memo.go).
type Resolver struct {
	Keys   *tenant.Keyring
	People *people.Directory
	Store  *persistence.Store
	// Refresh hands the browser its session again when the session's sliding
	// lifetime was extended (the API server's SetSessionCookie); nil: never.
	Refresh func(w http.ResponseWriter, r *http.Request, token string, expires time.Time)
}

// Of is the request's credential, resolved on the first call of the request and
// kept on its context for every later one (requests that did not come through
// WithMemo resolve it each time). w (may be nil) receives a refreshed cookie when
// a session's sliding lifetime was extended, once per request.
func (rs *Resolver) Of(w http.ResponseWriter, r *http.Request) (Credential, error) {
	m := memoOf(r)
	if !m.cred.done {
		m.cred.c, m.cred.err = rs.resolve(r)
		m.cred.done = true
		m.resolved++
	}
	c := m.cred
	if c.err == nil && c.c.Cookie && w != nil && rs.Refresh != nil && slidCookie(m) {
		rs.Refresh(w, r, c.c.Token, c.c.Session.ExpiresAt)
	}
	return c.c, c.err
}

// Resolutions is how many times this request's credential was resolved: 1 after
// any number of calls to Of on a request that came through WithMemo.
func Resolutions(ctx context.Context) int {
	if m, ok := ctx.Value(memoKey{}).(*memo); ok {
		return m.resolved
	}
	return 0
}

func (rs *Resolver) resolve(r *http.Request) (Credential, error) {
	if token, ok := Bearer(r); ok {
		if people.IsSessionToken(token) {
			sess, _, ok, err := rs.Session(r, token)
			if err != nil {
				return Credential{}, err // the store did not answer: 503, never 401
			}
			if !ok {
				return Credential{}, fault.New(fault.Unauthorized, "the session token is invalid, expired or ended", nil)
			}
			tenants, err := rs.tenantsOf(r, sess.UserID)
			if err != nil {
				return Credential{}, err
			}
			return Credential{Session: &sess, Token: token, Tenants: tenants}, nil
		}
		who, ok, err := rs.Key(r, token)
		if err != nil {
			return Credential{}, err // the store did not answer: 503, never 401
		}
		if !ok {
			return Credential{}, fault.New(fault.Unauthorized, "the API key is invalid or was revoked", nil)
		}
		return Credential{Key: &who}, nil
	}
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return Credential{}, nil
	}
	sess, _, ok, err := rs.Session(r, c.Value)
	if err != nil {
		return Credential{}, err // the store did not answer: not signed out
	}
	if !ok {
		return Credential{}, nil
	}
	tenants, err := rs.tenantsOf(r, sess.UserID)
	if err != nil {
		return Credential{}, err
	}
	return Credential{Session: &sess, Token: c.Value, Cookie: true, Tenants: tenants}, nil
}
