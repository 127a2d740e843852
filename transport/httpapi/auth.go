package httpapi

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/tenant"
)

// authed is a handler that runs only for a valid API key.
type authed func(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal)

// requireKey authenticates the bearer API key: missing or unknown (including a key
// deleted a moment ago) is 401 UNAUTHORIZED.
func (s *Server) requireKey(h authed) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		token, ok := bearer(r)
		if !ok {
			s.writeError(w, r, fault.New(fault.Unauthorized, "an API key is required: send Authorization: Bearer sk_live_…", nil))
			return
		}
		who, ok := principalFrom(r) // already authenticated by the rate-limit guard
		if !ok {
			who, ok = s.keys.Authenticate(token)
		}
		if !ok {
			s.writeError(w, r, fault.New(fault.Unauthorized, "the API key is invalid or was revoked", nil))
			return
		}
		h(w, r, ps, who)
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
	return page.Caller{TenantID: who.TenantID, Agent: who.Agent(), Test: who.Test}
}
