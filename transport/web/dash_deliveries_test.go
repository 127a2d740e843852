package web_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"folio/transport/node/nodetest"
)

// flaky is a receiver that answers its current status code and records what it got.
type flaky struct {
	srv  *httptest.Server
	code atomic.Int32
	mu   sync.Mutex
	hits []received
}

func newFlaky(t *testing.T, code int) *flaky {
	f := &flaky{}
	f.code.Store(int32(code))
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.hits = append(f.hits, received{Header: r.Header.Clone(), Body: b})
		f.mu.Unlock()
		w.WriteHeader(int(f.code.Load()))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *flaky) got(n int) received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[n]
}

func (f *flaky) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.hits)
}

// deliveryOf waits until the page's delivery of event is in status after at least
// attempts attempts, over the API, and returns its id.
func deliveryOf(t *testing.T, e *nodetest.Env, key, pageID, event, status string, attempts int) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, d := range e.Must(200, "GET", "/v1/pages/"+pageID+"/deliveries", key, nil)["deliveries"].([]any) {
			m := d.(map[string]any)
			if m["event"] == event && m["status"] == status && int(m["attemptCount"].(float64)) >= attempts {
				return m["id"].(string)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the %s delivery of %s never became %s", event, pageID, status)
	return ""
}

// shownHeaders reads the "Headers as sent" block into a map.
func shownHeaders(tb *tab) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(eval[string](tb, `document.querySelector("#sent-headers").textContent`), "\n") {
		if name, value, ok := strings.Cut(line, ": "); ok {
			out[name] = value
		}
	}
	return out
}

// jsonText is s as a JSON string's inside, written without Go's escapes of <, >
// and & (as the delivery screen shows a body).
func jsonText(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSpace(b.String())
	return out[1 : len(out)-1]
}

func hmacHex(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// TestDashDeliveriesAFailingReceiverShowsItsAttemptsAndAManualRetrySucceeds: a
// receiver answers 500 to a callback that gets one attempt. The log lists the failed
// delivery; its screen shows the attempt (HTTP 500), the body as sent and its
// headers, whose signatures verify against that body with the page's secret and are
// the very ones the receiver got; the agent's own header shows by name only. Once
// the receiver is fixed, Retry makes a manual attempt that succeeds, and the state
// filters follow.
func TestDashDeliveriesAFailingReceiverShowsItsAttemptsAndAManualRetrySucceeds(t *testing.T) {
	rv := newFlaky(t, 500)
	o := newOwner(t, allowPrivate)
	page := publish(t, o.e, o.key, approvalPage(map[string]any{"on_action": map[string]any{
		"default_url": rv.srv.URL + "/hooks/folio?token=receiver-query-secret", "hmac_secret": "s3cret",
		"retry": map[string]any{"max_attempts": 1}, "headers": map[string]any{"Authorization": "Bearer receiver-token"}}}))
	o.e.Must(200, "POST", "/v1/pages/"+page+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ops@example.com"}, "comment": "Ship it"})
	id := deliveryOf(t, o.e, o.key, page, "action.executed", "failed", 1)

	tb := o.tb
	row := `document.querySelector("#d-` + id + `")`
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/deliveries"))
	tb.until("the failed delivery in the log", `!!`+row)
	if got := eval[string](tb, row+`.innerText`); !containsAll(got, "action.executed", "failed", "callback", rv.srv.URL+"/hooks/folio", "1 of 1 attempt", "Deploy v2.4.1 to production?") {
		t.Errorf("the log's row reads %q, want the page named by its title", got)
	}
	if got := tb.text(`.dash-nav a[data-nav="deliveries"] .count`); got != "1" {
		t.Errorf("the navigation's failed-deliveries count reads %q, want 1", got)
	}
	if strings.Contains(eval[string](tb, `document.body.innerText`), "receiver-query-secret") {
		t.Error("the target's query string shows")
	}
	tb.shotSettled("dash-deliveries")

	// The state chips.
	tb.do(chromedp.Click(chromedp.CSS(`.chips a[href*="state=succeeded"]`)))
	tb.until("the succeeded filter", `location.search.indexOf("state=succeeded") >= 0 && !!document.querySelector(".empty-inbox")`)
	tb.do(chromedp.Click(chromedp.CSS(`.chips a[href*="state=failed"]`)))
	tb.until("the failed filter", `location.search.indexOf("state=failed") >= 0 && !!`+row)

	// The delivery.
	tb.do(chromedp.Click(chromedp.CSS(`#d-` + id + ` .entry-title`)))
	tb.until("the delivery", `location.pathname === "/deliveries/`+id+`" && document.querySelectorAll(".attempt").length === 1`)
	if got := tb.text(".attempt .dl-failed"); got != "HTTP 500" {
		t.Errorf("the failed attempt's badge reads %q, want HTTP 500 marked as a failure", got)
	}
	if got := tb.text(".attempt"); !containsAll(got, "Attempt 1", "HTTP 500") || strings.Contains(got, "manual") {
		t.Errorf("the attempt reads %q", got)
	}
	if got := tb.text(".dl-status"); got != "failed" && !strings.HasPrefix(got, "failed:") {
		t.Errorf("the status reads %q", got)
	}
	if got := tb.text("#body"); !strings.Contains(got, `"event": "action.executed"`) || !strings.Contains(got, `"comment": "Ship it"`) {
		t.Errorf("the body shown reads %q", got)
	}
	raw := []byte(eval[string](tb, `document.querySelector("#raw-body").textContent`))
	sent := rv.got(0)
	if string(raw) != string(sent.Body) {
		t.Fatalf("the exact bytes shown are not the ones sent:\nshown %s\nsent  %s", raw, sent.Body)
	}
	h := shownHeaders(tb)
	if h["X-Service-Signature"] != hmacHex("s3cret", raw) {
		t.Errorf("X-Service-Signature %q does not verify against the body with the secret", h["X-Service-Signature"])
	}
	std := hmac.New(sha256.New, []byte("s3cret"))
	std.Write([]byte(h["Webhook-Id"] + "." + h["Webhook-Timestamp"] + "."))
	std.Write(raw)
	if want := "v1," + base64.StdEncoding.EncodeToString(std.Sum(nil)); h["Webhook-Signature"] != want {
		t.Errorf("Webhook-Signature %q does not verify (want %q)", h["Webhook-Signature"], want)
	}
	for _, k := range []string{"X-Service-Signature", "X-Service-Event-Id", "X-Service-Timestamp", "Webhook-Id", "Webhook-Timestamp", "Webhook-Signature", "Content-Type"} {
		if h[k] == "" || h[k] != sent.Header.Get(k) {
			t.Errorf("%s: shown %q, the receiver got %q", k, h[k], sent.Header.Get(k))
		}
	}
	if h["Authorization"] != "[redacted]" || sent.Header.Get("Authorization") != "Bearer receiver-token" {
		t.Errorf("the agent's header: shown %q, sent %q", h["Authorization"], sent.Header.Get("Authorization"))
	}
	if page := eval[string](tb, `document.documentElement.outerHTML`); strings.Contains(page, "s3cret") || strings.Contains(page, "receiver-token") {
		t.Error("the delivery's screen holds a secret")
	}
	tb.shotSettled("dash-delivery-failed")

	// Fixed: Retry succeeds with a second, manual attempt.
	rv.code.Store(200)
	tb.do(chromedp.Click(chromedp.CSS(`.dl-retry button`)))
	tb.until("the manual attempt", `document.querySelectorAll(".attempt").length === 2 && !!document.querySelector(".notice[role=status]")`)
	if got := tb.text(".dl-status"); got != "succeeded" {
		t.Errorf("after the retry the status reads %q", got)
	}
	if got := eval[string](tb, `document.querySelectorAll(".attempt")[1].innerText`); !containsAll(got, "Attempt 2", "manual", "HTTP 200") {
		t.Errorf("the second attempt reads %q", got)
	}
	if got := tb.text(".notice"); !strings.Contains(got, "outcome is below") {
		t.Errorf("the notice reads %q", got)
	}
	// Its headers are the second attempt's; the first's are a link away.
	if h2 := shownHeaders(tb); h2["X-Service-Signature"] != h["X-Service-Signature"] || h2["Webhook-Timestamp"] != rv.got(1).Header.Get("Webhook-Timestamp") {
		t.Errorf("the headers shown after the retry are not the second attempt's: %v", h2)
	}
	tb.do(chromedp.Click(chromedp.CSS(`.attempt a[href*="attempt=1"]`)))
	tb.until("the first attempt's headers", `location.search.indexOf("attempt=1") >= 0`)
	if h1 := shownHeaders(tb); h1["Webhook-Signature"] != h["Webhook-Signature"] {
		t.Errorf("the first attempt's headers are not the ones it sent: %v", h1)
	}

	tb.do(chromedp.Navigate(o.e.Srv.URL + "/deliveries?state=failed"))
	tb.until("the failed filter", `!!document.querySelector(".empty-inbox") || (document.querySelectorAll(".dl").length > 0 && !`+row+`)`)
	tb.do(chromedp.Click(chromedp.CSS(`.chips a[href*="state=succeeded"]`)))
	tb.until("the succeeded filter", `location.search.indexOf("state=succeeded") >= 0 && !!`+row)
	if got := eval[string](tb, row+`.innerText`); !containsAll(got, "succeeded", "1 of 1 attempt, and 1 manual") {
		t.Errorf("the log's row after the retry reads %q", got)
	}
	// The page filter.
	tb.do(chromedp.Click(chromedp.CSS(`#d-` + id + ` a[href*="page="]`)))
	tb.until("the page's deliveries", `location.search.indexOf("page=`+page+`") >= 0 && !!`+row+` && !!document.querySelector(".page-filter")`)
}

// TestDashDeliveriesAreAccessibleAndFitAPhone: axe-core finds no serious or
// critical violation on the log and on a delivery (a notification's, an e-mail's,
// and a callback's with a long target), in light and dark; at 360 px nothing
// scrolls sideways.
func TestDashDeliveriesAreAccessibleAndFitAPhone(t *testing.T) {
	rv := newFlaky(t, 503)
	o := newOwner(t, allowPrivate)
	long := rv.srv.URL + "/a/very/long/path/to/the/receiver/of/callbacks/that/has/to/wrap/on/a/phone/screen"
	page := publish(t, o.e, o.key, approvalPage(map[string]any{
		"on_action": map[string]any{"default_url": long, "hmac_secret": "s3cret", "retry": map[string]any{"max_attempts": 2, "backoff": "fixed", "initial_delay_seconds": 3600}},
		"notify":    map[string]any{"channels": []any{map[string]any{"type": "webhook", "target": rv.srv.URL + "/notify"}, map[string]any{"type": "email", "target": "team@example.com"}}}}))
	o.e.Must(200, "POST", "/v1/pages/"+page+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ops@example.com"}})
	pending := deliveryOf(t, o.e, o.key, page, "action.executed", "pending", 1)
	tb := o.tb
	check := func(name, path, ready string) {
		t.Helper()
		tb.width(1000)
		tb.do(chromedp.Navigate(o.e.Srv.URL + path))
		tb.until(name, ready)
		tb.noSeriousViolations(name)
		tb.shotSettled("dash-" + strings.ReplaceAll(name, " ", "-"))
		tb.dark(true)
		tb.shotSettled("dash-" + strings.ReplaceAll(name, " ", "-") + "-dark")
		tb.dark(false)
		tb.width(360)
		tb.noSideways(name)
		tb.shotSettled("dash-" + strings.ReplaceAll(name, " ", "-") + "-360")
	}
	check("deliveries log", "/deliveries", `document.querySelectorAll(".dl").length >= 3`)
	check("delivery pending", "/deliveries/"+pending, `document.querySelectorAll(".attempt").length === 1`)
	for _, d := range o.e.Must(200, "GET", "/v1/pages/"+page+"/deliveries", o.key, nil)["deliveries"].([]any) {
		m := d.(map[string]any)
		if m["channel"] == "email" {
			check("delivery email", "/deliveries/"+m["id"].(string), `!!document.querySelector("#body")`)
			if got := tb.text("#body"); !strings.Contains(got, "Deploy v2.4.1") {
				t.Errorf("the e-mail's text reads %q", got)
			}
		}
	}
	tb.width(1000)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/deliveries?state=failed"))
	tb.until("an empty filter", `!!document.querySelector(".empty-inbox")`)
	tb.noSeriousViolations("an empty filter")
}

// TestDashDeliveriesAnotherWorkspacesDeliveryIsNotFound: a delivery of another
// workspace is not in the log, its address is the 404 page, and retrying it is
// refused without an attempt.
func TestDashDeliveriesAnotherWorkspacesDeliveryIsNotFound(t *testing.T) {
	rv := newFlaky(t, 500)
	o := newOwner(t, allowPrivate)
	otherKey, _ := o.e.Register("Someone else")
	page := publish(t, o.e, otherKey, approvalPage(map[string]any{"on_action": map[string]any{"default_url": rv.srv.URL, "retry": map[string]any{"max_attempts": 1}}}))
	o.e.Must(200, "POST", "/v1/pages/"+page+"/actions/approve", otherKey, map[string]any{"actor": map[string]any{"identity": "x@example.com"}})
	id := deliveryOf(t, o.e, otherKey, page, "action.executed", "failed", 1)
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/deliveries"))
	tb.until("the empty log", `!!document.querySelector(".empty-inbox")`)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/deliveries?page=" + page))
	tb.until("the empty log", `!!document.querySelector(".empty-inbox")`)
	status := await[float64](tb, `fetch("/deliveries/`+id+`/retry", {method: "POST", body: new URLSearchParams({csrf: document.querySelector("meta[name=csrf-token]").content}), redirect: "manual"}).then(function(r){return r.status})`)
	if status != 404 {
		t.Errorf("retrying another workspace's delivery answered %v, want 404", status)
	}
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/deliveries/" + id))
	tb.until("the not-found page", `document.body.innerText.indexOf("Page not found") >= 0`)
	// Refused before anything was queued: the delivery still has its one attempt.
	if d := o.e.Must(200, "GET", "/v1/deliveries/"+id, otherKey, nil); d["attemptCount"].(float64) != 1 || rv.count() != 1 {
		t.Errorf("a refused retry made an attempt: %v attempts, %d requests", d["attemptCount"], rv.count())
	}
}

// TestDashDeliveriesBodiesAndTargetsFromAgentsAreText: a page whose title, action
// labels and comment are the XSS payloads sends a notification and a callback
// carrying them; the log and both deliveries show them as text, and nothing runs.
func TestDashDeliveriesBodiesAndTargetsFromAgentsAreText(t *testing.T) {
	rv := newFlaky(t, 200)
	o := newOwner(t, allowPrivate)
	page := publish(t, o.e, o.key, map[string]any{
		"title": payloads[0] + payloads[1], "summary": payloads[7],
		"blocks":  []any{map[string]any{"type": "text", "data": map[string]any{"content": "x"}}},
		"actions": []any{map[string]any{"action_id": "approve", "label": payloads[5]}, map[string]any{"action_id": "reject", "label": payloads[6]}},
		"on_action": map[string]any{"default_url": rv.srv.URL + "/cb/%3Cscript%3Ewindow.__xss=20%3C/script%3E?q=" + "%22%3E%3Cimg%20src=x%20onerror=window.__xss=21%3E",
			"hmac_secret": "s", "headers": map[string]any{"X-'&|~": payloads[1]}},
		"notify": map[string]any{"channels": []any{map[string]any{"type": "webhook", "target": rv.srv.URL + "/n/%22%3E%3Csvg%20onload=window.__xss=22%3E"}}},
	})
	o.e.Must(200, "POST", "/v1/pages/"+page+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ops@example.com"}, "comment": payloads[8]})
	callback := deliveryOf(t, o.e, o.key, page, "action.executed", "succeeded", 1)
	notice := deliveryOf(t, o.e, o.key, page, "page.published", "succeeded", 1)

	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/deliveries"))
	tb.until("the log", `document.querySelectorAll(".dl").length === 2`)
	noLiveMarkup(t, tb, "the log")
	for id, want := range map[string][]string{callback: {payloads[5], payloads[8]}, notice: {payloads[0] + payloads[1], payloads[7]}} {
		tb.do(chromedp.Navigate(o.e.Srv.URL + "/deliveries/" + id))
		tb.until("the delivery", `!!document.querySelector("#body")`)
		noLiveMarkup(t, tb, "delivery "+id)
		body := eval[string](tb, `document.querySelector("#body").textContent`)
		for _, w := range want {
			if !strings.Contains(body, jsonText(w)) {
				t.Errorf("the body of %s does not show %q as text:\n%s", id, w, body)
			}
		}
		if h := shownHeaders(tb); id == callback && h["X-'&|~"] != "[redacted]" {
			t.Errorf("the agent's header shows as %q", h["X-'&|~"])
		}
	}
	tb.shotSettled("dash-delivery-xss")
}
