package page

import (
	"errors"
	"strings"
	"time"

	"folio/actors/model/audit"
	"folio/actors/model/fault"
)

// How a default outcome is recorded: decided by SystemIdentity, auth_method
// AuthTimeout, reason "timeout" (audit, callback actor, agent stream, wait).
const (
	SystemIdentity = "system"
	AuthTimeout    = "timeout"
)

// maxFires bounds the timers one message fires (each is a commit); the rest fire on
// the next message, and RunDeadlines sends one while any is due.
const maxFires = 8

// Due tells a page actor that a timer of its page may be due (RunDeadlines). The
// actor fires whatever is due before it handles any message, so Due itself does
// nothing more.
type Due struct{}

// fireDue fires the page's due timers, earliest first, before the actor handles a
// message: like expiry, nobody acts on a page whose default outcome is due. A timer
// due at or after the page's expiry never fires (the page expires first). Each fire
// is one commit over the revision read, so a timer fires once even when two nodes
// hold the page: the loser finds the page changed, reloads it and finds the timer
// done.
func (a *Actor) fireDue() error {
	for i := 0; i < maxFires; i++ {
		p := a.page
		if p == nil || p.Status != Active {
			return nil
		}
		now := a.deps.Now().UTC()
		c, at, ok := earliestClock(p)
		if !ok || at.After(now) || (p.ExpiresAt != nil && !at.Before(*p.ExpiresAt)) {
			return nil
		}
		var err error
		if due, has := c.d.due(c.start); has && !now.Before(due) && (!c.d.Overdue || c.d.defaultPending()) {
			err = a.fireDeadline(c, due, now)
		} else {
			err = a.fireReminder(c, now)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// earliestClock is the running clock with the earliest next due time.
func earliestClock(p *Page) (clock, time.Time, bool) {
	var best clock
	var at time.Time
	ok := false
	for _, c := range p.clocks() {
		if t, has := c.next(); has && (!ok || t.Before(at)) {
			best, at, ok = c, t, true
		}
	}
	return best, at, ok
}

// setDeadline puts d as the deadline of the clock's page or step on next (a clone).
func setDeadline(next *Page, step int, d *Deadline) {
	if step < 0 {
		next.Deadline = d
		return
	}
	ch := next.Approval.clone()
	ch.Steps[step].Deadline = d
	next.Approval, next.ApprovalChain = ch, ch.viewJSON()
}

// stepID names the clock's step for events ("" for the page's own deadline).
func (p *Page) stepID(step int) string {
	if step < 0 {
		return ""
	}
	return p.Approval.Steps[step].StepID
}

// waitingOn are the people who still have to act on the clock's step (or, for the
// page's deadline, on every open step): assignees who have not decided. nil on a
// page without an approval chain, where nobody is named.
func (p *Page) waitingOn(step int) []string {
	c := p.Approval
	if c == nil || c.Status != ChainInProgress {
		return nil
	}
	steps := []int{step}
	if step < 0 {
		steps = c.open()
	}
	out := []string{}
	seen := map[string]bool{}
	for _, i := range steps {
		for _, id := range c.Steps[i].Assignees {
			if !hasDecided(c.Steps[i], id) && !seen[strings.ToLower(id)] {
				seen[strings.ToLower(id)] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// fireReminder sends the clock's next reminder. After a pause (the server was down)
// the reminders that fell due in it are one reminder, numbered as the latest of them.
func (a *Actor) fireReminder(c clock, now time.Time) error {
	p := a.page
	nd := *c.d
	n := nd.RemindersSent + 1
	if every := time.Duration(nd.Remind.EverySeconds) * time.Second; every > 0 {
		if k := int(now.Sub(*c.start) / every); k > n {
			n = k
		}
	}
	if n > nd.Remind.Max {
		n = nd.Remind.Max
	}
	nd.RemindersSent = n
	data := ApprovalReminderSent{StepID: p.stepID(c.step), Reminder: n, Max: nd.Remind.Max, Recipients: p.waitingOn(c.step)}
	if due, ok := c.d.due(c.start); ok {
		data.DueAt = &due
	}
	next := p.clone()
	setDeadline(next, c.step, &nd)
	details := map[string]any{"step_id": orNull(data.StepID), "reminder": n, "max": nd.Remind.Max, "recipients": data.Recipients, "reason": "timeout"}
	entry := audit.New("approval.reminder_sent", SystemIdentity, a.id, now, details)
	return a.apply(next, []audit.Entry{entry}, []Event{a.event(now, data)})
}

// fireDeadline handles a due time that passed: page.overdue (with the escalation,
// in the same commit), then the default outcome through the same path as a person's
// decision (run), recorded as decided by system with auth_method timeout. The two
// are separate commits; a crash between them leaves the default outcome pending
// (defaultPending), and it is applied at the next fire.
func (a *Actor) fireDeadline(c clock, due, now time.Time) error {
	if !c.d.Overdue {
		if err := a.markOverdue(c, due, now); err != nil {
			return err
		}
	}
	if a.page.Status != Active {
		return nil
	}
	var d *Deadline
	if c.step < 0 {
		d = a.page.Deadline
	} else if ch := a.page.Approval; ch != nil && ch.Steps[c.step].Status == StepPending {
		d = ch.Steps[c.step].Deadline
	}
	if d == nil || !d.defaultPending() {
		return nil
	}
	w := who{identity: SystemIdentity, method: AuthTimeout, audit: SystemIdentity, reason: "timeout", steps: []int{c.step}}
	if c.step < 0 && a.page.Approval != nil {
		w.steps = a.page.Approval.open()
	}
	res := a.run(d.OnTimeout.ActionID, &ActionRequest{}, w)
	err, failed := res.(error)
	if !failed {
		return nil
	}
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return err // the store: the next fire tries again
	}
	// The page refused the default outcome (its actions changed under it): record
	// that, so the timer does not fire again and again.
	nd := *d
	nd.Fired = true
	next := a.page.clone()
	setDeadline(next, c.step, &nd)
	entry := audit.New("approval.default_refused", SystemIdentity, a.id, now,
		map[string]any{"step_id": orNull(a.page.stepID(c.step)), "action_id": d.OnTimeout.ActionID, "code": fe.Code, "message": fe.Message, "reason": "timeout"})
	return a.apply(next, []audit.Entry{entry}, nil)
}

// markOverdue commits page.overdue for the clock, and its escalation if on_timeout
// escalates.
func (a *Actor) markOverdue(c clock, due, now time.Time) error {
	p := a.page
	nd := *c.d
	nd.Overdue = true
	data := pageOverdue{StepID: p.stepID(c.step), DueAt: due, OnTimeout: "none"}
	ot := nd.OnTimeout
	if ot != nil && !nd.Fired {
		if ot.ActionID != "" {
			data.OnTimeout, data.ActionID = "action", ot.ActionID
		} else {
			data.OnTimeout = "escalate"
		}
	}
	next := p.clone()
	details := map[string]any{"step_id": orNull(data.StepID), "due_at": due, "on_timeout": data.OnTimeout, "reason": "timeout"}
	entries := []audit.Entry{audit.New("page.overdue", SystemIdentity, a.id, now, details)}
	events := []Event{a.event(now, data)}
	if data.OnTimeout == "escalate" {
		nd.Fired = true
		esc := ApprovalEscalated{StepID: data.StepID, EscalateTo: ot.EscalateTo}
		if ot.DueAt != nil || ot.DueIn > 0 {
			at := now.Add(time.Duration(ot.DueIn) * time.Second)
			if ot.DueAt != nil {
				at = *ot.DueAt
			}
			nd.DueAt, nd.DueIn, nd.Overdue = &at, 0, false
			esc.DueAt = &at
		}
		esc.Assignees = escalate(next, c.step, ot.EscalateTo)
		next.UpdatedAt = now
		entries = append(entries, audit.New("approval.escalated", SystemIdentity, a.id, now,
			map[string]any{"step_id": orNull(esc.StepID), "escalate_to": esc.EscalateTo, "due_at": esc.DueAt, "reason": "timeout"}))
		events = append(events, a.event(now, esc))
	}
	setDeadline(next, c.step, &nd)
	return a.apply(next, entries, events)
}

// escalate adds people to next (a clone): as assignees of the step, or for the
// page's deadline of every open step; on a page without a chain, to the allowed
// identities of an authenticated page. It returns who can decide now.
func escalate(next *Page, step int, people []string) []string {
	if ch := next.Approval; ch != nil && ch.Status == ChainInProgress {
		ch = ch.clone()
		steps := []int{step}
		if step < 0 {
			steps = ch.open()
		}
		for _, i := range steps {
			for _, id := range people {
				if !assigned(ch.Steps[i], id) {
					ch.Steps[i].Assignees = append(ch.Steps[i].Assignees, id)
				}
			}
		}
		next.Approval, next.ApprovalChain = ch, ch.viewJSON()
		return next.waitingOn(step)
	}
	if next.Access.Mode == "authenticated" {
		for _, id := range people {
			if strings.Contains(id, "@") && !next.Access.Allows(id) {
				next.Access.AllowedIdentities = append(next.Access.AllowedIdentities, Identity{Type: "email", Value: id})
			}
		}
	}
	return append([]string{}, people...)
}

// decideFor records d on c for w: a person through decideAs; a default outcome
// (AuthTimeout) decides the steps its deadline covers (w.steps), whoever their
// assignees are.
func (c *Chain) decideFor(w who, d StepDecision) ([]int, error) {
	if w.method != AuthTimeout {
		return c.decideAs(d)
	}
	var done []int
	for _, i := range w.steps {
		if i < 0 || i >= len(c.Steps) || c.Steps[i].Status != StepPending {
			continue
		}
		s := &c.Steps[i]
		t := d.DecidedAt
		s.Decisions = append(s.Decisions, d)
		s.Status, s.Decision, s.DecidedBy, s.DecidedAt, s.AuthMethod = StepCompleted, d.Decision, d.Identity, &t, d.AuthMethod
		done = append(done, i)
	}
	if len(done) == 0 {
		return nil, fault.New(fault.Conflict, "the step the deadline covers is decided already", map[string]any{"status": Active})
	}
	c.settle(d.DecidedAt)
	return done, nil
}

// settle finishes the chain after steps completed: rejected by any rejection (the
// pending steps skipped), approved when no step is pending.
func (c *Chain) settle(at time.Time) {
	rejected, pending := false, 0
	for _, s := range c.Steps {
		rejected = rejected || (s.Status == StepCompleted && s.Decision == DecisionRejected)
		if s.Status == StepPending {
			pending++
		}
	}
	switch {
	case rejected:
		for i := range c.Steps {
			if c.Steps[i].Status == StepPending {
				c.Steps[i].Status = StepSkipped
			}
		}
		c.Status, c.CompletedAt = DecisionRejected, &at
	case pending == 0:
		c.Status, c.CompletedAt = DecisionApproved, &at
	}
}

// retell is how long RunDeadlines waits before telling a page of the same due row
// again: a page that could not fire it (the store did not answer, or the page was
// busy elsewhere) is asked again soon, and a slow page is not flooded.
const retell = time.Second

// dueTimer is a row of the deadline index: a page and its next timer.
type dueTimer struct {
	PageID string
	At     time.Time
}

// RunDeadlines watches the durable deadline index and tells each page whose timer
// has come (Due). Because the index lives in the store, timers that fell due while
// the server was down fire at the first tick after start, and a page fires what is
// due before handling any message, so nobody sees a page whose default outcome is
// due as waiting. On several nodes sharing the store each node tells its own page
// actor; the page's commit check lets one of them fire (fireDue).
func RunDeadlines(d *Deps, pages Teller, every time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	told := map[dueTimer]time.Time{} // recently told, so a slow page is not flooded
	for {
		now := d.Now()
		due, err := DueDeadlines(d.Store, now, 1000)
		if err != nil && d.Log != nil { // the next tick asks again
			d.Log.Warn("deadlines: the store did not answer", "err", err)
		}
		for _, tm := range due {
			if at, ok := told[tm]; ok && now.Sub(at) < retell {
				continue
			}
			told[tm] = now
			pages.Tell(tm.PageID, &Due{})
		}
		for tm, at := range told {
			if now.Sub(at) >= retell {
				delete(told, tm)
			}
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}
