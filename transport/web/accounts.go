package web

import (
	"net/http"

	"folio/actors/page"
	"folio/actors/tenant"
	"folio/transport/credential"
)

// Accounts is what the pages for people ask of the API server's sign-in area,
// which keeps the state these flows share with the API's routes: the abuse limits
// of sign-in mails and claims and their mail queue, OAuth flows and the session
// cookie, the welcome key, the tenant's event stream. The rules they apply live
// below the transports (actors/people, actors/tenant); the node hands the API
// server in (its methods are these), so the pages import no sibling transport.
type Accounts interface {
	// ClaimTenant makes c's person the owner of the agent account the proof names.
	ClaimTenant(w http.ResponseWriter, r *http.Request, c credential.Credential, p tenant.ClaimProof) (tenant.Tenant, error)
	// TakeWelcomeKey is a first sign-in's new API key, exactly once.
	TakeWelcomeKey(sessionID string) (key, tenantID string, ok bool)
	// MemberEvents serves the tenant's event stream to a signed-in member.
	MemberEvents(w http.ResponseWriter, r *http.Request, tenantID, sessionID string) error
	// SignInByDecisionLink signs in the person a spent decision link proved.
	SignInByDecisionLink(w http.ResponseWriter, r *http.Request, email string) (page.Viewer, error)
	// Providers names the configured OAuth providers.
	Providers() []string
	// SendSignInLink checks a request for a sign-in link and queues its mail.
	SendSignInLink(w http.ResponseWriter, r *http.Request, email, pageID, redirect string) error
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
