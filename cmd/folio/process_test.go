package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"folio/actors/auditlog"
	"folio/persistence/pgtest"
	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/ports"

	"golang.org/x/mod/sumdb/tlog"
)

// These tests run the real folio binary as a separate process.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func folioBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "folio-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "folio")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

type proc struct {
	cmd  *exec.Cmd
	base string
	log  *lines // the process's output, safe to read while it runs
}

func start(t *testing.T, dataDir, addr string, extra ...string) *proc {
	t.Helper()
	return startEnv(t, nil, dataDir, addr, extra...)
}

// startEnv is start with extra environment variables (KEY=value).
func startEnv(t *testing.T, env []string, dataDir, addr string, extra ...string) *proc {
	t.Helper()
	cmd := exec.Command(folioBinary(t), append([]string{"serve", "--addr", addr, "--data", dataDir, "--default-plan", "enterprise"}, extra...)...)
	cmd.Env = append(os.Environ(), env...)
	var log lines
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, base: "http://" + addr, log: &log}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// A loaded CI machine starts a race-built node on PostgreSQL in seconds; the
	// wait ends as soon as it answers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(p.base + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not become healthy: %v\n%s", err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *proc) call(method, path, key string, body any) (int, map[string]any, error) {
	return p.callWith(http.DefaultClient, method, path, key, body)
}

// callWith is call through the given client.
func (p *proc) callWith(c *http.Client, method, path, key string, body any) (int, map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, p.base+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(raw, &m)
	return res.StatusCode, m, nil
}

func publishBody(i int) map[string]any {
	return map[string]any{
		"title":   fmt.Sprintf("Page %d", i),
		"blocks":  []any{map[string]any{"type": "text", "data": map[string]any{"content": "first"}}},
		"actions": []any{map[string]any{"action_id": "approve"}, map[string]any{"action_id": "reject"}},
	}
}

// acked records what the server acknowledged before it was killed.
type acked struct {
	mu        sync.Mutex
	pages     map[string]bool   // page -> action executed
	appended  map[string]int    // page -> blocks appended
	commented map[string]string // page -> id of its acknowledged comment
}

// TestKill9LosesNothingAcknowledged, on each store: bbolt in the data directory,
// and a PostgreSQL database (--store postgres://…) on a server the test starts.
func TestKill9LosesNothingAcknowledged(t *testing.T) {
	t.Run("bolt", func(t *testing.T) { kill9LosesNothingAcknowledged(t, nil) })
	t.Run("postgres", func(t *testing.T) { kill9LosesNothingAcknowledged(t, []string{"--store", pgtest.URL(t)}) })
}

func kill9LosesNothingAcknowledged(t *testing.T, store []string) {
	dir, addr := t.TempDir(), ports.Free(t)
	// The load makes ~5 agent events per page, past the default 10,000 an agent's
	// log keeps on a fast machine; retention trims the oldest by design, and this
	// test is about durability, so the log keeps everything here.
	keepAll := append([]string{"--agent-retention", "10000000"}, store...)
	p := start(t, dir, addr, keepAll...)
	_, reg, err := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "crash-test"})
	if err != nil {
		t.Fatal(err)
	}
	key := reg["apiKey"].(string)
	a := &acked{pages: map[string]bool{}, appended: map[string]int{}, commented: map[string]string{}}

	// Each client publishes, appends a block, and executes an action on every other
	// page, over and over; the server is killed while they are mid-flight.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < 40; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				st, m, err := p.call("POST", "/v1/publish", key, publishBody(c*1000+i))
				if err != nil || st != 201 {
					return
				}
				id := m["pageId"].(string)
				a.mu.Lock()
				a.pages[id] = false
				a.mu.Unlock()
				if st, _, err := p.call("PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "appended"}}}}); err != nil || st != 200 {
					return
				}
				a.mu.Lock()
				a.appended[id]++
				a.mu.Unlock()
				st, cm, err := p.call("POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": "before the crash"})
				if err != nil || st != 201 {
					return
				}
				a.mu.Lock()
				a.commented[id] = cm["id"].(string)
				a.mu.Unlock()
				if i%2 == 0 {
					if st, _, err := p.call("POST", "/v1/pages/"+id+"/actions/approve", key, nil); err != nil || st != 200 {
						return
					}
					a.mu.Lock()
					a.pages[id] = true
					a.mu.Unlock()
				}
			}
		}(c)
	}
	// The kill comes under load, whatever the machine's speed: once 40 pages are
	// acknowledged, a checkpoint is taken, and the kill follows 10 pages later.
	acknowledged := func() int { a.mu.Lock(); defer a.mu.Unlock(); return len(a.pages) }
	waitUntil(t, 90*time.Second, "40 pages acknowledged under load", func() bool { return acknowledged() >= 40 })
	// A checkpoint signed under load, just before the kill: it must name a tree the
	// restarted server still has (checked below).
	vkey, before := rawGet(t, p, "/v1/audit/key", ""), rawGet(t, p, "/v1/audit/checkpoint", key)
	n := acknowledged()
	waitUntil(t, 60*time.Second, "10 more pages acknowledged", func() bool { return acknowledged() >= n+10 })
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	close(stop)
	wg.Wait()

	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.pages) < 40 {
		t.Fatalf("only %d pages acknowledged before the kill; the test needs load", len(a.pages))
	}
	p2 := start(t, dir, addr, keepAll...)
	executed := 0
	for id, acted := range a.pages {
		st, m, err := p2.call("GET", "/v1/pages/"+id, key, nil)
		if err != nil || st != 200 {
			t.Fatalf("acknowledged page %s lost after kill -9: %d %v", id, st, err)
		}
		if n := len(m["blocks"].([]any)); n < 1+a.appended[id] {
			t.Errorf("page %s has %d blocks, want at least %d", id, n, 1+a.appended[id])
		}
		if acted {
			executed++
			if m["status"] != "completed" {
				t.Errorf("page %s: acknowledged action lost (status %v)", id, m["status"])
			}
			// Its audit entry is in the tree the restarted server signs: the wait
			// answer's receipt (checkpoint and inclusion proof) verifies offline.
			r, err := findReceipt(rawGet(t, p2, "/v1/pages/"+id+"/wait", key))
			if err != nil {
				t.Fatalf("page %s: the wait answer after the restart: %v", id, err)
			}
			if _, err := auditlog.VerifyReceipt(r, string(vkey), nil, nil); err != nil {
				t.Errorf("page %s: the acknowledged decision (entry %d) is not in the checkpoint signed after kill -9: %v", id, r.Entry, err)
			}
		}
		// A comment and its agent event commit together: both are there.
		if cid, ok := a.commented[id]; ok {
			_, cs, _ := p2.call("GET", "/v1/pages/"+id+"/comments", key, nil)
			if !containsID(cs["comments"], "id", cid) {
				t.Errorf("page %s: acknowledged comment %s lost", id, cid)
			}
			_, evs, _ := p2.call("GET", "/v1/pages/"+id+"/agent-events?limit=200", key, nil)
			if !containsID(evs["events"], "type", "comment.added") {
				t.Errorf("page %s: the agent event of acknowledged comment %s is not replayable", id, cid)
			}
		}
	}
	st, v, err := p2.call("GET", "/v1/audit/verify", key, nil)
	if err != nil || st != 200 || v["status"] != "valid" {
		t.Fatalf("audit chain after kill -9: %d %v %v", st, v, err)
	}
	if min := float64(2*len(a.pages) + executed*2); v["chain_length"].(float64) < min {
		t.Fatalf("chain has %v entries, want at least %v", v["chain_length"], min)
	}
	// The tree is committed with the chain: the checkpoint after the restart covers
	// every entry, and the one signed before the kill is a prefix of it.
	_, size1, root1, err := auditlog.OpenCheckpoint(before, string(vkey))
	if err != nil {
		t.Fatalf("checkpoint before the kill: %v", err)
	}
	_, size2, root2, err := auditlog.OpenCheckpoint(rawGet(t, p2, "/v1/audit/checkpoint", key), string(vkey))
	if err != nil || float64(size2) != v["chain_length"].(float64) || size1 > size2 {
		t.Fatalf("checkpoint after restart: size %d (before the kill %d), chain %v: %v", size2, size1, v["chain_length"], err)
	}
	var cons auditlog.Consistency
	if err := json.Unmarshal(rawGet(t, p2, fmt.Sprintf("/v1/audit/proof/consistency?from=%d&to=%d", size1, size2), key), &cons); err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(cons.Proof, size2, root2, size1, root1); err != nil {
		t.Fatalf("the checkpoint signed before kill -9 (size %d) is not a prefix of the tree after it (size %d): %v", size1, size2, err)
	}
	t.Logf("%d pages, %d actions, %d comments acknowledged before kill -9; all present after restart; chain of %v verifies; checkpoint %d before the kill is a prefix of %d after",
		len(a.pages), executed, len(a.commented), v["chain_length"], size1, size2)
}

// containsID tells whether list (a decoded JSON array of objects) has one whose
// field equals want.
func containsID(list any, field, want string) bool {
	items, _ := list.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && m[field] == want {
			return true
		}
	}
	return false
}

func TestSIGTERMDrainsAndClosesCleanly(t *testing.T) {
	dir, addr := t.TempDir(), ports.Free(t)
	p := start(t, dir, addr)
	_, reg, _ := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "term"})
	key := reg["apiKey"].(string)
	_, pub, _ := p.call("POST", "/v1/publish", key, publishBody(1))
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, p.log.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("server did not stop after SIGTERM")
	}
	if !strings.Contains(p.log.String(), "stopped cleanly") {
		t.Fatalf("log lacks the clean stop:\n%s", p.log.String())
	}
	p2 := start(t, dir, addr)
	if st, _, _ := p2.call("GET", "/v1/pages/"+pub["pageId"].(string), key, nil); st != 200 {
		t.Fatalf("page after clean restart: %d", st)
	}
}

// TestIdleAfterPassivatesAndReloads: with --idle-after, a page nobody touches is
// passivated (its actor stops) and the next request reloads it from storage.
func TestIdleAfterPassivatesAndReloads(t *testing.T) {
	p := start(t, t.TempDir(), ports.Free(t), "--idle-after", "200ms")
	_, reg, err := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "idle-test"})
	if err != nil {
		t.Fatal(err)
	}
	key := reg["apiKey"].(string)
	st, m, err := p.call("POST", "/v1/publish", key, publishBody(1))
	if err != nil || st != 201 {
		t.Fatalf("publish: %d %v", st, err)
	}
	id := m["pageId"].(string)
	deadline := time.Now().Add(10 * time.Second)
	for nodetest.Metric(t, p.base, "folio_actors_passivated_total") < 1 {
		if time.Now().After(deadline) {
			t.Fatal("no actor was passivated within 10 s of an idle period of 200 ms")
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, m, err = p.call("GET", "/v1/pages/"+id, key, nil)
	if err != nil || st != 200 || m["title"] != "Page 1" || m["status"] != "active" {
		t.Fatalf("after passivation: %d %v %v", st, m, err)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// rawGet is the body of a GET that must answer 200.
func rawGet(t *testing.T, p *proc, path, key string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", p.base+path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, b)
	}
	return b
}
