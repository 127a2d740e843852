package httpapi

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
	"time"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/tenant"
)

// SessionCookie holds a browser's session token: HttpOnly, SameSite=Lax, Secure when
// the service is reached over https.
const SessionCookie = "folio_session"

// CSRFHeader is where a script sends its session's CSRF token with a write
// authenticated by the cookie (the review page and the dashboard read it from
// <meta name="csrf-token">); a form sends it as the field "csrf".
const CSRFHeader = "X-CSRF-Token"

// Credential is what a request presents: an API key (Bearer sk_…), a session
// (Bearer sess_…, or the session cookie), or nothing. An invalid bearer credential
// is an error, never anonymous; an invalid cookie is ignored (it is cleared when a
// page is shown), so a stale cookie never locks anyone out of a public page.
type Credential struct {
	Key     *tenant.Principal
	Session *people.Session
	Token   string // the session token (for logout)
	Cookie  bool   // the session came from the cookie: writes must carry its CSRF token
	Tenants []string
}

// Viewer is the page.Viewer the credential speaks for.
func (c Credential) Viewer() page.Viewer {
	switch {
	case c.Key != nil:
		return page.Viewer{TenantID: c.Key.TenantID, Agent: c.Key.Agent(), KeyID: c.Key.KeyID, Key: keyRef(*c.Key)}
	case c.Session != nil:
		return page.Viewer{Person: c.Session.Email, Method: c.Session.Method, SessionID: c.Session.ID, Tenants: c.Tenants}
	}
	return page.Viewer{}
}

// CredentialOf reads the request's credential, resolved once per request however
// often it is asked (request_memo.go). w (may be nil) receives a refreshed cookie
// when a session's sliding lifetime was extended.
func (s *Server) CredentialOf(w http.ResponseWriter, r *http.Request) (Credential, error) {
	if token, ok := bearer(r); ok {
		if people.IsSessionToken(token) {
			sess, _, ok, err := s.session(r, token)
			if err != nil {
				return Credential{}, err // the store did not answer: 503, never 401
			}
			if !ok {
				return Credential{}, fault.New(fault.Unauthorized, "the session token is invalid, expired or ended", nil)
			}
			tenants, err := s.tenantsOf(r, sess.UserID)
			if err != nil {
				return Credential{}, err
			}
			return Credential{Session: &sess, Token: token, Tenants: tenants}, nil
		}
		who, ok, err := s.authenticate(r, token)
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
	sess, _, ok, err := s.session(r, c.Value)
	if err != nil {
		return Credential{}, err // the store did not answer: not signed out
	}
	if !ok {
		return Credential{}, nil
	}
	tenants, err := s.tenantsOf(r, sess.UserID)
	if err != nil {
		return Credential{}, err
	}
	if w != nil && slidCookie(r) {
		s.SetSessionCookie(w, r, c.Value, sess.ExpiresAt)
	}
	return Credential{Session: &sess, Token: c.Value, Cookie: true, Tenants: tenants}, nil
}

// viewerOf is who asks on a route open to people holding the page link: nobody, a
// key, or a session. A write authenticated by the session cookie must carry the
// session's CSRF token (checkCSRF).
func (s *Server) viewerOf(r *http.Request) (page.Viewer, error) {
	c, err := s.CredentialOf(nil, r)
	if err != nil {
		return page.Viewer{}, err
	}
	if err := checkCSRF(r, c, r.Header.Get(CSRFHeader)); err != nil {
		return page.Viewer{}, err
	}
	return c.Viewer(), nil
}

// checkCSRF refuses a cookie-authenticated write that does not prove it comes from
// one of this service's own pages: it must carry the session's CSRF token (given
// as sent, compared in constant time), and an Origin the browser names must be this
// host. A bearer credential is not sent by a browser on its own, so it needs
// neither; reads change nothing.
func checkCSRF(r *http.Request, c Credential, sent string) error {
	if !c.Cookie || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		if u, err := url.Parse(o); err != nil || !strings.EqualFold(u.Host, r.Host) {
			return fault.New(fault.Forbidden, "this request was sent from another site", map[string]any{"reason": "csrf", "origin": o})
		}
	}
	if sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(c.Session.CSRF)) != 1 {
		return fault.New(fault.Forbidden, "a write made with the session cookie must carry the page's CSRF token ("+CSRFHeader+")",
			map[string]any{"reason": "csrf"})
	}
	return nil
}

// CheckFormCSRF is checkCSRF for a form posted by one of the pages for people (the
// token is the form's "csrf" field).
func CheckFormCSRF(r *http.Request, c Credential) error {
	return checkCSRF(r, c, r.PostFormValue("csrf"))
}

// SetSessionCookie hands a browser its session.
func (s *Server) SetSessionCookie(w http.ResponseWriter, r *http.Request, token string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: token, Path: "/", Expires: expires,
		MaxAge: int(time.Until(expires).Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
}

// ClearSessionCookie makes the browser forget its session.
func (s *Server) ClearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
}

// secure tells whether cookies must be Secure: the service is reached over https
// (the connection is TLS, a trusted proxy says so in X-Forwarded-Proto, or the
// public addresses are https).
func (s *Server) secure(r *http.Request) bool {
	return r.TLS != nil || s.forwardedHTTPS(r) || strings.HasPrefix(s.urls.Base, "https://") || strings.HasPrefix(s.urls.App, "https://")
}

// AccountEmail is the verified address an account has now (it follows the
// identity provider: people.SignIn), for screens that list members by a record
// made when they joined. false when the account is not found or the store did not
// answer: the screen then shows the address recorded when they joined.
func (s *Server) AccountEmail(userID string) (string, bool) {
	u, ok, err := s.people.User(userID)
	return u.Email, ok && err == nil
}
