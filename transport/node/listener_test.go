package node

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/transport/httpapi"
)

// guarded serves "ok" behind a headerGuard bounding each address to perAddress
// waiting connections; it returns the guard and the address.
func guarded(t *testing.T, perAddress int, trusted string) (*headerGuard, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	proxies, err := httpapi.ParseTrustedProxies(trusted)
	if err != nil {
		t.Fatal(err)
	}
	g := newHeaderGuard(ln, perAddress, proxies)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }),
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, ConnState: g.connState}
	go func() { _ = srv.Serve(g) }()
	t.Cleanup(func() { _ = srv.Close() })
	return g, ln.Addr().String()
}

// request sends one whole request on c and reads the answer's status line.
func request(c net.Conn, r *bufio.Reader) (string, error) {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return "", err
	}
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		return "", err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.Status, nil
}

// waitingIn is how many connections the guard counts as waiting for headers.
func waitingIn(g *headerGuard) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.waiting)
}

// TestHeaderGuardCountsIdleKeepAlivesAndFreesClosedOnes: connections that sit
// idle between requests count as waiting for headers, like new ones; past the
// bound a new connection is answered 429 and closed; one that closes frees its
// place; a connection serving a request does not count. From a trusted proxy
// nothing is counted.
func TestHeaderGuardCountsIdleKeepAlivesAndFreesClosedOnes(t *testing.T) {
	g, addr := guarded(t, 2, "")
	var idle []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if st, err := request(c, bufio.NewReader(c)); err != nil || st != "200 OK" {
			t.Fatalf("a request: %q %v", st, err)
		}
		idle = append(idle, c) // now idle, kept alive
	}
	// net/http marks a connection idle after writing its response, which the
	// client may read first: wait until both count as waiting.
	for deadline := time.Now().Add(5 * time.Second); waitingIn(g) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("two idle keep-alive connections: %d counted as waiting", waitingIn(g))
		}
	}
	refusedBefore := g.refused.Load()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(c)
	c.Close()
	if !strings.HasPrefix(string(b), "HTTP/1.1 429 ") || !strings.Contains(string(b), `"limit":"connections_reading_headers"`) || g.refused.Load() != refusedBefore+1 {
		t.Fatalf("a third connection while two are idle was told %q", b)
	}
	idle[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		st, err := request(c, bufio.NewReader(c))
		c.Close()
		if err == nil && st == "200 OK" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a place was not freed by a closed idle connection: %q %v", st, err)
		}
		time.Sleep(10 * time.Millisecond)
	}

	g, addr = guarded(t, 1, "127.0.0.0/8")
	for range 5 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if st, err := request(c, bufio.NewReader(c)); err != nil || st != "200 OK" {
			t.Fatalf("from a trusted proxy: %q %v", st, err)
		}
	}
	if g.refused.Load() != 0 {
		t.Fatal("a trusted proxy's connections were refused")
	}
}

func TestOpenCapKeepsHeadroom(t *testing.T) {
	for limit, want := range map[int]int{0: -1, 20000: 15000, 1024: 768, 512: 256, 300: 150, 1 << 20: 786432} {
		if got := openCap(limit); got != want {
			t.Errorf("openCap(%d) = %d, want %d", limit, got, want)
		}
	}
}
