package web_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"folio/transport/node/nodetest"
)

var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("testdata/axe/axe.min.js")
	return string(b), err
})

// axe runs axe-core (vendored test data, never served) on the page as it stands and
// returns its serious and critical violations, one line each.
func (tb *tab) axe() []string {
	tb.t.Helper()
	src, err := axeSource()
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.eval0(src)
	return await[[]string](tb, `axe.run(document, {resultTypes: ["violations"]}).then(function(r){
		return r.violations.filter(function(v){return v.impact === "serious" || v.impact === "critical"}).map(function(v){
			return v.impact + " " + v.id + ": " + v.help + " — " + v.nodes.slice(0, 3).map(function(n){return n.target.join(" ")}).join(", ")})})`)
}

func (tb *tab) noSeriousViolations(where string) {
	tb.t.Helper()
	for _, theme := range []bool{false, true} {
		tb.dark(theme)
		// Colours transition when the theme changes: judge them once they have settled.
		tb.until("the theme's colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
		if v := tb.axe(); len(v) > 0 {
			tb.t.Errorf("axe on %s (dark %v): %d serious or critical violations:\n%s", where, theme, len(v), strings.Join(v, "\n"))
		}
	}
	tb.dark(false)
}

// TestTheReviewPageHasNoSeriousAccessibilityViolations: axe-core finds no serious or
// critical violation on the all-blocks page, in light and dark, while it takes
// decisions and once decided; nor on the pages that stand in for one.
func TestTheReviewPageHasNoSeriousAccessibilityViolations(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("a11y")
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": allBlocks(t)}))
	tb := newTab(t)
	tb.openLive(e.Srv.URL + "/p/" + id)
	tb.noSeriousViolations("the all-blocks page")
	e.Must(201, "POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "A question", "author_name": "Ann"})
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ops@example.com"}, "comment": "Go"})
	tb.until("the decision", `!!document.querySelector(".outcome-approved") && document.querySelectorAll(".comment").length === 1`)
	tb.noSeriousViolations("the decided page")

	private := publish(t, e, key, approvalPage(map[string]any{"access": map[string]any{"mode": "authenticated",
		"allowed_identities": []any{map[string]any{"type": "email", "value": "a@example.com"}}}}))
	revoked := publish(t, e, key, approvalPage(nil))
	e.Must(200, "POST", "/v1/pages/"+revoked+"/revoke", key, map[string]any{"reason": "x"})
	for name, path := range map[string]string{"the sign-in gate": "/p/" + private, "the withdrawn page": "/p/" + revoked, "the 404 page": "/p/pg_nope"} {
		tb.do(chromedp.Navigate(e.Srv.URL + path))
		tb.noSeriousViolations(name)
	}
}

// TestTheReviewPageWorksFromTheKeyboard: from the top, Tab reaches the skip link,
// the decision bar's Approve, the tabs, the form fields and the decision buttons,
// each with a visible focus ring; the tabs switch with the arrow keys; Enter on Approve decides.
func TestTheReviewPageWorksFromTheKeyboard(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("keys")
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": []any{
		map[string]any{"type": "tab", "data": map[string]any{"tabs": []any{
			map[string]any{"label": "Summary", "blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "The summary"}}}},
			map[string]any{"label": "Raw", "blocks": []any{map[string]any{"type": "code", "data": map[string]any{"content": "{}", "language": "json"}}}}}}}}}))
	tb := newTab(t)
	tb.openLive(e.Srv.URL + "/p/" + id)
	seen := map[string]bool{}
	for i := 0; i < 40 && !seen["approve"]; i++ {
		tb.do(chromedp.KeyEvent("\t"))
		f := eval[struct {
			Tag, ID, Role, Value, Text string
			Outline                    string
			InBar                      bool
		}](tb, `(function(){var a=document.activeElement,s=getComputedStyle(a);return {Tag:a.tagName,ID:a.id,Role:a.getAttribute("role")||"",Value:a.value||"",Text:(a.innerText||"").slice(0,30),Outline:s.outlineStyle+" "+s.outlineWidth,InBar:!!a.closest(".dbar")}})()`)
		switch {
		case f.Tag == "A" && strings.Contains(f.Text, "Skip"):
			seen["skip"] = true
		case f.Role == "tab":
			seen["tab"] = true
		case f.ID == "actor_identity":
			seen["identity"] = true
		case f.Tag == "BUTTON" && f.Value == "approve" && f.InBar:
			seen["bar"] = true
		case f.Tag == "BUTTON" && f.Value == "approve":
			seen["approve"] = true
		}
		if f.Tag != "BODY" && strings.HasPrefix(f.Outline, "none") {
			t.Errorf("focus on %s#%s %q has no visible outline", f.Tag, f.ID, f.Text)
		}
	}
	for _, want := range []string{"skip", "bar", "tab", "identity", "approve"} {
		if !seen[want] {
			t.Errorf("Tab never reached %s", want)
		}
	}
	tb.do(chromedp.Focus(chromedp.CSS(`[role=tab][aria-selected=true]`)), chromedp.KeyEvent(kb.ArrowRight))
	tb.until("the second tab", `document.activeElement.innerText === "Raw" && document.activeElement.getAttribute("aria-selected") === "true"`)
	tb.do(chromedp.Focus(chromedp.ID("actor_identity")), chromedp.SendKeys(chromedp.ID("actor_identity"), "kim@example.com"),
		chromedp.Focus(chromedp.CSS(`#decide button[value="approve"]`)), chromedp.KeyEvent(kb.Enter))
	tb.until("the decision", `!!document.querySelector(".outcome-approved")`)
	tb.until("focus on the outcome after deciding", `document.activeElement.id === "outcome-h"`)
}

// TestAPersonWhoMovesOnAfterDecidingKeepsTheFocus: after a decision the page
// redraws its parts and then puts the focus on the outcome, for a keyboard or
// screen-reader user who decided from the form. A person who moved on while the
// redraw was still coming (here: to a link in a block, while the files part is
// held back) keeps the focus where they put it: the next key they press goes
// there, not to the outcome. One who did not move gets the outcome, as before.
func TestAPersonWhoMovesOnAfterDecidingKeepsTheFocus(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("focus-bot")
	tb := newTab(t)
	// hold keeps the page's fetches of its files part until release(); settled
	// says release() came and the files part has been drawn again since.
	const hold = `(function () {
		var f = window.fetch, held = [], open = false;
		window.fetch = function (u, o) {
			if (open || String(u).indexOf("/parts/files") < 0) return f(u, o);
			return new Promise(function (res) { held.push(function () { res(f(u, o)); }); });
		};
		window.release = function () { open = true; held.splice(0).forEach(function (g) { g(); }); };
	})()`
	const settled = `/takes no more files/.test(document.getElementById("part-files").innerText)`
	for _, moves := range []bool{true, false} {
		id := publish(t, e, key, approvalPage(map[string]any{"blocks": []any{map[string]any{"type": "text",
			"data": map[string]any{"content": "Read [the runbook](https://example.com/runbook) first."}}}}))
		tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
		tb.until("the page script", `!document.querySelector("#live").hidden`)
		tb.eval0(hold)
		tb.do(chromedp.SendKeys(chromedp.ID("actor_identity"), "kim@example.com"),
			chromedp.Focus(chromedp.CSS(`#decide button[value="approve"]`)), chromedp.KeyEvent(kb.Enter))
		tb.until("the decision", `!!document.querySelector(".outcome-approved")`)
		if moves {
			tb.do(chromedp.Focus(chromedp.CSS(`#blocks a[href="https://example.com/runbook"]`)))
		}
		tb.eval0(`release()`)
		tb.until("the files part drawn after the decision", settled)
		if !moves {
			tb.until("focus on the outcome after deciding", `document.activeElement.id === "outcome-h"`)
			continue
		}
		// The outcome would take the focus right after the files part is drawn,
		// in the same turn of the page's script; a moment later it is still where
		// the person put it.
		tb.eval0(`window.since = performance.now()`)
		tb.until("a moment after the redraw", `performance.now() - window.since > 300`)
		if got := eval[string](tb, `document.activeElement.tagName + " " + (document.activeElement.getAttribute("href") || document.activeElement.id)`); got != "A https://example.com/runbook" {
			t.Fatalf("the focus went to %q; the person had moved it to the runbook link", got)
		}
	}
}
