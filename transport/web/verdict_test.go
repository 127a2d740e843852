package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/transport/node/nodetest"
)

// TestAStaleDecisionIsRefusedAndThePersonDecidesAgain: a person opens the page
// (version 1); while they read, the agent appends a block with a new amount. Their
// Approve is refused: the page says it changed (version 1 → 2), nothing was
// recorded, and links the changed block, which is marked. Approve again decides on
// version 2, and the callback carries that version and the content hash the API
// shows. Screenshots of the refusal at 1280 and 390 px, light and dark.
func TestAStaleDecisionIsRefusedAndThePersonDecidesAgain(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("deploy-bot")
	rv := newReceiver(t)
	id := publish(t, e, key, approvalPage(map[string]any{"on_action": map[string]any{"default_url": rv.srv.URL}}))
	tb := newTab(t)
	tb.width(1280)
	tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+id), chromedp.SendKeys(chromedp.ID("actor_identity"), "alice@example.com"))
	tb.until("the page script", `!document.querySelector("#live").hidden`)
	if v := eval[string](tb, `document.querySelector("#decide input[name=page_version]").value`); v != "1" {
		t.Fatalf("the decision form carries version %q, want 1", v)
	}

	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{
		map[string]any{"id": "amount", "type": "text", "title": "Amount", "data": map[string]any{"content": "Transfer **1000** EUR"}}}})
	tb.until("the new block, live", `!!document.querySelector('[data-block-id="amount"]')`)

	tb.do(chromedp.Click(chromedp.CSS(`#decide button[value="approve"]`)))
	tb.until("the refusal", `!!document.querySelector("#decide .page-changed") && !!document.querySelector('[data-block-id="amount"].blk-changed')`)
	msg := tb.text("#decide .form-status")
	if !containsAll(msg, "The page changed", "version 1 → 2", "Nothing was recorded", "decide again", "version 2") {
		t.Fatalf("the refusal reads %q", msg)
	}
	if href := eval[string](tb, `(document.querySelector("#decide .form-status a[data-changed=amount]")||{}).hash||""`); href == "" ||
		!eval[bool](tb, `!!document.querySelector(`+jsonString(href)+`)`) {
		t.Fatalf("no link to the changed block (%q)", href)
	}
	if p := e.Must(200, "GET", "/v1/pages/"+id, key, nil); p["status"] != "active" || p["last_action"] != nil {
		t.Fatalf("the refused decision was recorded: %v %v", p["status"], p["last_action"])
	}
	tb.shot("verdict-stale-1280-light")
	tb.dark(true)
	tb.shot("verdict-stale-1280-dark")
	tb.width(390)
	tb.shot("verdict-stale-390-dark")
	tb.dark(false)
	tb.shot("verdict-stale-390-light")
	tb.noSidewaysScroll("the refusal at 390 px")
	tb.width(1280)

	tb.do(chromedp.Click(chromedp.CSS(`#decide button[value="approve"]`)))
	tb.until("the decision", `!!document.querySelector(".outcome-approved")`)
	body, _ := rv.event(t, "action.executed")
	data := body["data"].(map[string]any)
	hash := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["content_hash"]
	if data["page_version"] != 2.0 || data["content_hash"] != hash || data["outcome"] != "approved" || data["final"] != true {
		t.Fatalf("callback data %v (page hash %v)", data, hash)
	}
}

// TestVerdictsShowTheirOwnLabels: "Snooze 1 day" (decision none, final false) is
// shown under its own label in neutral colours and leaves the decision form in
// place; "Acknowledge report" (decision none) completes the page under its own
// label, neutral, never as a green "Approved".
func TestVerdictsShowTheirOwnLabels(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("report-bot")
	id := publish(t, e, key, approvalPage(map[string]any{"actions": []any{
		map[string]any{"action_id": "snooze", "label": "Snooze 1 day", "decision": "none", "final": false},
		map[string]any{"action_id": "ack", "label": "Acknowledge report", "decision": "none", "style": "primary"},
	}}))
	tb := newTab(t)
	tb.width(1280)
	tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+id), chromedp.SendKeys(chromedp.ID("actor_identity"), "sam@example.com"))
	tb.until("the page script", `!document.querySelector("#live").hidden`)
	tb.do(chromedp.Click(chromedp.CSS(`#decide button[value="snooze"]`)))
	tb.until("the step on the page", `!!document.querySelector(".outcome-step") && !!document.querySelector("#decide")`)
	if got := tb.text(".outcome-step"); !containsAll(got, "Snooze 1 day", "sam@example.com", "stays open") || containsAll(got, "Approved") {
		t.Fatalf("the step reads %q", got)
	}
	if tb.text(".page-head .status") == "Decided" {
		t.Fatal("a snooze decided the page")
	}
	tb.shot("verdict-step-1280-light")
	tb.do(chromedp.Click(chromedp.CSS(`#decide button[value="ack"]`)))
	tb.until("the outcome", `!!document.querySelector(".outcome-none:not(.outcome-step)")`)
	if got := tb.text("#outcome-h"); got != "Acknowledge report" {
		t.Fatalf("the outcome heading reads %q", got)
	}
	if eval[bool](tb, `!!document.querySelector(".outcome-approved")`) {
		t.Fatal("a neutral outcome is shown as an approval")
	}
	tb.dark(true)
	tb.shot("verdict-neutral-1280-dark")
	// The page's own status badge is not the green of an approval either.
	tb.do(chromedp.Reload())
	tb.until("the decided page", `!!document.querySelector(".page-head .status")`)
	if cls := eval[string](tb, `document.querySelector(".page-head .status").className`); strings.Contains(cls+" ", "st-completed ") {
		t.Fatalf("the status badge of a neutral outcome is %q, the green of an approval", cls)
	}
}
