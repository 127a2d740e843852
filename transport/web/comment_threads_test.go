package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"folio/transport/node/nodetest"
)

// Comments where the problem is (issue 32 item 5): every block's thread in place,
// with its count; comments on a line range of a code or diff block, picked by
// clicking line numbers or typed; one quiet affordance per block and the "m"
// shortcut; threads that follow other people's comments live; a form that posts
// without JavaScript.

// threadBlocks is a page with a plain block, a code block with line numbers and
// a text diff.
func threadBlocks() map[string]any {
	return approvalPage(map[string]any{"blocks": []any{
		map[string]any{"id": "plan", "type": "text", "data": map[string]any{"title": "Rollout plan", "content": "Canary first, then every region."}},
		map[string]any{"id": "main", "type": "code", "data": map[string]any{"title": "main.go", "language": "go", "line_numbers": true,
			"content": "package main\n\nfunc main() {\n\tdeploy(\"eu\")\n\tdeploy(\"us\")\n}\n"}},
		map[string]any{"id": "conf", "type": "diff", "data": map[string]any{"title": "config.yaml", "language": "yaml", "old_label": "Running", "new_label": "Proposed",
			"old_text": "replicas: 3\ntimeout: 30s\nregion: eu\n", "new_text": "replicas: 10\ntimeout: 5s\nregion: eu\nretries: 2\n"}},
	}})
}

// threadOf is a JavaScript expression for the thread element of block id.
func threadOf(id string) string {
	return fmt.Sprintf(`document.querySelector('[data-block-id=%q] > .blk-thread')`, id)
}

// TestCommentsOnABlockAndALineRangeShowInPlaceAndLive: Alice comments on a block
// through its affordance and on lines 1-2 of a diff's new side by clicking its
// line numbers (Shift+click extends the range); each block shows its count and
// the thread under it, the diff marks the lines its comments are about, and Bob,
// in another tab, sees both arrive in the right threads without a reload. At 1280
// and 390 px, light and dark; axe finds nothing serious with the threads open.
func TestCommentsOnABlockAndALineRangeShowInPlaceAndLive(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("threads")
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			id := publish(t, e, key, threadBlocks())
			alice, bob := newTab(t), newTab(t)
			for _, tb := range []*tab{alice, bob} {
				tb.layout(l.width, l.dark)
				tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
				tb.until("the live stream", `document.querySelector("#live").innerText === "Live"`)
			}
			if n := eval[int](alice, `document.querySelectorAll(".blk-thread").length`); n != 0 {
				t.Fatalf("a page without comments draws %d threads", n)
			}
			if n := eval[int](alice, `document.querySelectorAll("#blocks .blk-comment").length`); n != 3 {
				t.Fatalf("want one comment affordance per block, got %d", n)
			}

			// A comment on the whole block, through the block's affordance.
			alice.do(chromedp.Click(chromedp.CSS(`[data-block-id="plan"] .blk-comment`)))
			alice.until("the thread open in place with its form", threadOf("plan")+` && `+threadOf("plan")+`.open && document.activeElement === document.getElementById("t-blk-plan-text")`)
			alice.do(chromedp.SendKeys(chromedp.ID("t-blk-plan-text"), "Which region is the canary?"),
				chromedp.SetValue(chromedp.ID("t-blk-plan-name"), "Alice"),
				chromedp.Click(chromedp.CSS(`#t-blk-plan button[type=submit]`)))
			alice.until("the comment in the block's thread", threadOf("plan")+`.querySelectorAll(".comment").length === 1`)
			bob.until("Alice's comment in the plan's thread in Bob's tab, with its count",
				threadOf("plan")+` && `+threadOf("plan")+`.querySelector("summary").innerText.indexOf("1 comment") === 0`)
			bob.do(chromedp.Click(chromedp.CSS(`#t-blk-plan > summary`)))
			if got := bob.text("#t-blk-plan .comment"); !containsAll(got, "Alice", "Which region is the canary?") {
				t.Fatalf("Bob reads the thread as %q", got)
			}

			// Lines 1-2 of the diff's proposed side: a click on a line number, then
			// Shift+click on another.
			alice.do(chromedp.ScrollIntoView(chromedp.CSS(`[data-block-id="conf"]`)))
			alice.eval0(`window.__line = function(side, n){ return Array.from(document.querySelectorAll('[data-block-id="conf"] .diff-t-uni tbody tr')).map(function(tr){return tr.querySelectorAll("td.diff-n")[side === "old" ? 0 : 1]}).filter(function(td){return td && td.innerText.trim() === String(n)})[0] }`)
			clickLine := func(n int, shift bool) {
				var mods []chromedp.MouseOption
				if shift {
					mods = append(mods, chromedp.ButtonModifiers(kb.ModifierShift))
				}
				x, y := eval[float64](alice, fmt.Sprintf(`(function(){var r=__line("new",%d).getBoundingClientRect();return r.left+r.width/2})()`, n)),
					eval[float64](alice, fmt.Sprintf(`(function(){var r=__line("new",%d).getBoundingClientRect();return r.top+r.height/2})()`, n))
				alice.do(chromedp.MouseClickXY(x, y, mods...))
			}
			clickLine(1, false)
			alice.until("the picked line in the diff's form", `document.getElementById("t-blk-conf-from") && document.getElementById("t-blk-conf-from").value === "1"`)
			clickLine(2, true)
			alice.until("the picked range", `document.getElementById("t-blk-conf-to").value === "2" && document.getElementById("t-blk-conf-side").value === "new" && document.querySelectorAll('[data-block-id="conf"] .diff-t-uni tr.line-picked').length === 2`)
			alice.do(chromedp.SendKeys(chromedp.ID("t-blk-conf-text"), "10 replicas and a 5 s timeout at once?"),
				chromedp.SetValue(chromedp.ID("t-blk-conf-name"), "Alice"),
				chromedp.Click(chromedp.CSS(`#t-blk-conf button[type=submit]`)))
			alice.until("the line comment in the diff's thread", threadOf("conf")+` && `+threadOf("conf")+`.querySelectorAll(".comment").length === 1`)
			bob.until("the line comment in the diff's thread in Bob's tab, its lines marked",
				threadOf("conf")+` && `+threadOf("conf")+`.querySelector("summary").innerText.indexOf("1 comment") === 0 && document.querySelectorAll('[data-block-id="conf"] .diff-t-uni tr.line-commented').length === 2`)
			bob.do(chromedp.Click(chromedp.CSS(`#t-blk-conf > summary`)))
			if got := bob.text("#t-blk-conf .comment"); !containsAll(got, "Alice", "lines 1–2 of Proposed", "10 replicas") {
				t.Fatalf("Bob reads the diff's thread as %q", got)
			}
			marked := eval[[]string](bob, `Array.from(document.querySelectorAll('[data-block-id="conf"] .diff-t-uni tr.line-commented')).map(function(tr){return tr.querySelectorAll("td.diff-n")[1].innerText.trim()})`)
			if strings.Join(marked, ",") != "1,2" {
				t.Fatalf("marked lines (new side): %v", marked)
			}
			// The Comments section lists both, naming the block and the lines.
			if got := bob.text("#part-comments"); !containsAll(got, "on Rollout plan", "on config.yaml, lines 1–2 of Proposed") {
				t.Fatalf("the Comments section reads %q", got)
			}
			got := e.Must(200, "GET", "/v1/pages/"+id+"/comments", "", nil)["comments"].([]any)
			if c := got[1].(map[string]any); c["block_id"] != "conf" || c["line_start"] != 1.0 || c["line_end"] != 2.0 || c["line_side"] != "new" {
				t.Fatalf("the API has the line comment as %v", c)
			}
			bob.do(chromedp.ScrollIntoView(chromedp.CSS(`[data-block-id="conf"]`)))
			bob.view("comment-threads-" + l.name)
			alice.view("comment-threads-author-" + l.name)
			bob.shot("comment-threads-page-" + l.name)
			bob.noSidewaysScroll("the page with threads open")
			if !l.dark { // noSeriousViolations checks both themes
				bob.noSeriousViolations("the page with threads open at " + l.name)
			}
		})
	}
}
