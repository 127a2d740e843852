package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/transport/apitypes"
)

// me is GET /v1/auth/me: who the credential is. A session is a person
// ({type: "human"}, tenantId their first workspace, null when they have none); an
// API key answers for its agent ({type: "agent"}, email null).
func (si *signinArea) me(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	c, err := si.CredentialOf(w, r)
	if err != nil {
		return err
	}
	switch {
	case c.Session != nil:
		var tenantID apitypes.NullString
		if len(c.Tenants) > 0 {
			tenantID = apitypes.NullString(c.Tenants[0])
		}
		writeJSON(w, http.StatusOK, apitypes.Me{ID: c.Session.UserID, Email: apitypes.NullString(c.Session.Email), TenantID: tenantID, Type: "human"})
	case c.Key != nil:
		writeJSON(w, http.StatusOK, apitypes.Me{ID: c.Key.KeyID, TenantID: apitypes.NullString(c.Key.TenantID), Type: "agent"})
	default:
		return fault.New(fault.Unauthorized, "no credential: send a session token or an API key", nil)
	}
	return nil
}

// logout is POST /v1/auth/logout: the session ends at once (its next use is 401
// and every stream it opened is closed) and the cookie is cleared.
func (si *signinArea) logout(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	c, err := si.personOf(r)
	if err != nil {
		return err
	}
	si.Logout(w, r, c)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Logout ends c's session and clears the cookie.
func (s *Server) Logout(w http.ResponseWriter, r *http.Request, c Credential) {
	if c.Session != nil {
		s.people.EndSession(c.Token)
	}
	s.ClearSessionCookie(w, r)
}
