package web

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"folio/actors/callback"
	"folio/actors/page"
)

// What the review page shows once a decision is made (or a person's own step of an
// approval chain is): the answers that were sent, who the page now waits for, why
// comments and files are closed, and whether the agent has been told.

// turnOf closes the decision for a signed-in person whose step of the approval
// chain is done while the chain waits for others: the page says who it waits for
// instead of offering buttons that could only be refused.
func turnOf(d *decideView, p *page.Page, me *meView) {
	c := p.Approval
	if !d.Open || me == nil || c == nil || c.Status != page.ChainInProgress {
		return
	}
	may, decided := c.Turn(me.Email)
	if may || !decided {
		return
	}
	d.Open = false
	for _, s := range c.Steps {
		for _, sd := range s.Decisions {
			if sd.Identity != "" && strings.EqualFold(sd.Identity, me.Email) {
				d.MyStep = s.Name
			}
		}
	}
	view := c.View()
	for _, s := range view.Steps {
		if s.Status == page.StepPending {
			if d.Waiting != "" {
				d.Waiting += ", "
			}
			d.Waiting += s.Name
			if c.Mode == page.ModeSequential {
				break
			}
		}
	}
}

// sentAnswers is the form_data sent with the decision that completed p (the last
// execution that carried any); nil when none did.
func sentAnswers(p *page.Page) json.RawMessage {
	for i := len(p.Executions) - 1; i >= 0; i-- {
		if fd := p.Executions[i].FormData; len(fd) > 0 && string(fd) != "null" {
			return fd
		}
	}
	return nil
}

// closedWhy says why a page takes no more comments or files ("" while it does).
func closedWhy(status, what string) string {
	switch status {
	case page.Active:
		return ""
	case page.Completed:
		return "This page has been decided, so it takes no more " + what + "."
	case page.Expired:
		return "This page has expired, so it takes no more " + what + "."
	}
	return "This page takes no more " + what + "."
}

// notifiedView is how the agent's callback for the decision fares: delivered,
// being retried, or given up.
type notifiedView struct {
	State    string // sending, delivered, retrying, failed
	Attempts int
	At       *time.Time // delivered at, or the next attempt
	Problem  string     // what the last failed attempt got
}

// notifiedOf reads the page's delivery of its action.executed callback (the newest
// one): nil before a decision, or when the page has no on_action callback.
func (s *Site) notifiedOf(p *page.Page) *notifiedView {
	if len(p.Executions) == 0 || len(p.OnAction) == 0 || s.c.Store == nil {
		return nil
	}
	rows, _, err := callback.ListTenantPage(s.c.Store, p.TenantID, p.ID, "", notifiedScan, 0)
	if err != nil {
		return nil
	}
	var d *callback.Delivery
	for _, r := range rows { // newest first
		if r.Channel == callback.ChannelCallback && r.Event == "action.executed" {
			d = r
			break
		}
	}
	if d == nil {
		return nil
	}
	v := &notifiedView{Attempts: d.AttemptCount}
	switch d.Status {
	case callback.StatusSucceeded:
		v.State, v.At = "delivered", d.CompletedAt
	case callback.StatusFailed, callback.StatusSkipped:
		v.State = "failed"
	default:
		v.State, v.At = "sending", nil
		if d.AttemptCount > 0 {
			v.State, v.At = "retrying", d.NextAttemptAt
		}
	}
	if n := len(d.Attempts); n > 0 && v.State != "delivered" {
		a := d.Attempts[n-1]
		v.Problem = a.Error
		if v.Problem == "" && a.HTTPStatus != 0 {
			v.Problem = "HTTP " + strconv.Itoa(a.HTTPStatus)
		}
	}
	return v
}

// notifiedScan bounds the deliveries read to find the decision's callback: the
// newest of a page's deliveries, which the decision's is among right after it.
const notifiedScan = 20
