package realtime_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// stalledClient opens the page stream over a raw socket with a tiny receive buffer,
// reads the head and the connected event, and then stops reading.
func stalledClient(t *testing.T, e *nodetest.Env, path string, ws bool) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(e.Srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	want := " 200 "
	if ws {
		want = " 101 "
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", path)
	} else {
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n\r\n", path)
	}
	br := bufio.NewReader(conn)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, want) {
		t.Fatalf("stalled client: %q %v", status, err)
	}
	// Up to the connected event's name, byte by byte: a WebSocket message has no
	// line end to read to.
	var seen strings.Builder
	for !strings.Contains(seen.String(), `"connected"`) {
		b, err := br.ReadByte()
		if err != nil {
			t.Fatal(err)
		}
		seen.WriteByte(b)
	}
	return conn // never read again (until the test checks it was cut off)
}

// TestStalledSubscriberIsDroppedWhileAFastOneKeepsItsLatency: a client that stops
// reading fills its socket and then its bounded queue, and is disconnected; a fast
// client on the same page receives every event in order with low latency all the
// while; the page itself is never slowed (every comment is acknowledged promptly).
// Both transports, each with a stalled and a fast client of its own kind.
func TestStalledSubscriberIsDroppedWhileAFastOneKeepsItsLatency(t *testing.T) {
	for _, ws := range []bool{false, true} {
		name := map[bool]string{false: "sse", true: "ws"}[ws]
		t.Run(name, func(t *testing.T) { stalledAndFast(t, ws) })
	}
}

func stalledAndFast(t *testing.T, ws bool) {
	e := nodetest.New(t)
	key, _ := e.Register("flood")
	id := e.Publish(key, nil)
	stalled := stalledClient(t, e, "/v1/pages/"+id+"/events", ws)
	var fast *client
	if ws {
		fast = openWS(t, e, "/v1/pages/"+id+"/events", "")
	} else {
		fast = openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	}
	fast.expect("connected")
	if n := subscribers(t, e); n != 2 {
		t.Fatalf("subscribers: %d", n)
	}

	const events = 600
	pad := strings.Repeat("x", 9000)
	sent := make([]time.Time, events)
	var mu sync.Mutex
	var ackSlowest time.Duration
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				mu.Lock()
				sent[i] = t0
				mu.Unlock()
				comment(t, e, key, id, fmt.Sprintf("%04d %s", i, pad))
				d := time.Since(t0)
				mu.Lock()
				ackSlowest = max(ackSlowest, d)
				mu.Unlock()
			}
		}()
	}
	// The writers end before the test does, even when it fails early: a writer
	// still posting after the server has closed would crash the whole package.
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); wg.Wait() })
	go func() {
		defer close(next)
		for i := 0; i < events; i++ {
			select {
			case next <- i:
			case <-stop:
				return
			}
		}
	}()
	got := fast.collect(60*time.Second, func(ms []msg) bool { return len(ms) >= events })
	wg.Wait()
	var lat []time.Duration
	seen := make([]bool, events)
	for _, m := range got {
		c := m.data()["content"].(string)
		n, _ := strconv.Atoi(c[:4])
		if seen[n] {
			t.Fatalf("the fast subscriber got comment %d twice", n)
		}
		seen[n] = true
		mu.Lock()
		lat = append(lat, m.At.Sub(sent[n]))
		mu.Unlock()
	}
	if len(got) != events {
		t.Fatalf("fast client got %d of %d", len(got), events)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	t.Logf("fast subscriber: p50 %v, p99 %v (from send to receipt, incl. the commit); slowest ack %v", p50, p99, ackSlowest)
	if p99 > 2*time.Second {
		t.Errorf("the fast subscriber was held up: p99 %v", p99)
	}
	// The stalled client is gone from the server...
	eventually(t, 10*time.Second, "the stalled subscriber to be dropped", func() bool { return subscribers(t, e) == 1 })
	if dropped := nodetest.Metric(t, e.Srv.URL, "folio_stream_dropped_total"); dropped < 1 {
		t.Fatalf("dropped: %v", dropped)
	}
	// ...and what it can still read ends early: it never saw all events.
	_ = stalled.SetReadDeadline(time.Now().Add(10 * time.Second))
	rest, _ := io.ReadAll(stalled)
	if n := strings.Count(string(rest), "comment.added"); n >= events {
		t.Fatalf("the stalled client got all %d events", n)
	}
	fast.quiet(50 * time.Millisecond)
}
