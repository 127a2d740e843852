package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestACommentInOneTabAppearsInAnother: two people have the page open; one
// comments (on a block, in its thread), the other replies (in the Comments
// section); each sees the other's arrive without a reload, in the Comments
// section and in the block's thread. The author may edit their comment (the
// edit token the browser keeps); the other tab cannot.
func TestACommentInOneTabAppearsInAnother(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("live")
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": []any{
		map[string]any{"id": "plan", "type": "text", "data": map[string]any{"title": "Rollout plan", "content": "Canary first."}}}}))
	alice, bob := newTab(t), newTab(t)
	for _, tb := range []*tab{alice, bob} {
		tb.openLive(e.Srv.URL + "/p/" + id)
	}
	alice.do(chromedp.Click(chromedp.CSS(`[data-block-id="plan"] .blk-comment`)))
	alice.until("the block's thread open at its form", `document.activeElement.id === "t-blk-plan-text"`)
	alice.do(chromedp.SendKeys(chromedp.ID("t-blk-plan-text"), "Can we start at 5%?"),
		chromedp.SetValue(chromedp.ID("t-blk-plan-name"), "Alice"),
		chromedp.Click(chromedp.CSS(`#t-blk-plan button.bt-primary`)))
	bob.until("Alice's comment in Bob's tab", `document.querySelectorAll("#part-comments .comment").length === 1`)
	if got := bob.text("#part-comments .comment"); !containsAll(got, "Alice", "Can we start at 5%?", "on Rollout plan") {
		t.Fatalf("Bob sees %q", got)
	}
	bob.do(chromedp.Click(chromedp.CSS(`#part-comments .comment [data-reply]`)),
		chromedp.SendKeys(chromedp.ID("comment-text"), "Yes, 5% for an hour."),
		chromedp.SetValue(chromedp.ID("comment-name"), "Bob"),
		chromedp.Click(chromedp.CSS(`#composer button.bt-primary`)))
	alice.until("Bob's reply in Alice's tab", `document.querySelectorAll("#part-comments .comment.depth-1").length === 1`)
	if got := alice.text("#part-comments .comment.depth-1"); !containsAll(got, "Bob", "Yes, 5% for an hour.") {
		t.Fatalf("Alice sees the reply as %q", got)
	}
	// Only the author's tab offers to edit: it holds the comment's edit token.
	if eval[bool](bob, `!document.querySelector("#part-comments .comment:not(.depth-1) [data-edit]").hidden`) {
		t.Error("Bob is offered to edit Alice's comment")
	}
	alice.until("the edit button on Alice's own comment", `!document.querySelector("#part-comments .comment:not(.depth-1) [data-edit]").hidden`)
	alice.do(chromedp.Click(chromedp.CSS(`#part-comments .comment:not(.depth-1) [data-edit]`)))
	alice.until("the edit box", `!!document.querySelector(".edit-area")`)
	alice.do(chromedp.SetValue(chromedp.CSS(".edit-area"), "Can we start at 1%?"),
		chromedp.Click(chromedp.CSS(`#part-comments .comment .bt-primary`)))
	bob.until("the edit in Bob's tab", `document.querySelector("#part-comments .comment .text").innerText === "Can we start at 1%?"`)
	// The block's thread in Bob's tab followed all of it: both comments, the edit.
	bob.until("the thread under the block", `document.querySelectorAll("#t-blk-plan .comment").length === 2 && document.querySelector("#t-blk-plan .comment .text").textContent === "Can we start at 1%?"`)
	alice.shot("live-comments")
}

// TestBlocksAppendedOverTheAPIAppearLive: an agent appends, inserts, updates and
// reorders blocks; an open page shows each change in place without a reload, and
// what a person typed into a form meanwhile stays.
func TestBlocksAppendedOverTheAPIAppearLive(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("live")
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": []any{
		map[string]any{"id": "intro", "type": "text", "data": map[string]any{"content": "First."}},
		map[string]any{"id": "ask", "type": "form", "data": map[string]any{"fields": []any{map[string]any{"field_id": "why", "type": "text", "label": "Why"}}}}}}))
	tb := newTab(t)
	tb.openLive(e.Srv.URL + "/p/" + id)
	tb.do(chromedp.SendKeys(chromedp.CSS(`[name="form_data.why"]`), "typed before"))
	tb.eval0(`window.__sameDocument = true`)
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{
		map[string]any{"id": "metrics", "type": "metric", "data": map[string]any{"title": "Error rate", "value": "0.2%", "trend": "down"}}}})
	tb.until("the appended block", `!!document.querySelector('[data-block-id="metrics"]') && document.querySelector('[data-block-id="metrics"]').innerText.indexOf("0.2%") >= 0`)
	e.Must(200, "POST", "/v1/pages/"+id+"/blocks/insert", key, map[string]any{"position": 0, "block": map[string]any{"id": "top", "type": "callout", "data": map[string]any{"content": "Inserted first", "style": "warning"}}})
	tb.until("the inserted block at the top", `document.querySelector("#blocks > [data-block-id]").getAttribute("data-block-id") === "top"`)
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/intro", key, map[string]any{"data": map[string]any{"content": "First, **updated**."}})
	tb.until("the updated block", `document.querySelector('[data-block-id="intro"]').innerText.indexOf("First, updated.") >= 0`)
	e.Must(200, "PUT", "/v1/pages/"+id+"/blocks/reorder", key, map[string]any{"block_order": []string{"metrics", "intro"}})
	tb.until("the new order", `Array.from(document.querySelectorAll("#blocks > [data-block-id]")).map(function(e){return e.getAttribute("data-block-id")}).join() === "metrics,intro,top,ask"`)
	if !eval[bool](tb, `window.__sameDocument === true`) {
		t.Fatal("the page reloaded")
	}
	if v := eval[string](tb, `document.querySelector('[name="form_data.why"]').value`); v != "typed before" {
		t.Errorf("what the person typed became %q", v)
	}
	// The decision made elsewhere shows here too, and the actions go.
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ops@example.com"}})
	tb.until("the decision made elsewhere", `!!document.querySelector(".outcome-approved") && !document.querySelector("#decide")`)
	tb.shot("live-blocks")
}

// TestAnUploadShowsProgressAndLandsInTheFileList: attaching a file uploads it in
// three steps with a progress bar, and the file is listed with a download link that
// serves its bytes.
func TestAnUploadShowsProgressAndLandsInTheFileList(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("files")
	id := publish(t, e, key, approvalPage(nil))
	file := filepath.Join(t.TempDir(), "evidence.txt")
	content := strings.Repeat("all checks green\n", 20000) // ~340 KB: progress has steps to show
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
	tb.until("the upload control", `!document.querySelector(".upload").hidden`)
	tb.eval0(`window.__progress = []; new MutationObserver(function(){ window.__progress.push(document.querySelector(".upload-progress").value) })
			.observe(document.querySelector(".upload-progress"), {attributes: true})`)
	tb.do(chromedp.SetUploadFiles(chromedp.ID("upload-input"), []string{file}))
	tb.until("the file in the list", `!!document.querySelector(".file-list a") && document.querySelector(".file-list a").innerText === "evidence.txt"`)
	// The list may come first, from the live event's refresh; the status follows
	// the upload's own.
	tb.until("the upload's status", `(document.querySelector(".upload-status") || {}).innerText === "Attached evidence.txt."`)
	if seen := eval[[]float64](tb, `window.__progress`); len(seen) == 0 {
		t.Errorf("the progress bar never moved")
	}
	files := e.Must(200, "GET", "/v1/pages/"+id+"/files", "", nil)["files"].([]any)
	if len(files) != 1 || files[0].(map[string]any)["sizeBytes"] != float64(len(content)) {
		t.Fatalf("files: %v", files)
	}
	// Someone else attaches a file: the list is drawn again, live, and what this
	// person's upload said stays.
	p := e.Must(200, "POST", "/v1/pages/"+id+"/files/presign", "", map[string]any{"filename": "other.txt", "size_bytes": 2})
	e.Must(200, "PUT", p["uploadUrl"].(string), "", "ok")
	e.Must(201, "POST", "/v1/pages/"+id+"/files/complete", "", map[string]any{"storage_key": p["storageKey"]})
	tb.until("the other file in the list", `document.querySelectorAll(".file-list a").length === 2`)
	if got := eval[string](tb, `document.querySelector(".upload-status").innerText`); got != "Attached evidence.txt." {
		t.Errorf("after the list was drawn again the upload's status reads %q", got)
	}
	href := eval[string](tb, `document.querySelector(".file-list a").href`)
	got := await[string](tb, `fetch(`+jsonString(href)+`).then(function(r){return r.text()})`)
	if got != content {
		t.Fatalf("the downloaded bytes differ (%d of %d)", len(got), len(content))
	}
	tb.shot("files-uploaded")
}

// TestPagesOpenedOneAfterAnotherInOneTabAllGoLive: a reviewer going through ten
// review pages in one tab sees each of them live. (A page left for the next one
// sits in the back/forward cache; had it kept its stream, the browser's six
// connections to the site would be taken by the sixth page and the seventh would
// never load.) Going back shows the previous page live again.
func TestPagesOpenedOneAfterAnotherInOneTabAllGoLive(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("many-pages")
	tb := newTab(t)
	var ids []string
	for i := range 10 {
		ids = append(ids, publish(t, e, key, approvalPage(map[string]any{"title": fmt.Sprintf("Page %d", i+1)})))
	}
	for i, id := range ids {
		tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
		tb.until(fmt.Sprintf("page %d live", i+1), `document.querySelector("#live") && `+liveJS)
	}
	tb.do(chromedp.NavigateBack())
	tb.until("page 9 live again", `document.title.indexOf("Page 9") >= 0 && `+liveJS)
}

// TestADisclosureKeepsItsStateWhenTheAgentUpdatesItsBlock: a person opens the
// "unchanged lines" of a diff and closes a collapsible text; the agent then
// updates both blocks. The new content shows in place, the diff's fold stays open
// and the text stays closed: a redraw never undoes what the person chose to see.
// A keyboard user on the text's summary stays there: Enter then opens the text.
func TestADisclosureKeepsItsStateWhenTheAgentUpdatesItsBlock(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("live")
	lines := func(last string) string {
		var b strings.Builder
		for i := 1; i <= 20; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String() + last + "\n"
	}
	diff := func(last string) map[string]any {
		return map[string]any{"old_text": lines("end"), "new_text": lines(last)}
	}
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": []any{
		map[string]any{"id": "change", "type": "diff", "data": diff("end, changed")},
		map[string]any{"id": "more", "type": "rich_text", "data": map[string]any{"title": "Background", "content": "First.", "collapsible": true}}}}))
	tb := newTab(t)
	tb.openLive(e.Srv.URL + "/p/" + id)
	tb.do(chromedp.Click(chromedp.CSS(`[data-block-id="change"] details.diff-unfold summary`)),
		chromedp.Click(chromedp.CSS(`[data-block-id="more"] details summary`)))
	tb.until("the fold open and the text closed", `document.querySelector('[data-block-id="change"] details.diff-unfold').open && !document.querySelector('[data-block-id="more"] details').open`)
	tb.do(chromedp.Focus(chromedp.CSS(`[data-block-id="more"] details summary`))) // a keyboard user is on the text's summary

	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/change", key, map[string]any{"data": diff("end, changed twice")})
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/more", key, map[string]any{"data": map[string]any{"title": "Background", "content": "Second.", "collapsible": true}})
	tb.until("both updates", `document.querySelector('[data-block-id="change"]').textContent.indexOf("changed twice") >= 0 && document.querySelector('[data-block-id="more"]').textContent.indexOf("Second.") >= 0`)
	if !eval[bool](tb, `document.querySelector('[data-block-id="change"] details.diff-unfold').open`) {
		t.Error("the diff's unchanged lines folded again when the agent updated the diff")
	}
	if eval[bool](tb, `document.querySelector('[data-block-id="more"] details').open`) {
		t.Error("the text the person closed opened again when the agent updated it")
	}
	// The focus stays on the (redrawn) summary, so the next key acts on it.
	if !eval[bool](tb, `document.activeElement === document.querySelector('[data-block-id="more"] details summary')`) {
		t.Fatalf("the focus left the summary when the agent updated its block: it is on %q", eval[string](tb, `document.activeElement.outerHTML.slice(0, 80)`))
	}
	tb.do(chromedp.KeyEvent("\r"))
	tb.until("Enter to open the text", `document.querySelector('[data-block-id="more"] details').open`)
}

// TestAPageRefusedItsStreamComesBackLive: at the server's cap of open streams a
// second tab's stream is refused (503), which a browser never retries by itself.
// The page says "Reconnecting…", asks again, and once a place is free it is live,
// with the comment the agent posted while it was away, and without a reload.
func TestAPageRefusedItsStreamComesBackLive(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.MaxOpen = 1 })
	key, _ := e.Register("capped")
	id := publish(t, e, key, approvalPage(map[string]any{}))
	first, second := newTab(t), newTab(t)
	first.openLive(e.Srv.URL + "/p/" + id)
	second.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
	second.until("the second tab refused", `document.querySelector("#live") && document.querySelector("#live").innerText === "Reconnecting…"`)
	second.eval0(`window.notReloaded = true`)
	e.Must(201, "POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": "Posted while you were away"})
	first.do(chromedp.Navigate("about:blank")) // its place is free
	second.until("the second tab live again", liveJS)
	second.until("the comment posted meanwhile", `document.querySelectorAll("#part-comments .comment").length === 1`)
	if got := second.text("#part-comments .comment"); !strings.Contains(got, "Posted while you were away") || !eval[bool](second, `window.notReloaded === true`) {
		t.Fatalf("back live, the page shows %q (reloaded: %v)", got, !eval[bool](second, `window.notReloaded === true`))
	}
}
