package realtime_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// A wait on the node's own listener parks (its connection is hijacked and watched
// by the stream poller, no goroutine of its own); one through nodetest's httptest
// server waits on its goroutine, as every wait did before parking. The same node
// answers both, so their bytes can be compared.

// parkedNode starts a node with a real listener beside nodetest's server.
func parkedNode(t *testing.T, clk *nodetest.Clock) (e *nodetest.Env, parked, plain string) {
	t.Helper()
	e = nodetest.Open(t, t.TempDir(), clk, func(c *node.Config) { c.Addr = "127.0.0.1:0" })
	addr, err := e.Node.Listen()
	if err != nil {
		t.Fatal(err)
	}
	return e, addr, e.Srv.Listener.Addr().String()
}

// rawConn is one client connection whose response bytes are kept as they came.
type rawConn struct {
	c   net.Conn
	raw bytes.Buffer
	br  *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	rc := &rawConn{c: c}
	rc.br = bufio.NewReader(io.TeeReader(c, &rc.raw))
	return rc
}

func (rc *rawConn) get(t *testing.T, path, key string, extra ...string) {
	t.Helper()
	req := "GET " + path + " HTTP/1.1\r\nHost: folio.test\r\nAuthorization: Bearer " + key + "\r\n"
	for _, h := range extra {
		req += h + "\r\n"
	}
	if _, err := io.WriteString(rc.c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
}

// read returns the next response's bytes, its Date value replaced by a constant.
func (rc *rawConn) read(t *testing.T) string {
	t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(15 * time.Second))
	rc.raw.Reset()
	res, err := http.ReadResponse(rc.br, nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	raw := rc.raw.String()[:rc.raw.Len()-rc.br.Buffered()]
	return dateLine.ReplaceAllString(raw, "Date: <date>\r\n")
}

var dateLine = regexp.MustCompile(`Date: [^\r]*\r\n`)

// heldWaits is folio_open_held{kind="waits"}: the waits the node holds open.
func heldWaits(t *testing.T, e *nodetest.Env) int {
	t.Helper()
	r := e.Do("GET", "/metrics", "", nil)
	m := regexp.MustCompile(`(?m)^folio_open_held\{kind="waits"\} (\d+)`).FindSubmatch(r.Body)
	if m == nil {
		t.Fatalf("no folio_open_held{kind=\"waits\"} in /metrics")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func waitHeld(t *testing.T, e *nodetest.Env, want int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); heldWaits(t, e) != want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d waits held, want %d", heldWaits(t, e), want)
		}
	}
}

// TestAParkedWaitAnswersByteForByteAsBefore: for a decision, a timeout, a page
// withdrawn, a page expired and a page that is not the caller's, a parked wait's
// answer is the same bytes (status line, headers, body; the Date aside) as a wait
// served on its goroutine, and the connection serves the next request after it.
func TestAParkedWaitAnswersByteForByteAsBefore(t *testing.T) {
	clk := nodetest.NewClock(time.Now())
	e, parked, plain := parkedNode(t, clk)
	key, _ := e.Register("parked")
	other, _ := e.Register("other")
	pair := func(path, key string) (p, q *rawConn) {
		p, q = dialRaw(t, parked), dialRaw(t, plain)
		p.get(t, path, key)
		q.get(t, path, key)
		return p, q
	}
	same := func(what string, p, q *rawConn) string {
		t.Helper()
		want := q.read(t)
		got := p.read(t)
		if got != want {
			t.Fatalf("%s: the parked wait answered\n%q\nwhere a wait on its goroutine answers\n%q", what, got, want)
		}
		return got
	}

	decided := waitPage(t, e, key)
	p, q := pair("/v1/pages/"+decided+"/wait?timeout=30s", key)
	waitHeld(t, e, 2)
	e.Must(200, "POST", "/v1/pages/"+decided+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}, "comment": "Go ahead"})
	if got := same("decided", p, q); !strings.HasPrefix(got, "HTTP/1.1 200 OK\r\n") || !strings.Contains(got, `"decision":"approved"`) {
		t.Fatalf("decided: %q", got)
	}
	// The same connection serves the next request (keep-alive), parked again.
	p.get(t, "/v1/pages/"+decided+"/wait", key)
	q.get(t, "/v1/pages/"+decided+"/wait", key)
	same("decided, next request on the connection", p, q)

	open := waitPage(t, e, key)
	p, q = pair("/v1/pages/"+open+"/wait?timeout=1s", key)
	if got := same("timed out", p, q); !strings.Contains(got, `"timed_out":true`) {
		t.Fatalf("timed out: %q", got)
	}

	withdrawn := waitPage(t, e, key)
	p, q = pair("/v1/pages/"+withdrawn+"/wait?timeout=30s", key)
	waitHeld(t, e, 2)
	e.Must(200, "POST", "/v1/pages/"+withdrawn+"/revoke", key, map[string]any{"reason": "obsolete"})
	if got := same("withdrawn", p, q); !strings.Contains(got, `"status":"revoked"`) {
		t.Fatalf("withdrawn: %q", got)
	}

	expiring := e.Publish(key, map[string]any{"expires_at": clk.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	p, q = pair("/v1/pages/"+expiring+"/wait?timeout=30s", key)
	waitHeld(t, e, 2)
	clk.Advance(2 * time.Hour)
	if got := same("expired", p, q); !strings.Contains(got, `"status":"expired"`) {
		t.Fatalf("expired: %q", got)
	}

	// Another tenant's page: refused at once, parked or not.
	p, q = pair("/v1/pages/"+open+"/wait?timeout=1s", other)
	if got := same("another tenant's page", p, q); !strings.HasPrefix(got, "HTTP/1.1 404 ") {
		t.Fatalf("another tenant's page: %q", got)
	}

	// Connection: close is honoured: the answer says so and the connection ends.
	p, q = dialRaw(t, parked), dialRaw(t, plain)
	p.get(t, "/v1/pages/"+open+"/wait?timeout=1s", key, "Connection: close")
	q.get(t, "/v1/pages/"+open+"/wait?timeout=1s", key, "Connection: close")
	if got := same("Connection: close", p, q); !strings.Contains(got, "Connection: close\r\n") {
		t.Fatalf("Connection: close: %q", got)
	}
	_ = p.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := p.br.ReadByte(); err != io.EOF {
		t.Fatalf("after answering Connection: close the parked wait's connection is still open (%v)", err)
	}
}

// TestAParkedWaitRefusesAKeyDeletedWhileItWaited: the key is checked again when the
// answer is written; a key deleted meanwhile gets the 401 a new request with it
// gets, not the decision.
func TestAParkedWaitRefusesAKeyDeletedWhileItWaited(t *testing.T) {
	e, parked, plain := parkedNode(t, nil)
	key, _ := e.Register("revoked-while-waiting")
	second := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "short-lived"})
	id := waitPage(t, e, key)
	p := dialRaw(t, parked)
	p.get(t, "/v1/pages/"+id+"/wait?timeout=30s", second["key"].(string))
	waitHeld(t, e, 1)
	e.Must(204, "DELETE", "/v1/account/api-keys/"+second["id"].(string), key, nil)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	got := p.read(t)
	q := dialRaw(t, plain)
	q.get(t, "/v1/pages/"+id+"/wait", second["key"].(string))
	if want := q.read(t); got != want || !strings.HasPrefix(got, "HTTP/1.1 401 ") {
		t.Fatalf("a wait whose key was deleted answered\n%q\nwhere a new request with that key gets\n%q", got, want)
	}
}

// TestParkedWaitsHoldNoGoroutine: 300 waits on one page add no goroutine each to
// the node (net/http's connection goroutine is gone once they park); clients that
// hang up free their places at once; the rest all get the decision.
func TestParkedWaitsHoldNoGoroutine(t *testing.T) {
	e, parked, _ := parkedNode(t, nil)
	key, _ := e.Register("many")
	id := waitPage(t, e, key)
	waitHeld(t, e, 0)
	base := runtime.NumGoroutine()
	const n = 300
	conns := make([]*rawConn, n)
	for i := range conns {
		conns[i] = dialRaw(t, parked)
		conns[i].get(t, "/v1/pages/"+id+"/wait?timeout=60s", key)
	}
	waitHeld(t, e, n)
	var grew int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if grew = runtime.NumGoroutine() - base; grew < n/10 || time.Now().After(deadline) {
			break
		}
	}
	if grew >= n/10 {
		t.Fatalf("%d parked waits hold %d more goroutines in the node (want none of their own)", n, grew)
	}
	for _, c := range conns[:n/2] { // half the clients leave
		_ = c.c.Close()
	}
	waitHeld(t, e, n-n/2)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	for i, c := range conns[n/2:] {
		if got := c.read(t); !strings.Contains(got, `"decision":"approved"`) {
			t.Fatalf("waiter %d: %s", i, got)
		}
	}
	waitHeld(t, e, 0)
}
