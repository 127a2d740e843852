package node_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node"
)

// listening starts a node on a real listener (the HTTP timeouts live in the
// node's http.Server) with short timeouts.
func listening(t *testing.T) (*node.Node, string) {
	t.Helper()
	n, err := node.Open(node.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		ReadHeaderTimeout: 300 * time.Millisecond, ReadTimeout: 600 * time.Millisecond, WriteTimeout: 600 * time.Millisecond, Keepalive: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := n.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close(context.Background()) })
	return n, addr
}

// TestSlowSendersAreCutOff: a client that trickles its headers or its body, a byte
// at a time, holds its connection only until the read timeouts, not for as long as
// it keeps trickling. 50 such connections are all closed by the server.
func TestSlowSendersAreCutOff(t *testing.T) {
	_, addr := listening(t)
	var wg sync.WaitGroup
	closedBy := make(chan time.Duration, 100)
	trickle := func(head string) {
		defer wg.Done()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		start := time.Now()
		_, _ = io.WriteString(c, head)
		for i := 0; i < 100; i++ { // would take 10 s
			if _, err := c.Write([]byte("x")); err != nil {
				break
			}
			_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			if _, err := c.Read(make([]byte, 512)); err != nil && !isTimeout(err) {
				break // the server answered or closed
			}
		}
		closedBy <- time.Since(start)
	}
	for i := 0; i < 25; i++ {
		wg.Add(2)
		go trickle("POST /v1/publish HTTP/1.1\r\nHost: x\r\nX-Slow: ")                                                       // headers never end
		go trickle("POST /v1/publish HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\nContent-Type: application/json\r\n\r\n") // body trickles
	}
	wg.Wait()
	close(closedBy)
	for d := range closedBy {
		if d > 3*time.Second {
			t.Fatalf("a slow sender was held %v; the read timeouts are 300 ms (headers) and 600 ms (request)", d)
		}
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestStreamsOutliveTheRequestTimeouts: an SSE stream stays open and keeps getting
// keepalives long after the read and write timeouts of ordinary requests.
func TestStreamsOutliveTheRequestTimeouts(t *testing.T) {
	_, addr := listening(t)
	res, err := http.Post("http://"+addr+"/v1/auth/agent/register", "application/json", strings.NewReader(`{"name":"bot"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		APIKey string `json:"apiKey"`
	}
	if err := decode(res, &reg); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/v1/agent/events", nil)
	req.Header.Set("Authorization", "Bearer "+reg.APIKey)
	sres, err := http.DefaultClient.Do(req)
	if err != nil || sres.StatusCode != 200 {
		t.Fatalf("agent stream: %v %v", sres, err)
	}
	defer sres.Body.Close()
	r := bufio.NewReader(sres.Body)
	deadline := time.Now().Add(2 * time.Second) // more than three times both timeouts
	keepalives := 0
	for time.Now().Before(deadline) {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended after %v (%d keepalives): %v", 2*time.Second-time.Until(deadline), keepalives, err)
		}
		if strings.HasPrefix(line, ": keepalive") {
			keepalives++
		}
	}
	if keepalives < 5 {
		t.Fatalf("%d keepalives in 2 s at a 200 ms interval", keepalives)
	}
}

func decode(res *http.Response, v any) error {
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		b, _ := io.ReadAll(res.Body)
		return fmt.Errorf("status %d: %s", res.StatusCode, b)
	}
	return json.NewDecoder(res.Body).Decode(v)
}
