package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"folio/actors/page"
	"folio/actors/registry"
	"folio/transport/node/nodetest"
)

// changingPage is a page of four titled text blocks to review.
func changingPage() map[string]any {
	var bs []any
	for i, name := range []string{"Scope", "Rollout", "Risks", "Numbers"} {
		bs = append(bs, map[string]any{"id": fmt.Sprintf("b%d", i+1), "type": "text", "data": map[string]any{"title": name,
			"content": strings.Repeat("The rollout goes region by region, watching error rates between each step. ", 6)}})
	}
	return approvalPage(map[string]any{"blocks": bs})
}

// change has the agent change block id's text (one new content version).
func change(e *nodetest.Env, key, id, blk, text string) {
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/"+blk, key, map[string]any{"data": map[string]any{"title": map[string]string{"b1": "Scope", "b2": "Rollout", "b3": "Risks", "b4": "Numbers"}[blk], "content": text}})
}

const sinceMarks = `Array.from(document.querySelectorAll("#blocks .blk-since")).map(function(b){return b.getAttribute("data-block-id")+":"+b.querySelector(".since-mark").innerText}).join("|")`

// TestChangedSinceYouLastLooked (issue 32 item 4): a person views a page at
// version 1 and leaves; the agent changes two blocks; when the person comes back
// the two blocks say "Changed since you last looked", a summary at the top says so
// with a Next change button, and n moves the focus from change to change. A block
// the agent changes while they read is announced in a notice that links to it. A
// decision clicked after that, or confirmed while the page changes, is not sent:
// the decision bar says what changed, and the next click decides on the new
// version. A signed-in person's other browser marks the changes from the server's
// record. At 1280 and 390 px, light and dark, axe-clean.
func TestChangedSinceYouLastLooked(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("changed")
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			// Tabs of their own per layout: a tab's context has a 90 s deadline.
			reader, alice, aliceElsewhere := newTab(t), newTab(t), newTab(t)
			alice.signedIn(e, "alice@example.com")
			aliceElsewhere.signedIn(e, "alice@example.com")
			id := publish(t, e, key, changingPage())
			url := e.Srv.URL + "/p/" + id
			reader.layout(l.width, l.dark)
			reader.do(chromedp.Navigate(url))
			reader.until("version 1 remembered as seen", `(localStorage.getItem("folio.seen") || "").indexOf(`+jsonString(id)+`) >= 0`)
			if got := eval[string](reader, sinceMarks); got != "" {
				t.Fatalf("a first visit marks %q", got)
			}
			reader.do(chromedp.Navigate("about:blank"))
			change(e, key, id, "b2", "Region by region, **two** at a time.")
			change(e, key, id, "b4", "Error budget: 0.5%.")

			// The person comes back: the two blocks are marked, in words.
			reader.do(chromedp.Navigate(url))
			reader.until("the marks", sinceMarks+` === "b2:Changed since you last looked (version 2)|b4:Changed since you last looked (version 3)"`)
			if got := reader.text("#since"); !strings.Contains(got, "2 blocks changed since version 1, when you last looked (now version 3).") || !strings.Contains(got, "Next change") {
				t.Errorf("the summary at the top reads %q", got)
			}
			reader.view("changed-since-" + l.name)
			// n, n, n: the first change, the second, the first again.
			for _, want := range []string{"b2", "b4", "b2"} {
				reader.do(chromedp.KeyEvent("n"))
				reader.until("the focus on "+want, `document.activeElement.getAttribute("data-block-id") === `+jsonString(want))
			}
			if got := reader.text("#since .since-pos"); got != "Change 1 of 2: Rollout." {
				t.Errorf("after n, n, n the summary says %q", got)
			}
			reader.do(chromedp.Click(chromedp.CSS(`#since .since-next`)))
			reader.until("the Next change button to the second change", `document.activeElement.getAttribute("data-block-id") === "b4"`)
			reader.view("changed-next-" + l.name)

			// A change while the person reads: marked, and a notice links to it.
			reader.until("the page live", liveJS)
			reader.do(chromedp.KeyEvent("t"))
			change(e, key, id, "b1", "Only the payments service.")
			reader.until("the live notice", `!document.querySelector("#live-change").hidden && document.querySelector("#live-change").innerText.indexOf("The page changed while you were reading (now version 4): 1 block changed.") >= 0`)
			reader.until("the live mark", `document.querySelector('[data-block-id="b1"] .since-mark') && document.querySelector('[data-block-id="b1"] .since-mark').innerText === "Changed while you were reading (version 4)"`)
			reader.view("changed-live-" + l.name)
			// The marks, the summary and the notice at once, in this layout's theme.
			reader.until("the theme's colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
			if v := reader.axe(); len(v) > 0 {
				t.Errorf("axe on the page with changes marked and a live change announced (%s):\n%s", l.name, strings.Join(v, "\n"))
			}
			reader.do(chromedp.Click(chromedp.CSS(`#live-change .live-change-show`)))
			reader.until("the focus on the live change", `document.activeElement.getAttribute("data-block-id") === "b1" && document.querySelector("#live-change").hidden`)

			// Approve, clicked on version 3 while the page is at 4: not sent, the bar says so.
			reader.do(chromedp.SendKeys(chromedp.ID("actor_identity"), "rey@example.com"), chromedp.Click(chromedp.CSS(`.dbar button[value="approve"]`)))
			reader.until("the bar to say the page changed", `!!document.querySelector(".dbar .dbar-changed") && document.querySelector(".dbar .dbar-changed").innerText.indexOf("The page changed (version 3 → 4): 1 block changed. Nothing was sent") === 0`)
			if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil); got["status"] != "active" {
				t.Fatalf("a decision on version 3 of a page at version 4 was sent: %v", got["status"])
			}
			// Reject asks first; the page changes while the dialog is open: it closes
			// and the bar says so, before anything is sent.
			reader.do(chromedp.Click(chromedp.CSS(`.dbar button[value="reject"]`)))
			reader.until("the confirmation", `!!document.querySelector("dialog.confirm[open]")`)
			change(e, key, id, "b3", "Rollback takes 4 minutes.")
			reader.until("the dialog closed and the bar saying why", `!document.querySelector("dialog.confirm") && document.querySelector(".dbar .dbar-changed").innerText.indexOf("The page changed (version 4 → 5)") === 0`)
			reader.view("changed-while-confirming-" + l.name)
			if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil); got["status"] != "active" {
				t.Fatalf("a decision confirmed while the page changed was sent: %v", got["status"])
			}
			reader.do(chromedp.Click(chromedp.CSS(`.dbar button[value="approve"]`)))
			reader.until("the decision", `!!document.querySelector(".outcome-approved")`)
			if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil); got["status"] != "completed" {
				t.Fatalf("the decision after the notice is %v", got["status"])
			}

			// Signed in: the server remembers what Alice saw; her other browser marks
			// the changes made since.
			other := publish(t, e, key, changingPage())
			alice.layout(l.width, l.dark)
			alice.do(chromedp.Navigate(e.Srv.URL + "/p/" + other))
			alice.until("the page", `!!document.querySelector("#page-title")`)
			waitSeen(t, e, other, "alice@example.com", 1)
			change(e, key, other, "b1", "Only the payments service.")
			change(e, key, other, "b3", "Rollback takes 4 minutes.")
			aliceElsewhere.layout(l.width, l.dark)
			aliceElsewhere.do(chromedp.Navigate(e.Srv.URL + "/p/" + other))
			aliceElsewhere.until("the marks from the server's record", sinceMarks+` === "b1:Changed since you last looked (version 2)|b3:Changed since you last looked (version 3)"`)
			if got := eval[string](aliceElsewhere, `localStorage.getItem("folio.seen") || ""`); strings.Contains(got, other+`":[1`) {
				t.Fatalf("the second browser knew the version from its own storage: %s", got)
			}
			aliceElsewhere.view("changed-other-browser-" + l.name)
			waitSeen(t, e, other, "alice@example.com", 3)
		})
	}
}

// waitSeen waits for the server's record of the version person saw of page id.
func waitSeen(t *testing.T, e *nodetest.Env, id, person string, want int) {
	t.Helper()
	for range 300 {
		o, err := registry.Call[*page.Opened](context.Background(), e.Node.Pages, id, &page.Open{Viewer: page.Viewer{Person: person}})
		if err != nil {
			t.Fatal(err)
		}
		if o.Seen == want {
			return
		}
		if o.Seen > want {
			t.Fatalf("the server's record of what %s saw is version %d, want %d", person, o.Seen, want)
		}
		time.Sleep(20 * time.Millisecond) // polling the record
	}
	t.Fatalf("the server never recorded that %s saw version %d", person, want)
}
