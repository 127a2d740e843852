package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/transport/node/nodetest"
)

// owner is a signed-in owner of an agent's workspace: the agent registered naming
// them, and their browser followed the claim mail.
type owner struct {
	e    *nodetest.Env
	smtp *nodetest.SMTP
	tb   *tab
	key  string // the agent's API key
	ten  string // the workspace
}

func newOwner(t *testing.T, opts ...nodetest.Option) *owner {
	t.Helper()
	smtp := nodetest.StartSMTP(t)
	e := nodetest.New(t, append([]nodetest.Option{withSMTP(smtp)}, opts...)...)
	reg := e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Ops Bot", "owner_email": "owner@example.com"})
	link, _ := mailedLink(t, smtp, "owner@example.com")
	tb := newTab(t)
	tb.do(chromedp.Navigate(link))
	tb.until("the claim", `document.body.innerText.indexOf("You now own Ops Bot") >= 0`)
	return &owner{e: e, smtp: smtp, tb: tb, key: reg["apiKey"].(string), ten: reg["tenantId"].(string)}
}

// publishN publishes n approval pages titled "<prefix> 1" … with the given extras.
func (o *owner) publishN(t *testing.T, n int, prefix string, extra map[string]any) []string {
	t.Helper()
	var ids []string
	for i := 1; i <= n; i++ {
		body := approvalPage(map[string]any{"title": fmt.Sprintf("%s %d", prefix, i)})
		for k, v := range extra {
			body[k] = v
		}
		ids = append(ids, publish(t, o.e, o.key, body))
	}
	return ids
}

// TestTheInboxListsFiltersStarsAndArchives: the owner signs in and sees the
// workspace's pages, newest first, with the unread count in the title; filters are
// links (the filtered view is an address); starring and archiving happen in place
// and the list says so.
func TestTheInboxListsFiltersStarsAndArchives(t *testing.T) {
	o := newOwner(t)
	o.publishN(t, 3, "Routine change", map[string]any{"priority": "normal", "page_type": "change"})
	o.publishN(t, 2, "Urgent incident", map[string]any{"priority": "urgent", "page_type": "incident"})
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/"))
	tb.until("the inbox", `document.querySelectorAll(".entry").length === 5`)
	if got := eval[string](tb, `document.title`); !strings.HasPrefix(got, "(5) Inbox") {
		t.Errorf("title %q, want the unread count first", got)
	}
	if first := tb.text(".entry .entry-title"); !strings.Contains(first, "Urgent incident 2") {
		t.Errorf("the first entry is %q, want the newest", first)
	}
	tb.shot("dash-inbox")

	// Filter by priority: a link; the address carries the filter.
	tb.do(chromedp.Click(chromedp.CSS(`a[href*="priority=urgent"]`)))
	tb.until("the urgent ones", `document.querySelectorAll(".entry").length === 2 && location.search.indexOf("priority=urgent") >= 0`)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/?pageType=change"))
	tb.until("the changes", `document.querySelectorAll(".entry").length === 3`)

	// Star in place: the button is pressed, and the page did not reload.
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/"))
	tb.until("the inbox", `document.querySelectorAll(".entry").length === 5`)
	tb.eval0(`window.__kept = true`)
	tb.do(chromedp.Click(chromedp.CSS(`.entry .star`)))
	tb.until("the star", `document.querySelector(".entry .star").getAttribute("aria-pressed") === "true"`)
	if !eval[bool](tb, `window.__kept === true`) {
		t.Error("starring reloaded the page")
	}
	if !eval[bool](tb, `document.activeElement && document.activeElement.classList.contains("star")`) {
		t.Error("focus did not stay on the star button")
	}
	entries := o.e.Must(200, "GET", "/v1/inbox", o.key, nil)["entries"].([]any)
	if !entries[0].(map[string]any)["starred"].(bool) {
		t.Error("the API does not see the star")
	}

	// Archive in place: the entry leaves the default view and the count drops.
	tb.do(chromedp.Click(chromedp.CSS(`.entry form[action$="/archive"] button`)))
	tb.until("the archive", `document.querySelectorAll(".entry").length === 4 && document.title.indexOf("(4) Inbox") === 0`)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/?status=archived"))
	tb.until("the archived one", `document.querySelectorAll(".entry").length === 1`)
}

// TestAPagePublishedOverTheAPIArrivesLive: the inbox is open; an agent publishes a
// page; it appears without a reload, and the unread count in the title follows.
func TestAPagePublishedOverTheAPIArrivesLive(t *testing.T) {
	o := newOwner(t)
	o.publishN(t, 1, "First", nil)
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/"))
	tb.until("the inbox, live", `document.querySelectorAll(".entry").length === 1 && `+liveJS)
	tb.eval0(`window.__kept = true; document.querySelector(".entry .star").__same = true`)
	o.publishN(t, 1, "Arrived live", nil)
	tb.until("the new page", `document.querySelectorAll(".entry").length === 2 && document.title.indexOf("(2) Inbox") === 0`)
	if !eval[bool](tb, `window.__kept === true`) {
		t.Error("the page reloaded instead of redrawing the list")
	}
	// The entry that did not change is the same element: a redraw does not take a
	// button from under the pointer or the focus of a person.
	if !eval[bool](tb, `document.querySelectorAll(".entry .star")[1].__same === true`) {
		t.Error("the redraw replaced the entry that did not change")
	}
	if first := tb.text(".entry .entry-title"); !strings.Contains(first, "Arrived live") {
		t.Errorf("the first entry is %q, want the page just published", first)
	}
}

// TestTheDashboardNeedsASignedInMember: anyone not signed in is sent to sign in
// (and comes back); another workspace's id shows nothing of it.
func TestTheDashboardNeedsASignedInMember(t *testing.T) {
	o := newOwner(t)
	tb := newTab(t)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/?status=unread"))
	tb.until("the sign-in page", `location.pathname === "/login" && !!document.querySelector("#signin-email")`)
	if got := eval[string](tb, `document.querySelector('input[name=next]').value`); got != "/?status=unread" {
		t.Errorf("after signing in the person would land on %q, want the inbox view they asked for", got)
	}
	other := o.e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Not yours"})
	o.tb.do(chromedp.Navigate(o.e.Srv.URL + "/?w=" + other["tenantId"].(string)))
	o.tb.until("the not-found page", `document.body.innerText.indexOf("Page not found") >= 0`)
	if strings.Contains(o.tb.text("body"), "Not yours") {
		t.Error("another workspace's name shows")
	}
}

// TestTheInboxShowsWhatAgentsWriteAsText: titles and page types made of script,
// handlers and javascript: addresses show as text on the inbox, and nothing runs.
func TestTheInboxShowsWhatAgentsWriteAsText(t *testing.T) {
	o := newOwner(t)
	for i, p := range payloads {
		body := approvalPage(map[string]any{"title": p, "page_type": fmt.Sprintf("t%d %s", i, p[:min(len(p), 40)]), "tags": []any{p[:min(len(p), 100)]}})
		publish(t, o.e, o.key, body)
	}
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/"))
	tb.until("the inbox", fmt.Sprintf(`document.querySelectorAll(".entry").length === %d`, len(payloads)))
	tb.until("the live stream", liveJS)
	if eval[bool](tb, `window.__xss !== undefined`) {
		t.Fatalf("a payload ran on the inbox: window.__xss = %v", eval[any](tb, `window.__xss`))
	}
	titles := eval[[]string](tb, `Array.prototype.map.call(document.querySelectorAll(".entry-title"), function(a){return a.textContent})`)
	for _, p := range payloads {
		if !containsAll(strings.Join(titles, "\n"), strings.TrimSpace(p)) {
			t.Errorf("the payload %q does not show as text among the titles", p)
		}
	}
	for _, href := range eval[[]string](tb, `Array.prototype.map.call(document.querySelectorAll("a[href]"), function(a){return a.getAttribute("href")})`) {
		if !strings.HasPrefix(href, "/") && !strings.HasPrefix(href, "#") {
			t.Errorf("a link leads to %q", href)
		}
	}
}

// TestTheInboxIsAccessible: axe-core finds no serious or critical violation on the
// inbox in light and dark; at 360 px it does not scroll sideways; the keyboard
// reaches the sections, the filters, the star and the entry.
func TestTheInboxIsAccessible(t *testing.T) {
	o := newOwner(t)
	o.publishN(t, 3, "Quarterly access review for the payments platform", map[string]any{"priority": "urgent", "page_type": "access-review"})
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/"))
	tb.until("the inbox", `document.querySelectorAll(".entry").length === 3`)
	tb.noSeriousViolations("the inbox")
	tb.dark(true)
	tb.shot("dash-inbox-dark")
	tb.dark(false)
	tb.width(360)
	tb.noSideways("the inbox")
	tb.shot("dash-inbox-360")
	tb.width(1000)
	// The keyboard: Tab from the top reaches a section link, a filter, the first star.
	seen := map[string]bool{}
	for range 40 {
		tb.do(chromedp.KeyEvent("\t"))
		seen[eval[string](tb, `(function(e){return e.className || e.tagName})(document.activeElement)`)] = true
	}
	for _, want := range []string{"star", "entry-title"} {
		if !seen[want] {
			t.Errorf("tabbing through the inbox never reaches .%s (reached %v)", want, seen)
		}
	}
}

// TestAPersonInTwoWorkspacesActsInTheOneShown: the owner claims a second agent;
// the switcher lists both; starring in the second workspace changes the second
// workspace's inbox, not the first's.
func TestAPersonInTwoWorkspacesActsInTheOneShown(t *testing.T) {
	o := newOwner(t)
	o.publishN(t, 1, "First workspace page", nil)
	second := o.e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Second Bot"})
	key2 := second["apiKey"].(string)
	publish(t, o.e, key2, approvalPage(map[string]any{"title": "Second workspace page"}))
	tb := o.tb
	tb.do(chromedp.Navigate(second["claimUrl"].(string)))
	tb.until("the claim form", `!!document.querySelector("#claim-code")`)
	tb.do(chromedp.Click(chromedp.CSS(`form[action="/claim"] button[type=submit]`)))
	tb.until("the claim", `document.body.innerText.indexOf("You now own Second Bot") >= 0`)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/"))
	tb.until("the switcher", `!!document.querySelector(".ws-switch")`)
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/?w=" + second["tenantId"].(string)))
	tb.until("the second inbox", `document.querySelectorAll(".entry").length === 1 && document.querySelector(".entry-title").textContent.indexOf("Second workspace page") >= 0`)
	tb.do(chromedp.Click(chromedp.CSS(`.entry .star`)))
	tb.until("the star", `document.querySelector(".entry .star").getAttribute("aria-pressed") === "true"`)
	if e := o.e.Must(200, "GET", "/v1/inbox", key2, nil)["entries"].([]any)[0].(map[string]any); e["starred"] != true {
		t.Error("the star did not reach the second workspace")
	}
	if e := o.e.Must(200, "GET", "/v1/inbox", o.key, nil)["entries"].([]any)[0].(map[string]any); e["starred"] != false {
		t.Error("the star landed in the first workspace")
	}
}

// keyLabel is how the pages name the owner's API key: "<name> (<prefix>…)".
func (o *owner) keyLabel(t *testing.T) string {
	t.Helper()
	k := o.e.Must(200, "GET", "/v1/account/api-keys", o.key, nil)["keys"].([]any)[0].(map[string]any)
	return fmt.Sprintf("%s (%s…)", k["name"], k["prefix"])
}
