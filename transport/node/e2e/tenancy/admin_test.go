package tenancy_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"folio/transport/node"
)

func withAdmin(c *node.Config) { c.AdminToken = "adm-secret-token" }

const adminToken = "adm-secret-token"

// TestAdminEndpoints: with --admin-token an operator lists and shows tenants, sets
// a plan and limits (in force on the tenant's very next request), creates a key
// for a tenant and exports its audit log as JSON lines. Without the token: 401;
// without an admin token configured the routes do not exist.
func TestAdminEndpoints(t *testing.T) {
	e, clk := start(t, time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), enforced, withAdmin)
	key, id := e.Register("customer")
	e.Register("someone-else")
	e.Publish(key, nil)

	for _, tok := range []string{"", "wrong", key} {
		if r := e.Do("GET", "/v1/admin/tenants", tok, nil); r.Status != 401 || r.ErrCode(t) != "UNAUTHORIZED" {
			t.Fatalf("admin with token %q: %d %s", tok, r.Status, r.Body)
		}
	}
	ls := e.Must(200, "GET", "/v1/admin/tenants", adminToken, nil)
	if ls["total"] != 2.0 || len(ls["tenants"].([]any)) != 2 {
		t.Fatalf("tenants: %v", ls)
	}
	show := e.Must(200, "GET", "/v1/admin/tenants/"+id, adminToken, nil)
	if show["plan"] != "free" || show["name"] != "customer" || show["api_keys"] != 1.0 ||
		show["usage"].(map[string]any)["pages_this_month"] != 1.0 || show["limits"].(map[string]any)["requests_per_minute"] != 60.0 {
		t.Fatalf("show: %v", show)
	}
	if r := e.Do("GET", "/v1/admin/tenants/ten_nope", adminToken, nil); r.Status != 404 {
		t.Fatalf("unknown tenant: %d", r.Status)
	}

	// pro: 600 a minute, at once.
	set := e.Must(200, "PUT", "/v1/admin/tenants/"+id+"/plan", adminToken, map[string]any{"plan": "pro"})
	if set["plan"] != "pro" || set["usage"].(map[string]any)["pages_limit"] != 10000.0 {
		t.Fatalf("set pro: %v", set)
	}
	if r := e.Do("GET", "/v1/tenant", key, nil); r.Header.Get("RateLimit-Policy") != `"pro";q=600;w=60` {
		t.Fatalf("after the plan change: %q", r.Header.Get("RateLimit-Policy"))
	}
	// The tenant's own limits: 2 requests a minute, unlimited pages.
	set = e.Must(200, "PUT", "/v1/admin/tenants/"+id+"/plan", adminToken, map[string]any{"plan": "pro", "requests_per_minute": 2, "pages_per_month": 0})
	if lim := set["limits"].(map[string]any); lim["requests_per_minute"] != 2.0 || lim["pages_per_month"] != nil {
		t.Fatalf("custom limits: %v", set)
	}
	// Requests already made count at the new rate (2 of them happened "now"); a
	// quiet minute later the tenant has its 2 again.
	if r := e.Do("GET", "/v1/tenant", key, nil); r.Status != 429 {
		t.Fatalf("right after lowering the rate to 2/min with 2 requests just made: %d", r.Status)
	}
	clk.Advance(time.Minute)
	e.Must(200, "GET", "/v1/tenant", key, nil)
	if u := e.Must(200, "GET", "/v1/tenant", key, nil)["usage"].(map[string]any); u["pages_limit"] != nil {
		t.Fatalf("pages_limit with pages_per_month 0: %v", u)
	}
	if r := e.Do("GET", "/v1/tenant", key, nil); r.Status != 429 || r.Header.Get("Retry-After") != "30" {
		t.Fatalf("3rd request at 2/min: %d %q", r.Status, r.Header.Get("Retry-After"))
	}
	for _, bad := range []map[string]any{{"plan": "platinum"}, {"plan": "pro", "requests_per_minute": -1}, {}} {
		if r := e.Do("PUT", "/v1/admin/tenants/"+id+"/plan", adminToken, bad); r.Status != 400 {
			t.Fatalf("set plan %v: %d %s", bad, r.Status, r.Body)
		}
	}
	if r := e.Do("PUT", "/v1/admin/tenants/ten_nope/plan", adminToken, map[string]any{"plan": "pro"}); r.Status != 404 {
		t.Fatalf("set plan of an unknown tenant: %d", r.Status)
	}

	// A key made by an operator works at once.
	clk.Advance(time.Minute)
	k := e.Must(201, "POST", "/v1/admin/tenants/"+id+"/api-keys", adminToken, map[string]any{"name": "ops"})
	if got := e.Must(200, "GET", "/v1/tenant", k["key"].(string), nil); got["tenant_id"] != id {
		t.Fatalf("operator's key: %v", got)
	}

	// The audit log as JSON lines, in chain order, each with its hash.
	r := e.Do("GET", "/v1/admin/tenants/"+id+"/audit", adminToken, nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("audit export: %d %q", r.Status, r.Header.Get("Content-Type"))
	}
	var types []string
	for i, line := range bytes.Split(bytes.TrimSpace(r.Body), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d is not JSON: %s", i+1, line)
		}
		if m["sequence"] != float64(i+1) || m["chain_hash"] == nil {
			t.Fatalf("line %d: %v", i+1, m)
		}
		types = append(types, m["event_type"].(string))
	}
	if !same(types, []string{"page.created", "page.published", "tenant.plan_changed", "tenant.plan_changed"}) {
		t.Fatalf("exported event types %v", types)
	}
	if v := e.Must(200, "GET", "/v1/audit/verify", key, nil); v["status"] != "valid" || v["chain_length"] != 4.0 {
		t.Fatalf("chain after admin entries: %v", v)
	}

	plain, _ := start(t, time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	if r := plain.Do("GET", "/v1/admin/tenants", adminToken, nil); r.Status != 404 {
		t.Fatalf("admin routes without an admin token configured: %d", r.Status)
	}
}
