package callback

import (
	"fmt"
	"strings"
	"time"

	"folio/actors/model/webhook"
	"folio/actors/page"
)

// Reminders and escalations (actors/page/deadline_fire.go) are notifications too:
// delivered like the notice of a page becoming active (durable rows, retried, in the
// delivery log, recorded but not sent for sk_test_ pages), but to the people who
// still have to act:
//   - every slack and webhook channel of the page's notify (the message names them);
//   - by e-mail to each of them whose identity is an address, and to the page's
//     email channels that are one of them (all of them on a page without an approval
//     chain, where nobody is named and the channels are who is waiting).

// notice is what a reminder or an escalation adds to the notification.
type notice struct {
	Kind    string     `json:"kind"` // reminder, escalation
	StepID  *string    `json:"step_id"`
	People  []string   `json:"people"` // who still has to act (reminder), or was added (escalation)
	DueAt   *time.Time `json:"due_at"`
	Count   int        `json:"reminder,omitempty"`
	OfCount int        `json:"max,omitempty"`
}

// noticeOf is the notice an event carries, nil for other events.
func noticeOf(ev page.Event) *notice {
	step := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	switch d := ev.Data.(type) {
	case page.ApprovalReminderSent:
		return &notice{Kind: "reminder", StepID: step(d.StepID), People: d.Recipients, DueAt: d.DueAt, Count: d.Reminder, OfCount: d.Max}
	case page.ApprovalEscalated:
		return &notice{Kind: "escalation", StepID: step(d.StepID), People: d.EscalateTo, DueAt: d.DueAt}
	}
	return nil
}

// planNotice is the deliveries of a reminder or escalation event (index i of the
// commit); ids count on from 1 like the notify channels of page.published.
func planNotice(p *page.Page, ev page.Event, i int, secret string) []planned {
	nt := noticeOf(ev)
	if nt == nil {
		return nil
	}
	n, _ := webhook.ParseNotify(p.Notify)
	var out []planned
	add := func(channel, target, sec string) {
		out = append(out, planned{id: deliveryID(ev.ID, len(out)+1), ev: i, channel: channel, target: target, secret: sec})
	}
	mailed := map[string]bool{}
	waiting := map[string]bool{}
	for _, id := range nt.People {
		waiting[strings.ToLower(strings.TrimSpace(id))] = true
	}
	everyone := nt.Kind == "reminder" && nt.People == nil // a page without a chain
	if n != nil {
		for _, c := range n.Channels {
			switch c.Type {
			case ChannelSlack, ChannelWebhook:
				sec := c.Secret
				if sec == "" {
					sec = secret
				}
				add(c.Type, c.Target, sec)
			case ChannelEmail:
				addr := strings.ToLower(strings.TrimSpace(c.Target))
				if (everyone || waiting[addr]) && !mailed[addr] {
					mailed[addr] = true
					add(ChannelEmail, c.Target, "")
				}
			}
		}
	}
	for _, id := range nt.People {
		addr := strings.ToLower(strings.TrimSpace(id))
		if strings.Contains(addr, "@") && !mailed[addr] {
			mailed[addr] = true
			add(ChannelEmail, strings.TrimSpace(id), "")
		}
	}
	return out
}

// noticeLine is how a message states the notice, "" for none.
func noticeLine(nt *notice) string {
	if nt == nil {
		return ""
	}
	due := ""
	if nt.DueAt != nil {
		due = " It is due " + nt.DueAt.UTC().Format("2006-01-02 15:04 MST") + "."
	}
	if nt.Kind == "escalation" {
		return fmt.Sprintf("Escalated to you: nobody decided in time.%s", due)
	}
	who := ""
	if len(nt.People) > 0 {
		who = " Waiting for " + strings.Join(nt.People, ", ") + "."
	}
	return fmt.Sprintf("Reminder %d of %d: this page is waiting for a decision.%s%s", nt.Count, nt.OfCount, who, due)
}

// hasNotice reports whether a commit's events hold a reminder or escalation.
func hasNotice(events []page.Event) bool {
	for _, ev := range events {
		if noticeOf(ev) != nil {
			return true
		}
	}
	return false
}
