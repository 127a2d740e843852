package callback

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"folio/actors/model/blocks"
	"folio/actors/page"
)

// TestNotificationMailShowsABoundedEscapedExcerptAndOneLinkPerAction: the mail
// shows the summary and at most four key blocks (a table cut to five rows, a long
// text cut short), the agent's markup escaped in the HTML part, and one
// placeholder per action that the agent's own text cannot name.
func TestNotificationMailShowsABoundedEscapedExcerptAndOneLinkPerAction(t *testing.T) {
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	var rows []any
	for i := range 20 {
		rows = append(rows, map[string]any{"n": fmt.Sprint("row-", i)})
	}
	p := &page.Page{ID: "pg_1", Title: "T", Summary: "<script>x</script> LINK-guess-0", Priority: "normal", Status: page.Active, Version: 2,
		Blocks: []blocks.Block{
			{Type: "text", Data: raw(map[string]any{"content": strings.Repeat("long ", 500)})},
			{Type: "code", Data: raw(map[string]any{"content": "skipped"})},
			{Type: "table", Data: raw(map[string]any{"columns": []any{map[string]any{"key": "n"}}, "rows": rows})},
			{Type: "key_value", Data: raw(map[string]any{"pairs": []any{map[string]any{"key": "<k>", "value": 12.5}}})},
			{Type: "text", Data: raw(map[string]any{"content": "fourth"})},
			{Type: "text", Data: raw(map[string]any{"content": "fifth, not shown"})},
		},
		Actions: []page.Action{{ActionID: "approve", Label: "Approve"}, {ActionID: "reject", Label: "Reject"}}}
	ev := page.Event{At: time.Now()}
	lp := planLinks(p, ev)
	m := mailOf("a@example.com", notificationOf(p, "https://f.test/p/pg_1", ev), p, lp)
	for _, want := range []string{"row-4", "… 15 more rows", "<k>: 12.5", "fourth", "version 2", "Approve: " + lp.placeholder(0), "Reject: " + lp.placeholder(1)} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, m.Text)
		}
	}
	for _, not := range []string{"row-5", "fifth", "skipped", strings.Repeat("long ", 200)} {
		if strings.Contains(m.Text, not) || strings.Contains(m.HTML, not) {
			t.Errorf("the mail shows %q", not)
		}
	}
	if strings.Contains(m.HTML, "<script>") || !strings.Contains(m.HTML, "&lt;script&gt;") || !strings.Contains(m.HTML, `href="`+lp.placeholder(1)+`"`) {
		t.Errorf("HTML:\n%s", m.HTML)
	}
	if strings.Contains(lp.placeholder(0), "guess") || len(lp.Actions) != 2 {
		t.Errorf("plan %+v", lp)
	}
	// No links on a page that is no longer active.
	p.Status = page.Completed
	if planLinks(p, ev) != nil {
		t.Error("links planned for a completed page")
	}
}
