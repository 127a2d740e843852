package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"folio/transport/node/nodetest"
)

// view counts one view of a page as a browser with the given user agent would
// (the review page's script posts the same on load).
func view(t *testing.T, e *nodetest.Env, id, userAgent string) {
	t.Helper()
	req, err := http.NewRequest("POST", e.Srv.URL+"/internal/pages/"+id+"/view", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", userAgent)
	res, err := e.Srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /internal/pages/%s/view: %d", id, res.StatusCode)
	}
}

// themes checks a dashboard screen with axe in light and dark, saves its
// screenshots in light, dark and at 360 px, and checks that at 360 px it does not
// scroll sideways.
func (tb *tab) themes(where, name string) {
	tb.t.Helper()
	tb.noSeriousViolations(where)
	tb.settle()
	tb.shot(name)
	tb.dark(true)
	tb.settle()
	tb.shot(name + "-dark")
	tb.dark(false)
	tb.width(360)
	tb.noSideways(where)
	tb.settle()
	tb.shot(name + "-360")
	tb.width(1000)
}

// settle waits for colours in transition (after a theme change) to arrive, so a
// screenshot shows them as a person would.
func (tb *tab) settle() {
	tb.t.Helper()
	tb.until("the theme's colours to settle", `document.getAnimations().every(function(a){return a.playState !== "running"})`)
}

// TestDashPagesListsTheWorkspacesPagesWithFiltersAndPaging: the list shows every
// page newest first with its status and decision; the status chips are links
// that filter; a page type filters; 27 pages make two screens.
func TestDashPagesListsTheWorkspacesPagesWithFiltersAndPaging(t *testing.T) {
	o := newOwner(t)
	ids := o.publishN(t, 24, "Routine change", map[string]any{"page_type": "change"})
	o.e.Must(200, "POST", "/v1/pages/"+ids[0]+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	o.e.Must(200, "POST", "/v1/pages/"+ids[1]+"/actions/reject", o.key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	o.e.Must(200, "POST", "/v1/pages/"+ids[2]+"/revoke", o.key, map[string]any{"reason": "wrong"})
	o.e.Must(201, "POST", "/v1/pages", o.key, map[string]any{"title": "Not yet published"})
	o.publishN(t, 2, "Incident", map[string]any{"page_type": "incident"})
	tb := o.tb

	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages"))
	tb.until("the first screen", `document.querySelectorAll(".dp-row").length === 25`)
	if got := tb.text(".list-range"); got != "1–25 of 27" {
		t.Errorf("the range reads %q", got)
	}
	if first := tb.text(".dp-row .entry-title"); first != "Incident 2" {
		t.Errorf("the first page is %q, want the newest", first)
	}
	if got := tb.text(".dp-row:nth-child(3) .entry-meta"); !strings.Contains(got, "draft") {
		t.Errorf("the draft reads %q", got)
	}
	if cur := tb.text(`.dash-nav a[aria-current="page"]`); cur != "Pages" {
		t.Errorf("the current section is %q", cur)
	}
	tb.do(chromedp.Click(chromedp.CSS(`a[rel="next"]`)))
	tb.until("the second screen", `document.querySelectorAll(".dp-row").length === 2 && location.search.indexOf("offset=25") >= 0`)
	if got := tb.text(".dp-row:last-child .entry-title"); got != "Routine change 1" {
		t.Errorf("the oldest page is %q", got)
	}
	if got := tb.text(".dp-row:last-child .entry-meta"); !containsAll(got, "completed", "approved") {
		t.Errorf("the approved page's row reads %q", got)
	}

	for status, want := range map[string]string{"Completed": "Routine change 2", "Revoked": "Routine change 3", "Draft": "Not yet published"} {
		tb.do(chromedp.Click(chromedp.Search(`//ul[@class="chips"]//a[.="` + status + `"]`)))
		tb.until(status+" only", fmt.Sprintf(`location.search.indexOf("status=%s") >= 0 && document.querySelector('.chips a[aria-current="page"]').innerText === %q`, strings.ToLower(status), status))
		rows := eval[[]string](tb, `Array.prototype.map.call(document.querySelectorAll(".dp-row .entry-title"), function(a){return a.textContent})`)
		if status == "Completed" {
			want = "Routine change 2|Routine change 1"
		}
		if strings.Join(rows, "|") != want {
			t.Errorf("%s lists %v, want %s", status, rows, want)
		}
	}
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages?page_type=incident"))
	tb.until("the incidents", `document.querySelectorAll(".dp-row").length === 2 && document.querySelector("#page-type").value === "incident"`)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages?status=expired"))
	tb.until("nothing expired", `document.body.innerText.indexOf("No page matches these filters.") >= 0`)

	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages"))
	tb.until("the list", `document.querySelectorAll(".dp-row").length === 25`)
	tb.themes("the pages list", "dash-pages")
}

// TestDashPagesShowsTheDecisionTheChainAndTheViewsMade: a page approved over the
// API shows who decided and how they were identified; a page with an approval
// chain shows its steps' progress; the views made in the test are the chart's
// total, in its accessible name and in its table; another workspace's page is 404.
func TestDashPagesShowsTheDecisionTheChainAndTheViewsMade(t *testing.T) {
	o := newOwner(t)
	id := o.publishN(t, 1, "Deploy v2.4.1", nil)[0]
	o.e.Must(201, "POST", "/v1/pages/"+id+"/comments", "", map[string]any{"content": "Looks fine", "author_name": "Kim"})
	for _, ua := range []string{"viewer-a", "viewer-b", "viewer-b", "viewer-c", "viewer-a"} {
		view(t, o.e, id, ua)
	}
	o.e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}, "comment": "Ship it"})
	an := o.e.Must(200, "GET", "/v1/pages/"+id+"/analytics", o.key, nil)
	tb := o.tb

	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages/" + id))
	tb.until("the page", `!!document.querySelector("#dp-decided")`)
	// The key acted for ann: the page says the key recorded it, and which key.
	if got := tb.text("#dp-decided"); !containsAll(got, "Decided by\nRecorded by key "+o.keyLabel(t)+" for ann@example.com\nIdentified\nThe agent's API key "+o.keyLabel(t)+" vouched for this name (not verified)\nAction\nApprove\n") {
		t.Errorf("the decision reads %q", got)
	}
	if got := tb.text(".dp-outcome"); got != "Approved" {
		t.Errorf("the outcome reads %q", got)
	}
	if got := tb.text(".dp-head .badges"); !containsAll(got, "completed", "approved") {
		t.Errorf("the badges read %q", got)
	}
	if got, want := tb.text("#dp-views"), fmt.Sprint(an["totalViews"]); got != "5" || want != "5" {
		t.Errorf("views %q, the API says %s; 5 were made", got, want)
	}
	if got := tb.text("#dp-unique"); got != "3" || fmt.Sprint(an["uniqueViewers"]) != "3" {
		t.Errorf("unique viewers %q, the API says %v; 3 user agents viewed", got, an["uniqueViewers"])
	}
	if got := tb.text("#dp-comments"); got != "1" {
		t.Errorf("comments %q", got)
	}
	// The chart: its accessible name says the total, its bars add up to it, and its
	// table (the text alternative) lists the same.
	name := eval[string](tb, `(function(){var s=document.querySelector("#dp-chart .ch-w svg");return s.getAttribute("role")+" | "+document.getElementById(s.getAttribute("aria-labelledby")).textContent})()`)
	if !containsAll(name, "img | Views per day", "5 views", "most on") {
		t.Errorf("the chart's role and name read %q", name)
	}
	if bars := eval[int](tb, `Array.prototype.filter.call(document.querySelectorAll("#dp-chart .ch-w rect"), function(r){return parseFloat(r.getAttribute("height")) > 0}).length`); bars != 1 {
		t.Errorf("%d bars drawn, want one (today)", bars)
	}
	sum := eval[int](tb, `Array.prototype.reduce.call(document.querySelectorAll("#dp-days tbody td"), function(s, td){return s + parseInt(td.textContent, 10)}, 0)`)
	if sum != 5 {
		t.Errorf("the table of days adds up to %d, want 5", sum)
	}
	if got := eval[string](tb, `document.querySelector(".dp-open a").getAttribute("href")`); got != "/p/"+id {
		t.Errorf("the review page link is %q", got)
	}
	tb.do(chromedp.Click(chromedp.CSS(`.ch-data summary`)))
	tb.until("the table", `document.querySelector(".ch-data").open`)
	tb.themes("a decided page", "dash-page")

	// An approval chain: the first of two steps decided.
	chain := o.publishN(t, 1, "Rotate the signing key", map[string]any{"approval_chain": map[string]any{"mode": "sequential", "steps": []any{
		map[string]any{"name": "Team lead", "assignees": []any{"alice@example.com"}},
		map[string]any{"name": "Security", "assignees": []any{"bob@example.com"}},
	}}})[0]
	o.e.Must(200, "POST", "/v1/pages/"+chain+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "alice@example.com"}})
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages/" + chain))
	tb.until("the chain", `!!document.querySelector("#dp-chain")`)
	if got := tb.text("#dp-chain-progress"); !containsAll(got, "1 of 2 steps done", "waiting for Security") {
		t.Errorf("the chain's progress reads %q", got)
	}
	if got := tb.text("#dp-chain .step-completed"); !containsAll(got, "Team lead", "Approved, recorded by key "+o.keyLabel(t)+" for alice@example.com") {
		t.Errorf("the first step reads %q", got)
	}
	if got := tb.text("#dp-chain .step-current"); !containsAll(got, "Security", "Awaiting a decision from bob@example.com") {
		t.Errorf("the current step reads %q", got)
	}
	if got := tb.text("#dp-decided"); got != "Awaiting a decision." {
		t.Errorf("the undecided page reads %q", got)
	}
	o.e.Must(200, "POST", "/v1/pages/"+chain+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "bob@example.com"}})
	tb.do(chromedp.Reload())
	tb.until("the finished chain", `document.querySelector("#dp-chain-progress").innerText.indexOf("2 of 2 steps done") === 0`)
	if got := tb.text("#dp-decided"); !strings.Contains(got, "Decided by\nRecorded by key "+o.keyLabel(t)+" for bob@example.com") {
		t.Errorf("the chain's final decision reads %q", got)
	}
	tb.shot("dash-page-chain")

	// Another workspace's page does not exist here.
	otherKey, _ := o.e.Register("Someone else")
	other := publish(t, o.e, otherKey, approvalPage(map[string]any{"title": "Their secret"}))
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages/" + other))
	tb.until("the not-found page", `document.body.innerText.indexOf("Page not found") >= 0`)
	if strings.Contains(tb.text("body"), "Their secret") {
		t.Error("another workspace's page shows")
	}
}

// TestDashPagesRevokeAndRenewAskFirst: without JavaScript, revoking answers a
// confirmation page and only its "Yes" revokes (the page then reads revoked, and
// so does the API, with the member in the audit log); with JavaScript a dialog
// asks, Cancel changes nothing, Yes renews; a change the page's status no longer
// allows shows the reason.
func TestDashPagesRevokeAndRenewAskFirst(t *testing.T) {
	o := newOwner(t)
	ids := o.publishN(t, 4, "Release train", nil)

	// With JavaScript: a dialog of the page asks.
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages/" + ids[1]))
	tb.until("the page", `!!document.querySelector('form[action$="/revoke"]')`)
	tb.themes("an active page", "dash-page-active")
	tb.do(chromedp.Click(chromedp.CSS(`form[action$="/revoke"] button`)))
	tb.until("the dialog", `!!document.querySelector("dialog.confirm[open]")`)
	if got := tb.text("dialog.confirm h2"); got != "Revoke “Release train 2”?" {
		t.Errorf("the dialog asks %q", got)
	}
	tb.noSeriousViolations("the revoke dialog")
	tb.settle()
	tb.shot("dash-page-dialog")
	tb.do(chromedp.Click(chromedp.Search(`//dialog//button[.="Cancel"]`)))
	tb.until("the dialog to close", `!document.querySelector("dialog") && document.activeElement.matches('form[action$="/revoke"] button')`)
	tb.do(chromedp.KeyEvent(kb.Enter)) // the keyboard: Enter on the focused button asks again, Escape cancels
	tb.until("the dialog again", `!!document.querySelector("dialog.confirm[open]") && document.activeElement.innerText === "Cancel"`)
	tb.do(chromedp.KeyEvent(kb.Escape))
	tb.until("the dialog to close", `!document.querySelector("dialog") && document.activeElement.matches('form[action$="/revoke"] button')`)
	if st := o.e.Must(200, "GET", "/v1/pages/"+ids[1], o.key, nil)["status"]; st != "active" {
		t.Fatalf("Cancel revoked the page: %v", st)
	}
	before := o.e.Must(200, "GET", "/v1/pages/"+ids[1], o.key, nil)["expires_at"].(string)
	tb.do(chromedp.Click(chromedp.CSS(`form[action$="/renew"] button`)))
	tb.until("the renew dialog", `!!document.querySelector("dialog.confirm[open]")`)
	tb.do(chromedp.Click(chromedp.Search(`//dialog//button[.="Yes, renew"]`)))
	tb.until("the renewed page", `!!document.querySelector(".notice") && document.querySelector(".notice").innerText === "The page was renewed."`)
	if after := o.e.Must(200, "GET", "/v1/pages/"+ids[1], o.key, nil)["expires_at"].(string); after <= before {
		t.Errorf("renewing did not extend the page: %s, then %s", before, after)
	}
	tb.do(chromedp.Click(chromedp.CSS(`form[action$="/revoke"] button`)))
	tb.until("the revoke dialog", `!!document.querySelector("dialog.confirm[open]")`)
	tb.do(chromedp.Click(chromedp.Search(`//dialog//button[.="Yes, revoke"]`)))
	tb.until("the revoked page", `document.querySelector(".dp-head .badge").innerText === "revoked"`)
	if st := o.e.Must(200, "GET", "/v1/pages/"+ids[1], o.key, nil)["status"]; st != "revoked" {
		t.Errorf("the API says %v", st)
	}

	// The page is decided while its screen is open: revoking is refused, with why.
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages/" + ids[2]))
	tb.until("the page", `!!document.querySelector('form[action$="/revoke"]')`)
	o.e.Must(200, "POST", "/v1/pages/"+ids[2]+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	tb.do(chromedp.Click(chromedp.CSS(`form[action$="/revoke"] button`)))
	tb.until("the revoke dialog", `!!document.querySelector("dialog.confirm[open]")`)
	tb.do(chromedp.Click(chromedp.Search(`//dialog//button[.="Yes, revoke"]`)))
	tb.until("the refusal", `!!document.querySelector(".problem")`)
	if got := tb.text(".problem"); !strings.Contains(got, "could not be revoked: cannot revoke a page that is completed") {
		t.Errorf("the refusal reads %q", got)
	}
	if got := tb.text(".dp-outcome"); got != "Approved" {
		t.Errorf("the page as it stands reads %q", got)
	}
	tb.shot("dash-page-refused")

	// Without JavaScript: the same tab, its scripts turned off.
	nojs := o.tb
	if _, err := chromedp.Call(nojs.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	nojs.do(chromedp.Navigate(o.e.Srv.URL+"/pages/"+ids[0]), chromedp.SendKeys(chromedp.ID("revoke-reason"), "Superseded by 2.5"),
		chromedp.Click(chromedp.CSS(`form[action$="/revoke"] button`)))
	nojs.until("the confirmation page", `document.querySelector("h1").innerText === "Revoke “Release train 1”?"`)
	if st := o.e.Must(200, "GET", "/v1/pages/"+ids[0], o.key, nil)["status"]; st != "active" {
		t.Fatalf("revoked before it was confirmed: %v", st)
	}
	if got := nojs.text(".dp-confirm"); !strings.Contains(got, "Superseded by 2.5") {
		t.Errorf("the confirmation does not repeat the reason: %q", got)
	}
	// axe needs scripts: turned back on, they run only what is evaluated here (the
	// page's own script was never started), so the form below still posts plainly.
	if _, err := chromedp.Call(nojs.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
		t.Fatal(err)
	}
	nojs.noSeriousViolations("the confirmation page")
	nojs.settle()
	nojs.shot("dash-page-confirm")
	nojs.do(chromedp.Click(chromedp.CSS(`.dp-confirm button.bt-danger`)))
	nojs.until("the revoked page", `document.querySelector(".dp-head .badge").innerText === "revoked"`)
	if got := nojs.text(".notice"); got != "The page was revoked." {
		t.Errorf("the notice reads %q", got)
	}
	if got := nojs.text("#dp-decided"); !strings.Contains(got, "Superseded by 2.5") {
		t.Errorf("the revoked page reads %q", got)
	}
	if eval[int](nojs, `document.querySelectorAll("form.dp-change").length`) != 0 {
		t.Error("a revoked page still offers changes")
	}
	// A page decided meanwhile is not offered for confirmation: the refusal at once.
	if _, err := chromedp.Call(nojs.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	nojs.do(chromedp.Navigate(o.e.Srv.URL + "/pages/" + ids[3]))
	nojs.until("the page", `!!document.querySelector('form[action$="/revoke"]')`)
	o.e.Must(200, "POST", "/v1/pages/"+ids[3]+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	nojs.do(chromedp.Click(chromedp.CSS(`form[action$="/revoke"] button`)))
	nojs.until("the refusal", `!!document.querySelector(".problem")`)
	if got := nojs.text(".problem"); !strings.Contains(got, "could not be revoked: cannot revoke a page that is completed") {
		t.Errorf("the refusal reads %q", got)
	}
	pg := o.e.Must(200, "GET", "/v1/pages/"+ids[0], o.key, nil)
	if pg["status"] != "revoked" {
		t.Fatalf("the API says %v", pg["status"])
	}
	items := o.e.Must(200, "GET", "/v1/pages/"+ids[0]+"/audit", o.key, nil)["items"].([]any)
	last := items[len(items)-1].(map[string]any)
	if last["event_type"] != "page.revoked" || last["actor"] != "user:owner@example.com" || last["details"].(map[string]any)["reason"] != "Superseded by 2.5" {
		t.Errorf("the audit log's last entry is %v", last)
	}
}

// TestDashPagesShowWhatAgentsWriteAsText: titles, tags and page types made of
// script, handlers and javascript: addresses show as text on the list, on a page,
// in its confirmation dialog and on the other screens; nothing runs.
func TestDashPagesShowWhatAgentsWriteAsText(t *testing.T) {
	o := newOwner(t)
	var ids []string
	for i, p := range payloads {
		ids = append(ids, publish(t, o.e, o.key, approvalPage(map[string]any{"title": p, "page_type": fmt.Sprintf("t%d %s", i, p[:min(len(p), 40)]),
			"tags": []any{p[:min(len(p), 100)]}})))
	}
	tb := o.tb
	ran := func(where string) {
		t.Helper()
		if got := eval[any](tb, `window.__xss`); got != nil {
			t.Fatalf("a payload ran on %s: window.__xss = %v", where, got)
		}
		for _, href := range eval[[]string](tb, `Array.prototype.map.call(document.querySelectorAll("a[href]"), function(a){return a.getAttribute("href")})`) {
			if !strings.HasPrefix(href, "/") && !strings.HasPrefix(href, "#") {
				t.Errorf("a link on %s leads to %q", where, href)
			}
		}
	}
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages"))
	tb.until("the list", fmt.Sprintf(`document.querySelectorAll(".dp-row").length === %d`, len(payloads)))
	ran("the list")
	titles := strings.Join(eval[[]string](tb, `Array.prototype.map.call(document.querySelectorAll(".dp-row .entry-title"), function(a){return a.textContent})`), "\n")
	for _, p := range payloads {
		if !strings.Contains(titles, strings.TrimSpace(p)) {
			t.Errorf("the payload %q does not show as text in the list", p)
		}
	}
	for i, id := range ids {
		tb.do(chromedp.Navigate(o.e.Srv.URL + "/pages/" + id))
		tb.until("the page", `!!document.querySelector(".dp-head h1")`)
		ran("page " + id)
		if got := eval[string](tb, `document.querySelector(".dp-head h1").textContent`); got != payloads[i] {
			t.Errorf("the heading reads %q, want the payload %q as text", got, payloads[i])
		}
		if got := eval[string](tb, `document.querySelector(".dp-head .tags").textContent`); got != payloads[i][:min(len(payloads[i]), 100)] {
			t.Errorf("the tags read %q", got)
		}
	}
	// The dialog puts the title in with textContent.
	tb.do(chromedp.Click(chromedp.CSS(`form[action$="/revoke"] button`)))
	tb.until("the dialog", `!!document.querySelector("dialog.confirm[open]")`)
	ran("the dialog")
	if got := tb.text("dialog h2"); !strings.Contains(got, strings.TrimSpace(payloads[len(payloads)-1])) {
		t.Errorf("the dialog asks %q", got)
	}
	tb.do(chromedp.Click(chromedp.Search(`//dialog//button[.="Cancel"]`)))
	for _, path := range []string{"/pages?page_type=" + "t2%20" + "javascript:window.__xss%3D3", "/usage", "/members"} {
		tb.do(chromedp.Navigate(o.e.Srv.URL + path))
		tb.until(path, `!!document.querySelector(".page-h")`)
		ran(path)
	}
}
