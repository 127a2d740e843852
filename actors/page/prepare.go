package page

import (
	"folio/actors/model/audit"
	"folio/actors/model/blocks"
	"folio/actors/model/ids"
	"folio/persistence"
)

// Prepared is a page built and validated but not stored yet. Create stores one through
// its actor; a workflow builds several and stages them all, with its own record, in
// ONE transaction (Stage), so either every page exists or none does.
type Prepared struct {
	Page     *Page
	Warnings []string
	entries  []audit.Entry
	events   []Event
}

// Prepare validates req as a new page id of c's tenant (a draft, or active when
// publish is set) and builds it with its audit entries and events. Errors are the
// same 400s as POST /v1/publish gives. It touches no storage.
func Prepare(d *Deps, id string, c Caller, req *Request, publish bool) (*Prepared, error) {
	now := d.Now().UTC()
	p := &Page{V: schemaV1, ID: id, TenantID: c.TenantID, Status: Draft, CreatedBy: c.Agent,
		Livemode: !c.Test, ShortCode: ids.Random(8), Version: 1, CreatedAt: now, UpdatedAt: now,
		Tags: []string{}, Blocks: []blocks.Block{}}
	warnings, err := apply(p, req, true, d.Limits, now)
	if err != nil {
		return nil, err
	}
	entries := []audit.Entry{audit.New("page.created", c.Agent, id, now, map[string]any{"title": p.Title, "status": Draft})}
	events := []Event{newEvent(id, p.TenantID, now, pageCreated{Status: Draft})}
	if publish {
		p.Status, p.PublishedAt = Active, &now
		if p.ExpiresAt == nil {
			exp := now.Add(d.DefaultTTL)
			p.ExpiresAt = &exp
		}
		entries = append(entries, audit.New("page.published", c.Agent, id, now, map[string]any{"expires_at": p.ExpiresAt}))
		events = append(events, newEvent(id, p.TenantID, now, pagePublished{Status: Active}))
	}
	return &Prepared{Page: p, Warnings: warnings, entries: entries, events: events}, nil
}

// Stage writes the new page inside tx exactly as its actor would commit it: the
// record, its indexes, usage, audit entries and every outlet's rows. The page's id
// must be fresh (no actor has it); after the commit, send Announce to its actor.
func (n *Prepared) Stage(d *Deps, tx *persistence.Tx) error {
	body, enc, err := encode(n.Page, n.entries, n.events)
	if err != nil {
		return err
	}
	return write(tx, d, 0, nil, n.Page, body, enc, n.events, nil)
}

// Announce returns the message that hands the staged page's events to its actor
// once the transaction is committed: the actor loads the page from storage and runs
// the outlets' Committed and the live fan-out on its own goroutine, before any later
// message for that page (send it before answering whoever created the page).
func (n *Prepared) Announce() *Announce {
	return &Announce{Caller: Caller{TenantID: n.Page.TenantID, Agent: n.Page.CreatedBy}, Events: n.events}
}

// Announce tells a page actor that its page was committed outside it (see Prepared).
type Announce struct {
	Caller
	Events []Event
}

func (m *Announce) run(a *Actor) any {
	a.publish(a.page, m.Events)
	return nil
}
