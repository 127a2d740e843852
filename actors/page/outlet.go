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

// Reader is an Outlet that names the records its Stage reads first, so that the
// commit prefetches them with the page's own in one round trip
// (persistence.Tx.Prefetch). Stage still reads them itself: Reads only makes those
// reads cheap, and naming a record Stage does not read costs a lock held to the
// commit, nothing more.
type Reader interface {
	Reads(p *Page, events []Event) []persistence.Read
}
