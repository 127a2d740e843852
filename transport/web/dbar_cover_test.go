package web_test

import (
	"fmt"
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

// coveredAtBottom scrolls each link and button of the blocks, one at a time, to
// the bottom edge of the window as the browser places it (scrollIntoView, as a
// jump or the focus does), and lists those whose centre is not the topmost
// element there, with what covers it. The page's last control is checked at the
// end of the page too.
const coveredAtBottom = `(function(){
	var out = [];
	function covered(el, where) {
		// A link that wraps has a box per line: the centre of each.
		Array.from(el.getClientRects()).forEach(function (r) {
			if (!r.width || !r.height) return;
			var hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			if (hit !== el && !el.contains(hit)) out.push(where + " " + (el.getAttribute("href") || el.textContent.trim().slice(0, 30)) +
				" at y " + Math.round(r.top) + " under " + (hit ? (hit.closest("[id]") || hit).id + " ." + String(hit.className).split(" ")[0] : "nothing"));
		});
	}
	document.querySelectorAll("#blocks a[href], #blocks button").forEach(function (el) {
		el.scrollIntoView({block: "end"});
		covered(el, "at the bottom edge:");
	});
	window.scrollTo(0, document.documentElement.scrollHeight);
	var all = Array.from(document.querySelectorAll("main a[href], main button, main input, main textarea, main select")).filter(function (el) {
		var r = el.getBoundingClientRect(); return r.width && r.height;
	});
	if (all.length) covered(all[all.length - 1], "at the end of the page:");
	return out.join("\n");
})()`

// uncoveredPage is a page whose blocks each hold a link, with four actions, so the
// bar holds a row of buttons that wraps on a narrow screen.
func uncoveredPage() map[string]any {
	var bs []any
	for i, name := range []string{"Scope", "Rollout", "Risks", "Numbers"} {
		bs = append(bs, map[string]any{"id": fmt.Sprintf("b%d", i+1), "type": "text", "data": map[string]any{"title": name,
			"content": strings.Repeat("The rollout goes region by region, watching error rates between each step. ", 5) +
				fmt.Sprintf("See [the %s runbook](https://example.com/runbook/%d).", strings.ToLower(name), i+1)}})
	}
	return approvalPage(map[string]any{"blocks": bs, "actions": []any{
		map[string]any{"action_id": "approve", "label": "Approve", "style": "primary"},
		map[string]any{"action_id": "snooze", "label": "Snooze 1 day", "decision": "none", "final": false},
		map[string]any{"action_id": "changes", "label": "Request changes", "decision": "none"},
		map[string]any{"action_id": "reject", "label": "Reject", "style": "danger"},
	}})
}

// TestNothingIsUnderTheDecisionBarOrTheLiveNotice (issue 32): at 390 and 360 px,
// light and dark, where the decision bar is fixed at the bottom, every link of the
// blocks that scrolling puts at the bottom edge, and the page's last control at
// its end, is the topmost element at its centre: the bar covers none of them.
// When a live change is announced, the link the person had at the bottom edge is
// still uncovered, and so is every link scrolled to the bottom edge while the
// notice shows. No sideways scroll, nothing serious for axe.
func TestNothingIsUnderTheDecisionBarOrTheLiveNotice(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("uncovered")
	for _, l := range []struct {
		name  string
		width int64
		dark  bool
	}{{"390-light", 390, false}, {"390-dark", 390, true}, {"360-light", 360, false}, {"360-dark", 360, true}} {
		t.Run(l.name, func(t *testing.T) {
			tb := newTab(t)
			id := publish(t, e, key, uncoveredPage())
			tb.layout(l.width, l.dark)
			tb.openLive(e.Srv.URL + "/p/" + id)
			// Two rendered frames: the page has laid itself out around the bar.
			await[bool](tb, `new Promise(function(r){requestAnimationFrame(function(){requestAnimationFrame(function(){r(true)})})})`)
			if got := eval[string](tb, coveredAtBottom); got != "" {
				t.Errorf("covered by the decision bar at %s:\n%s", l.name, got)
			}
			tb.view("uncovered-end-" + l.name)

			// The person reads with the Risks runbook link at the bottom edge; the
			// agent changes another block.
			const risks = `document.querySelector('[data-block-id="b3"] a[href^="https://example.com/runbook"]')`
			tb.eval0(risks + `.scrollIntoView({block: "end"})`)
			change(e, key, id, "b1", "Only the payments service.")
			tb.until("the live notice", `!document.querySelector("#live-change").hidden`)
			tb.until("the bar to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
			tb.view("uncovered-notice-" + l.name)
			if got := eval[string](tb, `(function(){var el = `+risks+`, rs = el.getClientRects(), r = rs[rs.length - 1],
				hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
				return hit === el || el.contains(hit) ? "" : "under " + ((hit && hit.closest("[id]")) || {}).id + " at y " + Math.round(r.top)})()`); got != "" {
				t.Errorf("at %s the notice came and the link the person had at the bottom edge is %s", l.name, got)
			}
			if got := eval[string](tb, coveredAtBottom); got != "" {
				t.Errorf("covered while the notice shows at %s:\n%s", l.name, got)
			}
			tb.noSidewaysScroll(l.name)
			if v := tb.axe(); len(v) > 0 {
				t.Errorf("axe at %s with the notice shown:\n%s", l.name, strings.Join(v, "\n"))
			}
		})
	}
}
