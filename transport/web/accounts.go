package web

import (
	"net/http"

	"folio/actors/page"
	"folio/transport/credential"
)

// Accounts is what the pages for people ask of the API server, for what writes
// HTTP the API's way: the session cookie (a sign-in by decision link, logging
// out), the OAuth flow's cookie, the tenant's event stream and the streams held
// open, the anonymous comment budget. The rules of signing in and claiming are
// not here: the pages call them directly (Config.SignIn, actors/people/signin), as
// the API's routes do. The node hands the API server in (its methods are these),
// so the pages import no sibling transport.
type Accounts interface {
	// MemberEvents serves the tenant's event stream to a signed-in member.
	MemberEvents(w http.ResponseWriter, r *http.Request, tenantID, sessionID string) error
	// SignInByDecisionLink signs in the person a spent decision link proved.
	SignInByDecisionLink(w http.ResponseWriter, r *http.Request, email string) (page.Viewer, error)
	// Providers names the configured OAuth providers.
	Providers() []string
	// StartOAuth begins a sign-in with a provider: the address to send the browser to.
	StartOAuth(w http.ResponseWriter, r *http.Request, name, redirect string) (string, error)
	// Logout ends c's session and clears the cookie.
	Logout(w http.ResponseWriter, r *http.Request, c credential.Credential)
	// AdmitAnonComment counts a comment by someone neither signed in nor holding a
	// key against the anonymous budgets the API's comment route uses (429 past them).
	AdmitAnonComment(w http.ResponseWriter, r *http.Request, v page.Viewer) error
	// HoldPersonStream takes the place of a signed-in person's own stream among
	// their session's open streams; ended runs when the session ends.
	HoldPersonStream(w http.ResponseWriter, r *http.Request, sessionID string, ended func()) (release func(), err error)
}
