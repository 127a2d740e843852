package tenant

import (
	"bufio"
	"encoding/json"
	"io"
	"time"

	"folio/actors/model/audit"
	"folio/actors/model/fault"
	"folio/persistence"
)

// Operator functions. Each works on a store directly, so `folio admin` can run them
// on a stopped server's data directory; a running server runs the writing ones
// inside the tenant's actor (SetPlan, CreateKey), which serialises them with every
// other change to that tenant.

// SetPlan is an operator's change of a tenant's plan and limits. A nil limit means
// the plan's own; 0 means unlimited.
type SetPlan struct {
	Plan              string
	RequestsPerMinute *int
	PagesPerMonth     *int
}

// Summary is what an operator sees of a tenant.
type Summary struct {
	Tenant         Tenant
	Limits         Plan // effective limits
	PagesThisMonth int
	Keys           int
}

// ListTenants lists tenants in id order: offset/limit paging and the total.
func ListTenants(store *persistence.Store, offset, limit int) ([]Tenant, int, error) {
	out := []Tenant{}
	total := 0
	err := store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketTenants, nil, false, func(_, v []byte) bool {
			total++
			if total > offset && len(out) < limit {
				if t, ok := decodeTenant(v); ok {
					out = append(out, t)
				}
			}
			return true
		})
		return nil
	})
	return out, total, err
}

// Summarize reads one tenant with its effective limits, usage this month and key count.
func Summarize(store *persistence.Store, plans PlanSet, id string, now time.Time) (*Summary, error) {
	var s *Summary
	err := store.View(func(tx *persistence.Tx) error {
		t, ok := decodeTenant(tx.Get(bucketTenants, []byte(id)))
		if !ok {
			return fault.Missing("tenant", id)
		}
		s = &Summary{Tenant: t, Limits: plans.For(t), PagesThisMonth: PagesThisMonth(tx, id, now)}
		tx.Scan(bucketTenantKeys, append([]byte(id), 0), false, func(_, _ []byte) bool {
			s.Keys++
			return true
		})
		return nil
	})
	return s, err
}

// Validate checks a plan change against the node's plans (400s naming the field).
func (m *SetPlan) Validate(plans PlanSet) error {
	if _, ok := plans[m.Plan]; !ok {
		e := fault.Field("plan", "enum", "plan must be one of %v", plans.Names())
		e.Details["allowed"] = plans.Names()
		return e
	}
	for field, v := range map[string]*int{"requests_per_minute": m.RequestsPerMinute, "pages_per_month": m.PagesPerMonth} {
		if v != nil && (*v < 0 || *v > 1_000_000_000) {
			return fault.Field(field, "range", "%s must be between 0 (unlimited) and 1000000000", field)
		}
	}
	return nil
}

// ApplyPlan commits a validated plan change with its audit entry
// ("tenant.plan_changed", actor "admin") and returns the tenant as stored.
func ApplyPlan(store *persistence.Store, id string, m *SetPlan, now time.Time) (Tenant, error) {
	if ok, err := Exists(store, id); err != nil || !ok {
		return Tenant{}, orMissing(err, id)
	}
	var t Tenant
	err := store.UpdateOrdered(id, func(tx *persistence.Tx) error {
		// Read-modify-write inside the transaction: fields others change (claimed,
		// name) are kept as they are now.
		cur, ok := decodeTenant(tx.Get(bucketTenants, []byte(id)))
		if !ok {
			return fault.Missing("tenant", id)
		}
		prev := cur.Plan
		cur.Plan, cur.RequestsPerMinute, cur.PagesPerMonth = m.Plan, m.RequestsPerMinute, m.PagesPerMonth
		details := map[string]any{"plan": cur.Plan, "previous": prev}
		if cur.RequestsPerMinute != nil {
			details["requests_per_minute"] = *cur.RequestsPerMinute
		}
		if cur.PagesPerMonth != nil {
			details["pages_per_month"] = *cur.PagesPerMonth
		}
		if err := putJSON(tx, bucketTenants, []byte(id), cur); err != nil {
			return err
		}
		t = cur
		enc, err := audit.Encode(audit.New("tenant.plan_changed", "admin", "", now, details))
		if err != nil {
			return err
		}
		_, _, err = tx.AppendAudit(id, enc.JSON)
		return err
	})
	return t, err
}

// CreateKeyIn adds a key to an existing tenant; secret is the full key, shown once.
func CreateKeyIn(store *persistence.Store, tenantID, name string, test bool, now time.Time) (Key, string, error) {
	key, secret := newKey(tenantID, name, test, now.UTC())
	err := store.Update(func(tx *persistence.Tx) error {
		if tx.Get(bucketTenants, []byte(tenantID)) == nil {
			return fault.Missing("tenant", tenantID)
		}
		return putKey(tx, key)
	})
	return key, secret, err
}

// ExportAudit writes the tenant's audit chain oldest first as JSON lines: each line
// is the stored entry with its "sequence" and "chain_hash". It reads in chunks, each
// in its own read transaction, so a long chain never pins one transaction.
func ExportAudit(store *persistence.Store, tenantID string, w io.Writer) (int, error) {
	bw := bufio.NewWriter(w)
	n := 0
	const chunk = 1000
	for seq := uint64(1); ; {
		var lines [][]byte
		err := store.View(func(tx *persistence.Tx) error {
			for i := 0; i < chunk; i++ {
				rec, ok := tx.AuditRecordAt(tenantID, seq)
				if !ok {
					return nil
				}
				var e map[string]any
				if err := json.Unmarshal(rec.Entry, &e); err != nil {
					e = map[string]any{"raw": string(rec.Entry)}
				}
				e["sequence"], e["chain_hash"] = rec.Seq, rec.Hash
				b, err := json.Marshal(e)
				if err != nil {
					return err
				}
				lines = append(lines, b)
				seq++
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		for _, l := range lines {
			_, _ = bw.Write(l)
			_ = bw.WriteByte('\n')
		}
		n += len(lines)
		if len(lines) < chunk {
			return n, bw.Flush()
		}
	}
}

// Exists tells whether the tenant is stored; err is a store that did not answer.
func Exists(store *persistence.Store, id string) (bool, error) {
	_, ok, err := Load(store, id)
	return ok, err
}
