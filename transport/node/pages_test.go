package node_test

import (
	"strings"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

func TestPublishReturnsAddressesAndStoresThePage(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("deploy-bot")
	m := e.Must(201, "POST", "/v1/publish", key, map[string]any{
		"version": "1.0", "title": "Ship it?", "summary": "v2", "priority": "high", "tags": []string{"deploy"},
		"blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "hello"}}, map[string]any{"id": "mine", "type": "divider", "data": map[string]any{}}},
	})
	id := m["pageId"].(string)
	if m["status"] != "active" || !strings.HasSuffix(m["pageUrl"].(string), "/p/"+id) || !strings.Contains(m["shortUrl"].(string), "/s/") {
		t.Fatalf("publish response: %v", m)
	}
	exp, err := time.Parse(time.RFC3339, m["expiresAt"].(string))
	if err != nil || time.Until(exp) < 6*24*time.Hour || time.Until(exp) > 7*24*time.Hour+time.Minute {
		t.Fatalf("expiresAt %v should be 7 days ahead", m["expiresAt"])
	}
	p := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	if p["title"] != "Ship it?" || p["priority"] != "high" || p["created_by"] != "agent:deploy-bot" || p["status"] != "active" {
		t.Fatalf("page object: %v", p)
	}
	bs := p["blocks"].([]any)
	if got := bs[0].(map[string]any)["id"].(string); !strings.HasPrefix(got, "b_0_") || len(got) != len("b_0_")+8 {
		t.Fatalf("assigned block id %q, want b_0_<8 chars>", got)
	}
	if got := bs[1].(map[string]any)["id"]; got != "mine" {
		t.Fatalf("given block id not kept: %v", got)
	}
	stats := p["stats"].(map[string]any)
	if stats["view_count"].(float64) != 0 || stats["action_count"].(float64) != 0 {
		t.Fatalf("stats: %v", stats)
	}
	// The short address leads to the viewer.
	code := m["shortUrl"].(string)[strings.LastIndex(m["shortUrl"].(string), "/")+1:]
	r := e.Do("GET", "/s/"+code, "", nil)
	if r.Status != 200 || !strings.Contains(string(r.Body), "Ship it?") {
		t.Fatalf("short link: %d %s", r.Status, r.Body)
	}
}

func TestDraftLifecycle(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("drafter")
	m := e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "Draft", "actions": []any{map[string]any{"action_id": "ok"}}})
	id := m["pageId"].(string)
	if m["status"] != "draft" || m["createdAt"] == nil {
		t.Fatalf("create draft: %v", m)
	}
	// Actions need an active page.
	if r := e.Do("POST", "/v1/pages/"+id+"/actions/ok", key, nil); r.Status != 409 || r.ErrDetails(t)["status"] != "draft" {
		t.Fatalf("action on a draft: %d %s", r.Status, r.Body)
	}
	up := e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"title": "Draft 2", "summary": "more"})
	if up["title"] != "Draft 2" || up["summary"] != "more" || up["status"] != "draft" {
		t.Fatalf("patch: %v", up)
	}
	pub := e.Must(200, "POST", "/v1/pages/"+id+"/publish", key, map[string]any{"notify": map[string]any{"channels": []any{}}})
	if pub["status"] != "active" || pub["publishedAt"] == nil || pub["pageUrl"] == nil {
		t.Fatalf("publish draft: %v", pub)
	}
	if r := e.Do("POST", "/v1/pages/"+id+"/publish", key, nil); r.Status != 409 || r.ErrDetails(t)["status"] != "active" {
		t.Fatalf("publishing twice: %d %s", r.Status, r.Body)
	}
	rv := e.Must(200, "POST", "/v1/pages/"+id+"/revoke", key, map[string]any{"reason": "changed my mind"})
	if rv["status"] != "revoked" || rv["revokedAt"] == nil {
		t.Fatalf("revoke: %v", rv)
	}
	for _, op := range []struct{ method, path string }{
		{"PATCH", "/v1/pages/" + id}, {"POST", "/v1/pages/" + id + "/revoke"}, {"POST", "/v1/pages/" + id + "/renew"},
		{"PATCH", "/v1/pages/" + id + "/blocks"},
	} {
		r := e.Do(op.method, op.path, key, map[string]any{"title": "x", "blocks": []any{map[string]any{"type": "text", "data": map[string]any{}}}})
		if r.Status != 409 || r.ErrCode(t) != "CONFLICT" || r.ErrDetails(t)["status"] != "revoked" {
			t.Errorf("%s %s on a revoked page: %d %s", op.method, op.path, r.Status, r.Body)
		}
	}
}

func TestRevokeDraftAndRenewActive(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("r")
	d := e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "d"})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+d+"/revoke", key, nil)
	id := e.Publish(key, nil)
	want := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	m := e.Must(200, "POST", "/v1/pages/"+id+"/renew", key, map[string]any{"expires_at": want.Format(time.RFC3339)})
	if got, _ := time.Parse(time.RFC3339, m["expiresAt"].(string)); !got.Equal(want) || m["status"] != "active" {
		t.Fatalf("renew active: %v", m)
	}
	// Without expires_at, renewing an active page extends it by the default lifetime.
	m = e.Must(200, "POST", "/v1/pages/"+id+"/renew", key, nil)
	if got, _ := time.Parse(time.RFC3339, m["expiresAt"].(string)); !got.Equal(want.Add(7 * 24 * time.Hour)) {
		t.Fatalf("renew without expires_at: %v, want %v", got, want.Add(7*24*time.Hour))
	}
	r := e.Do("POST", "/v1/pages/"+id+"/renew", key, map[string]any{"expires_at": "2001-01-01T00:00:00Z"})
	if r.Status != 400 || r.ErrDetails(t)["field"] != "expires_at" {
		t.Fatalf("renew into the past: %d %s", r.Status, r.Body)
	}
}

func TestExpiryIsDurableAcrossRestart(t *testing.T) {
	clk := nodetest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	e := nodetest.Open(t, t.TempDir(), clk)
	key, _ := e.Register("expirer")
	id := e.Publish(key, map[string]any{"expires_at": "2026-11-22T11:00:00Z"})
	other := e.Publish(key, nil) // default lifetime: 7 days
	e = e.Reopen()
	clk.Advance(2 * time.Hour) // the page fell due while the server was down
	e = e.Reopen()
	// Nobody reads the page: the expiry scheduler alone must expire it and audit it.
	deadline := time.Now().Add(2 * time.Second)
	for {
		items := e.Must(200, "GET", "/v1/pages/"+id+"/audit", key, nil)["items"].([]any)
		last := items[len(items)-1].(map[string]any)
		if last["event_type"] == "page.expired" {
			if last["actor"] != "system" || last["details"].(map[string]any)["reason"] != "timeout" {
				t.Fatalf("expiry audit entry: %v", last)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("page did not expire within 2s of start; audit: %v", items)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; s != "expired" {
		t.Fatalf("status %v, want expired", s)
	}
	if s := e.Must(200, "GET", "/v1/pages/"+other, key, nil)["status"]; s != "active" {
		t.Fatalf("page with default lifetime: %v", s)
	}
	if r := e.Do("POST", "/v1/pages/"+id+"/actions/approve", key, nil); r.Status != 409 || r.ErrDetails(t)["status"] != "expired" {
		t.Fatalf("acting on an expired page: %d %s", r.Status, r.Body)
	}
	// Renew brings it back.
	m := e.Must(200, "POST", "/v1/pages/"+id+"/renew", key, map[string]any{"expires_at": "2026-12-01T00:00:00Z"})
	if m["status"] != "active" {
		t.Fatalf("renew expired: %v", m)
	}
}

func TestExpiryWithinOneSecondWhileRunning(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("soon")
	at := time.Now().Add(1500 * time.Millisecond).UTC()
	id := e.Publish(key, map[string]any{"expires_at": at.Format(time.RFC3339Nano)})
	time.Sleep(time.Until(at) + time.Second)
	if s := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["status"]; s != "expired" {
		t.Fatalf("status one second after expiry: %v", s)
	}
}

func TestOtherTenantsPagesAreNotFound(t *testing.T) {
	e := nodetest.New(t)
	a, _ := e.Register("a")
	b, _ := e.Register("b")
	id := e.Publish(a, nil)
	for _, op := range []struct{ method, path string }{
		{"GET", "/v1/pages/" + id}, {"PATCH", "/v1/pages/" + id}, {"POST", "/v1/pages/" + id + "/revoke"},
		{"POST", "/v1/pages/" + id + "/actions/approve"}, {"GET", "/v1/pages/" + id + "/audit"},
		{"PATCH", "/v1/pages/" + id + "/blocks"},
	} {
		r := e.Do(op.method, op.path, b, map[string]any{"title": "x", "blocks": []any{map[string]any{"type": "t", "data": map[string]any{}}}})
		if r.Status != 404 || r.ErrCode(t) != "NOT_FOUND" {
			t.Errorf("%s %s by another tenant: %d %s", op.method, op.path, r.Status, r.Body)
		}
	}
	if s := e.Must(200, "GET", "/v1/pages/"+id, a, nil)["status"]; s != "active" {
		t.Fatalf("the owner's page changed: %v", s)
	}
}

func TestListPages(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("lister")
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, e.Publish(key, map[string]any{"page_type": map[bool]string{true: "approval", false: "report"}[i%2 == 0]}))
	}
	e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "draft"})
	e.Must(200, "POST", "/v1/pages/"+ids[0]+"/revoke", key, nil)
	other, _ := e.Register("other")
	e.Publish(other, nil)

	all := e.Must(200, "GET", "/v1/pages", key, nil)
	if all["total"].(float64) != 6 {
		t.Fatalf("total %v, want 6", all["total"])
	}
	first := all["pages"].([]any)[0].(map[string]any)
	if first["title"] != "draft" {
		t.Fatalf("newest first: got %v", first["title"])
	}
	act := e.Must(200, "GET", "/v1/pages?status=active&page_type=approval", key, nil)
	if act["total"].(float64) != 2 { // pages 2 and 4 (page 0 is revoked)
		t.Fatalf("filtered total %v, want 2", act["total"])
	}
	pg := e.Must(200, "GET", "/v1/pages?limit=2&offset=1", key, nil)
	got := pg["pages"].([]any)
	if len(got) != 2 || got[0].(map[string]any)["pageId"] != ids[4] || got[1].(map[string]any)["pageId"] != ids[3] {
		t.Fatalf("paging: %v", got)
	}
	if pg["total"].(float64) != 6 { // pages outside the window count, unread
		t.Fatalf("paged total %v, want 6", pg["total"])
	}
	if r := e.Do("GET", "/v1/pages?limit=0", key, nil); r.Status != 400 || r.ErrDetails(t)["field"] != "limit" {
		t.Fatalf("limit=0: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/v1/pages?status=weird", key, nil); r.Status != 400 {
		t.Fatalf("bad status filter: %d", r.Status)
	}
}

// TestAMisspelledTopLevelFieldIsWarnedNotSilentlyDropped: "actoins" used to publish
// a page without buttons and say nothing. Unknown fields stay ignored, but every
// route that takes a page request names them in warnings, with the field meant.
func TestAMisspelledTopLevelFieldIsWarnedNotSilentlyDropped(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("typo-bot")
	actions := []any{map[string]any{"action_id": "approve", "label": "Approve"}}
	want := "actoins: unknown field, ignored; send actions"
	hasWarning := func(m map[string]any, route string) {
		t.Helper()
		for _, w := range m["warnings"].([]any) {
			if w == want {
				return
			}
		}
		t.Errorf("%s: warnings %v lack %q", route, m["warnings"], want)
	}
	pub := e.Must(201, "POST", "/v1/publish", key, map[string]any{"title": "Ship?", "actoins": actions})
	hasWarning(pub, "publish")
	draft := e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "Draft", "actoins": actions})
	hasWarning(draft, "create draft")
	id := draft["pageId"].(string)
	hasWarning(e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"actoins": actions}), "update")
	hasWarning(e.Must(200, "POST", "/v1/pages/"+id+"/publish", key, map[string]any{"actoins": actions}), "publish draft")
	clean := e.Must(201, "POST", "/v1/publish", key, map[string]any{"title": "Ship?", "actions": actions})
	if len(clean["warnings"].([]any)) != 0 {
		t.Errorf("a correct body got warnings: %v", clean["warnings"])
	}
}
