package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node/nodetest/ports"
)

// tsSDKVersion is the official MCP TypeScript SDK the test drives (make deps
// installs it; the test installs it when it is missing).
const tsSDKVersion = "1.32.2"

// decideAfter is when the person decides, after the agent sent request_approval:
// three times past the moment the SDK's 60 s request timeout cuts one long call.
const decideAfter = 3 * time.Minute

// TestTheTypeScriptSDKWithDefaultOptionsGetsADecisionTakenAfterItsTimeout: an
// agent on the official TypeScript SDK, default options (its request timeout is
// 60 s), asks over /mcp (streamable HTTP) for an approval; the person decides 3
// minutes after the request. The agent gets the decision, without an error:
// request_approval answered pending within the bound (the server's default
// --mcp-wait), and wait_for_decision, called again, returned the decision.
func TestTheTypeScriptSDKWithDefaultOptionsGetsADecisionTakenAfterItsTimeout(t *testing.T) {
	t.Parallel() // three minutes of waiting for the person: beside the package's other waits
	p := start(t, t.TempDir(), ports.Free(t))
	key := registerAgent(t, p, "ts-agent")
	if err := tsAgentDecidedAfter(tsAgent(t, "http", "MCP_URL="+p.base+"/mcp", "FOLIO_API_KEY="+key), p); err != nil {
		t.Fatal(err)
	}
}

// TestTheTypeScriptSDKOverStdioGetsADecisionTakenAfterItsTimeout: the same agent
// starts `folio mcp` as its subprocess and talks to it over stdio, as a desktop
// host does, with the default wait per call; the person decides 3 minutes after
// the request and the agent gets the decision without an error.
func TestTheTypeScriptSDKOverStdioGetsADecisionTakenAfterItsTimeout(t *testing.T) {
	t.Parallel()
	p := start(t, t.TempDir(), ports.Free(t))
	key := registerAgent(t, p, "ts-stdio-agent")
	cmd := tsAgent(t, "stdio", "FOLIO_BIN="+folioBinary(t), "FOLIO_TARGET="+p.base, "FOLIO_API_KEY="+key, "FOLIO_MCP_KEY_DIR="+t.TempDir())
	if err := tsAgentDecidedAfter(cmd, p); err != nil {
		t.Fatal(err)
	}
}

// registerAgent registers an agent on p and returns its API key.
func registerAgent(t *testing.T, p *proc, name string) string {
	t.Helper()
	st, reg, err := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": name})
	if err != nil || st != 201 {
		t.Fatalf("register %s: %d %v %v", name, st, reg, err)
	}
	return reg["apiKey"].(string)
}

// tsAgent is the command of testdata/ts_sdk_wait.mjs over transport (http or
// stdio), with env added to this process's environment; it is ended if the test
// outlives its bound.
func tsAgent(t *testing.T, transport string, env ...string) *exec.Cmd {
	t.Helper()
	sdkDir := tsSDK(t)
	ctx, cancel := context.WithTimeout(context.Background(), decideAfter+3*time.Minute)
	t.Cleanup(cancel)
	script, _ := filepath.Abs("testdata/ts_sdk_wait.mjs")
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(append(os.Environ(), "SDK_DIR="+sdkDir, "TRANSPORT="+transport), env...)
	return cmd
}

// tsAgentStep is one line the agent script prints: the step, when (ms since it
// sent request_approval) and the tool's structured answer.
type tsAgentStep struct {
	Step   string         `json:"step"`
	At     int            `json:"at"`
	Answer map[string]any `json:"answer"`
}

// tsAgentDecidedAfter runs the agent; once it reports a pending answer, a person
// approves through via at decideAfter on the agent's clock. It returns an error
// unless the agent ended without an error, request_approval answered pending
// within the SDK's 60 s, and the agent's last answer is that decision, received
// after it was taken. (It does not call t.Fatal: nginx_test runs it beside other
// subtests.)
func tsAgentDecidedAfter(cmd *exec.Cmd, via *proc) error {
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var steps []tsAgentStep
	var decideErr error
	decided := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var s tsAgentStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			decideErr = fmt.Errorf("the agent printed %q", sc.Text())
			break
		}
		steps = append(steps, s)
		if s.Answer["status"] == "pending" && !decided {
			id, _ := s.Answer["pageId"].(string)
			time.Sleep(time.Duration(int(decideAfter/time.Millisecond)-s.At) * time.Millisecond)
			if st, body, err := via.call("POST", "/v1/pages/"+id+"/actions/approve", "", map[string]any{
				"actor": map[string]any{"identity": "ops@example.com"}, "comment": "Go"}); err != nil || st != 200 {
				decideErr = fmt.Errorf("the person's decision: %d %v %v", st, body, err)
			}
			decided = true
		}
	}
	if err := cmd.Wait(); err != nil || decideErr != nil {
		return fmt.Errorf("the TypeScript agent failed: %v %v\n%s\nsteps: %v", decideErr, err, stderr.String(), steps)
	}
	if len(steps) < 3 || steps[0].Step != "request_approval" || steps[0].Answer["status"] != "pending" || steps[0].At >= 60_000 {
		return fmt.Errorf("request_approval did not answer pending within the SDK's 60 s: %v", steps)
	}
	last := steps[len(steps)-1]
	if last.Step != "done" || last.Answer["status"] != "completed" || last.Answer["decision"] != "approved" ||
		last.Answer["decided_by"] != "ops@example.com" || last.At < int(decideAfter/time.Millisecond) {
		return fmt.Errorf("the agent's last answer: %+v (steps %v)", last, steps)
	}
	return nil
}

var tsSDKOnce sync.Mutex

// tsSDK is the directory where @modelcontextprotocol/sdk is installed: under
// $FOLIO_TS_SDK_DIR (make deps puts it there), else installed with npm into the
// user's cache.
func tsSDK(t *testing.T) string {
	t.Helper()
	tsSDKOnce.Lock() // parallel tests install it once
	defer tsSDKOnce.Unlock()
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

// TestTheTypeScriptSDKPublishesActionsThatDeclareTheirOutcome: an agent on the
// official TypeScript SDK sees, in every tool that takes actions, decision as the
// enum approve, reject, none and final as a boolean, and a page it publishes with
// a neutral non-final Snooze, a final approval and a rejection holds the same
// actions as the page the HTTP API publishes from the same request.
func TestTheTypeScriptSDKPublishesActionsThatDeclareTheirOutcome(t *testing.T) {
	p := start(t, t.TempDir(), ports.Free(t))
	key := registerAgent(t, p, "ts-verdict")
	actions := []any{
		map[string]any{"action_id": "snooze", "label": "Snooze 1 day", "decision": "none", "final": false},
		map[string]any{"action_id": "ship", "label": "Ship it", "decision": "approve"},
		map[string]any{"action_id": "stop", "label": "Stop", "decision": "reject", "final": true},
	}
	actionsJSON, _ := json.Marshal(actions)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	script, _ := filepath.Abs("testdata/ts_sdk_verdict.mjs")
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "SDK_DIR="+tsSDK(t), "MCP_URL="+p.base+"/mcp", "FOLIO_API_KEY="+key, "ACTIONS="+string(actionsJSON))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript agent: %v\n%s", err, stderr.String())
	}
	var got struct {
		Schemas map[string]map[string]map[string]any `json:"schemas"`
		PageID  string                               `json:"pageId"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the agent printed %q: %v", out, err)
	}
	for _, name := range []string{"publish_page", "create_draft", "request_approval", "update_page"} {
		props := got.Schemas[name]
		if enum, _ := json.Marshal(props["decision"]["enum"]); string(enum) != `["approve","reject","none"]` || props["final"]["type"] != "boolean" {
			t.Errorf("%s lists actions[].decision %v and actions[].final %v; want the enum approve, reject, none and a boolean", name, props["decision"], props["final"])
		}
	}
	storedActions := func(id string) string {
		st, page, err := p.call("GET", "/v1/pages/"+id, key, nil)
		if err != nil || st != 200 {
			t.Fatalf("GET page %s: %d %v", id, st, err)
		}
		b, _ := json.Marshal(page["actions"])
		return string(b)
	}
	st, byAPI, err := p.call("POST", "/v1/pages", key, map[string]any{"title": "Deploy 4.2?", "actions": actions})
	if err != nil || st != 201 {
		t.Fatalf("publish through the API: %d %v %v", st, byAPI, err)
	}
	if mcp, api := storedActions(got.PageID), storedActions(byAPI["pageId"].(string)); mcp != api {
		t.Errorf("the page published over MCP holds the actions %s, the API's %s", mcp, api)
	}
}
