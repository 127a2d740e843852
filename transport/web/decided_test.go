package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"folio/transport/node/nodetest"
)

// decidedPage is a page with a form of every field kind, a countdown two hours
// out, and a callback to rv.
func decidedPage(rv *receiver, paragraphs int) map[string]any {
	blocks := append(everyField(paragraphs), map[string]any{"type": "countdown", "data": map[string]any{"title": "Change window",
		"target": time.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339)}})
	return approvalPage(map[string]any{"blocks": blocks, "on_action": map[string]any{"default_url": rv.srv.URL}})
}

// answer changes every field of everyField's form from its default.
func (tb *tab) answer() {
	tb.t.Helper()
	tb.do(chromedp.SetValue(chromedp.CSS(`[name="form_data.reason"]`), "urgent fix"),
		chromedp.SetValue(chromedp.CSS(`[name="form_data.amount"]`), "3"),
		chromedp.SetValue(chromedp.CSS(`[name="form_data.notes"]`), "after the freeze"),
		chromedp.SetValue(chromedp.CSS(`[name="form_data.region"]`), "us"),
		chromedp.SetValue(chromedp.CSS(`[name="form_data.when"]`), "2031-05-06"),
		chromedp.Click(chromedp.CSS(`[name="form_data.canary"]`)),
		chromedp.Click(chromedp.CSS(`[name="form_data.tier"][value="b"]`)))
}

// decidedTruthfully checks what the page says once decided: the answers that were
// sent (not the defaults), no action anywhere, a countdown that stopped, comments
// and files closed with the reason, and the agent's callback.
func (tb *tab) decidedTruthfully(where string) {
	tb.t.Helper()
	t := tb.t
	got := eval[map[string]any](tb, `(function(){function v(n){var e=document.querySelector('[name="form_data.'+n+'"]');return e?e.value:"(none)"}
		return {reason:v("reason"),amount:v("amount"),notes:v("notes"),region:v("region"),when:v("when"),
			canary:document.querySelector('[name="form_data.canary"]').checked,tier:(document.querySelector('[name="form_data.tier"]:checked')||{}).value||"",
			disabled:document.querySelector('[name="form_data.amount"]').disabled}})()`)
	want := map[string]any{"reason": "urgent fix", "amount": "3", "notes": "after the freeze", "region": "us", "when": "2031-05-06", "canary": false, "tier": "b", "disabled": true}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: the decided form's %s shows %v, want the answer sent, %v", where, k, got[k], w)
		}
	}
	if n := eval[int](tb, `document.querySelectorAll('button[name=action]').length`); n != 0 {
		t.Errorf("%s: %d action buttons remain after the decision", where, n)
	}
	if got := tb.text(".dbar"); !containsAll(got, "Approved", "by erin@example.com", "See the decision") {
		t.Errorf("%s: the bar reads %q", where, got)
	}
	if eval[bool](tb, `!!document.querySelector("[data-countdown]")`) || !strings.Contains(tb.text(".cd"), "when the page was decided") {
		t.Errorf("%s: the countdown still runs after the decision: %q", where, tb.text(".cd"))
	}
	if got := tb.text(".comments .closed"); !strings.Contains(got, "decided, so it takes no more comments") || eval[bool](tb, `!!document.querySelector("#composer")`) {
		t.Errorf("%s: comments after the decision: %q", where, tb.text(".comments"))
	}
	if got := tb.text(".files .closed"); !strings.Contains(got, "decided, so it takes no more files") {
		t.Errorf("%s: files after the decision: %q", where, tb.text(".files"))
	}
}

// TestThePageAfterADecisionTellsTheTruth: a person changes every answer of the form
// and approves from the bar. At once (live, no reload), the form shows what was
// sent, the buttons are gone, the countdown stops, comments and files say why they
// are closed, and the page says the agent was notified once its callback is
// delivered; a reload shows the same. Without JavaScript the page that comes back after the post says the
// same.
func TestThePageAfterADecisionTellsTheTruth(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("truth")
	rv := newReceiver(t)
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			id := publish(t, e, key, decidedPage(rv, 1))
			tb := newTab(t)
			tb.layout(l.width, l.dark)
			tb.openLive(e.Srv.URL + "/p/" + id)
			tb.do(chromedp.SendKeys(chromedp.ID("actor_identity"), "erin@example.com"))
			tb.answer()
			tb.do(chromedp.Click(chromedp.CSS(`.dbar button[value="approve"]`)))
			tb.until("the decision, live", `!!document.querySelector(".outcome-approved") && !document.querySelector("#decide")`)
			tb.until("every part redrawn", `!!document.querySelector(".comments .closed") && !!document.querySelector(".files .closed") &&
				document.querySelector('[name="form_data.amount"]').disabled && !document.querySelector("[data-countdown]") &&
				/Approved/.test(document.querySelector(".dbar").innerText)`)
			tb.decidedTruthfully("live " + l.name)
			tb.until("the agent notified", `!!document.querySelector(".notified-delivered")`)
			if got := tb.text(".notified"); !strings.Contains(got, "The agent was notified") {
				t.Errorf("the notice reads %q", got)
			}
			if got := tb.text(".dbar"); !strings.Contains(got, "agent notified") {
				t.Errorf("the bar reads %q once delivered", got)
			}
			tb.shot("decided-" + l.name)
			tb.view("decided-view-" + l.name)
			// Live, the page kept what the person typed; a reload shows what the server
			// recorded.
			tb.do(chromedp.Reload())
			tb.until("the page again", liveJS)
			tb.decidedTruthfully("reloaded " + l.name)
		})
	}
	t.Run("without JavaScript", func(t *testing.T) {
		id := publish(t, e, key, decidedPage(rv, 1))
		tb := newTab(t)
		if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+id), chromedp.SendKeys(chromedp.ID("actor_identity"), "erin@example.com"))
		tb.answer()
		tb.do(chromedp.Click(chromedp.CSS(`.dbar button[value="approve"]`)))
		tb.until("the page after the post", `!!document.querySelector(".outcome-approved")`)
		tb.decidedTruthfully("without JavaScript")
		if !eval[bool](tb, `!!document.querySelector(".notified")`) {
			t.Errorf("the page after the post does not say how the agent is being told: %q", tb.text("#part-state"))
		}
		tb.shot("decided-nojs")
	})
}

// TestAPersonWhoseStepIsDoneSeesWhoThePageWaitsFor: in a two-step chain, the first
// step's assignee signs in and approves from the bar; their buttons go and the bar
// and the decision say the page waits for Finance, live and after a reload.
func TestAPersonWhoseStepIsDoneSeesWhoThePageWaitsFor(t *testing.T) {
	smtp := nodetest.StartSMTP(t)
	e := nodetest.New(t, withSMTP(smtp))
	key, _ := e.Register("chain")
	chain := func(legal string) map[string]any {
		return approvalPage(map[string]any{"approval_chain": map[string]any{"mode": "sequential", "steps": []any{
			map[string]any{"name": "Legal", "assignees": []any{legal}},
			map[string]any{"name": "Finance", "assignees": []any{"fin@example.com"}},
		}}})
	}
	for i, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			legal := "legal-" + l.name + "@example.com" // a mail of their own to sign in with
			id := publish(t, e, key, chain(legal))
			tb := newTab(t)
			tb.layout(l.width, l.dark)
			tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
			tb.until("the sign-in box", `!!document.querySelector("#signin-email")`)
			if got := tb.text(".dbar"); !containsAll(got, "Sign in to decide", "waiting for Legal") {
				t.Errorf("the bar before signing in reads %q", got)
			}
			if i == 0 {
				tb.view("chain-signin-" + l.name)
			}
			tb.signInByMail(smtp, legal)
			tb.until("the page, signed in", `!!document.querySelector(".as-me") && `+liveJS)
			tb.do(chromedp.Click(chromedp.CSS(`.dbar button[value="approve"]`)))
			tb.until("the step decided, live", `document.querySelector(".dbar").innerText.indexOf("waiting for Finance") >= 0 &&
				document.querySelectorAll("button[name=action]").length === 0 && !!document.querySelector(".decide-done")`)
			for _, when := range []string{"live", "after a reload"} {
				if when != "live" {
					tb.do(chromedp.Reload())
					tb.until("the page", `!!document.querySelector(".dbar")`)
				}
				if n := eval[int](tb, `document.querySelectorAll('button[name=action]').length`); n != 0 {
					t.Errorf("%s: %d action buttons remain for a person whose step is done", when, n)
				}
				if got := tb.text("#part-decide"); !containsAll(got, "You decided on Legal", "Waiting for Finance") {
					t.Errorf("%s: the decision reads %q", when, got)
				}
			}
			tb.view("chain-waiting-" + l.name)
			if st := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; st != "active" {
				t.Fatalf("one step of two completed the page: %v", st)
			}
		})
	}
}

// axeAll runs axe-core and returns every violation, whatever its impact.
func (tb *tab) axeAll() []string {
	tb.t.Helper()
	src, err := axeSource()
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.eval0(src)
	return await[[]string](tb, `axe.run(document, {resultTypes: ["violations"]}).then(function(r){
		return r.violations.map(function(v){
			return v.impact + " " + v.id + ": " + v.help + " — " + v.nodes.slice(0, 3).map(function(n){return n.target.join(" ")}).join(", ")})})`)
}

// TestTheDecisionChromeHasNoAxeViolations: axe-core finds no violation at all (any
// impact) on a review page with a form, a countdown and the decision bar, at 1280
// and 390 px, light and dark, before and after the decision.
func TestTheDecisionChromeHasNoAxeViolations(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("axe")
	rv := newReceiver(t)
	id := publish(t, e, key, decidedPage(rv, 3))
	tb := newTab(t)
	tb.openLive(e.Srv.URL + "/p/" + id)
	check := func(when string) {
		for _, l := range layouts {
			tb.layout(l.width, l.dark)
			tb.until("the theme's colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
			if v := tb.axeAll(); len(v) > 0 {
				t.Errorf("axe %s at %s: %d violations:\n%s", when, l.name, len(v), strings.Join(v, "\n"))
			}
		}
	}
	check("while the page takes decisions")
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ops@example.com"}})
	tb.until("the decision", `!!document.querySelector(".outcome-approved") && !!document.querySelector(".comments .closed")`)
	tb.until("the agent notified", `!!document.querySelector(".notified-delivered")`)
	check("once decided")
}
