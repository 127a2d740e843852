package web_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/actors/page"
)

// oneDecimal is a figure as the usage screen shows it ("72.5", "100").
func oneDecimal(v any) string {
	return strconv.FormatFloat(math.Round(v.(float64)*10)/10, 'f', -1, 64)
}

// TestDashUsageMatchesWhatWasPublished: the month's pages are the live pages
// published (a test key's page does not count), against the plan's limit; the
// period's metrics and the quality score's parts are the API's numbers; the
// period chips are links.
func TestDashUsageMatchesWhatWasPublished(t *testing.T) {
	o := newOwner(t)
	ids := o.publishN(t, 3, "Live page", nil)
	o.e.Must(200, "POST", "/v1/pages/"+ids[0]+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	o.e.Must(200, "POST", "/v1/pages/"+ids[1]+"/revoke", o.key, nil)
	testKey := o.e.Must(201, "POST", "/v1/account/api-keys", o.key, map[string]any{"name": "ci", "mode": "test"})["key"].(string)
	publish(t, o.e, testKey, approvalPage(map[string]any{"title": "A test page"}))

	usage := o.e.Must(200, "GET", "/v1/tenant", o.key, nil)["usage"].(map[string]any)
	metrics := o.e.Must(200, "GET", "/v1/tenant/dashboard?period=30d", o.key, nil)["metrics"].(map[string]any)
	quality := o.e.Must(200, "GET", "/v1/quality-score", o.key, nil)
	if usage["pages_this_month"] != 3.0 || metrics["total_pages"] != 4.0 || quality["totalPages"] != 4.0 {
		t.Fatalf("the API counts %v this month, %v in 30 days, %v in the quality window; want 3 live, 4 in all", usage["pages_this_month"], metrics["total_pages"], quality["totalPages"])
	}
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/usage"))
	tb.until("the usage screen", `!!document.querySelector("#u-pages")`)
	if got := tb.text("#u-pages"); got != "3" {
		t.Errorf("pages this month read %q, want 3 (the test key's page does not count)", got)
	}
	if limit := usage["pages_limit"]; limit != nil {
		if got := tb.text("#u-limit"); got != fmt.Sprint(limit) {
			t.Errorf("the limit reads %q, the API says %v", got, limit)
		}
		if got := eval[string](tb, `document.querySelector("#u-meter").value + "/" + document.querySelector("#u-meter").max`); got != fmt.Sprintf("3/%v", limit) {
			t.Errorf("the meter is at %s", got)
		}
	}
	if got, stored := tb.text("#u-storage"), page.HumanBytes(int64(usage["stored_bytes"].(float64))); !strings.HasPrefix(got, stored+" stored") || !strings.Contains(got, " of 1.0 GiB") {
		t.Errorf("storage reads %q; the API says %v bytes stored of the free plan's 1 GiB", got, usage["stored_bytes"])
	}
	if got := tb.text("#u-quota-text"); !strings.Contains(got, "published in") {
		t.Errorf("the quota reads %q", got)
	}
	want := map[string]string{
		"#u-total": "4", "#u-active": fmt.Sprint(metrics["active_pages"]), "#u-completed": "1",
		"#u-approval":   oneDecimal(metrics["approval_rate"].(float64)*100) + "%",
		"#u-score":      oneDecimal(quality["score"]),
		"#u-acceptance": "50%", "#u-analysed": "4", "#u-decisions": "2",
		"#u-speed": oneDecimal(quality["decisionSpeed"]) + " / 100",
	}
	for sel, w := range want {
		if got := tb.text(sel); got != w {
			t.Errorf("%s reads %q, want %q", sel, got, w)
		}
	}
	if got := tb.text("#u-how"); !containsAll(got, "last 100 pages", "70% of the acceptance rate", "30% of the decision speed", "24 hours") {
		t.Errorf("the explanation reads %q", got)
	}
	if cur := tb.text(`.chips a[aria-current="page"]`); cur != "Last 30 days" {
		t.Errorf("the default period is %q", cur)
	}
	tb.themes("the usage screen", "dash-usage")

	for label, period := range map[string]string{"Last 7 days": "7d", "All time": "all"} {
		tb.do(chromedp.Click(chromedp.Search(`//ul[@class="chips"]//a[.="` + label + `"]`)))
		tb.until(label, fmt.Sprintf(`location.search.indexOf("period=%s") >= 0 && document.querySelector('.chips a[aria-current="page"]').innerText === %q`, period, label))
		m := o.e.Must(200, "GET", "/v1/tenant/dashboard?period="+period, o.key, nil)["metrics"].(map[string]any)
		if got := tb.text("#u-total"); got != fmt.Sprint(m["total_pages"]) {
			t.Errorf("%s: %s pages, the API says %v", label, got, m["total_pages"])
		}
	}
}

// TestDashMembersListsTheOwnerAsYou: the owner who claimed the agent is its member,
// marked as the person signed in; the screen says how one becomes a member today.
func TestDashMembersListsTheOwnerAsYou(t *testing.T) {
	o := newOwner(t)
	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/members"))
	tb.until("the members", `document.querySelectorAll("#m-list li").length === 1`)
	if got := eval[string](tb, `document.querySelector("#m-list li").textContent.replace(/\s+/g, " ")`); !containsAll(got, "owner@example.com", "you", "Role: owner", "Joined") {
		t.Errorf("the member reads %q", got)
	}
	if got := tb.text(`.dash-nav a[aria-current="page"]`); got != "Members" {
		t.Errorf("the current section is %q", got)
	}
	if got := tb.text("body"); !containsAll(got, "claimed once", "Inviting more people by e-mail is not available yet") {
		t.Errorf("the screen does not say how one becomes a member: %q", got)
	}
	tb.themes("the members screen", "dash-members")
}
