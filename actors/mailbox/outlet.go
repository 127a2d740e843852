package mailbox

import (
	"time"

	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
)

// Teller delivers a message to the mailbox actor of a tenant.
type Teller interface {
	Tell(id string, msg any)
}

// Outlet is the page.Outlet of the agent mailbox: Stage appends the events to their
// tenant's log inside the page's commit transaction (assigning events[i].Seq);
// Committed tells the tenant's mailbox actor that they are durable.
type Outlet struct {
	Retention Retention
	Mailboxes Teller
	Listening *Listening // tenants to tell (nil: all); see Listening
}

// Stage implements page.Outlet.
func (o *Outlet) Stage(tx *persistence.Tx, _ *page.Page, events []page.Event) error {
	return stage(tx, o.Retention, events)
}

var _ page.Reader = (*Outlet)(nil)

// Reads are the log's counter rows of each workspace the events belong to, which
// Stage reads and writes (tally).
func (o *Outlet) Reads(_ *page.Page, events []page.Event) []persistence.Read {
	var reads []persistence.Read
	seen := map[string]bool{}
	for _, e := range events {
		if e.TenantID == "" || seen[e.TenantID] {
			continue
		}
		seen[e.TenantID] = true
		t := []byte(e.TenantID)
		reads = append(reads, persistence.Read{Bucket: bucketSeq, Key: t}, persistence.Read{Bucket: bucketPending, Key: t},
			page.StoredRead(e.TenantID, page.StoredEvents))
	}
	return reads
}

// Committed implements page.Outlet; it never blocks.
func (o *Outlet) Committed(_ *page.Page, events []page.Event) {
	if len(events) == 0 || o.Mailboxes == nil {
		return
	}
	byTenant := map[string][]page.Event{}
	for _, e := range events {
		byTenant[e.TenantID] = append(byTenant[e.TenantID], e)
	}
	for t, evs := range byTenant {
		if !o.Listening.Has(t) {
			continue
		}
		o.Mailboxes.Tell(t, &Committed{Events: evs})
	}
}

// RunRetention sweeps every tenant's log on a timer until stop closes.
func RunRetention(d *Deps, every time.Duration, stop <-chan struct{}) {
	registry.Every(every, stop, func() {
		if _, err := Sweep(d.Store, d.Retention, d.Now(), 1000); err != nil && d.Log != nil {
			d.Log.Error("mailbox: retention sweep", "err", err)
		}
	})
}
