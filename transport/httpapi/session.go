package httpapi

import (
	"net/http"
	"strings"
	"time"

	"folio/actors/page"
	"folio/transport/credential"
)

// SessionCookie and CSRFHeader are the credential's (transport/credential).
const (
	SessionCookie = credential.SessionCookie
	CSRFHeader    = credential.CSRFHeader
)

// Credential is what a request presents (transport/credential).
type Credential = credential.Credential

// CredentialOf is the request's credential, resolved once per request and kept on
// its context (transport/credential). w (may be nil) receives a refreshed cookie
// when a session's sliding lifetime was extended.
func (s *Server) CredentialOf(w http.ResponseWriter, r *http.Request) (Credential, error) {
	return s.cred.Of(w, r)
}

// Credentials is the resolver both faces read a request's credential from.
func (s *Server) Credentials() *credential.Resolver { return s.cred }

// viewerOf is who asks on a route open to people holding the page link: nobody, a
// key, or a session. A write authenticated by the session cookie must carry the
// session's CSRF token (credential.CheckCSRF).
func (s *Server) viewerOf(r *http.Request) (page.Viewer, error) {
	c, err := s.CredentialOf(nil, r)
	if err != nil {
		return page.Viewer{}, err
	}
	if err := credential.CheckCSRF(r, c, r.Header.Get(CSRFHeader)); err != nil {
		return page.Viewer{}, err
	}
	return c.Viewer(), nil
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
