package tenant

import (
	"fmt"
	"time"

	"folio/actors/model/fault"
	"folio/persistence"
)

// The monthly page quota is exact under concurrency: every creation of a live page
// first reserves room here, in the tenant's actor, which handles one message at a
// time, and settles the reservation once the creation is over.
//
// The actor keeps a ledger for the current UTC month:
//
//	used = base + settled + pending
//
// base is the committed count (the counter the page actor increments in each
// page's creation transaction) read at a quiet moment, when no reservation was in
// flight, so it holds exactly the creations that had finished; settled is what
// reservations settled since then actually created; pending is what reservations
// still in flight may create. A creation is thus counted once: in pending until it
// settles, in settled after. N parallel creations at 99 of 100 give exactly one
// success, and a failed creation gives its room back at once.
//
// A reservation whose outcome is unknown (the page did not answer in time; the
// caller could not tell) settles as created, and one never settled is dropped as
// created after staleAfter: both err on the side of refusing, and the next quiet
// moment re-reads base from bbolt, which puts the ledger right again.

// staleAfter drops reservations that were never settled (a handler that panicked).
const staleAfter = time.Minute

// Reserve asks for room for Pages new live pages in the current UTC month under
// Limit (0: unlimited). The reply is a *Reservation or a 429 *fault.Error whose
// details name the limit "pages_per_month".
type Reserve struct {
	Pages int
	Limit int
}

// Reservation answers Reserve; settle it with Release when the creation is over.
type Reservation struct {
	ID   uint64
	Used int // pages this month, committed and reserved, including this reservation
}

// Release settles a reservation (sent with Tell; no reply): Created pages were
// made; Known false means the outcome is unknown (counted as all created).
type Release struct {
	ID      uint64
	Created int
	Known   bool
}

// quotaExceeded is the 429 of a full month.
func quotaExceeded(limit, used int) *fault.Error {
	return fault.New(fault.RateLimited, fmt.Sprintf("the monthly page limit of %d pages is reached", limit),
		map[string]any{"limit": "pages_per_month", "pages_limit": limit, "pages_this_month": used})
}

// ledger is the actor's view of the month (see above).
type ledger struct {
	month   string
	base    int
	settled int
	pending map[uint64]pendingRes
	next    uint64
}

type pendingRes struct {
	pages int
	at    time.Time
}

func (a *Actor) reserve(m *Reserve) any {
	if m.Pages <= 0 {
		m.Pages = 1
	}
	now := a.deps.Now().UTC()
	l := &a.quota
	for id, p := range l.pending {
		if now.Sub(p.at) > staleAfter {
			delete(l.pending, id)
			l.settled += p.pages
		}
	}
	if month := now.Format("2006-01"); len(l.pending) == 0 || month != l.month {
		var committed int
		if err := a.deps.Store.View(func(tx *persistence.Tx) error {
			committed = PagesThisMonth(tx, a.id, now)
			return nil
		}); err != nil {
			return err
		}
		l.month, l.base, l.settled = month, committed, 0
	}
	used := l.base + l.settled
	for _, p := range l.pending {
		used += p.pages
	}
	if m.Limit > 0 && used+m.Pages > m.Limit {
		return quotaExceeded(m.Limit, min(used, m.Limit))
	}
	if l.pending == nil {
		l.pending = map[uint64]pendingRes{}
	}
	l.next++
	l.pending[l.next] = pendingRes{pages: m.Pages, at: now}
	return &Reservation{ID: l.next, Used: used + m.Pages}
}

func (a *Actor) release(m *Release) {
	l := &a.quota
	p, ok := l.pending[m.ID]
	if !ok {
		return
	}
	delete(l.pending, m.ID)
	created := p.pages
	if m.Known {
		created = min(max(m.Created, 0), p.pages)
	}
	l.settled += created
}
