package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/admission"
	"folio/transport/status"
)

// TenancyDeps wire the tenancy area: inbox, tenant metrics, plans, rate limits,
// quotas and the operator endpoints.
type TenancyDeps struct {
	Inbox *registry.Registry // one InboxActor per tenant
	Book  *tenant.Book       // effective plan limits per tenant
	// Enforce turns on request rates (per tenant and per client address) and the
	// monthly page quota. Usage is counted either way.
	Enforce bool
	// AnonPerMinute limits unauthenticated requests per client address (register,
	// magic links, viewer, public reads); RegisterPerMinute limits registrations
	// per client address on top of that.
	AnonPerMinute     int
	RegisterPerMinute int
	// PersonPerMinute limits the requests of one signed-in person (600).
	PersonPerMinute int
	// MaxBuckets bounds each limiter's memory (buckets kept).
	MaxBuckets int
	// AdminToken enables /v1/admin/*; empty leaves them unmounted.
	AdminToken string
}

// tenancy is the mounted area's state.
type tenancy struct {
	TenancyDeps
	requests *admission.Requests
}

// MountTenancy registers the area's routes (routes.go) and turns on its request
// guard.
func (s *Server) MountTenancy(d TenancyDeps) {
	s.quotas = &tenant.Quotas{Enforce: d.Enforce, Book: d.Book, Tenants: s.tenants, Now: s.now}
	s.tenancy = &tenancy{TenancyDeps: d, requests: admission.NewRequests(admission.RequestLimits{AnonPerMinute: d.AnonPerMinute,
		RegisterPerMinute: d.RegisterPerMinute, PersonPerMinute: d.PersonPerMinute, MaxBuckets: d.MaxBuckets}, s.now)}
	s.tenancyRoutes()
}

// SweepLimiters drops idle buckets (the area runs it periodically).
func (s *Server) SweepLimiters() {
	if t := s.tenancy; t != nil {
		t.requests.Sweep()
	}
	s.admit.Sweep()
}

// unguarded routes: probes must answer whatever the load.
var unguarded = map[string]bool{"/healthz": true, "/metrics": true}

// guard wraps every route (see handle). With limits enforced, it finds who a
// request counts against (a valid API key's workspace and plan, the lookup kept
// for the request, request_memo.go; else a signed-in person; else the client
// address) and spends a request of their rate (admission.Requests). Every limited
// response carries RateLimit and RateLimit-Policy; a refused one is 429
// RATE_LIMITED with Retry-After.
func (s *Server) guard(path string, h handler) handler {
	if unguarded[path] {
		return h
	}
	register := path == "/v1/auth/agent/register"
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
		t := s.tenancy
		if t == nil || !t.Enforce {
			return h(w, r, ps)
		}
		c, err := s.callerOf(r)
		if err != nil {
			return err // the store did not answer: 503, never 401
		}
		c.Register = register
		rate, err := t.requests.Take(c)
		status.SetRate(w.Header(), rate, err)
		if err != nil {
			return err
		}
		return h(w, r, ps)
	}
}

// callerOf is who r counts against: the workspace of a valid API key with its
// plan, else the person of a live session, else the client address. err is a
// store that did not answer.
func (s *Server) callerOf(r *http.Request) (admission.Caller, error) {
	if token, ok := bearer(r); ok && tenant.IsAPIKey(token) {
		who, ok, err := s.cred.Key(r, token)
		if err != nil {
			return admission.Caller{}, err
		}
		if ok {
			plan, _, err := s.tenancy.Book.Limits(who.TenantID)
			if err != nil {
				return admission.Caller{}, err
			}
			return admission.Caller{TenantID: who.TenantID, Plan: plan.Name, PlanPerMinute: plan.RequestsPerMinute}, nil
		}
	}
	uid, err := s.personOf(r)
	if err != nil || uid != "" {
		return admission.Caller{Person: uid}, err
	}
	return admission.Caller{Address: s.ClientAddress(r)}, nil
}

// personOf is the user id of a request's live session (bearer or cookie), "" when
// there is none; err is a store that did not answer.
func (s *Server) personOf(r *http.Request) (string, error) {
	token, ok := bearer(r)
	if !ok {
		c, err := r.Cookie(SessionCookie)
		if err != nil {
			return "", nil
		}
		token = c.Value
	}
	if !people.IsSessionToken(token) {
		return "", nil
	}
	sess, _, ok, err := s.cred.Session(r, token)
	if err != nil || !ok {
		return "", err
	}
	return sess.UserID, nil
}
