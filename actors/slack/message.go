package slack

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"folio/actors/model/webhook"
)

// A Folio message in Slack is Block Kit (api.slack.com/reference/block-kit): a
// header with the page title, the summary, a context line with the priority and a
// link to the page, and an actions block with one button per page action (and a
// link button to the page). A button's value names the tenant, the page, the
// action and the page's content version the message showed, so a click decides
// exactly that, or nothing (an older version is refused by the page).

// Post is what a message says about a page.
type Post struct {
	TenantID string
	PageID   string
	Version  int
	Title    string
	Summary  string
	Priority string
	PageURL  string
	// Notice is a reminder's or escalation's line, "" for none.
	Notice  string
	Buttons []Button
}

// Button is one page action as a button.
type Button struct {
	ActionID string
	Label    string
	Style    string // primary, danger, or "" (Slack's default)
	Confirm  bool   // ask in a dialog first (danger actions, confirm: true)
}

// Value is a button's value: what a click asks for.
type Value struct {
	TenantID string `json:"t"`
	PageID   string `json:"p"`
	ActionID string `json:"a"`
	Version  int    `json:"v"`
}

// IsChannelID tells a notify target posted through the Web API (a channel id) from
// an incoming-webhook URL.
func IsChannelID(target string) bool { return webhook.IsSlackChannelID(target) }

// Slack's Block Kit limits.
const (
	maxHeader      = 150
	maxSection     = 3000
	maxButtonText  = 75
	maxActionsElem = 25
	maxFallback    = 4000
)

// PostMessage is the chat.postMessage body of p in channel.
func PostMessage(channel string, p Post) ([]byte, error) {
	return json.Marshal(map[string]any{
		"channel":      channel,
		"text":         fallback(p),
		"blocks":       Blocks(p, nil, true),
		"unfurl_links": false,
		"unfurl_media": false,
	})
}

// UpdateMessage is the chat.update body replacing message ts in channel with p and
// the lines saying what was decided; buttons stay while the page waits for more.
func UpdateMessage(channel, ts string, p Post, lines []string, buttons bool) ([]byte, error) {
	text := fallback(p)
	if len(lines) > 0 {
		text = clip(lines[len(lines)-1]+" — "+text, maxFallback)
	}
	return json.Marshal(map[string]any{"channel": channel, "ts": ts, "text": text, "blocks": Blocks(p, lines, buttons)})
}

func fallback(p Post) string {
	return clip(fmt.Sprintf("%s (priority %s): %s", p.Title, p.Priority, p.PageURL), maxFallback)
}

// Blocks is the message's blocks: lines (mrkdwn, already escaped) say what was
// decided; buttons says whether the action buttons are drawn.
func Blocks(p Post, lines []string, buttons bool) []any {
	blocks := []any{map[string]any{"type": "header", "text": plain(clip(p.Title, maxHeader))}}
	if p.Notice != "" {
		blocks = append(blocks, section(Escape(p.Notice)))
	}
	if s := strings.TrimSpace(p.Summary); s != "" {
		blocks = append(blocks, section(Escape(s)))
	}
	for _, l := range lines {
		blocks = append(blocks, section(l))
	}
	ctx := "Priority: *" + Escape(p.Priority) + "*"
	if p.PageURL != "" {
		ctx += " · <" + p.PageURL + "|Open the page>"
	}
	blocks = append(blocks, map[string]any{"type": "context", "elements": []any{map[string]any{"type": "mrkdwn", "text": ctx}}})
	var elems []any
	if buttons {
		for i, b := range p.Buttons {
			v, _ := json.Marshal(Value{TenantID: p.TenantID, PageID: p.PageID, ActionID: b.ActionID, Version: p.Version})
			btn := map[string]any{"type": "button", "action_id": fmt.Sprintf("folio_action_%d", i), "text": plain(clip(b.Label, maxButtonText)), "value": string(v)}
			if b.Style == "primary" || b.Style == "danger" {
				btn["style"] = b.Style
			}
			if b.Confirm || b.Style == "danger" {
				btn["confirm"] = map[string]any{"title": plain("Are you sure?"), "text": plain(clip(b.Label+": "+p.Title, 300)),
					"confirm": plain(clip(b.Label, 30)), "deny": plain("Cancel")}
			}
			elems = append(elems, btn)
		}
	}
	if p.PageURL != "" {
		// Slack sends an interaction for a link button too; its value (no action) lets
		// the endpoint verify it and answer 200, deciding nothing.
		v, _ := json.Marshal(Value{TenantID: p.TenantID, PageID: p.PageID, Version: p.Version})
		elems = append(elems, map[string]any{"type": "button", "action_id": "folio_open", "text": plain("Open page"), "url": p.PageURL, "value": string(v)})
	}
	for len(elems) > 0 { // an actions block holds at most 25 elements
		n := min(len(elems), maxActionsElem)
		blocks = append(blocks, map[string]any{"type": "actions", "elements": elems[:n]})
		elems = elems[n:]
	}
	return blocks
}

func plain(s string) map[string]any {
	return map[string]any{"type": "plain_text", "text": s, "emoji": true}
}

func section(s string) map[string]any {
	return map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": clip(s, maxSection-100)}}
}

// Escape makes text safe in mrkdwn: Slack reads &, < and > as control characters.
func Escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
