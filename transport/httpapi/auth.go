package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/tenant"
	"folio/transport/credential"
)

// requireKey authenticates the bearer API key: missing or unknown (including a key
// deleted a moment ago) is 401 UNAUTHORIZED.
func (s *Server) requireKey(h authed) handler {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
		token, ok := bearer(r)
		if !ok {
			return fault.New(fault.Unauthorized, "an API key is required: send Authorization: Bearer sk_live_…", nil)
		}
		who, ok, err := s.cred.Key(r, token) // the rate-limit guard's lookup, kept
		if err != nil {
			return err // the store did not answer: 503, never 401
		}
		if !ok && people.IsSessionToken(token) {
			return fault.New(fault.Unauthorized, "this route needs an API key (Bearer sk_live_…); a session token works on /v1/auth/*, the page routes open to people and the dashboard", nil)
		}
		if !ok {
			return fault.New(fault.Unauthorized, "the API key is invalid or was revoked", nil)
		}
		return h(w, r, ps, who)
	}
}

// bearer is the request's bearer token (credential.Bearer).
var bearer = credential.Bearer

func callerOf(who tenant.Principal) page.Caller {
	return page.Caller{TenantID: who.TenantID, Agent: who.Agent(), Test: who.Test, Key: keyRef(who)}
}

// keyRef names the principal's key for what it records (credential.KeyRef).
var keyRef = credential.KeyRef
