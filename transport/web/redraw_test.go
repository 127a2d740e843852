package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"folio/transport/node/nodetest"
)

// TestALiveRedrawLeavesWhatAPersonIsDoingAlone: Alice opens the thread of a block
// that has no comments yet and starts typing in it. Meanwhile the agent updates
// another block, someone comments on a third, and the agent updates the page
// (a title and one block changed: every part is redrawn). The changed blocks
// show their new content and the new comment; Alice's thread is still open with
// what she typed, her cursor is still in it, and what she types next lands there.
func TestALiveRedrawLeavesWhatAPersonIsDoingAlone(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("redraw")
	page := threadBlocks()
	id := publish(t, e, key, page)
	alice := newTab(t)
	alice.layout(1280, false)
	alice.openLive(e.Srv.URL + "/p/" + id)
	alice.do(chromedp.Click(chromedp.CSS(`[data-block-id="plan"] .blk-comment`)))
	alice.until("the plan's thread open at its form", threadOf("plan")+` && `+threadOf("plan")+`.open && document.activeElement.id === "t-blk-plan-text"`)
	alice.do(chromedp.SendKeys(chromedp.ID("t-blk-plan-text"), "Which region "))

	conf := func(newText string) map[string]any {
		return map[string]any{"title": "config.yaml", "language": "yaml", "old_label": "Running", "new_label": "Proposed",
			"old_text": "replicas: 3\ntimeout: 30s\nregion: eu\n", "new_text": newText}
	}
	// block.updated of another block: that block alone is drawn anew.
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/conf", key, map[string]any{"data": conf("replicas: 10\nretries: 3\n")})
	// A comment on a third block: its thread arrives, every shown thread is read again.
	e.Must(201, "POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "Is eu first?", "author_name": "Bob", "block_id": "main"})
	// page.updated: the head, the state, the form and all the blocks are redrawn.
	blocks := page["blocks"].([]any)
	blocks[2] = map[string]any{"id": "conf", "type": "diff", "data": conf("replicas: 10\nretries: 4\n")}
	e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"title": "Deploy v2.4.2 to production?", "blocks": blocks})

	alice.until("the updated block, the new comment's thread and the new title",
		`document.querySelector('[data-block-id="conf"]').textContent.indexOf("retries: 4") >= 0 && `+
			threadOf("main")+` && `+threadOf("main")+`.textContent.indexOf("Is eu first?") >= 0 && `+
			`document.querySelector("h1").textContent.indexOf("v2.4.2") >= 0`)
	stillTyping(alice, "plan", "t-blk-plan-text", "Which region ", "is the canary?")
	alice.do(chromedp.ScrollIntoView(chromedp.CSS(`[data-block-id="plan"]`)))
	alice.view("redraw-thread-kept")

	// The block whose thread Alice has open changes: it shows its new content,
	// with her thread under it as she left it.
	alice.do(chromedp.Click(chromedp.CSS(`[data-block-id="conf"] .blk-comment`)))
	alice.until("the diff's thread open", threadOf("conf")+` && `+threadOf("conf")+`.open && document.activeElement.id === "t-blk-conf-from"`)
	alice.do(chromedp.Focus(chromedp.ID("t-blk-conf-text")), chromedp.KeyEvent("Why "))
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/conf", key, map[string]any{"data": conf("replicas: 10\nretries: 5\n")})
	alice.until("the diff's new content", `document.querySelector('[data-block-id="conf"]').textContent.indexOf("retries: 5") >= 0`)
	stillTyping(alice, "conf", "t-blk-conf-text", "Why ", "retries")
	blocks[2] = map[string]any{"id": "conf", "type": "diff", "data": conf("replicas: 10\nretries: 6\n")}
	e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"title": "Deploy v2.4.3 to production?", "blocks": blocks})
	alice.until("the diff's new content and the new title", `document.querySelector('[data-block-id="conf"]').textContent.indexOf("retries: 6") >= 0 && `+
		`document.querySelector("h1").textContent.indexOf("v2.4.3") >= 0`)
	stillTyping(alice, "conf", "t-blk-conf-text", "Why retries", " at all?")
	alice.do(chromedp.ScrollIntoView(chromedp.CSS(`[data-block-id="conf"]`)))
	alice.view("redraw-thread-carried")
}

// stillTyping asserts that block's thread is open, that field holds typed and
// has the focus, and that keys typed now land in it.
func stillTyping(tb *tab, block, field, typed, more string) {
	tb.t.Helper()
	if !eval[bool](tb, `!!(`+threadOf(block)+` && `+threadOf(block)+`.open)`) {
		tb.t.Fatalf("the thread of %s that the person opened closed (or went) when the page was redrawn live", block)
	}
	if got := eval[string](tb, `document.getElementById(`+jsonString(field)+`).value`); got != typed {
		tb.t.Fatalf("what the person typed in %s reads %q after the redraw, want %q", field, got, typed)
	}
	if !eval[bool](tb, `document.activeElement === document.getElementById(`+jsonString(field)+`)`) {
		tb.t.Fatalf("the focus left %s when the page was redrawn: it is on %.80q", field, eval[string](tb, `document.activeElement.outerHTML`))
	}
	tb.do(chromedp.KeyEvent(more))
	if got := eval[string](tb, `document.getElementById(`+jsonString(field)+`).value`); got != typed+more {
		tb.t.Fatalf("keys typed after the redraw: %s reads %q, want %q", field, got, typed+more)
	}
}

// TestARedrawDrawsOnlyTheBlocksThatChanged: a keyboard user is on a code block's
// Copy button when the agent updates the page (its title and one other block).
// The changed block shows its new text; the code block, whose markup did not
// change, is the very element it was (a redraw takes nothing from under the
// person), the focus is still on its button, and Enter presses it.
func TestARedrawDrawsOnlyTheBlocksThatChanged(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("redraw")
	page := threadBlocks()
	id := publish(t, e, key, page)
	tb := newTab(t)
	tb.layout(1280, false)
	tb.openLive(e.Srv.URL + "/p/" + id)
	copyButton := `[data-block-id="main"] .code-copy`
	tb.until("the code block's Copy button", `!document.querySelector('`+copyButton+`').hidden`)
	tb.do(chromedp.Focus(chromedp.CSS(copyButton)))
	tb.eval0(`window.__drawn = {}; document.querySelectorAll("#blocks > [data-block-id]").forEach(function (b) { window.__drawn[b.getAttribute("data-block-id")] = b; })`)

	blocks := page["blocks"].([]any)
	blocks[0] = map[string]any{"id": "plan", "type": "text", "data": map[string]any{"title": "Rollout plan", "content": "Canary in eu-west first."}}
	e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"title": "Deploy v2.4.2 to production?", "blocks": blocks})
	tb.until("the changed block's new text and the new title", `document.querySelector('[data-block-id="plan"]').textContent.indexOf("eu-west") >= 0 && `+
		`document.querySelector("h1").textContent.indexOf("v2.4.2") >= 0`)
	redrawn := eval[[]string](tb, `Array.from(document.querySelectorAll("#blocks > [data-block-id]")).filter(function (b) { return window.__drawn[b.getAttribute("data-block-id")] !== b; }).map(function (b) { return b.getAttribute("data-block-id"); })`)
	if len(redrawn) != 1 || redrawn[0] != "plan" {
		t.Fatalf("the blocks drawn anew: %v, want only the changed one [plan]", redrawn)
	}
	if !eval[bool](tb, `document.activeElement === document.querySelector('`+copyButton+`')`) {
		t.Fatalf("the focus left the Copy button: it is on %.80q", eval[string](tb, `document.activeElement.outerHTML`))
	}
	tb.do(chromedp.KeyEvent("\r"))
	tb.until("Enter to press the Copy button", `document.querySelector('`+copyButton+` .code-copy-text').textContent !== "Copy"`)
	tb.view("redraw-only-changed")
}

// TestARedrawOfTabbedBlocksKeepsTheThreadAndTheTabs: on a page whose blocks are
// labelled (a group and a tab set, redrawn as the blocks part), Alice opens the
// thread of the block in the first tab and starts typing; the agent changes the
// block in the second tab. The tab set is drawn anew: the second tab holds the new
// text, the tabs still work, and Alice's thread is open with what she typed and
// her cursor; the group, which did not change, is the element it was.
func TestARedrawOfTabbedBlocksKeepsTheThreadAndTheTabs(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("redraw")
	text := func(id, label, which, content string) map[string]any {
		return map[string]any{"id": id, which: label, "type": "text", "data": map[string]any{"title": id, "content": content}}
	}
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": []any{
		text("plan", "Rollout", "group", "Canary first."),
		text("notes", "Notes", "tab", "Watch the error rate."),
		text("risk", "Risks", "tab", "A slow canary."),
	}}))
	tb := newTab(t)
	tb.layout(1280, false)
	tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
	tb.until("the live stream and the tabs", liveJS+` && !document.querySelector("#blocks [role=tablist]").hidden`)
	tb.eval0(`window.__group = document.querySelector("#blocks > .blk-grp")`)
	tb.do(chromedp.Click(chromedp.CSS(`[data-block-id="notes"] .blk-comment`)))
	tb.until("the thread open at its form", threadOf("notes")+` && `+threadOf("notes")+`.open && document.activeElement.id === "t-blk-notes-text"`)
	tb.do(chromedp.KeyEvent("Which "))

	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/risk", key, map[string]any{"data": map[string]any{"title": "risk", "content": "A canary that never ends."}})
	tb.until("the second tab's new text", `document.querySelector('[data-block-id="risk"]').textContent.indexOf("never ends") >= 0`)
	stillTyping(tb, "notes", "t-blk-notes-text", "Which ", "rate?")
	if !eval[bool](tb, `window.__group === document.querySelector("#blocks > .blk-grp")`) {
		t.Error("the group, which did not change, was drawn anew")
	}
	tb.do(chromedp.Click(chromedp.CSS(`#blocks [role=tab]:nth-child(2)`)))
	tb.until("the second tab shown", `!document.querySelector('[data-block-id="risk"]').closest("[role=tabpanel]").hidden && document.querySelector('[data-block-id="notes"]').closest("[role=tabpanel]").hidden`)
	tb.view("redraw-tabs")
}
