package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"folio/actors/model/fault"
)

// DeadlineLimits bound what a page request may ask of deadlines (flags
// --remind-min-interval, --remind-max, --escalate-max; zero: the defaults).
type DeadlineLimits struct {
	// RemindFloor is the shortest remind.every_seconds (60 s): reminders are mail
	// and chat messages to people.
	RemindFloor time.Duration
	// RemindMax bounds remind.max (10).
	RemindMax int
	// EscalateMax bounds on_timeout.escalate_to (10 identities).
	EscalateMax int
}

// DefaultDeadlineLimits are the documented defaults.
var DefaultDeadlineLimits = DeadlineLimits{RemindFloor: time.Minute, RemindMax: 10, EscalateMax: 10}

// maxDueIn bounds due_in: a year.
const maxDueIn = 366 * 24 * 3600

func (l DeadlineLimits) orDefault() DeadlineLimits {
	if l.RemindFloor <= 0 {
		l.RemindFloor = DefaultDeadlineLimits.RemindFloor
	}
	if l.RemindMax <= 0 {
		l.RemindMax = DefaultDeadlineLimits.RemindMax
	}
	if l.EscalateMax <= 0 {
		l.EscalateMax = DefaultDeadlineLimits.EscalateMax
	}
	return l
}

// deadlineFields are the deadline fields of a page request and of a chain step.
type deadlineFields struct {
	DueAt     json.RawMessage `json:"due_at"`
	DueIn     json.RawMessage `json:"due_in"`
	Remind    json.RawMessage `json:"remind"`
	OnTimeout json.RawMessage `json:"on_timeout"`
}

func (f deadlineFields) present() bool {
	return f.DueAt != nil || f.DueIn != nil || f.Remind != nil || f.OnTimeout != nil
}

func given(raw json.RawMessage) bool { return raw != nil && !isNull(raw) }

// setDeadlines validates the request's deadline fields, the page's and each chain
// step's, and sets them on p (a clone). A request naming any of due_at, due_in,
// remind or on_timeout replaces the page's deadline with what it names (all null:
// none). Whatever the request changes, every on_timeout.action_id must still name
// an action of the page.
func setDeadlines(p *Page, req *Request, lim Limits, now time.Time) ([]string, error) {
	dl := lim.Deadlines.orDefault()
	var warnings []string
	page := deadlineFields{DueAt: req.DueAt, DueIn: req.DueIn, Remind: req.Remind, OnTimeout: req.OnTimeout}
	if page.present() {
		d, err := checkDeadline("", page, p, dl, now)
		if err != nil {
			return nil, err
		}
		if d != nil && d.DueAt == nil && d.DueIn > 0 && p.Status == Active {
			at := now.Add(time.Duration(d.DueIn) * time.Second) // the clock started long ago
			d.DueAt = &at
		}
		p.Deadline = d
	}
	if given(req.ApprovalChain) && p.Approval != nil {
		var chain struct {
			Steps []deadlineFields `json:"steps"`
		}
		if err := fault.DecodeJSON("approval_chain", req.ApprovalChain, &chain); err != nil {
			return nil, err
		}
		for i, f := range chain.Steps {
			if i >= len(p.Approval.Steps) || !f.present() {
				continue
			}
			d, err := checkDeadline(fmt.Sprintf("approval_chain.steps[%d].", i), f, p, dl, now)
			if err != nil {
				return nil, err
			}
			p.Approval.Steps[i].Deadline = d
		}
		p.ApprovalChain = p.Approval.viewJSON()
	}
	if err := checkTimeoutActions(p); err != nil {
		return nil, err
	}
	if d := p.Deadline; d != nil && d.DueAt != nil && p.ExpiresAt != nil && !d.DueAt.Before(*p.ExpiresAt) {
		warnings = append(warnings, "due_at: the page expires before it falls due; the deadline never fires (set expires_at later)")
	}
	return warnings, nil
}

// checkDeadline validates one deadline's fields; at prefixes the field names
// ("" for the page's, "approval_chain.steps[i]." for a step's). nil: none asked.
func checkDeadline(at string, f deadlineFields, p *Page, lim DeadlineLimits, now time.Time) (*Deadline, error) {
	d := &Deadline{}
	var err error
	if d.DueAt, d.DueIn, err = checkDue(at, f.DueAt, f.DueIn, now); err != nil {
		return nil, err
	}
	if given(f.Remind) {
		var r struct {
			EverySeconds *int `json:"every_seconds"`
			Max          *int `json:"max"`
		}
		if !isObject(f.Remind) {
			return nil, fault.Field(at+"remind", "type", "%sremind must be an object {every_seconds, max}", at)
		}
		if err := fault.DecodeJSON(at+"remind", f.Remind, &r); err != nil {
			return nil, err
		}
		floor := int(lim.RemindFloor / time.Second)
		if r.EverySeconds == nil {
			return nil, fault.Field(at+"remind.every_seconds", "required", "%sremind.every_seconds is required: the seconds between reminders (at least %d)", at, floor)
		}
		if *r.EverySeconds < floor || *r.EverySeconds > maxDueIn {
			e := fault.Field(at+"remind.every_seconds", "range", "%sremind.every_seconds must be between %d and %d seconds", at, floor, maxDueIn)
			e.Details["minimum"], e.Details["maximum"] = floor, maxDueIn
			return nil, e
		}
		n := 1
		if r.Max != nil {
			n = *r.Max
		}
		if n < 1 || n > lim.RemindMax {
			e := fault.Field(at+"remind.max", "range", "%sremind.max must be between 1 and %d reminders", at, lim.RemindMax)
			e.Details["minimum"], e.Details["maximum"] = 1, lim.RemindMax
			return nil, e
		}
		d.Remind = &Remind{EverySeconds: *r.EverySeconds, Max: n}
	}
	if given(f.OnTimeout) {
		if d.DueAt == nil && d.DueIn == 0 {
			return nil, fault.Field(at+"on_timeout", "requires_due", "%son_timeout needs %sdue_at or %sdue_in: the time it fires", at, at, at)
		}
		ot, err := checkOnTimeout(at+"on_timeout", f.OnTimeout, p, lim, now)
		if err != nil {
			return nil, err
		}
		d.OnTimeout = ot
	}
	if d.DueAt == nil && d.DueIn == 0 && d.Remind == nil {
		return nil, nil
	}
	return d, nil
}

// checkDue reads a due time given as due_at (RFC 3339, in the future) or due_in
// (whole seconds, 1 to a year), never both.
func checkDue(at string, rawAt, rawIn json.RawMessage, now time.Time) (*time.Time, int, error) {
	if given(rawAt) && given(rawIn) {
		e := fault.Field(at+"due_in", "exclusive", "give %sdue_at or %sdue_in, not both", at, at)
		e.Details["conflicts_with"] = at + "due_at"
		return nil, 0, e
	}
	if given(rawAt) {
		var s string
		if err := fault.DecodeJSON(at+"due_at", rawAt, &s); err != nil {
			return nil, 0, err
		}
		t, err := futureTime(at+"due_at", s, now)
		if err != nil {
			if fe, ok := err.(*fault.Error); ok && fe.Details["constraint"] == "future" {
				fe.Message = fmt.Sprintf("%sdue_at %s is in the past; give a later time, or due_in in seconds", at, s)
			}
			return nil, 0, err
		}
		t = t.UTC()
		return &t, 0, nil
	}
	if given(rawIn) {
		var n json.Number
		dec := json.NewDecoder(bytes.NewReader(rawIn))
		dec.UseNumber()
		if err := dec.Decode(&n); err != nil {
			return nil, 0, fault.Field(at+"due_in", "type", "%sdue_in must be a whole number of seconds", at)
		}
		v, err := n.Int64()
		if err != nil || v < 1 || v > maxDueIn {
			e := fault.Field(at+"due_in", "range", "%sdue_in must be a whole number of seconds between 1 and %d", at, maxDueIn)
			e.Details["minimum"], e.Details["maximum"] = 1, maxDueIn
			return nil, 0, e
		}
		return nil, int(v), nil
	}
	return nil, 0, nil
}

// checkOnTimeout validates on_timeout: exactly one of action_id (an action of the
// page; on a page with an approval chain one that approves or rejects) and
// escalate_to (1 to EscalateMax identities, with an optional new due_at or due_in).
func checkOnTimeout(at string, raw json.RawMessage, p *Page, lim DeadlineLimits, now time.Time) (*OnTimeout, error) {
	if !isObject(raw) {
		return nil, fault.Field(at, "type", "%s must be an object: {action_id} or {escalate_to}", at)
	}
	var r struct {
		ActionID   *string         `json:"action_id"`
		EscalateTo []string        `json:"escalate_to"`
		DueAt      json.RawMessage `json:"due_at"`
		DueIn      json.RawMessage `json:"due_in"`
	}
	if err := fault.DecodeJSON(at, raw, &r); err != nil {
		return nil, err
	}
	hasAction, hasEscalate := r.ActionID != nil, r.EscalateTo != nil
	if hasAction == hasEscalate {
		e := fault.Field(at, "one_of", "%s needs exactly one of action_id (the default outcome) and escalate_to (more assignees)", at)
		e.Details["allowed"] = []string{"action_id", "escalate_to"}
		return nil, e
	}
	if hasAction {
		if given(r.DueAt) || given(r.DueIn) {
			return nil, fault.Field(at+".due_in", "escalation_only", "%s.due_at and %s.due_in give an escalation its new deadline; a default outcome has none", at, at)
		}
		act, ok := p.action(*r.ActionID)
		if !ok {
			e := fault.Field(at+".action_id", "known_action", "%s.action_id %q is not an action of the page; use one of its actions' action_id", at, *r.ActionID)
			e.Details["allowed"] = actionIDs(p)
			return nil, e
		}
		if p.Approval != nil && act.decision() == "" {
			return nil, fault.Field(at+".action_id", "decides", "%s.action_id %q neither approves nor rejects, so it cannot decide the approval chain; give an approve or reject action", at, *r.ActionID)
		}
		return &OnTimeout{ActionID: act.ActionID}, nil
	}
	if len(r.EscalateTo) == 0 || len(r.EscalateTo) > lim.EscalateMax {
		e := fault.Field(at+".escalate_to", "range", "%s.escalate_to needs 1 to %d identities", at, lim.EscalateMax)
		e.Details["minimum"], e.Details["maximum"] = 1, lim.EscalateMax
		return nil, e
	}
	ot := &OnTimeout{}
	seen := map[string]bool{}
	for i, id := range r.EscalateTo {
		id = strings.TrimSpace(id)
		if id == "" || len(id) > maxIdentityChars {
			return nil, fault.Field(fmt.Sprintf("%s.escalate_to[%d]", at, i), "format", "an identity is a non-empty e-mail address or name of at most %d characters", maxIdentityChars)
		}
		if seen[strings.ToLower(id)] {
			return nil, fault.Field(fmt.Sprintf("%s.escalate_to[%d]", at, i), "unique", "%q is listed twice", id)
		}
		seen[strings.ToLower(id)] = true
		ot.EscalateTo = append(ot.EscalateTo, id)
	}
	var err error
	if ot.DueAt, ot.DueIn, err = checkDue(at+".", r.DueAt, r.DueIn, now); err != nil {
		return nil, err
	}
	return ot, nil
}

// checkTimeoutActions keeps every default outcome pointing at an action of the
// page (a PATCH of actions must not leave one dangling).
func checkTimeoutActions(p *Page) error {
	check := func(at string, d *Deadline) error {
		if d == nil || d.OnTimeout == nil || d.OnTimeout.ActionID == "" {
			return nil
		}
		if _, ok := p.action(d.OnTimeout.ActionID); !ok {
			e := fault.Field(at+"on_timeout.action_id", "known_action", "%son_timeout.action_id %q is not an action of the page any more; change on_timeout or keep the action", at, d.OnTimeout.ActionID)
			e.Details["allowed"] = actionIDs(p)
			return e
		}
		return nil
	}
	if err := check("", p.Deadline); err != nil {
		return err
	}
	if p.Approval != nil {
		for i, s := range p.Approval.Steps {
			if err := check(fmt.Sprintf("approval_chain.steps[%d].", i), s.Deadline); err != nil {
				return err
			}
		}
	}
	return nil
}

func actionIDs(p *Page) []string {
	out := make([]string, len(p.Actions))
	for i, a := range p.Actions {
		out[i] = a.ActionID
	}
	return out
}
