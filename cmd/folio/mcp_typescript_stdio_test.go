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

// TestTheTypeScriptSDKOverStdioGetsTheDecision: an agent on the official
// TypeScript SDK (default options) starts `folio mcp` as its subprocess and talks
// to it over stdio, as a desktop host does; it asks for an approval, gets
// status pending (each call here waits 2 s: --wait, FOLIO_MCP_WAIT), calls
// wait_for_decision again while it is pending, and gets the decision the person
// takes after its second pending answer (about 4 s in), without an error.
func TestTheTypeScriptSDKOverStdioGetsTheDecision(t *testing.T) {
	sdkDir := tsSDK(t)
	dir, addr := t.TempDir(), freeAddr(t)
	p := start(t, dir, addr)
	_, reg, _ := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "ts-stdio-agent"})
	key := reg["apiKey"].(string)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script, _ := filepath.Abs("testdata/ts_sdk_wait_stdio.mjs")
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "SDK_DIR="+sdkDir, "FOLIO_BIN="+folioBinary(t), "FOLIO_TARGET="+p.base,
		"FOLIO_API_KEY="+key, "FOLIO_MCP_WAIT=2s", "FOLIO_MCP_KEY_DIR="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type step struct {
		Step   string         `json:"step"`
		At     int            `json:"at"`
		Answer map[string]any `json:"answer"`
	}
	var steps []step
	decided, pending := false, 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var s step
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("the agent printed %q", sc.Text())
		}
		steps = append(steps, s)
		if s.Answer["status"] == "pending" {
			pending++
		}
		if pending == 2 && !decided {
			id := s.Answer["pageId"].(string)
			if st, body, err := p.call("POST", "/v1/pages/"+id+"/actions/approve", "", map[string]any{
				"actor": map[string]any{"identity": "ops@example.com"}, "comment": "Go"}); err != nil || st != 200 {
				t.Fatalf("the person's decision: %d %v %v", st, body, err)
			}
			decided = true
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the TypeScript agent over stdio failed: %v\n%s\nsteps: %v", err, stderr.String(), steps)
	}
	if len(steps) < 3 || steps[0].Step != "request_approval" || steps[0].Answer["status"] != "pending" {
		t.Fatalf("request_approval over stdio did not answer pending within its wait: %v", steps)
	}
	last := steps[len(steps)-1]
	if last.Step != "done" || last.Answer["status"] != "completed" || last.Answer["decision"] != "approved" ||
		last.Answer["decided_by"] != "ops@example.com" {
		t.Fatalf("the agent's last answer: %+v (steps %v)", last, steps)
	}
}
