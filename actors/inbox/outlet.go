package inbox

import (
	"time"

	"folio/actors/page"
	"folio/persistence"
)

// Outlet keeps the inbox entry, the dashboard counters and the quality window of
// every page in step with it: Stage runs inside the page's commit transaction. The
// previous state of the page as far as these care is the stored entry, so Stage is
// a pure function of the transaction (a retried batch reads it again) and works for
// pages created before the inbox existed (their first change files them).
type Outlet struct {
	// Bell, when set, is rung after each commit for the page's workspace and the
	// people its chain names (bell.go).
	Bell *Bell
}

// newOutlet makes the inbox outlet.
func newOutlet() *Outlet { return &Outlet{} }

var _ page.Outlet = (*Outlet)(nil)

var _ page.Reader = (*Outlet)(nil)

// Reads are the page's decision rows and its entry, which Stage reads first; for
// a page being created (its page.created event), which has neither yet, also the
// workspace's rows Stage then changes (the decision counters of decideReads, and
// prefetchTenantRows'), which are known without them: so a publish reads them in
// the page's one round trip of reads, not rounds of their own. In Stage's order.
func (o *Outlet) Reads(p *page.Page, events []page.Event) []persistence.Read {
	reads := []persistence.Read{{Bucket: bucketDecideRows, Key: []byte(p.ID)}}
	for _, e := range events {
		if e.Type == "page.created" { // nothing stored yet: the rows a new page adds to
			reads = append(reads, decideReads(p, nil, decideRowsOf(p))...)
			reads = append(reads, persistence.Read{Bucket: bucketEntries, Key: []byte(EntryID(p.ID))})
			return append(reads, tenantRows(nil, fromPage(p, nil))...)
		}
	}
	return append(reads, persistence.Read{Bucket: bucketEntries, Key: []byte(EntryID(p.ID))})
}

// Stage files the page's new state, and what it awaits (decide.go).
func (o *Outlet) Stage(tx *persistence.Tx, p *page.Page, _ []page.Event) error {
	if err := stageDecisions(tx, p); err != nil {
		return err
	}
	old := loadEntry(tx, EntryID(p.ID))
	next := fromPage(p, old)
	if old != nil && same(old, next) {
		return nil // nothing the inbox shows or counts changed (e.g. blocks appended)
	}
	prefetchTenantRows(tx, old, next)
	if err := putEntry(tx, next); err != nil {
		return err
	}
	if err := reindex(tx, old, next); err != nil {
		return err
	}
	if err := restat(tx, old, next); err != nil {
		return err
	}
	return requality(tx, old, next)
}

// prefetchTenantRows reads at once the workspace's rows the change may update:
// its range counters (reindex), its hour and all-time counters (restat) and its
// quality aggregate (requality), in the order those take them, so a shared store
// reads them in one round trip instead of up to eleven.
func prefetchTenantRows(tx *persistence.Tx, old, next *Entry) {
	tx.Prefetch(tenantRows(old, next)...)
}

// tenantRows are the workspace's rows a change from old (nil: new entry) to
// next updates, in the order reindex, restat and requality take them.
func tenantRows(old, next *Entry) []persistence.Read {
	gone, added := rangeChanges(old, next)
	reads := make([]persistence.Read, 0, len(gone)+len(added)+3)
	for _, ps := range [][][]byte{gone, added} {
		for _, p := range ps {
			if counted(p) {
				reads = append(reads, persistence.Read{Bucket: bucketCounts, Key: p})
			}
		}
	}
	reads = append(reads,
		persistence.Read{Bucket: bucketHours, Key: hourKey(next.TenantID, next.CreatedAt)},
		persistence.Read{Bucket: bucketAll, Key: []byte(next.TenantID)},
		persistence.Read{Bucket: bucketQuality, Key: []byte(next.TenantID)})
	return reads
}

// Committed rings the bell: every read comes straight from the committed rows, so
// a ring after the commit is all a reader needs.
func (o *Outlet) Committed(p *page.Page, _ []page.Event) { o.Bell.ringPage(p) }

// fromPage is the entry of p, keeping the reading state of old (unread, unstarred
// for a new entry).
func fromPage(p *page.Page, old *Entry) *Entry {
	e := &Entry{V: schemaV1, ID: EntryID(p.ID), TenantID: p.TenantID, PageID: p.ID, Title: p.Title,
		PageType: p.PageType, Priority: p.Priority, Status: Unread, PageStatus: p.Status, Decision: p.Decision, Livemode: p.Livemode,
		CreatedAt: p.CreatedAt.UTC(), ExpiresAt: utc(p.ExpiresAt), PublishedAt: utc(p.PublishedAt), CompletedAt: utc(p.CompletedAt), DueAt: utc(p.DueAt())}
	if x := p.LastExecution(); x != nil {
		e.ActionID, e.ActionLabel, e.Outcome = x.ActionID, x.ActionLabel, x.OutcomeOf()
		if e.ActionLabel == "" {
			e.ActionLabel = x.ActionID
		}
	}
	if old != nil {
		e.Status, e.Starred = old.Status, old.Starred
		e.CreatedAt = old.CreatedAt // the index keys hang on it
	}
	return e
}

// same tells whether two entries show and count the same.
func same(a, b *Entry) bool {
	return a.Title == b.Title && a.PageType == b.PageType && a.Priority == b.Priority &&
		a.Status == b.Status && a.Starred == b.Starred && a.PageStatus == b.PageStatus && a.Decision == b.Decision &&
		a.ActionID == b.ActionID && a.ActionLabel == b.ActionLabel && a.Outcome == b.Outcome &&
		a.Livemode == b.Livemode && a.TenantID == b.TenantID && a.CreatedAt.Equal(b.CreatedAt) &&
		sameTime(a.ExpiresAt, b.ExpiresAt) && sameTime(a.PublishedAt, b.PublishedAt) && sameTime(a.CompletedAt, b.CompletedAt) && sameTime(a.DueAt, b.DueAt)
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
