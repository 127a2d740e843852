package page

import "folio/persistence"

// Outlet is one consumer of a page's committed events: the agent mailbox, the
// callback outbox, the tenant inbox, workflows. Stage writes the outlet's durable rows
// inside the page's commit transaction (it may run more than once, so it must only
// write through tx and may set fields of events, such as Seq); Committed runs after
// the commit succeeded, on the page actor's goroutine, in commit order for that page,
// and must not block (it sends messages).
type Outlet interface {
	Stage(tx *persistence.Tx, p *Page, events []Event) error
	Committed(p *Page, events []Event)
}
