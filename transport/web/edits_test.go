package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/transport/node/nodetest"
)

// editablePage is an approval page whose text block and key_value block the
// reviewer may edit, its callbacks sent to hook.
func editablePage(hook string) map[string]any {
	return approvalPage(map[string]any{
		"blocks": []any{
			map[string]any{"id": "note", "type": "text", "editable": true, "data": map[string]any{"title": "Release note",
				"content": "Raise the daily limit.\nApplies from Monday."}},
			map[string]any{"id": "limits", "type": "key_value", "editable": true, "data": map[string]any{"title": "Limits", "pairs": []any{
				map[string]any{"key": "Daily limit", "value": 1000}, map[string]any{"key": "Owner", "value": "ops"}}}},
			map[string]any{"id": "why", "type": "text", "data": map[string]any{"content": "Checks passed."}},
		},
		"on_action": map[string]any{"default_url": hook},
	})
}

// TestAReviewerEditsThenApproves: on the review page a person opens "Edit before
// approving" under a text block and a key_value block, corrects the text and a
// value, and approves. The agent's callback carries both edits with the diff from
// its version; the page then shows the edited text and value with "Edited by …",
// and the agent's original is one disclosure away. At 1280 and 390 px, light and
// dark; axe finds nothing serious while editing nor once decided.
func TestAReviewerEditsThenApproves(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("limits-bot")
	tb := newTab(t)
	for i, l := range layouts {
		rv := newReceiver(t)
		id := publish(t, e, key, editablePage(rv.srv.URL))
		tb.layout(l.width, l.dark)
		tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
		tb.until("the page script", `!document.querySelector("#live").hidden`)
		tb.eval0(`document.getElementById("actor_identity").value = ""`) // the page remembers the name given last time
		tb.do(chromedp.SendKeys(chromedp.ID("actor_identity"), "alice@example.com"))
		if n := eval[int](tb, `document.querySelectorAll("[data-edit]").length`); n != 2 {
			t.Fatalf("%s: %d editors, want 2 (the text and the key_value block)", l.name, n)
		}
		// From the keyboard: each disclosure is a summary that Enter opens.
		tb.do(chromedp.Focus(chromedp.CSS(`[data-edit="note"] summary`)), chromedp.KeyEvent("\r"),
			chromedp.Focus(chromedp.CSS(`[data-edit="limits"] summary`)), chromedp.KeyEvent("\r"))
		note := `[data-edit="note"] textarea`
		tb.until("the editors open", `document.querySelectorAll("[data-edit][open]").length === 2`)
		value := `[data-edit="limits"] input[data-i="0"]`
		tb.eval0(`document.querySelector(` + jsonString(note) + `).value = ""; document.querySelector(` + jsonString(value) + `).value = ""`)
		tb.do(chromedp.SendKeys(chromedp.CSS(note), "Raise the daily limit to 500.\nApplies from Monday."),
			chromedp.SendKeys(chromedp.CSS(value), "500"))
		tb.noSidewaysScroll(l.name + " editing")
		tb.do(chromedp.ScrollIntoView(chromedp.CSS(`[data-edit="note"]`)))
		tb.view("edits-editing-" + l.name)
		if i == 0 {
			tb.noSeriousViolations("the review page with its editors open")
		}

		tb.do(chromedp.Click(chromedp.CSS(`#decide button[value="approve"]`)))
		tb.until("the decision and the edited blocks", `!!document.querySelector(".outcome-approved") && document.querySelectorAll(".blk-edited").length === 2`)
		body, _ := rv.event(t, "action.executed")
		edits, _ := body["data"].(map[string]any)["edits"].([]any)
		if len(edits) != 2 {
			t.Fatalf("%s: the callback's edits: %v", l.name, body["data"])
		}
		n, kv := edits[0].(map[string]any), edits[1].(map[string]any)
		if n["block_id"] != "note" || !strings.Contains(n["diff"].(string), "-Raise the daily limit.\n+Raise the daily limit to 500.\n") ||
			n["data"].(map[string]any)["content"] != "Raise the daily limit to 500.\nApplies from Monday." {
			t.Fatalf("%s: the text edit: %v", l.name, n)
		}
		if kv["block_id"] != "limits" || !strings.Contains(kv["diff"].(string), "-Daily limit: 1000\n+Daily limit: 500\n") ||
			kv["data"].(map[string]any)["pairs"].([]any)[0].(map[string]any)["value"] != 500.0 {
			t.Fatalf("%s: the key_value edit: %v", l.name, kv)
		}
		shown := tb.text(`[data-block-id="note"]`)
		if !containsAll(shown, "Raise the daily limit to 500.", "Edited by alice@example.com") {
			t.Fatalf("%s: the text block as shown: %q", l.name, shown)
		}
		if got := tb.text(`[data-block-id="limits"] .kv`); !strings.Contains(got, "500") || strings.Contains(got, "1000") {
			t.Fatalf("%s: the key_value as shown: %q", l.name, got)
		}
		if eval[int](tb, `document.querySelectorAll("[data-edit]").length`) != 0 {
			t.Fatalf("%s: the editors stay after the decision", l.name)
		}
		tb.until("the page to say the agent was notified", `!!document.querySelector('[data-delivery="delivered"]')`)
		// (.open, not the content's offsetParent: Chromium lays out a closed
		// disclosure's content too, hidden by content-visibility.)
		tb.do(chromedp.Focus(chromedp.CSS(`[data-block-id="note"] .blk-orig summary`)), chromedp.KeyEvent("\r"))
		tb.until("the agent's original", `document.querySelector('[data-block-id="note"] .blk-orig').open`)
		if got := tb.text(`[data-block-id="note"] .blk-orig`); !containsAll(got, "Raise the daily limit.", "-Raise the daily limit.") {
			t.Fatalf("%s: the original and diff read %q", l.name, got)
		}
		tb.noSidewaysScroll(l.name + " decided")
		tb.do(chromedp.ScrollIntoView(chromedp.CSS(`[data-block-id="note"]`)))
		tb.view("edits-decided-" + l.name)
		if i == 0 {
			tb.noSeriousViolations("the review page after an approval with edits")
			tb.shot("edits-decided-full")
		}
	}
}

// TestEditsGoWithTheFormWithoutScript: the decision form posted by a browser
// without JavaScript carries every editor field; the fields the person changed
// become the approval's edits, the others are no edit.
func TestEditsGoWithTheFormWithoutScript(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("limits-bot")
	rv := newReceiver(t)
	id := publish(t, e, key, editablePage(rv.srv.URL))
	form := url.Values{"action": {"approve"}, "actor_identity": {"bob@example.com"}, "page_version": {"1"},
		"edit.content.note":   {"Raise the daily limit.\r\nApplies from Monday."}, // as drawn (a browser posts CRLF)
		"edit.value.0.limits": {"750"}, "edit.value.1.limits": {"ops"}}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.PostForm(e.Srv.URL+"/p/"+id+"/act", form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the form post answered %d", res.StatusCode)
	}
	body, _ := rv.event(t, "action.executed")
	edits, _ := body["data"].(map[string]any)["edits"].([]any)
	if len(edits) != 1 || edits[0].(map[string]any)["block_id"] != "limits" ||
		!strings.Contains(edits[0].(map[string]any)["diff"].(string), "+Daily limit: 750\n") {
		t.Fatalf("the edits of a form post: %v", body["data"])
	}
}
