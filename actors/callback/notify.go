package callback

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"folio/actors/page"
)

// Notifications: when a page becomes active (published, or a draft published), every
// notify channel gets one message, recorded in the page's delivery log and retried
// like a callback. Pages of sk_test_ keys record the message without sending it.

// notification is what every channel says about the page.
type notification struct {
	Title    string `json:"title"`
	Summary  string `json:"summary"`
	Priority string `json:"priority"`
	PageType string `json:"page_type"`
	PageURL  string `json:"page_url"`
	Status   string `json:"status"`
	// Notice is the reminder or escalation this notification is (remind.go).
	Notice *notice `json:"notice,omitempty"`
}

func notificationOf(p *page.Page, url string, ev page.Event) notification {
	return notification{Title: p.Title, Summary: p.Summary, Priority: p.Priority, PageType: p.PageType, PageURL: url, Status: p.Status, Notice: noticeOf(ev)}
}

// webhookBody is the generic webhook channel's body: the callback envelope with the
// page's publication as data.
func webhookBody(ev page.Event, n notification) ([]byte, error) {
	return json.Marshal(envelope{Event: ev.Type, EventID: ev.ID, PageID: ev.PageID, Timestamp: stamp(ev.At), Data: n})
}

// slackBody is a Slack incoming-webhook message: title, summary, priority and a
// button linking to the page (with a plain-text fallback).
func slackBody(n notification) ([]byte, error) {
	title := clip(n.Title, 150)
	blocks := []any{
		map[string]any{"type": "header", "text": map[string]any{"type": "plain_text", "text": title}},
	}
	if line := noticeLine(n.Notice); line != "" {
		blocks = append(blocks, map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": line}})
	}
	if s := strings.TrimSpace(n.Summary); s != "" {
		blocks = append(blocks, map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": clip(s, 2900)}})
	}
	blocks = append(blocks,
		map[string]any{"type": "context", "elements": []any{map[string]any{"type": "mrkdwn", "text": "Priority: *" + n.Priority + "*"}}},
		map[string]any{"type": "actions", "elements": []any{map[string]any{"type": "button",
			"text": map[string]any{"type": "plain_text", "text": "Open page"}, "url": n.PageURL}}},
	)
	return json.Marshal(map[string]any{
		"text":   fmt.Sprintf("%s (priority %s): %s", title, n.Priority, n.PageURL),
		"blocks": blocks,
	})
}

// mailOf is the e-mail notification: the page's summary and key blocks
// (mail_body.go) and, with lp, one decision link per action (links.go).
func mailOf(to string, n notification, p *page.Page, lp *linkPlan) *Mail {
	subject := n.Title
	if n.Priority == "high" || n.Priority == "urgent" {
		subject = "[" + strings.ToUpper(n.Priority) + "] " + subject
	}
	if n.Notice != nil {
		subject = "Reminder: " + subject
		if n.Notice.Kind == "escalation" {
			subject = "Escalated: " + n.Title
		}
	}
	v := mailView{Title: n.Title, Notice: noticeLine(n.Notice), Summary: clip(strings.TrimSpace(n.Summary), mailMaxSummary),
		Priority: n.Priority, PageURL: n.PageURL, Version: p.Version, Blocks: mailBlocks(p.Blocks)}
	if lp != nil {
		for i, id := range lp.Actions {
			if a, ok := actionByID(p, id); ok {
				v.Links = append(v.Links, mailLink{Label: linkLabel(a), URL: lp.placeholder(i)})
			}
		}
		v.Expires = lp.ExpiresAt.UTC().Format("2006-01-02 15:04 MST")
	}
	text, html := composeNotify(v)
	return &Mail{To: to, Subject: clip(subject, 250), Text: text, HTML: html}
}

func actionByID(p *page.Page, id string) (page.Action, bool) {
	for _, a := range p.Actions {
		if a.ActionID == id {
			return a, true
		}
	}
	return page.Action{}, false
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
