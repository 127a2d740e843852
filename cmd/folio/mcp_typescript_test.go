package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tsSDKVersion is the official MCP TypeScript SDK the test drives (make deps
// installs it; the test installs it when it is missing).
const tsSDKVersion = "1.32.2"

// TestTheTypeScriptSDKWithDefaultOptionsGetsADecisionTakenAfterItsTimeout: an
// agent on the official TypeScript SDK, default options (its request timeout is
// 60 s), asks over /mcp for an approval; the person decides 3 minutes after the
// request, three times past the moment one long call would have been cut. The agent gets the
// decision, without an error: request_approval answered pending within the bound,
// and wait_for_decision, called again, returned the decision.
func TestTheTypeScriptSDKWithDefaultOptionsGetsADecisionTakenAfterItsTimeout(t *testing.T) {
	t.Parallel() // three minutes of waiting for the person: beside the package's other waits
	sdkDir := tsSDK(t)
	dir, addr := t.TempDir(), freeAddr(t)
	p := start(t, dir, addr)
	_, reg, _ := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "ts-agent"})
	key := reg["apiKey"].(string)

	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	script, _ := filepath.Abs("testdata/ts_sdk_wait.mjs")
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "SDK_DIR="+sdkDir, "MCP_URL="+p.base+"/mcp", "FOLIO_API_KEY="+key)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	const decideAt = 180_000 // ms after request_approval was sent: 3 minutes
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type step struct {
		Step   string         `json:"step"`
		At     int            `json:"at"`
		Answer map[string]any `json:"answer"`
	}
	var steps []step
	decided := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var s step
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("the agent printed %q", sc.Text())
		}
		steps = append(steps, s)
		if s.Answer["status"] == "pending" && !decided {
			// The person decides once the SDK's 60 s would have cut a single call
			// (on the agent's clock: At is the time since it sent request_approval).
			id := s.Answer["pageId"].(string)
			time.Sleep(time.Duration(decideAt-s.At) * time.Millisecond)
			if st, body, err := p.call("POST", "/v1/pages/"+id+"/actions/approve", "", map[string]any{
				"actor": map[string]any{"identity": "ops@example.com"}, "comment": "Go"}); err != nil || st != 200 {
				t.Fatalf("the person's decision: %d %v %v", st, body, err)
			}
			decided = true
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the TypeScript agent failed: %v\n%s\nsteps: %v", err, stderr.String(), steps)
	}
	if len(steps) < 3 || steps[0].Step != "request_approval" || steps[0].Answer["status"] != "pending" || steps[0].At >= 60_000 {
		t.Fatalf("request_approval did not answer pending within the SDK's 60 s: %v", steps)
	}
	last := steps[len(steps)-1]
	if last.Step != "done" || last.Answer["status"] != "completed" || last.Answer["decision"] != "approved" ||
		last.Answer["decided_by"] != "ops@example.com" || last.At < decideAt {
		t.Fatalf("the agent's last answer: %+v (steps %v)", last, steps)
	}
}

// tsSDK is the directory where @modelcontextprotocol/sdk is installed: under
// $FOLIO_TS_SDK_DIR (make deps puts it there), else installed with npm into the
// user's cache.
func tsSDK(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FOLIO_TS_SDK_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(cache, "folio", "ts-sdk")
	}
	pkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if b, err := os.ReadFile(pkg); err == nil && strings.Contains(string(b), `"version": "`+tsSDKVersion+`"`) {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--silent",
		"@modelcontextprotocol/sdk@"+tsSDKVersion).CombinedOutput()
	if err != nil {
		t.Fatalf("install the MCP TypeScript SDK with npm (it needs the npm registry): %v\n%s", err, out)
	}
	return dir
}
