package page

import (
	"encoding/json"
	"time"

	"folio/persistence"
)

// Filter selects pages of one tenant for GET /v1/pages.
type Filter struct {
	Status   string
	PageType string
	// Triage keeps the pages in one state of the owner's triage (Triage*, the
	// dashboard's filters; "" keeps all).
	Triage string
	Limit  int
	Offset int
}

// The triage states a list can be filtered by (docs/behaviour.md, "triage"):
// waiting, active and awaiting a decision (overdue ones too); overdue, active past
// a running due time; decided, completed by any action; rejected, completed with
// the decision rejected.
const (
	TriageWaiting  = "waiting"
	TriageOverdue  = "overdue"
	TriageDecided  = "decided"
	TriageRejected = "rejected"
)

// InTriage tells whether p (its effective status already applied) is in the
// triage state t at now.
func InTriage(p *Page, t string, now time.Time) bool {
	switch t {
	case TriageWaiting:
		w := p.AwaitingDecision()
		return p.Status == Active && (w.Anyone || len(w.Assignees) > 0)
	case TriageOverdue:
		return p.Status == Active && p.Overdue(now)
	case TriageDecided:
		return p.Status == Completed
	case TriageRejected:
		return p.Status == Completed && p.Decision == DecisionRejected
	}
	return true
}

// List reads a tenant's pages newest first straight from the committed state (the
// actors commit before they answer, so nothing acknowledged is missing). Status is
// the effective one: an active page past its expiry time lists as expired.
func List(store *persistence.Store, tenantID string, f Filter, now time.Time) ([]*Page, int, error) {
	out := []*Page{}
	total := 0
	err := store.View(func(tx *persistence.Tx) error {
		prefix := append([]byte(tenantID), 0)
		var derr error
		filtered := f.Status != "" || f.PageType != "" || f.Triage != ""
		tx.Scan(bucketTenantPages, prefix, true, func(k, _ []byte) bool {
			o, ok := persistence.ParseOrdered(k, tenantID)
			if !ok {
				return true
			}
			id := []byte(o.ID)
			if !filtered && (total < f.Offset || len(out) >= f.Limit) {
				// Outside the requested window of an unfiltered list, a page only
				// counts, and its index entry is enough: a page and its entry are
				// written in one transaction (write, store.go) and neither is ever
				// deleted.
				total++
				return true
			}
			b := tx.Get(bucketPages, id)
			if b == nil {
				return true
			}
			p := &Page{}
			if derr = json.Unmarshal(b, p); derr != nil {
				return false
			}
			p.Status = EffectiveStatus(p, now)
			if (f.Status != "" && p.Status != f.Status) || (f.PageType != "" && p.PageType != f.PageType) || !InTriage(p, f.Triage, now) {
				return true
			}
			total++
			if total > f.Offset && len(out) < f.Limit {
				out = append(out, p)
			}
			return true
		})
		return derr
	})
	return out, total, err
}

// EffectiveStatus is the status a reader sees at now.
func EffectiveStatus(p *Page, now time.Time) string {
	if p.Status == Active && p.ExpiresAt != nil && !now.Before(*p.ExpiresAt) {
		return Expired
	}
	return p.Status
}
