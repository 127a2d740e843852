package page

import (
	"time"

	"folio/persistence"
)

// Deadlines (docs/behaviour.md, "deadlines"). A page, and each step of its approval
// chain, may carry a deadline: a due time (due_at, or due_in seconds from when its
// clock starts), reminders (remind) and what happens when the due time passes
// (on_timeout: apply an action as the default outcome, or escalate to more people).
//
// A deadline's clock starts when the page is published (page-level deadlines and
// every step of a parallel chain) or when its step opens (a sequential step opens
// when the step before it completes). A clock runs only while the page is active and,
// for a step, while the step is open; whatever it has done is recorded in the
// deadline itself (RemindersSent, Overdue, Fired), committed with the events it
// caused, so a timer that fired is never fired again, on this node or another.
//
// Every active page with a running clock has exactly one row in the deadline index
// (deadlineKey): its next due time. The row is written in the commit that changes the
// page, like the expiry index, so it survives a crash and is re-read at start.

// Deadline is a due time with its reminders and timeout, and what it has done.
type Deadline struct {
	// DueAt is the due time given (or resolved from due_in on an active page);
	// DueIn counts seconds from the start of the clock when DueAt is nil.
	DueAt     *time.Time `json:"due_at,omitempty"`
	DueIn     int        `json:"due_in,omitempty"`
	Remind    *Remind    `json:"remind,omitempty"`
	OnTimeout *OnTimeout `json:"on_timeout,omitempty"`

	// RemindersSent counts the reminders sent; Overdue is set once the due time
	// passed (page.overdue emitted); Fired once on_timeout was carried out (or could
	// not be, see fireDue). An escalation with a new due time clears Overdue.
	RemindersSent int  `json:"reminders_sent,omitempty"`
	Overdue       bool `json:"overdue,omitempty"`
	Fired         bool `json:"fired,omitempty"`
}

// Remind asks for a reminder every EverySeconds from the start of the clock, at
// most Max times, to the people who still have to act.
type Remind struct {
	EverySeconds int `json:"every_seconds"`
	Max          int `json:"max"`
}

// OnTimeout is what happens when the due time passes: ActionID is applied as the
// default outcome (by "system", auth_method "timeout"), or EscalateTo become
// assignees too; an escalation gives a new due time only when DueAt/DueIn say so.
type OnTimeout struct {
	ActionID   string     `json:"action_id,omitempty"`
	EscalateTo []string   `json:"escalate_to,omitempty"`
	DueAt      *time.Time `json:"due_at,omitempty"`
	DueIn      int        `json:"due_in,omitempty"`
}

// due is the deadline's due time for a clock started at start (nil: not started).
func (d *Deadline) due(start *time.Time) (time.Time, bool) {
	switch {
	case d.DueAt != nil:
		return *d.DueAt, true
	case d.DueIn > 0 && start != nil:
		return start.Add(time.Duration(d.DueIn) * time.Second), true
	}
	return time.Time{}, false
}

// defaultPending reports whether the deadline's default outcome is still to apply.
func (d *Deadline) defaultPending() bool {
	return d.OnTimeout != nil && d.OnTimeout.ActionID != "" && !d.Fired
}

// clock is one running deadline of an active page: the page's (step -1) or an
// open step's, with the time it started.
type clock struct {
	step  int
	d     *Deadline
	start *time.Time
}

// next is the clock's next due time: the deadline (until it is overdue and its
// timeout carried out) or the next reminder, whichever comes first.
func (c clock) next() (time.Time, bool) {
	var at time.Time
	ok := false
	if due, has := c.d.due(c.start); has && (!c.d.Overdue || c.d.defaultPending()) {
		at, ok = due, true
	}
	if r, has := c.reminderAt(c.d.RemindersSent + 1); has && (!ok || r.Before(at)) {
		at, ok = r, true
	}
	return at, ok
}

// reminderAt is when reminder n (from 1) is due, if the clock asks for it.
func (c clock) reminderAt(n int) (time.Time, bool) {
	r := c.d.Remind
	if r == nil || c.start == nil || n > r.Max || r.EverySeconds <= 0 {
		return time.Time{}, false
	}
	return c.start.Add(time.Duration(n*r.EverySeconds) * time.Second), true
}

// clocks are the page's running deadlines: none unless the page is active; the
// page's own, and those of the chain's open steps.
func (p *Page) clocks() []clock {
	if p == nil || p.Status != Active {
		return nil
	}
	var out []clock
	if p.Deadline != nil {
		out = append(out, clock{step: -1, d: p.Deadline, start: p.PublishedAt})
	}
	if c := p.Approval; c != nil && c.Status == ChainInProgress {
		for _, i := range c.open() {
			if d := c.Steps[i].Deadline; d != nil {
				out = append(out, clock{step: i, d: d, start: c.opened(i, p.PublishedAt)})
			}
		}
	}
	return out
}

// open lists the steps taking decisions now: the current one in sequential mode,
// every pending one in parallel mode.
func (c *Chain) open() []int {
	if c.Status != ChainInProgress {
		return nil
	}
	if c.Mode != ModeParallel {
		if i := c.current(); i >= 0 {
			return []int{i}
		}
		return nil
	}
	var out []int
	for i, s := range c.Steps {
		if s.Status == StepPending {
			out = append(out, i)
		}
	}
	return out
}

// opened is when step i opened: at publication, or for a later sequential step
// when the step before it was decided.
func (c *Chain) opened(i int, published *time.Time) *time.Time {
	if c.Mode == ModeParallel || i == 0 {
		return published
	}
	if at := c.Steps[i-1].DecidedAt; at != nil {
		return at
	}
	return published
}

// nextTimer is the earliest due time of the page's running clocks.
func (p *Page) nextTimer() (time.Time, bool) {
	var at time.Time
	ok := false
	for _, c := range p.clocks() {
		if t, has := c.next(); has && (!ok || t.Before(at)) {
			at, ok = t, true
		}
	}
	return at, ok
}

// Overdue reports whether a running deadline of the page (its own or an open
// step's) has passed.
func (p *Page) Overdue(now time.Time) bool {
	for _, c := range p.clocks() {
		if due, ok := c.d.due(c.start); ok && !now.Before(due) {
			return true
		}
	}
	return false
}

// DueAt is the page's nearest running due time (its own or an open step's).
func (p *Page) DueAt() *time.Time {
	var at *time.Time
	for _, c := range p.clocks() {
		if due, ok := c.d.due(c.start); ok && (at == nil || due.Before(*at)) {
			t := due
			at = &t
		}
	}
	return at
}

// bucketDeadlines indexes active pages by their next timer: due(8) 0x00 pageId -> nil.
const bucketDeadlines = "deadline_due"

// deadlineKey is the page's row in the deadline index, nil when no clock runs.
func deadlineKey(p *Page) []byte {
	at, ok := p.nextTimer()
	if !ok {
		return nil
	}
	return persistence.DueKey(at, p.ID)
}

// writeDeadlineIndex moves the page's row in the deadline index from prev's to
// next's (inside the page's commit).
func writeDeadlineIndex(tx *persistence.Tx, prev, next *Page) error {
	var old []byte
	if prev != nil {
		old = deadlineKey(prev)
	}
	nw := deadlineKey(next)
	if string(old) == string(nw) {
		return nil
	}
	if old != nil {
		if err := tx.Delete(bucketDeadlines, old); err != nil {
			return err
		}
	}
	if nw != nil {
		return tx.Put(bucketDeadlines, nw, nil)
	}
	return nil
}

// DueDeadlines lists pages with a timer due at or before now (at most limit).
// err is a store that did not answer (nothing is due is no error).
func DueDeadlines(store *persistence.Store, now time.Time, limit int) ([]dueTimer, error) {
	var out []dueTimer
	err := store.View(func(tx *persistence.Tx) error {
		for _, o := range tx.Due(bucketDeadlines, now, limit) {
			out = append(out, dueTimer{PageID: o.ID, At: o.Time()})
		}
		return nil
	})
	return out, err
}
