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

// mailOf is the e-mail notification.
func mailOf(to string, n notification) *Mail {
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
	var b strings.Builder
	b.WriteString(n.Title + "\n\n")
	if line := noticeLine(n.Notice); line != "" {
		b.WriteString(line + "\n\n")
	}
	if s := strings.TrimSpace(n.Summary); s != "" {
		b.WriteString(s + "\n\n")
	}
	fmt.Fprintf(&b, "Priority: %s\nOpen the page: %s\n", n.Priority, n.PageURL)
	return &Mail{To: to, Subject: clip(subject, 250), Text: b.String()}
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
