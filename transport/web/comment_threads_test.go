package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
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
	return fmt.Sprintf(`document.querySelector('[data-block-id=%q] > .cm-thread')`, id)
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
				tb.openLive(e.Srv.URL + "/p/" + id)
			}
			if n := eval[int](alice, `document.querySelectorAll(".cm-thread").length`); n != 0 {
				t.Fatalf("a page without comments draws %d threads", n)
			}
			if n := eval[int](alice, `document.querySelectorAll("#blocks .blk-comment").length`); n != 3 {
				t.Fatalf("want one comment affordance per block, got %d", n)
			}

			// Alice sees Bob arrive (the line under the header moves what is below
			// it down: a click aimed before it lands would miss), then comments on
			// the whole block, through the block's affordance.
			alice.until("Bob's arrival in Alice's tab", `document.getElementById("presence").textContent !== ""`)
			alice.do(chromedp.Click(chromedp.CSS(`[data-block-id="plan"] .blk-comment`)))
			alice.until("the thread open in place with its form", threadOf("plan")+` && `+threadOf("plan")+`.open && document.activeElement === document.getElementById("t-blk-plan-text")`)
			alice.do(chromedp.SendKeys(chromedp.ID("t-blk-plan-text"), "Which region is the canary?"),
				chromedp.SetValue(chromedp.ID("t-blk-plan-name"), "Alice"),
				chromedp.Click(chromedp.CSS(`#t-blk-plan button.bt-primary`), chromedp.NodeVisible))
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
			// Sent with Ctrl+Enter (at 390 px the decision bar is fixed over the
			// bottom of the screen, where a scrolled-to button may lie).
			alice.do(chromedp.SetValue(chromedp.ID("t-blk-conf-name"), "Alice"),
				chromedp.SendKeys(chromedp.ID("t-blk-conf-text"), "10 replicas and a 5 s timeout at once?"),
				chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
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
			if !l.dark { // noSeriousViolations checks both themes; a tab of its own, with its own time
				ax := newTab(t)
				ax.layout(l.width, false)
				ax.openLive(e.Srv.URL + "/p/" + id + "?comment_on=conf")
				ax.do(chromedp.Click(chromedp.CSS(`#t-blk-plan > summary`)))
				ax.until("both threads open", `document.querySelector("#t-blk-plan").open && document.querySelector("#t-blk-conf").open`)
				ax.noSeriousViolations("the page with threads open at " + l.name)
			}
		})
	}
}

// TestCommentingOnLinesFromTheKeyboardAlone: Tab reaches each block's comment
// affordance, which shows while it holds the focus; Enter opens the diff's thread
// at its first line field; the range, the comment and Ctrl+Enter post it on lines
// 2-3 of the old side; "m" opens the thread of the block in view, and "?" lists
// it. No key decides. At 1280 and 390 px, light and dark.
func TestCommentingOnLinesFromTheKeyboardAlone(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("thread-keys")
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			id := publish(t, e, key, threadBlocks())
			tb := newTab(t)
			tb.layout(l.width, l.dark)
			tb.openLive(e.Srv.URL + "/p/" + id)
			// Headless Chromium has no pointer (hover: none), where the affordance
			// always shows; with a mouse it shows on hover or focus of its block.
			if op := eval[string](tb, `getComputedStyle(document.querySelector('[data-block-id="conf"] .blk-comment')).opacity`); eval[bool](tb, `matchMedia("(hover: hover)").matches`) && op != "0" {
				t.Errorf("the affordance of a block nobody points at is not quiet (opacity %s)", op)
			}
			reached := false
			for i := 0; i < 60 && !reached; i++ {
				tb.do(chromedp.KeyEvent("\t"))
				reached = eval[bool](tb, `document.activeElement.matches('[data-block-id="conf"] .blk-comment')`)
			}
			if !reached {
				t.Fatal("Tab never reached the diff's comment affordance")
			}
			if op := eval[string](tb, `getComputedStyle(document.activeElement).opacity`); op != "1" {
				t.Errorf("the focused affordance is not shown (opacity %s)", op)
			}
			if o := eval[string](tb, `getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
				t.Errorf("the focused affordance has no focus ring")
			}
			tb.do(keystroke('\r')) // Enter
			tb.until("the thread open at its first line field", `document.activeElement.id === "t-blk-conf-from"`)
			tb.do(chromedp.KeyEvent("2"), chromedp.KeyEvent("\t"), chromedp.KeyEvent("3"))
			tb.until("the range typed, the focus in its second field", `document.getElementById("t-blk-conf-from").value === "2" && document.getElementById("t-blk-conf-to").value === "3" && document.activeElement.id === "t-blk-conf-to"`)
			tb.do(chromedp.KeyEvent("\t", chromedp.KeyModifiers(kb.ModifierShift)))
			tb.until("Shift+Tab back to the first line field", `document.activeElement.id === "t-blk-conf-from"`)
			tb.do(chromedp.KeyEvent("\t", chromedp.KeyModifiers(kb.ModifierShift)))
			tb.until("Shift+Tab from the line fields to the side", `document.activeElement.id === "t-blk-conf-side"`)
			tb.eval0(`document.activeElement.value = "old"; document.activeElement.dispatchEvent(new Event("input", {bubbles: true}))`) // a select's value, as the arrow keys set it
			tb.until("the picked old lines outlined", `document.querySelectorAll('[data-block-id="conf"] .diff-t-uni tr.line-picked').length === 2`)
			tb.do(chromedp.Focus(chromedp.ID("t-blk-conf-text")), chromedp.KeyEvent("Why drop these?"))
			tb.do(chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
			tb.until("the comment in the thread", threadOf("conf")+`.querySelectorAll(".comment").length === 1`)
			if got := tb.text("#t-blk-conf .comment"); !containsAll(got, "lines 2–3 of Running", "Why drop these?") {
				t.Fatalf("the thread reads %q", got)
			}
			tb.until("the old lines marked", `Array.from(document.querySelectorAll('[data-block-id="conf"] .diff-t-uni tr.line-commented')).map(function(tr){return tr.querySelectorAll("td.diff-n")[0].innerText.trim()}).join() === "2,3"`)
			tb.view("comment-threads-keyboard-" + l.name)

			// "m": the block holding the focus gets a comment, in place.
			tb.eval0(`document.querySelector('[data-block-id="main"] pre').focus()`)
			tb.do(keystroke('m'))
			tb.until("the code block's thread open at its first field", `document.activeElement.id === "t-blk-main-from"`)
			tb.eval0(`document.activeElement.blur()`)
			tb.do(chromedp.KeyEvent("?"))
			tb.until("the shortcut list", `!!document.querySelector("dialog.keys[open]")`)
			if got := tb.text("dialog.keys"); !containsAll(got, "Comment on this block") {
				t.Fatalf("the shortcuts read %q", got)
			}
			tb.do(chromedp.KeyEvent(kb.Escape))
			got := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
			if got["status"] != "active" || got["decision"] != nil {
				t.Fatalf("after the keyboard path the page is %v (decision %v)", got["status"], got["decision"])
			}
			c := e.Must(200, "GET", "/v1/pages/"+id+"/comments", "", nil)["comments"].([]any)[0].(map[string]any)
			if c["line_side"] != "old" || c["line_start"] != 2.0 || c["line_end"] != 3.0 {
				t.Fatalf("the comment is stored as %v", c)
			}
		})
	}
}

// TestEnterInACommentFieldPostsNothing: Enter in a thread's line fields or its
// name field, or in the name under the page's comment box, posts nothing and keeps
// what was typed, as in the decision form; the button then posts the one comment.
// Without scripts too: Enter in a thread's line field sends nothing, and the
// comment posted afterwards is the only one, on the range typed after the Enter.
func TestEnterInACommentFieldPostsNothing(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("thread-enter")
	id := publish(t, e, key, threadBlocks())
	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id + "?comment_on=main"))
	tb.until("the page script and the open thread", liveJS+` && document.querySelector("#t-blk-main").open`)
	tb.do(chromedp.SetValue(chromedp.ID("t-blk-main-text"), "Half a thought"))
	for _, field := range []string{"t-blk-main-from", "t-blk-main-to", "t-blk-main-name"} {
		// The focus is moved by the page's own focus(), not by a node handle the
		// browser may have renumbered since the page was drawn.
		tb.eval0(`document.getElementById("` + field + `").focus()`)
		tb.do(chromedp.KeyEvent("4"), keystroke('\r'))
		if got := eval[string](tb, `document.querySelector("#t-blk-main .form-status").textContent + "|" + document.activeElement.id + "|" + document.getElementById("t-blk-main-text").value`); got != "|"+field+"|Half a thought" {
			t.Fatalf("after Enter in %s the thread's status, focus and text are %q", field, got)
		}
	}
	tb.do(chromedp.Click(chromedp.CSS(`#t-blk-main button.bt-primary`)))
	tb.until("the comment posted by its button", threadOf("main")+`.querySelectorAll(".comment").length === 1`)
	tb.do(chromedp.SetValue(chromedp.ID("comment-text"), "A second thought"), chromedp.Focus(chromedp.ID("comment-name")), chromedp.KeyEvent("Nora"), keystroke('\r'))
	if got := tb.text("#composer .form-status"); got != "" {
		t.Fatalf("Enter in the comment box's name field: the status says %q", got)
	}
	tb.do(chromedp.Click(chromedp.CSS(`#composer button.bt-primary`)))
	tb.until("the second comment posted", `document.querySelectorAll("#part-comments .comment").length === 2`)

	nojs := newTab(t)
	if _, err := chromedp.Call(nojs.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	nojs.do(chromedp.Navigate(e.Srv.URL + "/p/" + id + "?comment_on=conf"))
	nojs.until("the diff's thread open", `document.readyState === "complete" && document.querySelector("#t-blk-conf").open`)
	nojs.do(chromedp.SetValue(chromedp.ID("t-blk-conf-text"), "No script"), chromedp.SetValue(chromedp.ID("t-blk-conf-name"), "Ola"),
		chromedp.Focus(chromedp.ID("t-blk-conf-from")), chromedp.KeyEvent("2"), keystroke('\r'))
	nojs.do(chromedp.SetValue(chromedp.ID("t-blk-conf-to"), "3"), chromedp.Click(chromedp.CSS(`#t-blk-conf button.bt-primary`)))
	nojs.until("the comment in the open thread", `!!document.querySelector("#t-blk-conf .comment")`)

	var texts []string
	for _, c := range e.Must(200, "GET", "/v1/pages/"+id+"/comments", "", nil)["comments"].([]any) {
		m := c.(map[string]any)
		texts = append(texts, fmt.Sprintf("%v %v-%v", m["content"], m["line_start"], m["line_end"]))
	}
	if got := strings.Join(texts, "; "); got != "Half a thought 4-4; A second thought <nil>-<nil>; No script 2-3" {
		t.Fatalf("the page's comments are %q", got)
	}
}

// TestABlockThreadWorksWithoutJavaScript: with scripts off, a block's comment
// link opens the page with its thread and form; the form posts a comment on
// lines of the code block (303 back, the thread open at it, lines marked in the
// thread's text); a range past the block's end comes back as a 400 page with the
// message at the line fields and what was typed kept.
func TestABlockThreadWorksWithoutJavaScript(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("thread-nojs")
	id := publish(t, e, key, threadBlocks())
	tb := newTab(t)
	if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
	tb.do(chromedp.Click(chromedp.CSS(`[data-block-id="main"] .blk-comment`)))
	tb.until("the thread open after the link", `document.readyState === "complete" && location.search === "?comment_on=main" && document.querySelector("#t-blk-main").open`)
	tb.do(chromedp.SetValue(chromedp.ID("t-blk-main-from"), "4"), chromedp.SetValue(chromedp.ID("t-blk-main-to"), "9"),
		chromedp.SetValue(chromedp.ID("t-blk-main-text"), "Both regions at once?"), chromedp.SetValue(chromedp.ID("t-blk-main-name"), "Nora"),
		chromedp.Click(chromedp.CSS(`#t-blk-main button.bt-primary`)))
	tb.until("the refusal at the line fields", `!!document.querySelector("#t-blk-main-lines-err") && !document.querySelector("#t-blk-main-lines-err").hidden`)
	if got := tb.text("#t-blk-main-lines-err"); !containsAll(got, "line_end", "at most 6") {
		t.Fatalf("the line fields say %q", got)
	}
	if v := eval[string](tb, `document.getElementById("t-blk-main-text").value + "|" + document.getElementById("t-blk-main-to").value`); v != "Both regions at once?|9" {
		t.Fatalf("what was typed came back as %q", v)
	}
	tb.view("comment-threads-nojs-refused")
	tb.until("the refused page loaded", `document.readyState === "complete" && location.hash === "#t-blk-main"`)
	tb.do(chromedp.SetValue(chromedp.ID("t-blk-main-to"), "5"), chromedp.Click(chromedp.CSS(`#t-blk-main button.bt-primary`)))
	tb.until("the comment in the open thread", `!!document.querySelector("#t-blk-main .comment") && document.querySelector("#t-blk-main").open`)
	if got := tb.text("#t-blk-main .comment"); !containsAll(got, "Nora", "lines 4–5", "Both regions at once?") {
		t.Fatalf("the thread reads %q", got)
	}
	tb.view("comment-threads-nojs-posted")

	// The form's post without a browser: a bad origin is refused, the 303 names the comment.
	form := url.Values{"content": {"x"}, "block_id": {"main"}, "line_start": {"two"}}
	req, _ := http.NewRequest("POST", e.Srv.URL+"/p/"+id+"/comments", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.Srv.URL)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != 400 || !strings.Contains(string(body), "line_start must be a whole number") {
		t.Fatalf("a line that is not a number: %d", res.StatusCode)
	}
}

// TestThreadsShowWhatPeopleAndAgentsWriteAsText: comment content and author,
// and a diff's titles and side labels, carrying script and markup, show as text
// in the thread and its form; nothing runs.
func TestThreadsShowWhatPeopleAndAgentsWriteAsText(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("thread-xss")
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": []any{
		map[string]any{"id": "d", "type": "diff", "data": map[string]any{"title": payloads[1], "old_label": payloads[0], "new_label": payloads[5],
			"old_text": "a\n", "new_text": "b\n"}}}}))
	for i, p := range payloads {
		e.Must(201, "POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": p, "author_name": payloads[(i+3)%len(payloads)], "block_id": "d",
			"line_start": 1, "line_side": []string{"new", "old"}[i%2]})
	}
	tb := newTab(t)
	tb.openLive(e.Srv.URL + "/p/" + id + "?comment_on=d")
	tb.until("the thread", `document.querySelectorAll("#t-blk-d .comment").length === `+fmt.Sprint(len(payloads)))
	if got := tb.text("#t-blk-d .comment .text"); got != payloads[0] {
		t.Fatalf("a comment reads %q", got)
	}
	if got := eval[string](tb, `document.querySelector("#t-blk-d-side option[value=old]").textContent`); got != payloads[0] {
		t.Fatalf("the old side's label reads %q", got)
	}
	e.Must(201, "POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": payloads[7], "block_id": "d", "line_start": 1})
	tb.until("a live comment", `document.querySelectorAll("#t-blk-d .comment").length === `+fmt.Sprint(len(payloads)+1))
	if v := eval[any](tb, `window.__xss`); v != nil {
		t.Fatalf("a payload ran: window.__xss = %v", v)
	}
}
