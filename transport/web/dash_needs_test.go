package web_test

import (
	"strconv"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// chainOf is an approval_chain of sequential steps, one assignee each.
func chainOf(assignees ...string) map[string]any {
	var steps []any
	for i, a := range assignees {
		steps = append(steps, map[string]any{"name": []string{"Team lead", "Finance", "Security"}[i], "assignees": []any{a}})
	}
	return map[string]any{"mode": "sequential", "steps": steps}
}

// allowNotifications grants the tab's origin the Notification permission, as a
// person answering the browser's question "Allow" would.
func (tb *tab) allowNotifications(origin string) {
	tb.t.Helper()
	c := chromedp.FromContext(tb.ctx)
	if c == nil || c.BrowserContextID == "" {
		tb.t.Fatal("the tab has no browser context of its own")
	}
	if _, err := chromedp.Call(browser, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted,
		Origin: origin, BrowserContextID: c.BrowserContextID}); err != nil {
		tb.t.Fatal(err)
	}
}

// recordNotifications wraps window.Notification so every notification the page
// constructs is recorded in window.__notes (and still shown).
func (tb *tab) recordNotifications() {
	tb.t.Helper()
	tb.eval0(`(function(){var N=window.Notification;window.__notes=[];
		class Recorded extends N{constructor(t,o){super(t,o);window.__notes.push(t)}}
		window.Notification=Recorded})()`)
}

// TestNeedsMyDecisionListsMyTurnsLiveAndNotifies: the owner opens "Needs my
// decision": a page whose current step names them and a page of their workspace
// without a chain are listed (the one with a deadline first); a page whose first
// step names someone else is not, until that person decides, and then it arrives
// without a reload, the rows that did not change staying the same elements. After a
// click on "Notify me" (the browser's permission granted), a page newly waiting on
// them and a page becoming overdue each construct a browser notification. At 1280
// and 390 px, light and dark, axe finds nothing serious.
func TestNeedsMyDecisionListsMyTurnsLiveAndNotifies(t *testing.T) {
	o := newOwner(t)
	mine := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Expense report", "priority": "normal", "due_in": 3600,
		"approval_chain": chainOf("owner@example.com")}))
	open := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Open to the team", "priority": "urgent"}))
	later := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Vendor contract",
		"approval_chain": chainOf("bob@example.com", "owner@example.com")}))
	others := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Carol's call", "approval_chain": chainOf("carol@example.com")}))
	// Another workspace's page naming the owner but not shared with them does not
	// show: they could not open it.
	otherKey, _ := o.e.Register("elsewhere")
	theirs := publish(t, o.e, otherKey, approvalPage(map[string]any{"title": "Another workspace", "approval_chain": chainOf("owner@example.com"),
		"access": map[string]any{"mode": "authenticated", "allowed_identities": []any{map[string]any{"type": "domain", "value": "elsewhere.example"}}}}))

	tb := o.tb
	tb.allowNotifications(o.e.Srv.URL)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/decide"))
	tb.until("the list, live", `document.querySelectorAll(".nd-row").length === 2 && `+liveJS)
	order := eval[[]string](tb, `Array.prototype.map.call(document.querySelectorAll(".nd-row"), function(li){return li.id})`)
	if strings.Join(order, ",") != "nd-"+mine+",nd-"+open {
		t.Errorf("the list is %v, want the page with a deadline (%s) then the open one (%s)", order, mine, open)
	}
	for _, id := range []string{later, others, theirs} {
		if eval[bool](tb, `!!document.getElementById("nd-`+id+`")`) {
			t.Errorf("page %s is listed but does not wait on the owner", id)
		}
	}
	if got := tb.text(`.dash-nav a[data-nav="decide"] .count`); got != "2" {
		t.Errorf("the navigation's count reads %q, want 2", got)
	}

	// Notify me: the person's click asks; the browser (here: the test) allows.
	tb.do(chromedp.Click(chromedp.CSS(`[data-notify-on]`)))
	tb.until("notifications on", `document.querySelector("[data-notify-on]").getAttribute("aria-pressed") === "true"`)
	tb.recordNotifications()
	tb.eval0(`document.getElementById("nd-` + mine + `").__same = true`)

	// Bob decides the first step: the contract is now the owner's turn.
	o.e.Must(200, "POST", "/v1/pages/"+later+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "bob@example.com"}})
	tb.until("the contract, arrived live", `!!document.getElementById("nd-`+later+`") && document.querySelectorAll(".nd-row").length === 3`)
	tb.until("its notification", `window.__notes.indexOf("Needs your decision: Vendor contract") >= 0`)
	if !eval[bool](tb, `document.getElementById("nd-`+mine+`").__same === true`) {
		t.Error("the redraw replaced the row that did not change")
	}

	// A page due in a second arrives, then passes its due time: marked and notified.
	late := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Late one", "due_in": 1, "approval_chain": chainOf("owner@example.com")}))
	tb.until("the late page, overdue", `(function(){var li=document.getElementById("nd-`+late+`");return !!li && li.classList.contains("nd-overdue") && !!li.querySelector(".badge.overdue")})()`)
	tb.until("the overdue notification", `window.__notes.indexOf("Overdue: Late one") >= 0`)
	if first := eval[string](tb, `document.querySelector(".nd-row").id`); first != "nd-"+late {
		t.Errorf("the first row is %s, want the overdue page (nearest deadline)", first)
	}
	if got := tb.text(`.dash-nav a[data-nav="decide"] .count`); got != "4" {
		t.Errorf("the navigation's count reads %q after the redraws, want 4", got)
	}
	if n := eval[int](tb, `window.__notes.length`); n != 3 {
		t.Errorf("%d notifications %v, want 3 (a new page twice, one overdue)", n, eval[[]string](tb, `window.__notes`))
	}

	tb.width(1280)
	tb.themes("Needs my decision at 1280 px", "dash-needs")
	tb.width(390)
	tb.noSideways("Needs my decision at 390 px")
	tb.noSeriousViolations("Needs my decision at 390 px")
	tb.settle()
	tb.shot("dash-needs-390")
	tb.dark(true)
	tb.settle()
	tb.shot("dash-needs-390-dark")
	tb.dark(false)
}

// TestNotificationsWaitForAClick: with the permission granted but no click on
// "Notify me", a page arriving constructs no notification.
func TestNotificationsWaitForAClick(t *testing.T) {
	o := newOwner(t)
	tb := o.tb
	tb.allowNotifications(o.e.Srv.URL)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/decide"))
	tb.until("the empty list, live", `!!document.querySelector(".needs .empty-inbox") && `+liveJS)
	tb.recordNotifications()
	id := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Quiet", "approval_chain": chainOf("owner@example.com")}))
	tb.until("the page, arrived", `!!document.getElementById("nd-`+id+`")`)
	if n := eval[int](tb, `window.__notes.length`); n != 0 {
		t.Errorf("%d notifications without the person asking", n)
	}
}

// TestThePagesListMarksOverdueAndFailedDeliveriesFiltersAndFollowsLive: a page
// past its due time whose page.overdue callback failed is marked overdue on the
// pages list, the inbox and its own screen, with "1 failed delivery" on its row and
// its screen and 1 beside Deliveries in the navigation; the delivery log names it
// by its title. The decision filters keep waiting, overdue, decided and rejected
// pages; a page published while the list is open arrives without a reload, the
// rows that did not change staying the same elements. At 1280 and 390 px, light
// and dark, axe finds nothing serious.
func TestThePagesListMarksOverdueAndFailedDeliveriesFiltersAndFollowsLive(t *testing.T) {
	rv := newFlaky(t, 500)
	o := newOwner(t, allowPrivate)
	late := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Late invoice", "due_in": 1,
		"on_action": map[string]any{"default_url": rv.srv.URL, "events": []any{"page.overdue"}, "retry": map[string]any{"max_attempts": 1}}}))
	waiting := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Waiting change", "due_in": 3600}))
	approved := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Approved change"}))
	rejected := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Rejected change"}))
	o.e.Must(200, "POST", "/v1/pages/"+approved+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ops@example.com"}})
	o.e.Must(200, "POST", "/v1/pages/"+rejected+"/actions/reject", o.key, map[string]any{"actor": map[string]any{"identity": "ops@example.com"}})
	deliveryOf(t, o.e, o.key, late, "page.overdue", "failed", 1)

	tb := o.tb
	row := func(id string) string { return `document.getElementById("pr-` + id + `")` }
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages"))
	tb.until("the list", `document.querySelectorAll(".dp-row").length === 4`)
	if got := tb.text("#pr-" + late); !containsAll(got, "Overdue", "1 failed delivery", "Due", "Expires") {
		t.Errorf("the late page's row reads %q", got)
	}
	if got := tb.text("#pr-" + waiting); !containsAll(got, "Due", "Expires") || strings.Contains(got, "Overdue") {
		t.Errorf("the waiting page's row reads %q", got)
	}
	if got := tb.text(`.dash-nav a[data-nav="deliveries"] .count`); got != "1" {
		t.Errorf("the navigation's failed-deliveries count reads %q, want 1", got)
	}
	for filter, want := range map[string][]string{"waiting": {late, waiting}, "overdue": {late}, "decided": {approved, rejected}, "rejected": {rejected}} {
		tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages?triage=" + filter))
		tb.until(filter+" pages", `document.querySelectorAll(".dp-row").length === `+itoa(len(want))+` && !!document.querySelector('.chips a[aria-current=page][href*="triage=`+filter+`"]') && `+liveJS)
		for _, id := range want {
			if !eval[bool](tb, `!!`+row(id)) {
				t.Errorf("filter %s does not list %s", filter, id)
			}
		}
	}

	// Live: the list follows the workspace's stream.
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages"))
	tb.until("the list, live", `document.querySelectorAll(".dp-row").length === 4 && `+liveJS)
	tb.eval0(row(waiting) + `.__same = true`)
	fresh := publish(t, o.e, o.key, approvalPage(map[string]any{"title": "Arrived live"}))

	tb.until("the new page, drawn", `!!`+row(fresh)+` && document.querySelectorAll(".dp-row").length === 5`)
	if !eval[bool](tb, row(waiting)+`.__same === true`) {
		t.Error("the redraw replaced a row that did not change")
	}
	tb.width(1280)
	tb.themes("the pages list at 1280 px", "dash-pages-triage")
	tb.width(390)
	tb.noSideways("the pages list at 390 px")
	tb.noSeriousViolations("the pages list at 390 px")
	tb.settle()
	tb.shot("dash-pages-triage-390")

	// The page's own screen and the delivery log.
	tb.width(1280)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages/" + late))
	tb.until("the page", `!!document.querySelector("#dp-failed")`)
	if got := tb.text("#dp-failed"); got != "1 failed delivery" {
		t.Errorf("the page's failed deliveries read %q", got)
	}
	if !eval[bool](tb, `!!document.querySelector("#dp-overdue")`) {
		t.Error("the page's screen does not say it is overdue")
	}
	tb.themes("the overdue page", "dash-page-overdue")
	tb.do(chromedp.Click(chromedp.CSS(`#dp-failed a`)))
	tb.until("its failed deliveries", `location.search.indexOf("state=failed") >= 0 && document.querySelectorAll(".entries .entry").length === 1`)
	if got := tb.text(".entries .entry"); !containsAll(got, "page.overdue", "Late invoice") {
		t.Errorf("the delivery log's row reads %q, want the page's title", got)
	}
	if got := tb.text(".page-filter"); !strings.Contains(got, "Late invoice") {
		t.Errorf("the log's page filter reads %q", got)
	}

	// The inbox marks it too.
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/"))
	tb.until("the inbox", `document.querySelectorAll(".entry").length === 5`)
	if got := tb.text("#e-" + strings.Replace(late, "pg_", "inb_", 1)); !containsAll(got, "Overdue", "Due", "Expires") {
		t.Errorf("the inbox's entry reads %q", got)
	}
	tb.width(390)
	tb.noSideways("the inbox at 390 px")
	tb.noSeriousViolations("the inbox at 390 px")
	tb.settle()
	tb.shot("dash-inbox-triage-390")
}

func itoa(n int) string { return strconv.Itoa(n) }
