package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/actors/tenant"
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
	// MaxBuckets bounds each limiter's memory (buckets kept).
	MaxBuckets int
	// AdminToken enables /v1/admin/*; empty leaves them unmounted.
	AdminToken string
}

// tenancy is the mounted area's state.
type tenancy struct {
	TenancyDeps
	tenants   *Limiter // by tenant id, at the tenant's plan rate
	addresses *Limiter // unauthenticated requests by client address
	signups   *Limiter // registrations by client address
}

// MountTenancy registers the area's routes and turns on its request guard.
func (s *Server) MountTenancy(d TenancyDeps) {
	if d.AnonPerMinute <= 0 {
		d.AnonPerMinute = 120
	}
	if d.RegisterPerMinute <= 0 {
		d.RegisterPerMinute = 10
	}
	s.tenancy = &tenancy{TenancyDeps: d,
		tenants:   NewLimiter(s.now, d.MaxBuckets),
		addresses: NewLimiter(s.now, d.MaxBuckets),
		signups:   NewLimiter(s.now, d.MaxBuckets),
	}
	s.Handle("GET", "/v1/inbox", s.requireKey(s.listInbox))
	s.Handle("PATCH", "/v1/inbox/:id/read", s.requireKey(s.readInbox))
	s.Handle("PATCH", "/v1/inbox/:id/star", s.requireKey(s.starInbox))
	s.Handle("DELETE", "/v1/inbox/:id", s.requireKey(s.archiveInbox))
	s.Handle("GET", "/v1/tenant/dashboard", s.requireKey(s.dashboard))
	s.Handle("GET", "/v1/quality-score", s.requireKey(s.qualityScore))
	if d.AdminToken != "" {
		s.mountAdmin()
	}
}

// SweepLimiters drops idle buckets (the area runs it periodically).
func (s *Server) SweepLimiters() {
	if t := s.tenancy; t != nil {
		t.tenants.Sweep()
		t.addresses.Sweep()
		t.signups.Sweep()
	}
}

type principalKey struct{}

// principalFrom is the principal the guard already authenticated, if any.
func principalFrom(r *http.Request) (tenant.Principal, bool) {
	who, ok := r.Context().Value(principalKey{}).(tenant.Principal)
	return who, ok
}

// unguarded routes: probes must answer whatever the load.
var unguarded = map[string]bool{"/healthz": true, "/metrics": true}

// guard wraps every route (see Handle). With limits enforced, a request carrying a
// valid API key spends a token of its tenant's bucket (all the tenant's keys share
// it; the rate is its plan's) and the principal is handed on so requireKey does not
// authenticate twice; any other request spends a token of its client address's
// bucket. Every limited response carries RateLimit and RateLimit-Policy; a refused
// one is 429 RATE_LIMITED with Retry-After.
func (s *Server) guard(path string, h httprouter.Handle) httprouter.Handle {
	if unguarded[path] {
		return h
	}
	register := path == "/v1/auth/agent/register"
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		t := s.tenancy
		if t == nil || !t.Enforce {
			h(w, r, ps)
			return
		}
		if token, ok := bearer(r); ok && tenant.IsAPIKey(token) {
			if who, ok := s.keys.Authenticate(token); ok {
				plan, _ := t.Book.Limits(who.TenantID)
				d := t.tenants.Take(who.TenantID, plan.RequestsPerMinute)
				if !s.admit(w, r, plan.Name, "tenant", d) {
					return
				}
				h(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, who)), ps)
				return
			}
		}
		addr := clientAddress(r)
		if register {
			if d := t.signups.Take(addr, t.RegisterPerMinute); !d.Allowed {
				s.admit(w, r, "register", "address", d)
				return
			}
		}
		if !s.admit(w, r, "anonymous", "address", t.addresses.Take(addr, t.AnonPerMinute)) {
			return
		}
		h(w, r, ps)
	}
}

// admit writes the rate headers and, when refused, the 429.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, policy, scope string, d Decision) bool {
	setRateHeaders(w.Header(), policy, d)
	if d.Allowed {
		return true
	}
	retry := ceilSeconds(d.RetryAfter)
	s.writeError(w, r, fault.New(fault.RateLimited, "too many requests: "+strconv.Itoa(d.Limit)+" per minute allowed; retry in "+strconv.Itoa(retry)+" s",
		map[string]any{"limit": "requests_per_minute", "requests_per_minute": d.Limit, "scope": scope, "policy": policy, "retry_after": retry}))
	return false
}

// pageQuota is a reservation of room in a tenant's monthly page quota.
type pageQuota struct {
	s      *Server
	tenant string
	id     uint64 // 0: nothing reserved (limits off, test key, unlimited plan)
	pages  int
}

// reserveQuota holds room for n new live pages in the tenant's monthly quota before
// they are created. It writes the 429 itself (Retry-After until the UTC month
// turns) and returns false; otherwise settle the reservation once the creation is
// over. Test keys and unlimited plans reserve nothing.
func (s *Server) reserveQuota(w http.ResponseWriter, r *http.Request, who tenant.Principal, n int) (*pageQuota, bool) {
	q := &pageQuota{s: s, tenant: who.TenantID, pages: n}
	t := s.tenancy
	if t == nil || !t.Enforce || who.Test {
		return q, true
	}
	plan, found := t.Book.Limits(who.TenantID)
	if !found || plan.PagesPerMonth <= 0 {
		return q, true
	}
	res, err := ask[*tenant.Reservation](s, s.tenants, who.TenantID, &tenant.Reserve{Pages: n, Limit: plan.PagesPerMonth})
	if err != nil {
		var fe *fault.Error
		if errors.As(err, &fe) && fe.Code == fault.RateLimited {
			now := s.now().UTC()
			wait := ceilSeconds(tenant.NextMonth(now).Sub(now))
			fe.Details["resets_at"] = tenant.NextMonth(now)
			fe.Details["retry_after"] = wait
			w.Header().Set("Retry-After", strconv.Itoa(wait))
		}
		s.writeError(w, r, err)
		return nil, false
	}
	q.id = res.ID
	return q, true
}

// settle ends the reservation with the creation's outcome: nil err means all pages
// were created; a domain refusal (*fault.Error) means none; anything else (a
// timeout) is unknown and counts as created until the ledger next re-reads bbolt.
func (q *pageQuota) settle(err error) {
	if q == nil || q.id == 0 {
		return
	}
	var fe *fault.Error
	msg := &tenant.Release{ID: q.id, Known: err == nil || errors.As(err, &fe)}
	if err == nil {
		msg.Created = q.pages
	}
	q.s.tenants.Tell(q.tenant, msg)
	q.id = 0
}

// reservePages is reserveQuota for callers that cannot tell the outcome apart
// (workflows): release settles it as unknown, i.e. counted as created until the
// tenant's ledger next re-reads the committed count (see actors/tenant/quota.go).
func (s *Server) reservePages(w http.ResponseWriter, r *http.Request, who tenant.Principal, n int) (release func(), ok bool) {
	q, ok := s.reserveQuota(w, r, who, n)
	if !ok {
		return nil, false
	}
	return func() { q.settle(errUnknownOutcome) }, true
}

var errUnknownOutcome = errors.New("outcome unknown")
