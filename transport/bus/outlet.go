package bus

import (
	"os"

	"folio/actors/page"
	"folio/persistence"
)

// Subjects of the doorbells: one per page (its page and comment streams) and one per
// tenant (the agent stream and the dashboard's live inbox).
func pageSubject(pageID string) string     { return "folio.page." + pageID }
func tenantSubject(tenantID string) string { return "folio.tenant." + tenantID }

// Outlet rings the page's and the tenant's doorbells after every commit with the
// newest sequence number the commit gave its events (set by the mailbox outlet's
// Stage, which runs in the same transaction; events without one ring nothing).
type Outlet struct{ Bus *Bus }

// Stage implements page.Outlet: a doorbell has no durable row.
func (o Outlet) Stage(*persistence.Tx, *page.Page, []page.Event) error { return nil }

// Committed implements page.Outlet; it never blocks.
func (o Outlet) Committed(p *page.Page, events []page.Event) {
	var newest uint64
	for i := range events {
		newest = max(newest, events[i].Seq)
	}
	if newest == 0 {
		return
	}
	if o.Bus.die { // the fault the chaos test injects: committed, never rung
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			_ = self.Kill()
		}
		select {}
	}
	o.Bus.Ring(pageSubject(p.ID), newest)
	o.Bus.Ring(tenantSubject(p.TenantID), newest)
}
