package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"folio/transport/node/nodetest/ports"
)

// These tests hold many connections open against the real binary, from loopback
// addresses of their own (127.0.0.2, 127.0.0.3, …: Linux routes all of 127/8 to
// lo), and watch /healthz from 127.0.0.1 meanwhile.

// dialFrom opens a TCP connection to addr from the loopback address ip.
func dialFrom(ip, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 2 * time.Second}
	return d.Dial("tcp", addr)
}

// openStream sends GET path from ip on a connection of its own and reads the
// answer's head. A stream that opened (200) is returned with its connection held;
// any other answer is read whole and its connection closed.
func openStream(ip, addr, path string) (status int, header http.Header, body []byte, held net.Conn, err error) {
	c, err := dialFrom(ip, addr)
	if err != nil {
		return 0, nil, nil, nil, err
	}
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", path, addr); err != nil {
		c.Close()
		return 0, nil, nil, nil, err
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		c.Close()
		return 0, nil, nil, nil, err
	}
	if res.StatusCode == http.StatusOK {
		_ = c.SetDeadline(time.Time{})
		return res.StatusCode, res.Header, nil, c, nil
	}
	body, _ = io.ReadAll(res.Body)
	c.Close()
	return res.StatusCode, res.Header, body, nil, nil
}

// healthWatch asks /healthz every 100 ms from 127.0.0.1 until stopped, each with a
// 1 s timeout, and keeps the slowest answer and every failure.
type healthWatch struct {
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	asked   int
	slowest time.Duration
	failed  []string
}

func watchHealth(base string) *healthWatch {
	h := &healthWatch{stop: make(chan struct{}), done: make(chan struct{})}
	client := &http.Client{Timeout: time.Second}
	go func() {
		defer close(h.done)
		for {
			start := time.Now()
			res, err := client.Get(base + "/healthz")
			took := time.Since(start)
			h.mu.Lock()
			h.asked++
			h.slowest = max(h.slowest, took)
			switch {
			case err != nil:
				h.failed = append(h.failed, err.Error())
			case res.StatusCode != 200:
				h.failed = append(h.failed, res.Status)
			}
			h.mu.Unlock()
			if err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			select {
			case <-h.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return h
}

// check stops the watch and fails the test unless every check answered 200
// within a second.
func (h *healthWatch) check(t *testing.T) {
	t.Helper()
	close(h.stop)
	<-h.done
	if len(h.failed) > 0 || h.asked == 0 {
		t.Errorf("/healthz: %d of %d checks failed (%v); slowest %v", len(h.failed), h.asked, h.failed, h.slowest)
	}
	t.Logf("/healthz answered %d checks, slowest in %v", h.asked, h.slowest)
}

// publicPage registers an agent and publishes a public page; it returns the page id.
func publicPage(t *testing.T, p *proc) string {
	t.Helper()
	_, reg, err := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "streams"})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := reg["apiKey"].(string)
	st, pub, err := p.call("POST", "/v1/publish", key, publishBody(1))
	if err != nil || st != 201 {
		t.Fatalf("publish: %d %v %v", st, pub, err)
	}
	return pub["pageId"].(string)
}

// TestIdleStreamsFromOneAddressAreRefusedPastTheCap: one client address opens
// idle SSE streams on a public page, 32 at a time, up to 20,000 attempts (or 20 s):
// the first 100 (--streams-per-address 100) open, every later one is 429
// RATE_LIMITED with the envelope and Retry-After and its connection ends at once;
// /healthz answers within a second throughout, and a second address still opens a
// stream. (Before the bound, the streams took all the descriptors and /healthz
// stopped answering.)
func TestIdleStreamsFromOneAddressAreRefusedPastTheCap(t *testing.T) {
	const perAddress, attempts, workers = 100, 20000, 32
	dir, addr := t.TempDir(), ports.Free(t)
	p := start(t, dir, addr, "--anon-rpm", "100000000", "--streams-per-address", fmt.Sprint(perAddress))
	path := "/v1/pages/" + publicPage(t, p) + "/events"
	health := watchHealth(p.base)

	var (
		mu       sync.Mutex
		held     []net.Conn
		refusals atomic.Int64
		tried    atomic.Int64
		firstBad atomic.Value // string: the first unexpected answer
		sample   atomic.Value // string: one refusal's head and body
	)
	defer func() {
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	}()
	deadline := time.Now().Add(20 * time.Second)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && tried.Add(1) <= attempts && firstBad.Load() == nil {
				status, h, body, c, err := openStream("127.0.0.2", addr, path)
				switch {
				case err != nil:
					firstBad.CompareAndSwap(nil, "an attempt failed: "+err.Error())
				case status == 200:
					mu.Lock()
					held = append(held, c)
					over := len(held) > perAddress
					mu.Unlock()
					if over { // stop at once: the test's own descriptors stay bounded
						firstBad.CompareAndSwap(nil, fmt.Sprintf("more than %d streams opened from one address", perAddress))
					}
				case status == 429:
					refusals.Add(1)
					sample.CompareAndSwap(nil, "Retry-After: "+h.Get("Retry-After")+"\n"+string(body))
				default:
					firstBad.CompareAndSwap(nil, fmt.Sprintf("status %d: %s", status, body))
				}
			}
		}()
	}
	wg.Wait()
	if bad := firstBad.Load(); bad != nil {
		t.Fatal(bad)
	}
	mu.Lock()
	opened := len(held)
	mu.Unlock()
	t.Logf("%d attempts: %d streams open, %d refused", min(tried.Load(), attempts), opened, refusals.Load())
	if opened != perAddress || refusals.Load() < 1000 {
		t.Fatalf("%d streams opened and %d refused, want %d and at least 1,000", opened, refusals.Load(), perAddress)
	}
	head, body, _ := strings.Cut(sample.Load().(string), "\n")
	var env struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil || env.Error.Code != "RATE_LIMITED" || env.Error.Details["scope"] != "address" ||
		env.Error.Details["limit"] != "open_streams" || head == "Retry-After: " || head == "Retry-After: 0" {
		t.Fatalf("a refusal: %s %s", head, body)
	}
	status, _, b, c, err := openStream("127.0.0.3", addr, path)
	if err != nil || status != 200 {
		t.Fatalf("a stream from a second address: %d %s %v", status, b, err)
	}
	c.Close()
	health.check(t)
}

// TestSlowHeaderConnectionsFromOneAddressAreClosedPastTheCap: one address opens
// 300 connections and sends each only part of a request's headers. The first 50
// (--header-conns-per-address 50) wait for the rest as usual (until the header
// timeout); each later one is answered 429 and closed at once, before the server
// reads it. /healthz answers within a second throughout. (Before the guard, 21,000
// such connections made health checks time out.)
func TestSlowHeaderConnectionsFromOneAddressAreClosedPastTheCap(t *testing.T) {
	const perAddress, conns = 50, 300
	dir, addr := t.TempDir(), ports.Free(t)
	p := start(t, dir, addr, "--header-conns-per-address", fmt.Sprint(perAddress))
	health := watchHealth(p.base)
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for range conns {
		c, err := dialFrom("127.0.0.4", addr)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n") // and never the blank line
	}
	// A refused connection has its answer and its end waiting; one still being
	// read by the server gets nothing, and times out at this deadline.
	deadline := time.Now().Add(2 * time.Second)
	var (
		mu      sync.Mutex
		closed  int
		refusal string
		wg      sync.WaitGroup
	)
	for _, c := range open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(deadline)
			b, err := io.ReadAll(c)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			closed++
			if len(b) > 0 {
				refusal = string(b)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d of %d slow-header connections closed at once", closed, conns)
	if closed != conns-perAddress {
		t.Fatalf("%d of %d slow-header connections from one address were closed at once, want %d", closed, conns, conns-perAddress)
	}
	if !strings.HasPrefix(refusal, "HTTP/1.1 429 ") || !strings.Contains(refusal, "Retry-After: 10") || !strings.Contains(refusal, `"code":"RATE_LIMITED"`) {
		t.Fatalf("a refused connection was told %q", refusal)
	}
	health.check(t)
	for _, c := range open {
		c.Close()
	}
	open = nil
	// Once they are gone the address is served again.
	ok := false
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && !ok; time.Sleep(20 * time.Millisecond) {
		status, _, _, c, err := openStream("127.0.0.4", addr, "/healthz")
		ok = err == nil && status == 200
		if c != nil {
			c.Close()
		}
	}
	if !ok {
		t.Fatal("the address was not served again once its slow connections closed")
	}
}

// TestStreamsAtTheNodesCapLeaveHealthzAndTheAPIAnswering: a node whose descriptor
// limit is 1,024 (ulimit -n, set by the shell that starts it) holds at most 768
// streams (a quarter of the limit kept for everything else), from however many
// addresses; past that a stream is 503 with Retry-After, and /healthz and the API
// still answer.
func TestStreamsAtTheNodesCapLeaveHealthzAndTheAPIAnswering(t *testing.T) {
	const limit, want, attempts = 1024, 768, 1100
	dir, addr := t.TempDir(), ports.Free(t)
	cmd := exec.Command("sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, limit), folioBinary(t),
		"serve", "--addr", addr, "--data", dir, "--default-plan", "enterprise", "--anon-rpm", "100000000", "--streams-per-address", "-1")
	var log lines
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p := &proc{cmd: cmd, base: "http://" + addr, log: &log}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if res, err := http.Get(p.base + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(end) {
			t.Fatalf("server did not become healthy:\n%s", log.String())
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", cmd.Process.Pid)); err != nil || !strings.Contains(string(b), fmt.Sprintf("Max open files            %d", limit)) {
		t.Fatalf("the server's descriptor limit is not %d: %v\n%s", limit, err, b)
	}
	path := "/v1/pages/" + publicPage(t, p) + "/events"
	health := watchHealth(p.base)
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	refused, retry := 0, ""
	for i := range attempts {
		ip := fmt.Sprintf("127.0.1.%d", 1+i%200) // many clients
		status, h, body, c, err := openStream(ip, addr, path)
		switch {
		case err != nil:
			t.Fatalf("stream %d (%d open): %v", i, len(held), err)
		case status == 200:
			held = append(held, c)
		case status == 503:
			refused++
			retry = h.Get("Retry-After")
			if !strings.Contains(string(body), `"scope":"server"`) {
				t.Fatalf("a refusal at the node's cap: %s", body)
			}
		default:
			t.Fatalf("stream %d: %d %s", i, status, body)
		}
	}
	if len(held) != want || refused != attempts-want || retry == "" {
		t.Fatalf("%d streams open and %d refused (Retry-After %q), want %d and %d", len(held), refused, retry, want, attempts-want)
	}
	st, reg, err := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "still-served"})
	if err != nil || st != 201 || reg["apiKey"] == nil {
		t.Fatalf("registering with the streams at their cap: %d %v %v", st, reg, err)
	}
	health.check(t)
}
