package node_test

import (
	"regexp"
	"strings"
	"testing"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

func TestRegisterGivesAWorkingKeyAndClaimCode(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.AppURL = "https://app.example.com" })
	m := e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Deploy Bot", "owner_email": "owner@example.com"})
	key := m["apiKey"].(string)
	if !strings.HasPrefix(key, "sk_live_") || len(key) < 40 {
		t.Fatalf("apiKey %q", key)
	}
	code := m["claimCode"].(string)
	if !regexp.MustCompile(`^[A-Z0-9]{2,6}-[A-Z0-9]{4}$`).MatchString(code) {
		t.Fatalf("claimCode %q is not PREFIX-XXXX", code)
	}
	if u, _ := m["claimUrl"].(string); !regexp.MustCompile(`^https://app\.example\.com/claim\?code=`+code+`#ct_[0-9A-Za-z]{43}$`).MatchString(u) || m["message"] == "" {
		t.Fatalf("claimUrl %v", m["claimUrl"])
	}
	ten := e.Must(200, "GET", "/v1/tenant", key, nil)
	if ten["tenant_id"] != m["tenantId"] || ten["name"] != "Deploy Bot" || ten["plan"] != "free" {
		t.Fatalf("tenant: %v", ten)
	}
	for _, bad := range []map[string]any{{}, {"name": ""}, {"name": strings.Repeat("x", 101)}, {"name": "x", "owner_email": "not-an-email"}} {
		if r := e.Do("POST", "/v1/auth/agent/register", "", bad); r.Status != 400 || r.ErrDetails(t)["field"] == nil {
			t.Errorf("register %v: %d %s", bad, r.Status, r.Body)
		}
	}
}

func TestAPIKeyLifecycle(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("keeper")
	created := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "ci"})
	second := created["key"].(string)
	if !strings.HasPrefix(second, "sk_live_") || created["id"] == nil || created["createdAt"] == nil {
		t.Fatalf("create key: %v", created)
	}
	test := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "sandbox", "mode": "test"})["key"].(string)
	if !strings.HasPrefix(test, "sk_test_") {
		t.Fatalf("test key %q", test)
	}
	e.Must(200, "GET", "/v1/tenant", second, nil) // works at once
	keys := e.Must(200, "GET", "/v1/account/api-keys", key, nil)["keys"].([]any)
	if len(keys) != 3 {
		t.Fatalf("%d keys listed, want 3", len(keys))
	}
	for _, k := range keys {
		km := k.(map[string]any)
		p := km["prefix"].(string)
		if len(p) > 12 || strings.Contains(string(e.Do("GET", "/v1/account/api-keys", key, nil).Body), second) {
			t.Fatalf("listing leaks more than a prefix: %v", km)
		}
		if km["name"] == "ci" && km["lastUsedAt"] == nil {
			t.Fatalf("lastUsedAt not set after use: %v", km)
		}
	}
	e.Must(204, "DELETE", "/v1/account/api-keys/"+created["id"].(string), key, nil)
	if r := e.Do("GET", "/v1/tenant", second, nil); r.Status != 401 || r.ErrCode(t) != "UNAUTHORIZED" {
		t.Fatalf("deleted key on the very next request: %d %s", r.Status, r.Body)
	}
	if r := e.Do("DELETE", "/v1/account/api-keys/"+created["id"].(string), key, nil); r.Status != 404 {
		t.Fatalf("deleting twice: %d", r.Status)
	}
	// Another tenant cannot delete our key.
	other, _ := e.Register("other")
	keys = e.Must(200, "GET", "/v1/account/api-keys", key, nil)["keys"].([]any)
	if r := e.Do("DELETE", "/v1/account/api-keys/"+keys[0].(map[string]any)["id"].(string), other, nil); r.Status != 404 {
		t.Fatalf("cross-tenant delete: %d", r.Status)
	}
	// The deletion survives a restart.
	e = e.Reopen()
	if r := e.Do("GET", "/v1/tenant", second, nil); r.Status != 401 {
		t.Fatalf("deleted key after restart: %d", r.Status)
	}
	e.Must(200, "GET", "/v1/tenant", key, nil)
}

func TestTestKeysMakeTestPagesNotCounted(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("counter")
	test := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "t", "mode": "test"})["key"].(string)
	live := e.Publish(key, nil)
	tp := e.Publish(test, nil)
	if e.Must(200, "GET", "/v1/pages/"+tp, key, nil)["livemode"] != false || e.Must(200, "GET", "/v1/pages/"+live, key, nil)["livemode"] != true {
		t.Fatal("livemode does not follow the key")
	}
	u := e.Must(200, "GET", "/v1/tenant", key, nil)["usage"].(map[string]any)
	if u["pages_this_month"].(float64) != 1 || u["pages_limit"].(float64) != 100 {
		t.Fatalf("usage %v: test pages must not count", u)
	}
}

func TestUnauthenticated(t *testing.T) {
	e := nodetest.New(t)
	for _, h := range []string{"", "sk_live_doesnotexist000000000000000000000000", "sess_nope", "Basic abc"} {
		r := e.Do("GET", "/v1/tenant", h, nil)
		if r.Status != 401 || r.ErrCode(t) != "UNAUTHORIZED" {
			t.Errorf("key %q: %d %s", h, r.Status, r.Body)
		}
	}
}
