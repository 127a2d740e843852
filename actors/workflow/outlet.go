package workflow

import (
	"folio/actors/page"
	"folio/persistence"
)

// Outlet returns the page outlet that keeps workflow records in step with their pages.
func (s *Service) Outlet() page.Outlet { return outlet{s} }

type outlet struct{ s *Service }

// lifecycle reports whether an event changes a page's status.
func lifecycle(typ string) bool {
	switch typ {
	case "page.published", "page.completed", "page.revoked", "page.expired", "page.renewed":
		return true
	}
	return false
}

var _ page.Reader = outlet{}

// Reads are the page's workflow membership, which Stage reads first when the
// events change the page's lifecycle.
func (outlet) Reads(p *page.Page, events []page.Event) []persistence.Read {
	for i := range events {
		if lifecycle(events[i].Type) {
			return []persistence.Read{{Bucket: bucketMembers, Key: []byte(p.ID)}}
		}
	}
	return nil
}

// Stage runs inside the page's commit. For a member page whose status changed it
// records the new status, re-derives the workflow's status and, in a sequential
// workflow whose page just completed, stores the next draft as a pending step. It
// reads and writes only through tx, so running it again gives the same result.
func (o outlet) Stage(tx *persistence.Tx, p *page.Page, events []page.Event) error {
	var at *page.Event
	for i := range events {
		if lifecycle(events[i].Type) {
			at = &events[i]
		}
	}
	if at == nil {
		return nil
	}
	gid := tx.Get(bucketMembers, []byte(p.ID))
	if gid == nil {
		return nil
	}
	w, err := load(tx, string(gid))
	if err != nil || w == nil {
		return err
	}
	i := w.index(p.ID)
	if i < 0 {
		return nil
	}
	now := at.At.UTC()
	w.Steps[i].Status, w.Steps[i].ExpiresAt = p.Status, p.ExpiresAt
	if p.Status != page.Draft {
		// Published (by the pending step or by hand) or otherwise moved on.
		if err := tx.Delete(bucketPending, pendingKey(w.ID, p.ID)); err != nil {
			return err
		}
	}
	wasFinal := w.final()
	w.derive(now)
	w.UpdatedAt = now
	switch {
	case w.Status == Cancelled && !wasFinal:
		// No further step is published. The pending rows are written only here,
		// with the workflow record read (load, above) in the same transaction; on
		// PostgreSQL that read locks the record (persistence/postgres.go), so no
		// other commit adds or removes a pending row of w until this one commits,
		// and the scan at read committed sees them all though it locks none.
		var keys [][]byte
		tx.Scan(bucketPending, append([]byte(w.ID), 0), false, func(k, _ []byte) bool {
			keys = append(keys, append([]byte(nil), k...))
			return true
		})
		for _, k := range keys {
			if err := tx.Delete(bucketPending, k); err != nil {
				return err
			}
		}
	case w.Flow == Sequential && !w.final() && p.Status == page.Completed && i+1 < len(w.Steps) && w.Steps[i+1].Status == page.Draft:
		if err := tx.Put(bucketPending, pendingKey(w.ID, w.Steps[i+1].PageID), []byte(w.TenantID)); err != nil {
			return err
		}
	}
	return put(tx, w)
}

// Committed runs after a member page completed: it drives the workflow's pending
// steps (the next draft) by telling their page actors to publish. It reads the
// committed pending rows (a local read, no waiting on anyone) and only sends messages.
func (o outlet) Committed(p *page.Page, events []page.Event) {
	for _, e := range events {
		if e.Type == "page.completed" {
			o.s.drive(p.ID)
			return
		}
	}
}
