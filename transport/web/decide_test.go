package web_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// receiver is a callback endpoint that records what it gets.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []received
}

type received struct {
	Header http.Header
	Body   []byte
}

func newReceiver(t *testing.T) *receiver {
	rv := &receiver{}
	rv.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rv.mu.Lock()
		rv.hits = append(rv.hits, received{Header: r.Header.Clone(), Body: b})
		rv.mu.Unlock()
	}))
	t.Cleanup(rv.srv.Close)
	return rv
}

// event waits for the first callback of a type.
func (rv *receiver) event(t *testing.T, typ string) (map[string]any, received) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rv.mu.Lock()
		for _, h := range rv.hits {
			var m map[string]any
			if json.Unmarshal(h.Body, &m) == nil && m["event"] == typ {
				rv.mu.Unlock()
				return m, h
			}
		}
		rv.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s callback arrived", typ)
	return nil, received{}
}

func allowPrivate(c *node.Config) { c.AllowPrivateCallbacks = true }

// TestApprovingInTheBrowserCompletesThePage: a person opens a public page, says who
// they are, adds a comment and approves. The page shows the decision at once, the
// actions are gone, and the agent's receiver gets the signed action.executed
// callback naming that person with auth_method "link".
func TestApprovingInTheBrowserCompletesThePage(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("deploy-bot")
	rv := newReceiver(t)
	id := publish(t, e, key, approvalPage(map[string]any{"on_action": map[string]any{"default_url": rv.srv.URL, "hmac_secret": "s3cret"}}))
	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+id),
		chromedp.SendKeys(chromedp.ID("actor_identity"), "alice@example.com"),
		chromedp.SendKeys(chromedp.ID("decide-comment"), "Looks good to me"))
	tb.until("the page script", `!document.querySelector("#live").hidden`)
	tb.shot("decide-before")
	tb.do(chromedp.Click(chromedp.CSS(`#decide button[value="approve"]`)))
	tb.until("the decision on the page", `!!document.querySelector(".outcome-approved") && !document.querySelector("#decide")`)
	if got := tb.text(".outcome"); !containsAll(got, "Approved", "Approve", "alice@example.com", "Looks good to me") {
		t.Fatalf("the decision as shown: %q", got)
	}
	if got := tb.text(".page-head .status"); got != "Decided" {
		t.Errorf("status badge %q", got)
	}
	tb.shot("decide-after")

	body, hit := rv.event(t, "action.executed")
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(hit.Body)
	if hit.Header.Get("X-Service-Signature") != "sha256="+hex.EncodeToString(mac.Sum(nil)) {
		t.Errorf("the callback is not signed with the page's secret")
	}
	actor := body["actor"].(map[string]any)
	data := body["data"].(map[string]any)
	if actor["identity"] != "alice@example.com" || actor["auth_method"] != "link" || data["action_id"] != "approve" || data["comment"] != "Looks good to me" || data["decision"] != "approved" {
		t.Errorf("callback: actor %v data %v", actor, data)
	}
	if st := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; st != "completed" {
		t.Errorf("page status %v", st)
	}
}

// TestADangerActionAsksFirst: Reject (style danger) opens a confirmation; Cancel
// leaves the page as it was, confirming records the rejection.
func TestADangerActionAsksFirst(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("deploy-bot")
	id := publish(t, e, key, approvalPage(nil))
	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+id), chromedp.SendKeys(chromedp.ID("actor_identity"), "bob@example.com"))
	tb.until("the page script", `!document.querySelector("#live").hidden`)
	tb.do(chromedp.Click(chromedp.CSS(`#decide button[value="reject"]`)))
	tb.until("the confirmation", `!!document.querySelector("dialog.confirm[open]")`)
	if got := tb.text("dialog.confirm"); !strings.Contains(got, "Reject?") || !strings.Contains(got, "cannot be undone") {
		t.Fatalf("confirmation reads %q", got)
	}
	tb.shot("decide-danger-confirm")
	tb.do(chromedp.Click(chromedp.CSS(`dialog.confirm .bt-secondary`)))
	tb.until("the dialog to close", `!document.querySelector("dialog.confirm")`)
	if st := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; st != "active" {
		t.Fatalf("after Cancel the page is %v", st)
	}
	tb.do(chromedp.Click(chromedp.CSS(`#decide button[value="reject"]`)))
	tb.until("the confirmation", `!!document.querySelector("dialog.confirm[open]")`)
	tb.do(chromedp.Click(chromedp.CSS(`dialog.confirm .bt-danger`)))
	tb.until("the rejection on the page", `!!document.querySelector(".outcome-rejected")`)
	if got := e.Must(200, "GET", "/v1/pages/"+id, key, nil); got["status"] != "completed" || got["decision"] != "rejected" {
		t.Fatalf("after confirming: %v / %v", got["status"], got["decision"])
	}
}

// TestFormErrorsShowAtTheirFieldsThenTheFormGoesThrough: a form sent with mistakes
// shows the server's message next to each field at fault (and nothing is recorded);
// once fixed it goes through with the decision, its values typed as the form says.
func TestFormErrorsShowAtTheirFieldsThenTheFormGoesThrough(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("forms")
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": []any{map[string]any{"type": "form", "id": "req", "data": map[string]any{
		"title": "Expense", "fields": []any{
			map[string]any{"field_id": "reason", "type": "text", "label": "Reason", "required": true},
			map[string]any{"field_id": "amount", "type": "number", "label": "Amount", "validation": map[string]any{"min": 1, "max": 500}},
			map[string]any{"field_id": "contact", "type": "email", "label": "Contact"},
			map[string]any{"field_id": "tier", "type": "radio", "label": "Tier", "options": []any{map[string]any{"value": 1, "label": "One"}, map[string]any{"value": 2, "label": "Two"}}},
		}}}}}))
	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+id),
		chromedp.SendKeys(chromedp.ID("actor_identity"), "carol@example.com"),
		chromedp.SendKeys(chromedp.CSS(`[name="form_data.amount"]`), "900"),
		chromedp.SendKeys(chromedp.CSS(`[name="form_data.contact"]`), "not an address"))
	tb.until("the page script", `!document.querySelector("#live").hidden`)
	tb.do(chromedp.Click(chromedp.CSS(`#decide button[value="approve"]`)))
	tb.until("the field errors", `!document.querySelector('[data-field="amount"] .field-error').hidden`)
	for field, want := range map[string]string{"reason": "Reason is required", "amount": "Amount must be at most 500", "contact": "Contact must be an e-mail address"} {
		if got := tb.text(`[data-field="` + field + `"] .field-error`); !strings.Contains(got, want) {
			t.Errorf("%s shows %q, want the server's %q", field, got, want)
		}
	}
	if inv := eval[string](tb, `document.querySelector('[name="form_data.amount"]').getAttribute("aria-invalid")`); inv != "true" {
		t.Errorf("the amount field is not marked invalid")
	}
	tb.shot("decide-form-errors")
	if st := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; st != "active" {
		t.Fatalf("a refused form changed the page: %v", st)
	}
	tb.do(chromedp.SendKeys(chromedp.CSS(`[name="form_data.reason"]`), "Team offsite"),
		chromedp.SetValue(chromedp.CSS(`[name="form_data.amount"]`), "120"),
		chromedp.SetValue(chromedp.CSS(`[name="form_data.contact"]`), "carol@example.com"),
		chromedp.Click(chromedp.CSS(`[name="form_data.tier"][value="2"]`)),
		chromedp.Click(chromedp.CSS(`#decide button[value="approve"]`)))
	tb.until("the decision", `!!document.querySelector(".outcome-approved")`)
	ev := e.Must(200, "GET", "/v1/pages/"+id+"/agent-events", key, nil)
	raw, _ := json.Marshal(ev)
	if !strings.Contains(string(raw), `"form_data":{"amount":120,"contact":"carol@example.com","reason":"Team offsite","tier":2}`) {
		t.Errorf("the submitted form data as the agent sees it: %s", raw)
	}
}

// TestTheDecisionWorksWithoutJavaScript: with scripts off, the decision form is a
// plain form post: Approve records the decision and the page comes back showing
// it; a danger action goes through a confirmation page first.
func TestTheDecisionWorksWithoutJavaScript(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("nojs")
	first := publish(t, e, key, approvalPage(nil))
	second := publish(t, e, key, approvalPage(nil))
	tb := newTab(t)
	if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+first), chromedp.SendKeys(chromedp.ID("actor_identity"), "dana@example.com"),
		chromedp.Click(chromedp.CSS(`#decide button[value="approve"]`)))
	tb.until("the page after the post", `!!document.querySelector(".outcome-approved")`)
	if got := tb.text(".outcome"); !strings.Contains(got, "dana@example.com") {
		t.Fatalf("decision shown without JavaScript: %q", got)
	}
	tb.shot("decide-nojs-approved")
	tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+second), chromedp.SendKeys(chromedp.ID("actor_identity"), "dana@example.com"),
		chromedp.Click(chromedp.CSS(`#decide button[value="reject"]`)))
	tb.until("the confirmation page", `document.querySelector("h1") && document.querySelector("h1").innerText === "Reject?"`)
	if st := e.Must(200, "GET", "/v1/pages/"+second, key, nil)["status"]; st != "active" {
		t.Fatalf("the danger action was recorded before it was confirmed: %v", st)
	}
	tb.do(chromedp.Click(chromedp.CSS(`button.bt-danger`)))
	tb.until("the rejection", `!!document.querySelector(".outcome-rejected")`)
	// Without a name the form comes back with the reason.
	third := publish(t, e, key, approvalPage(nil))
	tb.do(chromedp.Navigate(e.Srv.URL+"/p/"+third), chromedp.Click(chromedp.CSS(`#decide button[value="approve"]`)))
	tb.until("the refusal", `!!document.querySelector("#problem")`)
	if got := tb.text("#problem"); !strings.Contains(got, "your name or e-mail") {
		t.Fatalf("refusal reads %q", got)
	}
}

// TestADraftIsNotFoundInTheBrowser: a draft's page and short address are a friendly
// 404 to everyone.
func TestADraftIsNotFoundInTheBrowser(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("drafts")
	id := e.Must(201, "POST", "/v1/pages", key, approvalPage(nil))["pageId"].(string)
	tb := newTab(t)
	res, err := chromedp.Run(tb.ctx, chromedp.NavigateResponse(e.Srv.URL+"/p/"+id))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 404 || tb.text("h1") != "Page not found" {
		t.Fatalf("a draft in the browser: %d %q", res.Status, tb.text("h1"))
	}
	if strings.Contains(eval[string](tb, `document.body.innerText`), "Deploy v2.4.1") {
		t.Fatal("the draft's title is shown")
	}
	page := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	short := page["shortUrl"].(string)
	res, err = chromedp.Run(tb.ctx, chromedp.NavigateResponse(e.Srv.URL+short[strings.Index(short, "/s/"):]))
	if err != nil || res.Status != 404 {
		t.Fatalf("a draft's short address: %v %v", res, err)
	}
}

// TestAnExpiredPageShowsItsContentWithoutActions: once a page expires, the page
// says so and offers no decision, but its content stays readable; each load
// counts one view.
func TestAnExpiredPageShowsItsContentWithoutActions(t *testing.T) {
	clock := nodetest.NewClock(time.Now())
	e := nodetest.Open(t, t.TempDir(), clock)
	key, _ := e.Register("expiry")
	id := publish(t, e, key, approvalPage(map[string]any{"expires_at": clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)}))
	tb := newTab(t)
	tb.openLive(e.Srv.URL + "/p/" + id)
	eventually := func(cond func() bool) bool {
		for i := 0; i < 200 && !cond(); i++ {
			time.Sleep(10 * time.Millisecond)
		}
		return cond()
	}
	if !eventually(func() bool {
		return e.Must(200, "GET", "/v1/pages/"+id+"/analytics", key, nil)["totalViews"] == 1.0
	}) {
		t.Fatalf("one load did not count one view")
	}
	clock.Advance(2 * time.Hour)
	tb.do(chromedp.Reload())
	tb.until("the expired notice", `!!document.querySelector(".notice-warn")`)
	if got := tb.text(".notice-warn"); !strings.Contains(got, "This page has expired") {
		t.Fatalf("notice %q", got)
	}
	if eval[bool](tb, `!!document.querySelector("#decide")`) {
		t.Fatal("an expired page offers a decision")
	}
	if got := tb.text("#blocks"); !strings.Contains(got, "Ready to ship.") {
		t.Fatalf("the content of an expired page: %q", got)
	}
	if got := tb.text(".page-head .status"); got != "Expired" {
		t.Fatalf("status %q", got)
	}
}
