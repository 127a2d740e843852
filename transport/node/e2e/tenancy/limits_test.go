package tenancy_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"folio/actors/tenant"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestFreePlanAllows60RequestsAMinute: the 61st request within a minute is 429
// RATE_LIMITED with Retry-After; after that many seconds a request succeeds. All
// keys of a tenant share its bucket; another tenant is unaffected. Successful
// responses carry RateLimit and RateLimit-Policy too.
func TestFreePlanAllows60RequestsAMinute(t *testing.T) {
	e, clk := start(t, time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC), enforced)
	key, _ := e.Register("busy")
	other, _ := e.Register("neighbour")
	second := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "second"})["key"].(string) // request 1

	for i := 2; i <= 60; i++ {
		k := key
		if i%2 == 0 {
			k = second
		}
		r := e.Do("GET", "/v1/tenant", k, nil)
		if r.Status != 200 {
			t.Fatalf("request %d: %d %s", i, r.Status, r.Body)
		}
		if i == 2 {
			if got := r.Header.Get("RateLimit-Policy"); got != `"free";q=60;w=60` {
				t.Errorf("RateLimit-Policy %q", got)
			}
			if got := r.Header.Get("RateLimit"); got != `"free";r=58;t=2` {
				t.Errorf("RateLimit after 2 requests %q, want \"free\";r=58;t=2", got)
			}
		}
	}
	r := e.Do("GET", "/v1/tenant", second, nil)
	if r.Status != 429 || r.ErrCode(t) != "RATE_LIMITED" || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("61st request: %d Retry-After %q %s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	if d := r.ErrDetails(t); d["limit"] != "requests_per_minute" || d["requests_per_minute"] != 60.0 {
		t.Errorf("429 details %v", d)
	}
	if got := r.Header.Get("RateLimit"); got != `"free";r=0;t=60` {
		t.Errorf("RateLimit on the 429: %q", got)
	}
	if r := e.Do("POST", "/v1/publish", key, map[string]any{"title": "x"}); r.Status != 429 {
		t.Fatalf("another key of the same tenant: %d", r.Status)
	}
	if r := e.Do("GET", "/v1/tenant", other, nil); r.Status != 200 || r.Header.Get("RateLimit") != `"free";r=59;t=1` {
		t.Fatalf("another tenant: %d %q", r.Status, r.Header.Get("RateLimit"))
	}

	retry, _ := strconv.Atoi(r.Header.Get("Retry-After"))
	clk.Advance(time.Duration(retry) * time.Second)
	if r := e.Do("GET", "/v1/tenant", key, nil); r.Status != 200 {
		t.Fatalf("after Retry-After: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/v1/tenant", key, nil); r.Status != 429 {
		t.Fatalf("one second refills one request, the next is 429 again: %d", r.Status)
	}
	clk.Advance(time.Minute)
	for i := 0; i < 60; i++ { // a quiet minute refills the whole bucket
		if r := e.Do("GET", "/v1/tenant", key, nil); r.Status != 200 {
			t.Fatalf("after a quiet minute, request %d: %d", i+1, r.Status)
		}
	}
}

// TestUnauthenticatedRequestsAreLimitedPerClientAddress: registrations have their
// own per-address bucket, and every request without a valid key (viewer, public
// reads, bad keys) shares the address's anonymous bucket. Valid keys and health
// probes are not affected.
func TestUnauthenticatedRequestsAreLimitedPerClientAddress(t *testing.T) {
	e, clk := start(t, time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC), enforced, func(c *node.Config) {
		c.AnonPerMinute, c.RegisterPerMinute = 5, 3
	})
	key, _ := e.Register("one")
	e.Register("two")
	e.Register("three")
	r := e.Do("POST", "/v1/auth/agent/register", "", map[string]any{"name": "four"})
	if r.Status != 429 || r.Header.Get("Retry-After") != "20" || r.Header.Get("RateLimit-Policy") != `"register";q=3;w=60` {
		t.Fatalf("4th registration in a minute: %d Retry-After %q policy %q %s", r.Status, r.Header.Get("Retry-After"), r.Header.Get("RateLimit-Policy"), r.Body)
	}
	if d := r.ErrDetails(t); d["scope"] != "address" {
		t.Errorf("details %v", d)
	}
	// 3 of 5 anonymous requests are spent; two more pass, the next is refused.
	if r := e.Do("GET", "/p/pg_nothing", "", nil); r.Status != 404 || r.Header.Get("RateLimit") != `"anonymous";r=1;t=48` {
		t.Fatalf("viewer: %d %q", r.Status, r.Header.Get("RateLimit"))
	}
	if r := e.Do("GET", "/v1/tenant", "sk_live_thisisnotakeyatall0000000000000000000000", nil); r.Status != 401 {
		t.Fatalf("bad key: %d", r.Status)
	}
	r = e.Do("GET", "/v1/openapi.json", "", nil)
	if r.Status != 429 || r.Header.Get("Retry-After") != "12" {
		t.Fatalf("6th anonymous request: %d Retry-After %q", r.Status, r.Header.Get("Retry-After"))
	}
	if r := e.Do("GET", "/v1/tenant", key, nil); r.Status != 200 {
		t.Fatalf("a valid key from the same address: %d", r.Status)
	}
	if r := e.Do("GET", "/healthz", "", nil); r.Status != 200 {
		t.Fatalf("healthz: %d", r.Status)
	}
	clk.Advance(12 * time.Second)
	if r := e.Do("GET", "/v1/openapi.json", "", nil); r.Status != 200 {
		t.Fatalf("after Retry-After: %d", r.Status)
	}
}

// TestMonthlyPageQuotaAndItsRollover: free is 100 pages per UTC month; the 101st is
// 429 with details.limit "pages_per_month" and Retry-After until the month turns; a
// failed creation costs nothing; test keys are not counted; at the month boundary
// the count starts again.
func TestMonthlyPageQuotaAndItsRollover(t *testing.T) {
	e, clk := start(t, time.Date(2025, 1, 31, 22, 0, 0, 0, time.UTC), enforced)
	key, _ := e.Register("prolific")
	test := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "ci", "mode": "test"})["key"].(string)
	for i := 1; i <= 99; i++ {
		clk.Advance(time.Second) // stays well inside the request rate
		e.Publish(key, map[string]any{"title": fmt.Sprint("page ", i)})
	}
	clk.Advance(time.Second)
	if r := e.Do("POST", "/v1/publish", key, map[string]any{"title": "refused by the page", "priority": "bogus"}); r.Status != 400 {
		t.Fatalf("invalid publish: %d", r.Status)
	}
	clk.Advance(time.Second)
	e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "the 100th (a draft counts too)"})
	clk.Advance(time.Second)
	r := e.Do("POST", "/v1/publish", key, map[string]any{"title": "101st"})
	if r.Status != 429 || r.ErrCode(t) != "RATE_LIMITED" || r.ErrDetails(t)["limit"] != "pages_per_month" {
		t.Fatalf("101st page: %d %s", r.Status, r.Body)
	}
	untilFeb := int(time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC).Sub(clk.Now()) / time.Second)
	if r.Header.Get("Retry-After") != strconv.Itoa(untilFeb) {
		t.Fatalf("Retry-After %q, want %d (seconds until the UTC month turns)", r.Header.Get("Retry-After"), untilFeb)
	}
	clk.Advance(time.Second)
	e.Publish(test, map[string]any{"title": "test pages are not counted nor refused"})
	usage := e.Must(200, "GET", "/v1/tenant", key, nil)["usage"].(map[string]any)
	if usage["pages_this_month"] != 100.0 || usage["pages_limit"] != 100.0 {
		t.Fatalf("usage at the limit: %v", usage)
	}

	clk.Advance(time.Duration(untilFeb) * time.Second)
	e.Publish(key, map[string]any{"title": "first of February"})
	usage = e.Must(200, "GET", "/v1/tenant", key, nil)["usage"].(map[string]any)
	if usage["pages_this_month"] != 1.0 {
		t.Fatalf("usage after the month turned: %v", usage)
	}
}

// TestMonthlyQuotaIsExactUnderConcurrency: 9 parallel publishes under a limit of
// 10 all succeed (a creation is never counted twice while it settles); then, at 9
// of 10, 24 parallel publishes (some invalid) give exactly one 201; nothing is
// counted twice or lost.
func TestMonthlyQuotaIsExactUnderConcurrency(t *testing.T) {
	e, _ := start(t, time.Date(2025, 4, 10, 0, 0, 0, 0, time.UTC), enforced, func(c *node.Config) {
		c.PlanLimits = map[string]tenant.Plan{"free": {RequestsPerMinute: 0, PagesPerMonth: 10}}
	})
	key, _ := e.Register("racer")
	var wg sync.WaitGroup
	for i := 0; i < 9; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := e.Do("POST", "/v1/publish", key, map[string]any{"title": fmt.Sprint("early ", i)}); r.Status != 201 {
				t.Errorf("publish %d of 9 under a limit of 10: %d %s", i+1, r.Status, r.Body)
			}
		}()
	}
	wg.Wait()
	const n = 24
	statuses := make([]int, n)
	gate := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			body := map[string]any{"title": fmt.Sprint("racer ", i)}
			if i%4 == 0 {
				body["priority"] = "bogus" // fails validation: must not take the last slot
			}
			r := e.Do("POST", "/v1/publish", key, body)
			statuses[i] = r.Status
			if r.Status == 429 && r.ErrDetails(t)["limit"] != "pages_per_month" {
				t.Errorf("429 for another limit: %s", r.Body)
			}
		}()
	}
	close(gate)
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[201]+count[429]+count[400] != n {
		t.Fatalf("statuses %v: want exactly one 201, the rest 429 or 400", count)
	}
	if usage := e.Must(200, "GET", "/v1/tenant", key, nil)["usage"].(map[string]any); usage["pages_this_month"] != 10.0 {
		t.Fatalf("usage %v, want 10", usage)
	}
	if _, total := list(t, e, key, "?limit=200"); total != 10 {
		t.Fatalf("inbox holds %v pages, want 10", total)
	}
}

// TestTestKeyPagesAreNotCounted: usage counts live pages only, whatever the limits.
func TestTestKeyPagesAreNotCounted(t *testing.T) {
	for _, opts := range [][]nodetest.Option{nil, {enforced}} {
		e, _ := start(t, time.Date(2025, 4, 10, 0, 0, 0, 0, time.UTC), opts...)
		key, _ := e.Register("tester")
		test := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "ci", "mode": "test"})["key"].(string)
		for i := 0; i < 3; i++ {
			e.Publish(test, nil)
		}
		e.Must(201, "POST", "/v1/pages", test, map[string]any{"title": "test draft"})
		e.Publish(key, nil)
		m := e.Must(200, "GET", "/v1/tenant", test, nil)
		if u := m["usage"].(map[string]any); u["pages_this_month"] != 1.0 || u["pages_limit"] != 100.0 || m["plan"] != "free" {
			t.Fatalf("tenant %v: want 1 page counted of 100", m)
		}
	}
}

// TestLimitsAreOffUnlessEnforced: the zero configuration (embedded nodes) limits
// nothing and sends no rate headers; enterprise is unlimited even when enforced.
func TestLimitsAreOffUnlessEnforced(t *testing.T) {
	e, _ := start(t, time.Date(2025, 4, 10, 0, 0, 0, 0, time.UTC))
	key, _ := e.Register("free-for-all")
	for i := 0; i < 70; i++ {
		if r := e.Do("GET", "/v1/tenant", key, nil); r.Status != 200 || r.Header.Get("RateLimit") != "" {
			t.Fatalf("request %d: %d %q", i, r.Status, r.Header.Get("RateLimit"))
		}
	}
	e2, _ := start(t, time.Date(2025, 4, 10, 0, 0, 0, 0, time.UTC), enforced, func(c *node.Config) { c.DefaultPlan = "enterprise" })
	key, _ = e2.Register("big")
	for i := 0; i < 70; i++ {
		if r := e2.Do("GET", "/v1/tenant", key, nil); r.Status != 200 || r.Header.Get("RateLimit-Policy") != "" {
			t.Fatalf("enterprise request %d: %d %q", i, r.Status, r.Header.Get("RateLimit-Policy"))
		}
	}
	if u := e2.Must(200, "GET", "/v1/tenant", key, nil)["usage"].(map[string]any); u["pages_limit"] != nil {
		t.Fatalf("enterprise pages_limit %v, want null", u["pages_limit"])
	}
}
