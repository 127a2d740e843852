package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/ratelimit"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
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
	tenants   *ratelimit.Limiter // by tenant id, at the tenant's plan rate
	addresses *ratelimit.Limiter // unauthenticated requests by client address
	signups   *ratelimit.Limiter // registrations by client address
	people    *ratelimit.Limiter // requests of signed-in people, by person
}

// MountTenancy registers the area's routes (routes.go) and turns on its request
// guard.
func (s *Server) MountTenancy(d TenancyDeps) {
	if d.AnonPerMinute <= 0 {
		d.AnonPerMinute = 120
	}
	if d.RegisterPerMinute <= 0 {
		d.RegisterPerMinute = 10
	}
	if d.PersonPerMinute <= 0 {
		d.PersonPerMinute = 600
	}
	s.quotas = &tenant.Quotas{Enforce: d.Enforce, Book: d.Book, Tenants: s.tenants, Now: s.now}
	s.tenancy = &tenancy{TenancyDeps: d,
		tenants:   ratelimit.New(s.now, d.MaxBuckets),
		addresses: ratelimit.New(s.now, d.MaxBuckets),
		signups:   ratelimit.New(s.now, d.MaxBuckets),
		people:    ratelimit.New(s.now, d.MaxBuckets),
	}
	s.tenancyRoutes()
}

// SweepLimiters drops idle buckets (the area runs it periodically).
func (s *Server) SweepLimiters() {
	if t := s.tenancy; t != nil {
		t.tenants.Sweep()
		t.addresses.Sweep()
		t.signups.Sweep()
		t.people.Sweep()
	}
	s.admit.Sweep()
}

// unguarded routes: probes must answer whatever the load.
var unguarded = map[string]bool{"/healthz": true, "/metrics": true}

// guard wraps every route (see handle). With limits enforced, a request carrying a
// valid API key spends a token of its tenant's bucket (all the tenant's keys share
// it; the rate is its plan's; the lookup is kept for the request, request_memo.go);
// any other request spends a token of its client address's
// bucket. Every limited response carries RateLimit and RateLimit-Policy; a refused
// one is 429 RATE_LIMITED with Retry-After.
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
		if token, ok := bearer(r); ok && tenant.IsAPIKey(token) {
			who, ok, err := s.cred.Key(r, token)
			if err != nil {
				return err // the store did not answer: 503, never 401
			}
			if ok {
				plan, _, err := t.Book.Limits(who.TenantID)
				if err != nil {
					return err
				}
				if err := admit(w, plan.Name, "tenant", t.tenants.Take(who.TenantID, plan.RequestsPerMinute)); err != nil {
					return err
				}
				return h(w, r, ps)
			}
		}
		uid, err := s.personOf(r)
		if err != nil {
			return err
		}
		if uid != "" {
			// A signed-in person has a bucket of their own (people behind one
			// address do not share one), at the people's rate.
			if err := admit(w, "person", "person", t.people.Take(uid, t.PersonPerMinute)); err != nil {
				return err
			}
			return h(w, r, ps)
		}
		addr := s.ClientAddress(r)
		if register {
			if d := t.signups.Take(addr, t.RegisterPerMinute); !d.Allowed {
				return admit(w, "register", "address", d)
			}
		}
		if err := admit(w, "anonymous", "address", t.addresses.Take(addr, t.AnonPerMinute)); err != nil {
			return err
		}
		return h(w, r, ps)
	}
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

// admit writes the rate headers and, when the request is refused, returns the 429
// (ratelimit.Refusal).
func admit(w http.ResponseWriter, policy, scope string, d ratelimit.Decision) error {
	status.SetRateHeaders(w.Header(), policy, d)
	return ratelimit.Refusal(policy, scope, d)
}
