package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"folio/transport/node/nodetest"
)

// The decision at hand (issue 32 item 4): the decision bar that stays in view, Enter
// that never decides, confirmations that name the action and the page, shortcuts,
// and a page that tells the truth once decided. Each runs at 1280 and 390 px, in
// light and dark, with screenshots to look at.

// layouts are the widths and themes every test here is run in.
var layouts = []struct {
	name  string
	width int64
	dark  bool
}{{"1280-light", 1280, false}, {"1280-dark", 1280, true}, {"390-light", 390, false}, {"390-dark", 390, true}}

// view saves what is on screen now (the viewport, with the bar where the person
// sees it), next to shot's full-page screenshots.
func (tb *tab) view(name string) {
	tb.t.Helper()
	dir := os.Getenv("FOLIO_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "data", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.t.Fatal(err)
	}
	png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Logf("screenshot: %s", path)
}

// layout sets the tab's width and theme.
func (tb *tab) layout(width int64, dark bool) {
	tb.t.Helper()
	tb.width(width)
	tb.dark(dark)
}

// everyField is a form with one field of every kind a person types or picks in,
// each with a default, after enough text to make the page long.
func everyField(paragraphs int) []any {
	var out []any
	for i := range paragraphs {
		out = append(out, map[string]any{"type": "text", "data": map[string]any{"title": fmt.Sprintf("Section %d", i+1),
			"content": strings.Repeat("The rollout goes region by region, watching error rates between each step. ", 8)}})
	}
	return append(out, map[string]any{"type": "form", "id": "req", "data": map[string]any{"title": "Rollout", "fields": []any{
		map[string]any{"field_id": "reason", "type": "text", "label": "Reason", "default_value": "routine"},
		map[string]any{"field_id": "amount", "type": "number", "label": "Replicas", "default_value": 10},
		map[string]any{"field_id": "notes", "type": "textarea", "label": "Notes", "default_value": "none"},
		map[string]any{"field_id": "region", "type": "select", "label": "Region", "default_value": "eu",
			"options": []any{map[string]any{"value": "eu", "label": "Europe"}, map[string]any{"value": "us", "label": "Americas"}}},
		map[string]any{"field_id": "canary", "type": "checkbox", "label": "Canary first", "default_value": true},
		map[string]any{"field_id": "when", "type": "date", "label": "Start", "default_value": "2030-01-02"},
		map[string]any{"field_id": "tier", "type": "radio", "label": "Tier", "default_value": "a",
			"options": []any{map[string]any{"value": "a", "label": "A"}, map[string]any{"value": "b", "label": "B"}}},
	}}})
}

// TestEnterInAFieldNeverDecides: with a name filled in (so a decision would go
// through), Enter in every field of the page (text, number, textarea, select,
// checkbox, date, radio, the name and the decision's comment box) sends nothing,
// at every width and theme; Ctrl+Enter in the comment box posts the comment, and
// after all that the API says the page is still active with no decision.
func TestEnterInAFieldNeverDecides(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("enter")
	fields := []string{`[name="form_data.reason"]`, `[name="form_data.amount"]`, `[name="form_data.notes"]`, `[name="form_data.canary"]`,
		`[name="form_data.when"]`, `[name="form_data.tier"][value="b"]`, `[name="form_data.region"]`, `#actor_identity`, `#decide-comment`}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			id := publish(t, e, key, approvalPage(map[string]any{"blocks": everyField(2)}))
			tb := newTab(t)
			tb.layout(l.width, l.dark)
			tb.openLive(e.Srv.URL + "/p/" + id)
			tb.do(chromedp.SendKeys(chromedp.ID("actor_identity"), "erin@example.com"))
			for _, sel := range fields {
				tb.do(chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent(kb.Enter))
				// A submit handler runs while the key is handled: had Enter sent the
				// form, the decision would already say it is on its way.
				if got := tb.text("#decide .form-status"); got != "" {
					t.Fatalf("Enter in %s sent the decision form: %q", sel, got)
				}
				if eval[bool](tb, `!!document.querySelector("dialog[open]")`) {
					t.Fatalf("Enter in %s opened a dialog", sel)
				}
			}
			tb.view("enter-never-decides-" + l.name)
			tb.do(chromedp.SendKeys(chromedp.ID("comment-text"), "Checked the numbers"), chromedp.Focus(chromedp.ID("comment-text")),
				chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
			tb.until("the comment posted with Ctrl+Enter", `document.querySelectorAll(".comment").length === 1`)
			got := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
			if got["status"] != "active" || got["decision"] != nil {
				t.Fatalf("after Enter in every field the page is %v (decision %v)", got["status"], got["decision"])
			}
		})
	}
}

// TestTheDecisionBarStaysInView: on a long page the bar with the actions is on
// screen at every scroll position (below the site bar on wide screens, at the
// bottom on narrow ones) and nothing covers its buttons; the focus moved up to a
// field brings it into view clear of the bar; "Jump to decision" brings the
// decision into view; the keyboard reaches the bar first, and "?" lists the
// shortcuts.
func TestTheDecisionBarStaysInView(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("bar")
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": everyField(30), "approval_chain": nil}))
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			tb := newTab(t)
			tb.layout(l.width, l.dark)
			tb.openLive(e.Srv.URL + "/p/" + id)
			if h := eval[float64](tb, `document.documentElement.scrollHeight`); h < 5000 {
				t.Fatalf("the page is %v px tall: too short to test scrolling", h)
			}
			for _, at := range []float64{0, 0.2, 0.4, 0.6, 0.8, 1} {
				tb.eval0(fmt.Sprintf(`window.scrollTo(0, (document.documentElement.scrollHeight - innerHeight) * %v)`, at))
				box := eval[struct {
					Top, Bottom, H float64
					Covered        string
				}](tb, `(function(){var r=document.querySelector(".dbar").getBoundingClientRect(),b=document.querySelector('.dbar button[value="approve"]').getBoundingClientRect();
					var hit=document.elementFromPoint(b.left+b.width/2,b.top+b.height/2);
					return {Top:r.top,Bottom:r.bottom,H:innerHeight,Covered:hit&&hit.closest(".dbar")?"":(hit?hit.tagName+"."+hit.className:"nothing")}})()`)
				if box.Top < 0 || box.Bottom > box.H || box.Bottom-box.Top < 20 {
					t.Errorf("scrolled to %v%%: the bar is at %v..%v of a %v px viewport", at*100, box.Top, box.Bottom, box.H)
				}
				if box.Covered != "" {
					t.Errorf("scrolled to %v%%: the bar's Approve is covered by %s", at*100, box.Covered)
				}
				if at == 0.6 {
					tb.view("dbar-scrolled-" + l.name)
				}
			}
			// A field above the view brought into view the least way (as the page does
			// for a thread's first field, and as browsers other than Chromium do for the
			// focus) lands clear of the bar.
			tb.eval0(`window.scrollTo(0, document.documentElement.scrollHeight)`)
			tb.eval0(`(function(){var f=document.querySelectorAll("[name^='form_data.']"),a=f[f.length>>1];a.focus({preventScroll:true});a.scrollIntoView({block:"nearest"})})()`)
			if hit := eval[string](tb, `(function(){var a=document.activeElement,r=a.getBoundingClientRect(),h=document.elementFromPoint(r.left+r.width/2,r.top+r.height/2);
				return h===a||a.contains(h)?"":(h?h.tagName+"."+h.className:"nothing")+" at "+Math.round(r.top)})()`); hit != "" {
				t.Errorf("a field brought into view from above is covered by %s", hit)
			}
			if got := tb.text(".dbar"); !containsAll(got, "Awaiting your decision", "Approve", "Reject", "Jump to decision") {
				t.Errorf("the bar reads %q", got)
			}
			tb.eval0(`window.scrollTo(0, 0)`)
			tb.do(chromedp.Click(chromedp.CSS(".dbar-jump")))
			tb.until("the decision in view, clear of the bar", `(function(){var h=document.querySelector("#decide-h").getBoundingClientRect(),b=document.querySelector(".dbar").getBoundingClientRect();
				return h.top >= 0 && h.bottom <= innerHeight && (h.top >= b.bottom || h.bottom <= b.top)})()`)
			// From the top of the page the keyboard reaches the bar's actions within a few
			// stops (the skip link first).
			tb.openLive(e.Srv.URL + "/p/" + id)
			reached := false
			for i := 0; i < 5 && !reached; i++ {
				tb.do(chromedp.KeyEvent("\t"))
				reached = eval[bool](tb, `document.activeElement.value === "approve" && !!document.activeElement.closest(".dbar")`)
			}
			if !reached {
				t.Fatalf("five Tabs from the top did not reach the bar's Approve")
			}
			tb.do(chromedp.KeyEvent(kb.Escape), chromedp.KeyEvent("?"))
			tb.until("the shortcut list", `!!document.querySelector("dialog.keys[open]")`)
			if got := tb.text("dialog.keys"); !containsAll(got, "Go to the decision", "Write a comment", "Ctrl+Enter", "No key decides") {
				t.Errorf("the shortcut list reads %q", got)
			}
			tb.view("dbar-shortcuts-" + l.name)
			tb.do(chromedp.KeyEvent(kb.Escape))
			tb.until("the list to close", `!document.querySelector("dialog.keys")`)
			tb.do(chromedp.KeyEvent("d"))
			tb.until("focus on the decision", `document.activeElement.id === "decide-h"`)
			if st := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; st != "active" {
				t.Fatalf("the keyboard decided: %v", st)
			}
		})
	}
}

// TestAConfirmedActionNamesItselfAndThePage: an action the agent marked confirm
// (not a danger one) is asked in a dialog naming it and the page; Cancel sends
// nothing and gives the focus back; Yes decides. Without JavaScript the same
// action is asked on a page of its own.
func TestAConfirmedActionNamesItselfAndThePage(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("confirm")
	body := func() map[string]any {
		return approvalPage(map[string]any{"actions": []any{
			map[string]any{"action_id": "ship", "label": "Ship to production", "style": "primary", "confirm": true},
			map[string]any{"action_id": "hold", "label": "Hold"}}})
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			id := publish(t, e, key, body())
			tb := newTab(t)
			tb.layout(l.width, l.dark)
			tb.openLive(e.Srv.URL + "/p/" + id)
			tb.do(chromedp.SendKeys(chromedp.ID("actor_identity"), "fay@example.com"))
			tb.do(chromedp.Click(chromedp.CSS(`.dbar button[value="ship"]`)))
			tb.until("the confirmation", `!!document.querySelector("dialog.confirm[open]")`)
			if got := tb.text("dialog.confirm"); !containsAll(got, "Ship to production?", "“Deploy v2.4.1 to production?”", "cannot be undone") {
				t.Fatalf("the confirmation reads %q", got)
			}
			if !eval[bool](tb, `document.activeElement.textContent === "Cancel"`) {
				t.Errorf("the dialog does not start on Cancel")
			}
			tb.view("confirm-action-" + l.name)
			tb.do(chromedp.KeyEvent(kb.Escape))
			tb.until("the dialog to close, focus back on the button", `!document.querySelector("dialog.confirm") && document.activeElement.value === "ship"`)
			if st := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; st != "active" {
				t.Fatalf("after Escape the page is %v", st)
			}
			tb.do(chromedp.Click(chromedp.CSS(`.dbar button[value="ship"]`)))
			tb.until("the confirmation", `!!document.querySelector("dialog.confirm[open]")`)
			tb.do(chromedp.Click(chromedp.CSS(`dialog.confirm .bt-primary`)))
			tb.until("the decision", `!!document.querySelector(".outcome")`)
			if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil); got["status"] != "completed" {
				t.Fatalf("after Yes the page is %v", got["status"])
			}
		})
	}
	id := publish(t, e, key, body())
	tb := newTab(t)
	if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+id), chromedp.SendKeys(chromedp.ID("actor_identity"), "fay@example.com"),
		chromedp.Click(chromedp.CSS(`#decide button[value="ship"]`)))
	tb.until("the confirmation page", `document.querySelector("h1") && document.querySelector("h1").innerText === "Ship to production?"`)
	if got := tb.text("main"); !strings.Contains(got, "“Deploy v2.4.1 to production?”") {
		t.Errorf("the confirmation page reads %q", got)
	}
	if st := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; st != "active" {
		t.Fatalf("the action was recorded before it was confirmed: %v", st)
	}
	tb.do(chromedp.Click(chromedp.CSS(`button.bt-primary`)))
	tb.until("the decision", `!!document.querySelector(".outcome")`)
}
