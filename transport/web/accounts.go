package web

import (
	"net/http"

	"folio/actors/page"
	"folio/transport/credential"
)

// Accounts is what the pages for people ask of the API server: only what writes
// the session cookie (a sign-in by decision link, logging out) and the OAuth
// flow's cookie, the API's way. The rules are not here: the pages call them
// directly, as the API's routes do (Config.SignIn for signing in and claiming,
// Config.Admit for the anonymous budgets and the streams held open, Config.Feed
// for the tenant's event stream). The node hands the API server in (its methods
// are these), so the pages import no sibling transport.
type Accounts interface {
	// SignInByDecisionLink signs in the person a spent decision link proved.
	SignInByDecisionLink(w http.ResponseWriter, r *http.Request, email string) (page.Viewer, error)
	// Providers names the configured OAuth providers.
	Providers() []string
	// StartOAuth begins a sign-in with a provider: the address to send the browser to.
	StartOAuth(w http.ResponseWriter, r *http.Request, name, redirect string) (string, error)
	// Logout ends c's session and clears the cookie.
	Logout(w http.ResponseWriter, r *http.Request, c credential.Credential)
}
