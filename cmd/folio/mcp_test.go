package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/node/nodetest/ports"
)

// inspectorVersion is the @modelcontextprotocol/inspector the conformance test
// runs (make deps installs it; the test installs it when it is missing).
const inspectorVersion = "2.12.0"

// TestMCPOverStdioWithTheBuiltBinary: an MCP client starts `folio mcp` as a
// subprocess, as an MCP host does; without a key its first tool call creates an
// account (the answer carries the key), and the next run uses the kept key.
func TestMCPOverStdioWithTheBuiltBinary(t *testing.T) {
	dir, addr := t.TempDir(), ports.Free(t)
	p := start(t, dir, addr)
	keys := t.TempDir()
	run := func() map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.Command(folioBinary(t), "mcp", "--target", p.base, "--key-dir", keys)
		c := mcp.NewClient(&mcp.Implementation{Name: "stdio-host", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cs.Close() }()
		n := 0
		for _, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 19 {
			t.Errorf("the stdio server lists %d tools, want 19", n)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "publish_page", Arguments: map[string]any{"title": "From stdio"}})
		if err != nil || res.IsError {
			t.Fatalf("publish_page over stdio: %v %+v", err, res)
		}
		var out map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &out)
		return out
	}
	first := run()
	acct, _ := first["account"].(map[string]any)
	key, _ := acct["apiKey"].(string)
	if !strings.HasPrefix(key, "sk_live_") || !strings.HasPrefix(first["pageUrl"].(string), p.base+"/p/") {
		t.Fatalf("the first run: %v", first)
	}
	second := run()
	if second["account"] != nil {
		t.Fatal("the second run made another account instead of using the kept key")
	}
	if st, page, _ := p.call("GET", "/v1/pages/"+second["pageId"].(string), key, nil); st != 200 || page["title"] != "From stdio" {
		t.Fatalf("the second run's page is not in the first run's account: %d %v", st, page)
	}
}

// TestMCPInspectorListsAndCallsTools: an independent MCP client, the
// @modelcontextprotocol/inspector CLI (npm), lists the tools of `folio mcp` (each
// with its hints, and 0 schema-portability findings) and calls one, against a
// running server.
func TestMCPInspectorListsAndCallsTools(t *testing.T) {
	inspector := inspectorBinary(t)
	dir, addr := t.TempDir(), ports.Free(t)
	p := start(t, dir, addr)
	_, reg, _ := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "inspector"})
	key := reg["apiKey"].(string)
	cli := func(args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		all := append([]string{"--cli", folioBinary(t), "mcp", "--target", p.base, "--key", key}, args...)
		out, err := exec.CommandContext(ctx, inspector, all...).Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("inspector %v printed %s", args, out)
		}
		return m
	}
	listed := cli("--method", "tools/list")
	names := map[string]bool{}
	for _, tool := range listed["tools"].([]any) {
		tm := tool.(map[string]any)
		names[tm["name"].(string)] = true
		if a, _ := tm["annotations"].(map[string]any); a["readOnlyHint"] == nil || a["destructiveHint"] == nil || a["idempotentHint"] == nil {
			t.Errorf("the inspector lists %s without its hints: %v", tm["name"], tm["annotations"])
		}
	}
	// --strict: the inspector's schema-portability report, in full, on stderr (a
	// `type` list, a schema that accepts anything, a remote $ref); nothing when
	// every schema is portable.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	strict := exec.CommandContext(ctx, inspector, "--cli", folioBinary(t), "mcp", "--target", p.base, "--key", key, "--method", "tools/list", "--strict")
	var stderr strings.Builder
	strict.Stderr = &stderr
	if out, err := strict.Output(); err != nil {
		t.Fatalf("inspector tools/list --strict: %v\n%s\n%s", err, out, stderr.String())
	}
	if report := stderr.String(); strings.Contains(report, "Warning") || strings.Contains(report, "Error") || strings.Contains(report, "Schema portability") {
		t.Errorf("the inspector finds tool schemas that are not portable:\n%s", report)
	}
	for _, want := range []string{"request_approval", "wait_for_decision", "publish_page", "agent_events"} {
		if !names[want] {
			t.Errorf("the inspector does not list %s (it lists %v)", want, names)
		}
	}
	called := cli("--method", "tools/call", "--tool-name", "publish_page", "--tool-arg", "title=Checked by the inspector")
	sc, _ := called["structuredContent"].(map[string]any)
	id, _ := sc["pageId"].(string)
	if st, page, _ := p.call("GET", "/v1/pages/"+id, key, nil); st != 200 || page["title"] != "Checked by the inspector" {
		t.Fatalf("the page the inspector published: %d %v (answer %v)", st, page, called)
	}
}

// inspectorBinary is the inspector's CLI: under $FOLIO_INSPECTOR_DIR (make deps puts
// it there), else installed with npm into the user's cache.
func inspectorBinary(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FOLIO_INSPECTOR_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(cache, "folio", "inspector")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--silent",
		"@modelcontextprotocol/inspector@"+inspectorVersion).CombinedOutput()
	if err != nil {
		t.Fatalf("install the MCP inspector with npm (it needs the npm registry): %v\n%s", err, out)
	}
	return bin
}
