package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"folio/actors/page"
	"folio/actors/people"
	"folio/transport/httpapi"
	"folio/transport/node/nodetest"
)

// sseEvent is one event of a person's stream.
type sseEvent struct {
	Name string
	Data map[string]any
}

// personStream opens GET /decide/stream as email (a session of theirs) and sends
// its events on the channel until the test ends.
func personStream(t *testing.T, e *nodetest.Env, email string) <-chan sseEvent {
	t.Helper()
	u, _, err := e.Node.People.SignIn(people.Proof{Email: email})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := e.Node.People.StartSession(u, page.AuthMagicLink)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", e.Srv.URL+"/decide/stream", nil)
	req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: token})
	res, err := e.Srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET /decide/stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	out := make(chan sseEvent, 64)
	go func() {
		defer res.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.Name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.Data)
			case line == "" && ev.Name != "":
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
				ev = sseEvent{}
			}
		}
	}()
	return out
}

// next is the stream's next event (failing after 5 s).
func next(t *testing.T, events <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5 s")
	}
	return sseEvent{}
}

// countsUntil reads events until a counts event with decide == n; it fails on a
// needs event not in allowed.
func countsUntil(t *testing.T, events <-chan sseEvent, n int, allowed ...string) []string {
	t.Helper()
	var needs []string
	for {
		ev := next(t, events)
		switch ev.Name {
		case "needs":
			id, _ := ev.Data["pageId"].(string)
			ok := false
			for _, a := range allowed {
				ok = ok || a == id
			}
			if !ok {
				t.Fatalf("needs event for %s, want none but %v", id, allowed)
			}
			needs = append(needs, id)
		case "counts":
			if int(ev.Data["decide"].(float64)) == n {
				return needs
			}
		}
	}
}

// TestThePersonStreamSendsOnlyWhatThePersonMaySeeNow: a reviewer who belongs to no
// workspace follows their own stream. A public page whose step names them is news
// (needs, then counts 1); a page naming them that is not shared with them is never
// sent; the page turned private (its access no longer lets them in) leaves their
// count and is not sent again; a page they are taken off the step of leaves it too,
// and a later change of it sends nothing of it.
func TestThePersonStreamSendsOnlyWhatThePersonMaySeeNow(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("other-workspace")
	events := personStream(t, e, "rev@example.com")
	if ev := next(t, events); ev.Name != "counts" || ev.Data["decide"] != float64(0) {
		t.Fatalf("the first event is %+v, want counts with nothing to decide", ev)
	}
	closed := publish(t, e, key, approvalPage(map[string]any{"title": "Not shared", "approval_chain": chainOf("rev@example.com"),
		"access": map[string]any{"mode": "authenticated", "allowed_identities": []any{map[string]any{"type": "domain", "value": "corp.example"}}}}))
	shared := publish(t, e, key, approvalPage(map[string]any{"title": "Shared", "approval_chain": chainOf("rev@example.com")}))
	if got := countsUntil(t, events, 1, shared); len(got) != 1 {
		t.Fatalf("needs events %v, want the shared page once", got)
	}

	// The page turned private: no longer visible to them, so gone from the count.
	e.Must(200, "PATCH", "/v1/pages/"+shared, key, map[string]any{"access": map[string]any{"mode": "authenticated",
		"allowed_identities": []any{map[string]any{"type": "domain", "value": "corp.example"}}}})
	countsUntil(t, events, 0)

	// Taken off the step: gone, and a change of the page afterwards says nothing.
	again := publish(t, e, key, approvalPage(map[string]any{"title": "Taken off", "approval_chain": chainOf("rev@example.com")}))
	countsUntil(t, events, 1, again)
	e.Must(200, "PATCH", "/v1/pages/"+again, key, map[string]any{"approval_chain": chainOf("carol@example.com")})
	countsUntil(t, events, 0)
	e.Must(200, "PATCH", "/v1/pages/"+again, key, map[string]any{"approval_chain": chainOf("dave@example.com"), "title": "Changed"})
	e.Must(200, "PATCH", "/v1/pages/"+closed, key, map[string]any{"title": "Still not shared"})
	// A page that does wait on them, published last, is the next thing they hear.
	last := publish(t, e, key, approvalPage(map[string]any{"title": "Last", "approval_chain": chainOf("rev@example.com")}))
	if got := countsUntil(t, events, 1, last); len(got) != 1 {
		t.Errorf("needs events %v, want the last page only", got)
	}
}

// TestANotificationArrivesOnEveryFolioScreenAndTheNavigationCountsFollow: after
// "Notify me", a page newly waiting on the owner notifies while they read the
// review page of another page, and while they are on the dashboard's home (the
// inbox), whose navigation counts ("Needs my decision", failed deliveries) change
// without a reload. At 1280 and 390 px, light and dark, axe finds nothing serious.
func TestANotificationArrivesOnEveryFolioScreenAndTheNavigationCountsFollow(t *testing.T) {
	rv := newFlaky(t, 500)
	o := newOwner(t, allowPrivate)
	reading := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Being read"}))
	tb := o.tb
	tb.allowNotifications(o.e.Srv.URL)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/decide"))
	tb.until("the list", `!!document.querySelector(".needs")`)
	tb.do(chromedp.Click(chromedp.CSS(`[data-notify-on]`)))
	tb.until("notifications on", `document.querySelector("[data-notify-on]").getAttribute("aria-pressed") === "true"`)

	// On the review page of another page.
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/p/" + reading))
	tb.until("the review page, its person stream open", `document.body.getAttribute("data-person-stream") === "open"`)
	tb.recordNotifications()
	publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Budget 2027", "approval_chain": chainOf("owner@example.com")}))
	tb.until("the notification on the review page", `window.__notes.indexOf("Needs your decision: Budget 2027") >= 0`)
	tb.width(1280)
	tb.themes("the review page with notifications on", "notify-review")
	tb.width(390)
	tb.noSideways("the review page at 390 px")
	tb.noSeriousViolations("the review page at 390 px")
	tb.settle()
	tb.shot("notify-review-390")

	// On the dashboard's home: notified, and the counts follow.
	tb.width(1280)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/"))
	tb.until("the inbox, its person stream open", `document.body.getAttribute("data-person-stream") === "open" && !!document.querySelector("#inbox-list")`)
	tb.recordNotifications()
	if got := tb.text(`.dash-nav a[data-nav="decide"] .count`); got != "2" {
		t.Errorf("the navigation's decision count reads %q, want 2", got)
	}
	if eval[bool](tb, `!!document.querySelector('.dash-nav a[data-nav="deliveries"] .count')`) {
		t.Error("a failed-deliveries count shows before anything failed")
	}
	publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Security review", "approval_chain": chainOf("owner@example.com")}))
	tb.until("the notification on the home screen", `window.__notes.indexOf("Needs your decision: Security review") >= 0`)
	tb.until("the decision count, live", `(document.querySelector('.dash-nav a[data-nav="decide"] .count')||{}).textContent === "3"`)
	failing := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Callback fails", "approval_chain": chainOf("ops@example.com"),
		"on_action": map[string]any{"default_url": rv.srv.URL, "retry": map[string]any{"max_attempts": 1}}}))
	o.e.Must(200, "POST", "/v1/pages/"+failing+"/actions/reject", o.key, map[string]any{"actor": map[string]any{"identity": "ops@example.com"}})
	// Every callback of the rejection fails once and is given up (one attempt each).
	tb.until("the failed-deliveries count, live", `parseInt((document.querySelector('.dash-nav a[data-nav="deliveries"] .count')||{}).textContent, 10) >= 1`)
	if n := eval[int](tb, `window.__notes.length`); n != 1 {
		t.Errorf("%d notifications on the home screen %v, want 1", n, eval[[]string](tb, `window.__notes`))
	}
	tb.themes("the home screen with live counts", "notify-home")
	tb.width(390)
	tb.noSideways("the home screen at 390 px")
	tb.noSeriousViolations("the home screen at 390 px")
	tb.settle()
	tb.shot("notify-home-390")
}

// TestAReviewerOutsideTheWorkspaceIsListedAndNotified: a person who belongs to no
// workspace, named in a chain step of a public page, sees it in "Needs my
// decision" (marked "Shared with you") and is notified of it; a page naming them
// that is not shared with them is neither listed nor notified; the listed page
// opens. At 1280 and 390 px, light and dark, axe finds nothing serious.
func TestAReviewerOutsideTheWorkspaceIsListedAndNotified(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("vendor-bot")
	tb := newTab(t)
	tb.signedIn(e, "rev@example.com")
	tb.allowNotifications(e.Srv.URL)
	tb.do(chromedp.Navigate(e.Srv.URL + "/decide"))
	tb.until("the reviewer's empty list, live", `!!document.querySelector(".needs .empty-inbox") && document.body.getAttribute("data-person-stream") === "open"`)
	tb.do(chromedp.Click(chromedp.CSS(`[data-notify-on]`)))
	tb.until("notifications on", `document.querySelector("[data-notify-on]").getAttribute("aria-pressed") === "true"`)
	tb.recordNotifications()

	closed := publish(t, e, key, approvalPage(map[string]any{"title": "Internal only", "approval_chain": chainOf("rev@example.com"),
		"access": map[string]any{"mode": "authenticated", "allowed_identities": []any{map[string]any{"type": "domain", "value": "vendor.example"}}}}))
	shared := publish(t, e, key, approvalPage(map[string]any{"title": "Vendor contract", "due_in": 3600, "approval_chain": chainOf("rev@example.com")}))
	tb.until("the shared page, listed live", `!!document.getElementById("nd-`+shared+`")`)
	tb.until("its notification", `window.__notes.indexOf("Needs your decision: Vendor contract") >= 0`)
	if got := tb.text("#nd-" + shared); !containsAll(got, "Shared with you", "Vendor contract", "Due") {
		t.Errorf("the row reads %q", got)
	}
	if eval[bool](tb, `!!document.getElementById("nd-`+closed+`")`) || eval[int](tb, `window.__notes.length`) != 1 {
		t.Errorf("the page not shared with them is listed or notified: %v", eval[[]string](tb, `window.__notes`))
	}
	tb.until("the navigation's count", `(document.querySelector('.dash-nav a[data-nav="decide"] .count')||{}).textContent === "1"`)
	tb.width(1280)
	tb.themes("a reviewer's list", "needs-reviewer")
	tb.width(390)
	tb.noSideways("a reviewer's list at 390 px")
	tb.noSeriousViolations("a reviewer's list at 390 px")
	tb.settle()
	tb.shot("needs-reviewer-390")
	tb.dark(true)
	tb.settle()
	tb.shot("needs-reviewer-390-dark")
	tb.dark(false)

	tb.do(chromedp.Click(chromedp.CSS("#nd-" + shared + " a.nd-open")))
	tb.until("the page", `location.pathname === "/p/`+shared+`" && !!document.querySelector("#page-title")`)
}
