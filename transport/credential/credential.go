// Package credential is who a request is: an API key, a person's session, or
// nobody. Both HTTP faces (the API in transport/httpapi, the pages for people in
// transport/web) read it from here, resolved once per request and kept on the
// request's context, so every guard, handler and face of one request sees the
// same answer and the store is asked once.
package credential

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"

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
		return page.Viewer{TenantID: c.Key.TenantID, Agent: c.Key.Agent(), KeyID: c.Key.KeyID, Key: KeyRef(*c.Key)}
	case c.Session != nil:
		return page.Viewer{Person: c.Session.Email, Method: c.Session.Method, SessionID: c.Session.ID, Tenants: c.Tenants}
	}
	return page.Viewer{}
}

// KeyRef names the principal's key for what it records (a chain step decided by a
// key for a person says which key).
func KeyRef(who tenant.Principal) *page.KeyRef {
	if who.KeyID == "" {
		return nil
	}
	return &page.KeyRef{ID: who.KeyID, Name: who.KeyName, Prefix: who.KeyPrefix}
}

// Bearer is the request's bearer token, if it sends one.
func Bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return "", false
	}
	t := strings.TrimSpace(h[7:])
	return t, t != ""
}

// CheckCSRF refuses a cookie-authenticated write that does not prove it comes from
// one of this service's own pages: it must carry the session's CSRF token (given
// as sent, compared in constant time), and an Origin the browser names must be this
// host. A bearer credential is not sent by a browser on its own, so it needs
// neither; reads change nothing.
func CheckCSRF(r *http.Request, c Credential, sent string) error {
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

// CheckForm is CheckCSRF for a form posted by one of the pages for people (the
// token is the form's "csrf" field).
func CheckForm(r *http.Request, c Credential) error {
	return CheckCSRF(r, c, r.PostFormValue("csrf"))
}
