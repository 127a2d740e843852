// Package callback delivers a page's events to the outside world: on_action callbacks
// (signed, retried on the specification's schedule) and notifications (e-mail, Slack,
// generic webhook). The Outbox outlet writes one row per delivery in the same bbolt
// transaction as the event that causes it; the Dispatcher actor sends them, one
// attempt in flight per delivery, and records every attempt. Rows and their due
// times live in bbolt, so pending deliveries survive a crash and resume on start.
package callback

import (
	"fmt"
	"folio/actors/model/webhook"
	"net/url"
	"strings"
	"time"

	"folio/actors/page"
	"folio/actors/slack"
	"folio/persistence"
)

// Outbox is the page.Outlet of deliveries.
type Outbox struct {
	// PageURL is the address of a page (for notifications).
	PageURL func(id string) string
	// Schedule is the default retry schedule (defaultSchedule unless overridden).
	Schedule []time.Duration
	// Dispatcher is told about new deliveries after their commit.
	Dispatcher *Dispatcher
}

// planned is one delivery an event causes.
type planned struct {
	id      string
	ev      int // index in the commit's events
	channel string
	target  string
	secret  string
	update  bool // a chat.update of the channel's messages (slack.go)
}

// plan decides which deliveries a commit's events cause. It is a pure function of
// the page and the events, so Stage (which may run more than once) and Committed
// agree on the same delivery ids.
func (o *Outbox) plan(p *page.Page, events []page.Event) []planned {
	if len(p.OnAction) == 0 && len(p.Notify) == 0 && !hasNotice(events) {
		return nil
	}
	oa, _ := webhook.ParseOnAction(p.OnAction) // validated at publish
	// Events committed together with an action's execution are caused by it, so its
	// action_urls entry addresses all of them.
	actionID := ""
	for _, ev := range events {
		if d, ok := ev.Data.(page.ActionExecuted); ok {
			actionID = d.ActionID
		}
	}
	var out []planned
	for i, ev := range events {
		if oa != nil && wanted(oa.Events, ev.Type) {
			target := oa.DefaultURL
			if u := oa.ActionURLs[actionID]; actionID != "" && u != "" {
				target = u
			}
			if target != "" {
				out = append(out, planned{id: deliveryID(ev.ID, 0), ev: i, channel: ChannelCallback, target: target, secret: oa.HMACSecret})
			}
		}
		if noticeOf(ev) != nil { // reminders and escalations (remind.go)
			secret := ""
			if oa != nil {
				secret = oa.HMACSecret
			}
			out = append(out, planNotice(p, ev, i, secret)...)
		}
		if _, ok := ev.Data.(page.ActionExecuted); ok {
			out = append(out, planSlackUpdates(p, ev, i)...)
		}
		if ev.Type == "page.published" {
			n, _ := webhook.ParseNotify(p.Notify)
			if n == nil {
				continue
			}
			for j, c := range n.Channels {
				if !webhook.ChannelTypes[c.Type] {
					continue
				}
				secret := c.Secret
				if secret == "" && oa != nil {
					secret = oa.HMACSecret
				}
				out = append(out, planned{id: deliveryID(ev.ID, j+1), ev: i, channel: c.Type, target: c.Target, secret: secret})
			}
		}
	}
	return out
}

// planSlackUpdates are the updates a decision (event ev, index i) causes: one per
// slack channel of p whose target is a channel id (slack.go).
func planSlackUpdates(p *page.Page, ev page.Event, i int) []planned {
	n, _ := webhook.ParseNotify(p.Notify)
	if n == nil {
		return nil
	}
	var out []planned
	for j, c := range n.Channels {
		if c.Type == ChannelSlack && slack.IsChannelID(c.Target) {
			out = append(out, planned{id: deliveryID(ev.ID, j+1), ev: i, channel: ChannelSlack, target: c.Target, update: true})
		}
	}
	return out
}

// wanted applies the on_action events filter: absent means the specification's
// callback events.
func wanted(filter []string, typ string) bool {
	if filter == nil {
		filter = webhook.CallbackEvents
	}
	for _, f := range filter {
		if f == typ {
			return true
		}
	}
	return false
}

// deliveryID derives a delivery's id from its event's (n: 0 the callback, 1.. the
// notify channels), so re-running a transaction writes the same rows.
func deliveryID(eventID string, n int) string {
	if _, rest, ok := strings.Cut(eventID, "_"); ok {
		eventID = rest
	}
	return fmt.Sprintf("dlv_%s_%d", eventID, n)
}

// lane is the endpoint a target belongs to.
func lane(channel, target string) string {
	if channel == ChannelEmail {
		return "smtp"
	}
	if channel == ChannelSlack && slack.IsChannelID(target) {
		return laneSlackAPI
	}
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// Stage writes a row per delivery the events cause, due at once, in the page's
// commit transaction.
func (o *Outbox) Stage(tx *persistence.Tx, p *page.Page, events []page.Event) error {
	plans := o.plan(p, events)
	if len(plans) == 0 {
		return nil
	}
	oa, _ := webhook.ParseOnAction(p.OnAction)
	for _, pl := range plans {
		d, err := o.build(p, oa, events[pl.ev], pl)
		if err != nil {
			return err
		}
		if d.Status == StatusPending {
			if err := chainBehind(tx, d); err != nil {
				return err
			}
		}
		if err := put(tx, d, nil, true); err != nil {
			return err
		}
	}
	return nil
}

// Committed hands the new deliveries to the dispatcher.
func (o *Outbox) Committed(p *page.Page, events []page.Event) {
	if o.Dispatcher == nil {
		return
	}
	plans := o.plan(p, events)
	var items []Item
	for _, pl := range plans {
		if pl.channel != ChannelCallback && !p.Livemode {
			continue // recorded as skipped
		}
		items = append(items, Item{ID: pl.id, Lane: lane(pl.channel, pl.target), Due: events[pl.ev].At})
	}
	if len(items) > 0 {
		o.Dispatcher.Enqueue(items)
	}
}

func (o *Outbox) build(p *page.Page, oa *webhook.OnAction, ev page.Event, pl planned) (*Delivery, error) {
	at := ev.At
	d := &Delivery{V: schemaV1, ID: pl.id, TenantID: p.TenantID, PageID: p.ID, EventID: ev.ID, Event: ev.Type,
		Channel: pl.channel, Target: pl.target, Lane: lane(pl.channel, pl.target), Secret: pl.secret,
		WebhookID: ev.ID, Status: StatusPending, Attempts: []Attempt{}, NextAttemptAt: &at, CreatedAt: at}
	var retry *webhook.Retry
	if oa != nil {
		retry = oa.Retry
	}
	sched := o.Schedule
	if sched == nil {
		sched = defaultSchedule
	}
	d.DelaysMS = millis(Delays(retry, sched))
	var err error
	switch pl.channel {
	case ChannelCallback:
		d.Body, err = callbackBody(ev)
		if oa != nil {
			d.Headers = oa.Headers
		}
	case ChannelWebhook:
		d.Body, err = webhookBody(ev, notificationOf(p, o.pageURL(p.ID), ev))
	case ChannelSlack:
		n := notificationOf(p, o.pageURL(p.ID), ev)
		if pl.update { // a decision: the posted messages say it (slack.go)
			d.SlackUpdate = true
			d.Body, err = slackUpdateBody(p, pl.target, n.PageURL)
		} else if slack.IsChannelID(pl.target) { // the Web API, with buttons (slack.go)
			d.Body, err = slack.PostMessage(pl.target, slack.PostOf(p, n.PageURL, noticeLine(n.Notice)))
		} else {
			d.Body, err = slackBody(n)
		}
	case ChannelEmail:
		d.Links = planLinks(p, ev)
		d.Mail = mailOf(pl.target, notificationOf(p, o.pageURL(p.ID), ev), p, d.Links)
	}
	if err != nil {
		return nil, err
	}
	if pl.channel != ChannelCallback && !p.Livemode {
		d.Links = nil // never sent: no link is ever minted for it
		d.Status, d.NextAttemptAt, d.CompletedAt = StatusSkipped, nil, &at
		d.Note = "page made with an sk_test_ key: the notification is recorded, not sent"
	}
	return d, nil
}

func (o *Outbox) pageURL(id string) string {
	if o.PageURL == nil {
		return "/p/" + id
	}
	return o.PageURL(id)
}
