package httpapi

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/tenant"
)

// requireKey authenticates the bearer API key: missing or unknown (including a key
// deleted a moment ago) is 401 UNAUTHORIZED.
func (s *Server) requireKey(h authed) handler {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
		token, ok := bearer(r)
		if !ok {
			return fault.New(fault.Unauthorized, "an API key is required: send Authorization: Bearer sk_live_…", nil)
		}
		who, ok, err := s.authenticate(r, token) // the rate-limit guard's lookup, kept
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

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return "", false
	}
	t := strings.TrimSpace(h[7:])
	return t, t != ""
}

func callerOf(who tenant.Principal) page.Caller {
	return page.Caller{TenantID: who.TenantID, Agent: who.Agent(), Test: who.Test, Key: keyRef(who)}
}

// keyRef names the principal's key for what it records (a chain step decided by a
// key for a person says which key).
func keyRef(who tenant.Principal) *page.KeyRef {
	if who.KeyID == "" {
		return nil
	}
	return &page.KeyRef{ID: who.KeyID, Name: who.KeyName, Prefix: who.KeyPrefix}
}
