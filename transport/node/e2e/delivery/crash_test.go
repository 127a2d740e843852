package delivery_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"folio/transport/node"
)

// TestHelperNodeProcess is not a test: run as a child process (FOLIO_DELIVERY_CHILD
// set), it serves a node on the given data directory until it is killed.
func TestHelperNodeProcess(t *testing.T) {
	dir := os.Getenv("FOLIO_DELIVERY_CHILD")
	if dir == "" {
		t.Skip("only runs as the child of TestKill9PendingDeliveriesResume")
	}
	n, err := node.Open(node.Config{DataDir: dir, Addr: "127.0.0.1:0", AllowPrivateCallbacks: true,
		CallbackSchedule: []time.Duration{2 * time.Second}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := n.Listen()
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("LISTENING " + addr + "\n")
	select {} // until kill -9
}

type child struct {
	cmd  *exec.Cmd
	base string
}

func startChild(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperNodeProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FOLIO_DELIVERY_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
				lines <- a
			}
		}
		close(lines)
	}()
	select {
	case addr, ok := <-lines:
		if !ok {
			t.Fatal("the child exited before listening")
		}
		c := &child{cmd: cmd, base: "http://" + addr}
		eventually(t, 10*time.Second, "the child healthy", func() bool {
			res, err := http.Get(c.base + "/healthz")
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == 200
		})
		return c
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not start")
	}
	return nil
}

func (c *child) call(t *testing.T, method, path, key string, body any) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(raw, &m)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return m
}

func (c *child) delivery(t *testing.T, key, pageID string) map[string]any {
	t.Helper()
	ds := c.call(t, "GET", "/v1/pages/"+pageID+"/deliveries", key, nil)["deliveries"].([]any)
	if len(ds) != 1 {
		t.Fatalf("page %s has %d deliveries", pageID, len(ds))
	}
	return ds[0].(map[string]any)
}

// TestKill9PendingDeliveriesResume kills a real server process with SIGKILL while
// one delivery is in flight and another waits for its retry, and checks that the
// restarted server delivers both: the first at once, the second at the due time it
// had before the crash, each with its original body.
func TestKill9PendingDeliveriesResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	var healthy atomic.Bool
	release := make(chan struct{})
	hanging := newReceiver(t, func(n int, _ hit) (int, map[string]string, string) {
		if !healthy.Load() {
			<-release // in flight when the server dies
		}
		return 200, nil, ""
	})
	t.Cleanup(func() { close(release) })
	failing := newReceiver(t, func(int, hit) (int, map[string]string, string) {
		if healthy.Load() {
			return 200, nil, ""
		}
		return 503, nil, ""
	})

	dir := t.TempDir()
	c := startChild(t, dir)
	key := c.call(t, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "crash"})["apiKey"].(string)
	page := func(url string) string {
		return c.call(t, "POST", "/v1/publish", key, map[string]any{"title": "Crash test", "actions": []any{map[string]any{"action_id": "approve"}},
			"on_action": map[string]any{"default_url": url, "hmac_secret": "crash"}})["pageId"].(string)
	}
	inFlight, waiting := page(hanging.URL()), page(failing.URL())
	c.call(t, "POST", "/v1/pages/"+inFlight+"/actions/approve", key, nil)
	c.call(t, "POST", "/v1/pages/"+waiting+"/actions/approve", key, nil)
	hanging.waitEvents("action.executed", 1, 5*time.Second)
	failing.waitEvents("action.executed", 1, 5*time.Second)
	var due time.Time
	eventually(t, 5*time.Second, "the failed attempt recorded", func() bool {
		d := c.delivery(t, key, waiting)
		if d["attemptCount"] != 1.0 || d["nextAttemptAt"] == nil {
			return false
		}
		due, _ = time.Parse(time.RFC3339Nano, d["nextAttemptAt"].(string))
		return true
	})

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	healthy.Store(true)

	c2 := startChild(t, dir)
	// The restarted server may have become healthy only after the due time (a
	// loaded machine starts it slowly): then it owes the delivery at once.
	owed := due
	if up := time.Now(); up.After(owed) {
		owed = up
	}
	first := hanging.waitEvents("action.executed", 2, 10*time.Second)
	second := failing.waitEvents("action.executed", 2, 10*time.Second)
	if got := second[1].At; got.Before(due.Add(-50*time.Millisecond)) || got.After(owed.Add(1500*time.Millisecond)) {
		t.Errorf("the waiting delivery came at %s, due %s: the due time did not survive", got.Format(time.RFC3339Nano), due.Format(time.RFC3339Nano))
	}
	for _, hs := range [][]hit{first, second} {
		if !bytes.Equal(hs[0].Body, hs[1].Body) || hs[0].Header.Get("webhook-id") != hs[1].Header.Get("webhook-id") {
			t.Errorf("the redelivery after the crash changed the body or the event id")
		}
		verifyBoth(t, "crash", hs[1])
	}
	for _, id := range []string{inFlight, waiting} {
		eventually(t, 5*time.Second, "delivery succeeded after restart", func() bool { return c2.delivery(t, key, id)["status"] == "succeeded" })
	}
}
