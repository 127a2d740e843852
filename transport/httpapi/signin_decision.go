package httpapi

import (
	"errors"
	"net/http"

	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/tenant"
)

// SignInByDecisionLink signs in the person whose address a confirmed decision
// link proved (actors/maillink; the link was mailed to that address and spent), as
// a magic link does: a new session in the cookie, recorded as magic_link (a link
// mailed to the address). It returns the viewer the decision is made as: that
// person, their workspaces, auth_method email_link.
func (s *Server) SignInByDecisionLink(w http.ResponseWriter, r *http.Request, email string) (page.Viewer, error) {
	if s.signin == nil {
		return page.Viewer{}, errors.New("sign-in is not mounted")
	}
	u, _, err := s.people.SignIn(people.Proof{Email: email})
	if err != nil {
		return page.Viewer{}, err
	}
	sess, err := s.signin.startSession(w, r, u, page.AuthMagicLink)
	if err != nil {
		return page.Viewer{}, err
	}
	tenants, err := tenant.TenantsOf(s.store, u.ID)
	if err != nil {
		return page.Viewer{}, err
	}
	return page.Viewer{Person: sess.Email, Method: page.AuthEmailLink, SessionID: sess.ID, Tenants: tenants}, nil
}
