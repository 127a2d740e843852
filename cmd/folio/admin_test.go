package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

func admin(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := runAdmin(args, &out)
	return out.String(), err
}

func mustAdmin(t *testing.T, args ...string) string {
	t.Helper()
	out, err := admin(t, args...)
	if err != nil {
		t.Fatalf("folio admin %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func decodeObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, s)
	}
	return m
}

// TestAdminOnAStoppedServersDataDirectory: every command on the data directory,
// then the server starts on it and honours what the operator did.
func TestAdminOnAStoppedServersDataDirectory(t *testing.T) {
	dir := t.TempDir()
	e := nodetest.Open(t, dir, nil)
	key, id := e.Register("offline-customer")
	e.Publish(key, nil)

	// While the server runs, bbolt's lock keeps the CLI out with a clear message.
	if _, err := admin(t, "--data", dir, "tenants"); err == nil || !strings.Contains(err.Error(), "server running") {
		t.Fatalf("admin on a running server's directory: %v", err)
	}
	e.Close()

	if out := mustAdmin(t, "--data", dir, "tenants"); !strings.Contains(out, id) || !strings.Contains(out, "offline-customer") || !strings.Contains(out, "(1 of 1)") {
		t.Fatalf("tenants:\n%s", out)
	}
	if out := mustAdmin(t, "--data", dir, "tenants", "--json"); decodeObject(t, out)["tenant_id"] != id {
		t.Fatalf("tenants --json:\n%s", out)
	}
	show := decodeObject(t, mustAdmin(t, "--data", dir, "tenant", id))
	if show["plan"] != "free" || show["usage"].(map[string]any)["pages_this_month"] != 1.0 {
		t.Fatalf("tenant: %v", show)
	}
	set := decodeObject(t, mustAdmin(t, "--data", dir, "set-plan", id, "pro", "--pages", "5"))
	if set["plan"] != "pro" || set["limits"].(map[string]any)["pages_per_month"] != 5.0 || set["limits"].(map[string]any)["requests_per_minute"] != 600.0 {
		t.Fatalf("set-plan: %v", set)
	}
	if _, err := admin(t, "--data", dir, "set-plan", id, "platinum"); err == nil || !strings.Contains(err.Error(), "plan must be one of") {
		t.Fatalf("unknown plan: %v", err)
	}
	if _, err := admin(t, "--data", dir, "tenant", "ten_nope"); err == nil {
		t.Fatal("unknown tenant: no error")
	}
	k := decodeObject(t, mustAdmin(t, "--data", dir, "create-key", "--name", "ops", id))
	secret, _ := k["key"].(string)
	if !strings.HasPrefix(secret, "sk_live_") || k["name"] != "ops" {
		t.Fatalf("create-key: %v", k)
	}
	out := filepath.Join(t.TempDir(), "audit.jsonl")
	if msg := mustAdmin(t, "--data", dir, "export-audit", id, "--out", out); !strings.Contains(msg, "3 audit records") {
		t.Fatalf("export-audit: %s", msg)
	}
	raw, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 3 || decodeObject(t, lines[2])["event_type"] != "tenant.plan_changed" || decodeObject(t, lines[0])["chain_hash"] == nil {
		t.Fatalf("exported audit:\n%s", raw)
	}

	// The server honours it: the operator's key works, pro with 5 pages a month.
	e = nodetest.Open(t, dir, nil, func(c *node.Config) { c.EnforceLimits = true })
	m := e.Must(200, "GET", "/v1/tenant", secret, nil)
	if m["plan"] != "pro" || m["usage"].(map[string]any)["pages_limit"] != 5.0 {
		t.Fatalf("tenant after offline admin: %v", m)
	}
	if v := e.Must(200, "GET", "/v1/audit/verify", key, nil); v["status"] != "valid" {
		t.Fatalf("audit chain after offline admin: %v", v)
	}
}

// TestAdminThroughARunningServer: the same commands over HTTP with the admin token.
func TestAdminThroughARunningServer(t *testing.T) {
	clk := nodetest.NewClock(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	e := nodetest.Open(t, t.TempDir(), clk, func(c *node.Config) { c.AdminToken = "tok-123"; c.EnforceLimits = true })
	key, id := e.Register("online-customer")
	remote := []string{"--server", e.Srv.URL, "--admin-token", "tok-123"}

	if out := mustAdmin(t, append(remote, "tenants")...); !strings.Contains(out, id) {
		t.Fatalf("tenants:\n%s", out)
	}
	set := decodeObject(t, mustAdmin(t, append(remote, "set-plan", id, "enterprise", "--rpm", "3")...))
	if set["plan"] != "enterprise" || set["limits"].(map[string]any)["requests_per_minute"] != 3.0 {
		t.Fatalf("set-plan: %v", set)
	}
	for i := 0; i < 3; i++ {
		e.Must(200, "GET", "/v1/tenant", key, nil)
	}
	if r := e.Do("GET", "/v1/tenant", key, nil); r.Status != 429 {
		t.Fatalf("4th request at 3/min: %d", r.Status)
	}
	k := decodeObject(t, mustAdmin(t, append(remote, "create-key", id, "--test")...))
	if !strings.HasPrefix(k["key"].(string), "sk_test_") {
		t.Fatalf("create-key --test: %v", k)
	}
	audit := mustAdmin(t, append(remote, "export-audit", id)...)
	if !strings.Contains(audit, `"tenant.plan_changed"`) {
		t.Fatalf("export-audit:\n%s", audit)
	}
	if _, err := admin(t, "--server", e.Srv.URL, "--admin-token", "wrong", "tenants"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong token: %v", err)
	}
	if _, err := admin(t, "--server", e.Srv.URL, "tenants"); err == nil {
		t.Fatal("--server without a token: no error")
	}
	if out := mustAdmin(t, "help"); !strings.Contains(out, "set-plan ID PLAN") {
		t.Fatalf("help:\n%s", out)
	}
}
