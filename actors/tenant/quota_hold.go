package tenant

import (
	"context"
	"errors"
	"time"

	"folio/actors/model/fault"
	"folio/actors/model/ratelimit"
	"folio/actors/registry"
)

// Quotas holds room in tenants' monthly page quotas before pages are created: the
// caller's side of the ledger's reservations (quota.go). Both faces and every
// route that creates pages take their room here.
type Quotas struct {
	Enforce bool               // off: nothing is reserved, nothing refused
	Book    *Book              // the tenants' plans
	Tenants *registry.Registry // the tenant actors, which keep the ledgers
	Now     func() time.Time
}

// Hold is room reserved for pages about to be created; settle it once.
type Hold struct {
	tenants *registry.Registry
	tenant  string
	id      uint64 // 0: nothing reserved (limits off, test key, unlimited plan)
	pages   int
}

// Reserve holds room for n new pages in who's monthly quota. A full month is the
// 429 (quotaExceeded) with resets_at and retry_after (seconds until the UTC month
// turns) in its details, for the transports' Retry-After. Test keys and unlimited
// plans reserve nothing; a store that does not answer is that error (503), never
// "no quota".
func (q *Quotas) Reserve(ctx context.Context, who Principal, n int) (*Hold, error) {
	if q == nil || !q.Enforce || who.Test {
		return &Hold{}, nil
	}
	h := &Hold{tenants: q.Tenants, tenant: who.TenantID, pages: n}
	plan, found, err := q.Book.Limits(who.TenantID)
	if err != nil {
		return nil, err
	}
	if !found || plan.PagesPerMonth <= 0 {
		return h, nil
	}
	res, err := registry.Call[*Reservation](ctx, q.Tenants, who.TenantID, &Reserve{Pages: n, Limit: plan.PagesPerMonth})
	if err != nil {
		var fe *fault.Error
		if errors.As(err, &fe) && fe.Code == fault.RateLimited {
			now := q.Now().UTC()
			fe.Details["resets_at"] = nextMonth(now)
			fe.Details["retry_after"] = ratelimit.CeilSeconds(nextMonth(now).Sub(now))
		}
		return nil, err
	}
	h.id = res.ID
	return h, nil
}

// Settle ends the hold with the creation's outcome: nil means all pages were
// created; a domain refusal (*fault.Error) means none; anything else (a timeout)
// is unknown and counts as created until the ledger next re-reads the store.
func (h *Hold) Settle(err error) {
	if h == nil || h.id == 0 {
		return
	}
	var fe *fault.Error
	msg := &Release{ID: h.id, Known: err == nil || errors.As(err, &fe)}
	if err == nil {
		msg.Created = h.pages
	}
	h.tenants.Tell(h.tenant, msg)
	h.id = 0
}

// SettleUnknown ends the hold for a caller that cannot tell the outcome apart
// (workflows): counted as created until the ledger next re-reads the store.
func (h *Hold) SettleUnknown() { h.Settle(errUnknownOutcome) }

var errUnknownOutcome = errors.New("outcome unknown")
