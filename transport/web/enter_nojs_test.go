package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"folio/transport/node/nodetest"
)

// everyFormType is a form block with one field of every type the catalog has,
// each with a default where it takes one.
func everyFormType() map[string]any {
	opts := []any{map[string]any{"value": "a", "label": "A"}, map[string]any{"value": "b", "label": "B"}}
	return map[string]any{"type": "form", "id": "req", "data": map[string]any{"title": "Request", "fields": []any{
		map[string]any{"field_id": "text", "type": "text", "label": "Reason", "default_value": "routine"},
		map[string]any{"field_id": "area", "type": "textarea", "label": "Notes", "default_value": "none"},
		map[string]any{"field_id": "num", "type": "number", "label": "Replicas", "default_value": 10},
		map[string]any{"field_id": "sel", "type": "select", "label": "Region", "options": opts, "default_value": "a"},
		map[string]any{"field_id": "multi", "type": "multi_select", "label": "Zones", "options": opts, "default_value": []any{"a"}},
		map[string]any{"field_id": "box", "type": "checkbox", "label": "Canary first", "default_value": true},
		map[string]any{"field_id": "radio", "type": "radio", "label": "Tier", "options": opts, "default_value": "a"},
		map[string]any{"field_id": "day", "type": "date", "label": "Start", "default_value": "2030-01-02"},
		map[string]any{"field_id": "at", "type": "datetime", "label": "Window", "default_value": "2030-01-02T08:00"},
		map[string]any{"field_id": "file", "type": "file", "label": "Evidence"},
		map[string]any{"field_id": "mail", "type": "email", "label": "Contact", "default_value": "ops@example.com"},
		map[string]any{"field_id": "link", "type": "url", "label": "Runbook", "default_value": "https://example.com/run"},
	}}}
}

// TestEnterWithoutJavaScriptNeverDecides: with scripts off, Enter in every field of
// the decision form (the name, the comment, a form block's field of every type, an
// editable block's fields) sends nothing, on a page with actions and on a form-only
// page. Chromium's implicit submission from a checkbox or a radio button clicks the
// form's first enabled submit button; the guard that comes first does nothing.
func TestEnterWithoutJavaScriptNeverDecides(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("enter-nojs")
	edit := map[string]any{"type": "key_value", "id": "limits", "editable": true, "data": map[string]any{"title": "Limits",
		"pairs": []any{map[string]any{"key": "Replicas", "value": "10"}}}}
	pages := map[string]map[string]any{
		"actions":   approvalPage(map[string]any{"blocks": []any{everyFormType(), edit}}),
		"form-only": {"title": "Tell us about the rollout", "blocks": []any{everyFormType()}},
	}
	fields := []string{`#actor_identity`, `#decide-comment`, `[name="form_data.text"]`, `[name="form_data.area"]`, `[name="form_data.num"]`,
		`[name="form_data.sel"]`, `[name="form_data.multi"][value="b"]`, `[name="form_data.box"]`, `[name="form_data.radio"][value="b"]`,
		`[name="form_data.day"]`, `[name="form_data.at"]`, `[name="form_data.file"]`, `[name="form_data.mail"]`, `[name="form_data.link"]`,
		`[data-edit="limits"] input`}
	for name, body := range pages {
		t.Run(name, func(t *testing.T) {
			id := publish(t, e, key, body)
			tb := newTab(t)
			if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
				t.Fatal(err)
			}
			tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+id), chromedp.SendKeys(chromedp.ID("actor_identity"), "gil@example.com"))
			if name == "actions" {
				tb.do(chromedp.Click(chromedp.CSS(`[data-edit] summary`))) // the editor opens
			}
			tried := 0
			for _, sel := range fields {
				if !eval[bool](tb, `!!document.querySelector(`+jsonString(sel)+`)`) {
					if name == "actions" {
						t.Fatalf("the page has no field %s", sel)
					}
					continue // the form-only page has no editable block
				}
				tried++
				tb.do(chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent(kb.Enter))
				// What must not come is a post: watch the tab's requests for a while
				// (a post from a local page is under way within milliseconds).
				for end := time.Now().Add(150 * time.Millisecond); time.Now().Before(end); time.Sleep(25 * time.Millisecond) {
					if sent := tb.sent("/act"); sent != "" {
						t.Fatalf("Enter in %s sent the decision form: %s", sel, sent)
					}
				}
			}
			if tried < len(fields)-1 {
				t.Fatalf("tried %d fields", tried)
			}
			if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil); got["status"] != "active" || got["decision"] != nil {
				t.Fatalf("after Enter in every field the page is %v (decision %v)", got["status"], got["decision"])
			}
			tb.view("enter-nojs-" + name)
		})
	}
}

// sent is the first request the tab sent whose address contains part ("" when none).
func (tb *tab) sent(part string) string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, u := range tb.requests {
		if strings.Contains(u, part) {
			return u
		}
	}
	return ""
}
