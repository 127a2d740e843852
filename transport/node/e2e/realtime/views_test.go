package realtime_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// view posts a view with a user agent (no credential).
func view(t *testing.T, e *nodetest.Env, id, ua string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.Srv.URL+"/internal/pages/"+id+"/view", nil)
	req.Header.Set("User-Agent", ua)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = decodeJSON(res.Body, &m)
	return res.StatusCode, m
}

// TestViewsCountTotalsDaysAndUniqueViewers: every view counts toward the total and
// its UTC day; a viewer (client address + user agent) counts once toward unique
// viewers; the page's stats.view_count and last_viewed_at follow; analytics reports
// all of it; page.viewed reaches the agent once per viewer per 30 minutes and never
// the public page stream.
func TestViewsCountTotalsDaysAndUniqueViewers(t *testing.T) {
	day1 := time.Date(2026, 3, 10, 23, 0, 0, 0, time.UTC)
	clk := nodetest.NewClock(day1)
	e := nodetest.Open(t, t.TempDir(), clk)
	key, _ := e.Register("counter")
	id := e.Publish(key, nil)
	agent := openSSE(t, e, "/v1/agent/events", key, "")
	agent.expect("connected")
	public := openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	public.expect("connected")

	for i, ua := range []string{"Firefox", "Firefox", "Safari"} {
		st, m := view(t, e, id, ua)
		if st != 200 || m["viewCount"] != float64(i+1) {
			t.Fatalf("view %d: %d %v", i, st, m)
		}
	}
	clk.Advance(2 * time.Hour) // next UTC day
	view(t, e, id, "Firefox")  // same viewer, 2 hours later: a new page.viewed
	view(t, e, id, "Firefox")

	a := e.Must(200, "GET", "/v1/pages/"+id+"/analytics", key, nil)
	daily := a["dailyViews"].(map[string]any)
	if a["totalViews"] != 5.0 || a["uniqueViewers"] != 2.0 || daily["2026-03-10"] != 3.0 || daily["2026-03-11"] != 2.0 || a["pageId"] != id || a["status"] != "active" || a["createdAt"] == nil {
		t.Fatalf("analytics: %v", a)
	}
	pg := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	stats := pg["stats"].(map[string]any)
	if stats["view_count"] != 5.0 || !strings.HasPrefix(stats["last_viewed_at"].(string), "2026-03-11T01:00:00") {
		t.Fatalf("stats: %v", stats)
	}
	ms := agent.collect(5*time.Second, func(ms []msg) bool { return len(ms) >= 3 })
	agent.quiet(100 * time.Millisecond)
	if ms[0].data()["user_agent"] != "Firefox" || ms[1].data()["user_agent"] != "Safari" || ms[2].data()["view_count"] != 4.0 {
		t.Fatalf("page.viewed: %v / %s / %s", types(ms), ms[0].Raw, ms[2].Raw)
	}
	public.quiet(100 * time.Millisecond)

	// Access: another tenant cannot read analytics; an authenticated page's views
	// need a credential; unknown pages are 404.
	other, _ := e.Register("other")
	if r := e.Do("GET", "/v1/pages/"+id+"/analytics", other, nil); r.Status != 404 {
		t.Fatalf("another tenant's analytics: %d", r.Status)
	}
	private := e.Publish(key, map[string]any{"access": map[string]any{"mode": "authenticated", "allowed_identities": []any{map[string]any{"type": "email", "value": "a@example.com"}}}})
	if st, _ := view(t, e, private, "x"); st != 401 {
		t.Fatalf("anonymous view of an authenticated page: %d", st)
	}
	if st, _ := view(t, e, "pg_missing", "x"); st != 404 {
		t.Fatalf("view of a missing page: %d", st)
	}
	fresh := e.Must(200, "GET", "/v1/pages/"+private+"/analytics", key, nil)
	if fresh["totalViews"] != 0.0 || len(fresh["dailyViews"].(map[string]any)) != 0 {
		t.Fatalf("analytics of an unviewed page: %v", fresh)
	}
}

// TestViewerPageCountsAndSubscribes: the review page loads its one script from this
// origin (no inline script at all, so the CSP allows only 'self'), and that script
// counts the view and opens the page stream.
func TestViewerPageCountsAndSubscribes(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("viewer")
	id := e.Publish(key, nil)
	res, body := get(t, e, http.DefaultClient, "/p/"+id)
	if res.StatusCode != 200 {
		t.Fatalf("viewer: %d", res.StatusCode)
	}
	html := string(body)
	m := regexp.MustCompile(`<script src="(/assets/folio\.[0-9a-f]+\.js)" defer></script>`).FindStringSubmatch(html)
	if m == nil || !strings.Contains(html, `data-page="`+id+`"`) {
		t.Fatalf("the page does not load its script:\n%s", html)
	}
	if strings.Count(html, "<script") != 1 {
		t.Fatalf("the page has inline script")
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Fatalf("CSP %q", csp)
	}
	js, script := get(t, e, http.DefaultClient, m[1])
	if js.StatusCode != 200 || !strings.Contains(string(script), "/internal/pages/") || !strings.Contains(string(script), "EventSource") {
		t.Fatalf("the page script: %d", js.StatusCode)
	}
	if cc := js.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Fatalf("the script is not cached for good: %q", cc)
	}
}
