package stream

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/actors/model/frame"
)

func testFrame(seq uint64, body string) *frame.Frame {
	return frame.New(seq, "t", fmt.Sprint(seq), []byte(`{"n":"`+body+`"}`))
}

// serve starts an HTTP server whose handler serves one Conn per request; conns
// receives them.
func serve(t *testing.T, h *Hub, hijackable bool) (*httptest.Server, chan *Conn) {
	t.Helper()
	conns := make(chan *Conn, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := h.NewConn()
		conns <- c
		if !hijackable {
			w = noHijack{w} // as on HTTP/2: flushable, not hijackable
		}
		c.ServeSSE(w, r, []byte(": hello\n\n"), nil)
	}))
	t.Cleanup(srv.Close)
	return srv, conns
}

type noHijack struct{ w http.ResponseWriter }

func (n noHijack) Header() http.Header         { return n.w.Header() }
func (n noHijack) Write(b []byte) (int, error) { return n.w.Write(b) }
func (n noHijack) WriteHeader(code int)        { n.w.WriteHeader(code) }
func (n noHijack) Flush()                      { n.w.(http.Flusher).Flush() }

// readEvents reads SSE data lines from body into out until it ends.
func readEvents(body io.Reader, out chan<- string) {
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "data: ") || strings.HasPrefix(l, ": ") {
			out <- l
		}
	}
	close(out)
}

// TestFramesArriveInOrderFromManySenders: frames sent concurrently by several
// goroutines (one per "page") reach the client exactly once, each sender's in
// order, through the pooled writers (and through the fallback writer).
func TestFramesArriveInOrderFromManySenders(t *testing.T) {
	for _, hijack := range []bool{true, false} {
		t.Run(fmt.Sprintf("hijack=%v", hijack), func(t *testing.T) {
			h := NewHub(Options{QueueFrames: 100000})
			defer h.Close()
			srv, conns := serve(t, h, hijack)
			res, err := http.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.Header.Get("Content-Type") != "text/event-stream" || res.Header.Get("X-Accel-Buffering") != "no" {
				t.Fatalf("headers %v", res.Header)
			}
			c := <-conns
			lines := make(chan string, 100000)
			go readEvents(res.Body, lines)
			if l := <-lines; l != ": hello" {
				t.Fatalf("preamble %q", l)
			}
			const senders, each = 4, 500
			var wg sync.WaitGroup
			for s := 0; s < senders; s++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < each; i++ {
						if !c.Send(testFrame(uint64(i), fmt.Sprintf("%d-%d", s, i))) {
							t.Errorf("send refused")
							return
						}
					}
				}()
			}
			wg.Wait()
			next := map[string]int{}
			for n := 0; n < senders*each; n++ {
				select {
				case l := <-lines:
					var s, i int
					if _, err := fmt.Sscanf(l, `data: {"n":"%d-%d"}`, &s, &i); err != nil {
						t.Fatalf("line %q", l)
					}
					key := fmt.Sprint(s)
					if i != next[key] {
						t.Fatalf("sender %d: frame %d after %d", s, i, next[key])
					}
					next[key]++
				case <-time.After(10 * time.Second):
					t.Fatalf("only %d frames", n)
				}
			}
			c.Close()
			if !c.Send(testFrame(1, "late")) {
				return
			}
			t.Fatal("send after close accepted")
		})
	}
}

// TestOverflowDisconnects: a subscriber whose queue is full is closed at once,
// Send reports false, OnClose runs once, and the hub counts the drop.
func TestOverflowDisconnects(t *testing.T) {
	h := NewHub(Options{QueueFrames: 3})
	defer h.Close()
	c := h.NewConn() // pending: nobody writes
	closed := 0
	c.OnClose(func() { closed++ })
	ok := 0
	for i := 0; i < 20; i++ {
		if c.Send(testFrame(uint64(i), "x")) {
			ok++
		}
	}
	if ok != 12 || closed != 1 || h.Dropped() != 1 { // pending queues hold 4x
		t.Fatalf("accepted %d, closed %d, dropped %d", ok, closed, h.Dropped())
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("not done")
	}
	c.Close()
	if closed != 1 {
		t.Fatal("OnClose ran twice")
	}
	late := false
	c.OnClose(func() { late = true })
	if !late {
		t.Fatal("OnClose after close did not run")
	}
}

// TestClientHangupClosesTheConn: when the client goes away the connection closes
// (promptly with the hangup watcher, else at the next write) and OnClose runs.
func TestClientHangupClosesTheConn(t *testing.T) {
	h := NewHub(Options{Keepalive: 100 * time.Millisecond})
	defer h.Close()
	srv, conns := serve(t, h, true)
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := <-conns
	done := make(chan struct{})
	c.OnClose(func() { close(done) })
	eventually := time.Now().Add(5 * time.Second)
	for h.Subscribers() != 1 && time.Now().Before(eventually) {
		time.Sleep(time.Millisecond)
	}
	res.Body.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection outlived its client")
	}
	if n := h.Subscribers(); n != 0 {
		t.Fatalf("subscribers %d", n)
	}
}

// TestChunkAndAdvance: each frame is its own HTTP chunk; advance skips bytes.
func TestChunkAndAdvance(t *testing.T) {
	c := &Conn{}
	bufs := c.chunk([]*frame.Frame{frame.New(1, "t", "1", []byte("{}")), keepaliveFrame})
	var all []byte
	for _, b := range bufs {
		all = append(all, b...)
	}
	if string(all) != "10\r\nid: 1\ndata: {}\n\n\r\nd\r\n: keepalive\n\n\r\n" {
		t.Fatalf("chunk %q", all)
	}
	rest := advance(bufs, 5)
	all = all[:0]
	for _, b := range rest {
		all = append(all, b...)
	}
	if !strings.HasPrefix(string(all), "d: 1\n") {
		t.Fatalf("advance %q", all)
	}
}
