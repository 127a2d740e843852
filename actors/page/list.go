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
	Limit    int
	Offset   int
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
		filtered := f.Status != "" || f.PageType != ""
		tx.Scan(bucketTenantPages, prefix, true, func(k, _ []byte) bool {
			id := k[len(prefix)+9:]
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
			if (f.Status != "" && p.Status != f.Status) || (f.PageType != "" && p.PageType != f.PageType) {
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
