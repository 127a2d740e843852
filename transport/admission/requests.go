package admission

import (
	"time"

	"folio/actors/model/ratelimit"
)

// Requests are the API's request rates, per minute: a request with a valid API key
// spends its workspace's bucket at its plan's rate (all the workspace's keys share
// it); one of a signed-in person spends the person's (people behind one address
// share nothing); any other spends its client address's, and a registration also
// the address's registration bucket. The transport finds out who is calling; the
// rates are decided here.
type Requests struct {
	lim       RequestLimits
	tenants   *ratelimit.Limiter // by workspace, at its plan's rate
	people    *ratelimit.Limiter // by person
	addresses *ratelimit.Limiter // requests without a credential, by client address
	signups   *ratelimit.Limiter // registrations, by client address
}

// RequestLimits configure Requests; zero values take the defaults named.
type RequestLimits struct {
	AnonPerMinute     int // requests without a credential per client address (120)
	RegisterPerMinute int // registrations per client address, on top of that (10)
	PersonPerMinute   int // requests of one signed-in person (600)
	MaxBuckets        int // buckets each limiter keeps in memory at most
}

// Caller is who a request counts against, as the transport found it: the
// workspace of a valid API key and its plan's rate, else a signed-in person, else
// the client address.
type Caller struct {
	TenantID, Plan string
	PlanPerMinute  int
	Person         string
	Address        string
	Register       bool // POST /v1/auth/agent/register
}

// NewRequests builds the rates; now is their clock.
func NewRequests(l RequestLimits, now func() time.Time) *Requests {
	if l.AnonPerMinute <= 0 {
		l.AnonPerMinute = 120
	}
	if l.RegisterPerMinute <= 0 {
		l.RegisterPerMinute = 10
	}
	if l.PersonPerMinute <= 0 {
		l.PersonPerMinute = 600
	}
	return &Requests{lim: l, tenants: ratelimit.New(now, l.MaxBuckets), people: ratelimit.New(now, l.MaxBuckets),
		addresses: ratelimit.New(now, l.MaxBuckets), signups: ratelimit.New(now, l.MaxBuckets)}
}

// Take spends one request of c's bucket: the Rate to write as headers, and past
// it the 429 (ratelimit.Refusal). A registration past its own bucket is refused
// before it spends one of the address's requests.
func (q *Requests) Take(c Caller) (ratelimit.Rate, error) {
	switch {
	case c.TenantID != "":
		return answer(c.Plan, "tenant", q.tenants.Take(c.TenantID, c.PlanPerMinute))
	case c.Person != "":
		return answer("person", "person", q.people.Take(c.Person, q.lim.PersonPerMinute))
	}
	if c.Register {
		if d := q.signups.Take(c.Address, q.lim.RegisterPerMinute); !d.Allowed {
			return answer("register", "address", d)
		}
	}
	return answer("anonymous", "address", q.addresses.Take(c.Address, q.lim.AnonPerMinute))
}

func answer(policy, scope string, d ratelimit.Decision) (ratelimit.Rate, error) {
	return ratelimit.Rate{Policy: policy, Decision: d}, ratelimit.Refusal(policy, scope, d)
}

// Sweep drops idle buckets (the node runs it periodically).
func (q *Requests) Sweep() {
	q.tenants.Sweep()
	q.people.Sweep()
	q.addresses.Sweep()
	q.signups.Sweep()
}
