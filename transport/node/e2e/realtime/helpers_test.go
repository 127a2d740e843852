package realtime_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// msg is one event received on a stream.
type msg struct {
	ID      string         // SSE id line, or the payload's "id"
	Type    string         // payload "type"
	Raw     []byte         // the payload bytes (SSE data line / WebSocket message)
	Payload map[string]any // decoded
	At      time.Time      // when it arrived
}

func (m msg) data() map[string]any {
	d, _ := m.Payload["data"].(map[string]any)
	return d
}

// client is an open SSE or WebSocket stream read by a goroutine.
type client struct {
	t        testing.TB
	Header   http.Header
	Status   int
	msgs     chan msg
	comments chan string // SSE comment lines (": keepalive", ": heartbeat")
	done     chan struct{}
	cancel   context.CancelFunc
	closeMu  sync.Once
	// wsClose is the WebSocket close status the server sent (-1 until the stream ends).
	wsClose websocket.StatusCode
}

// keepaliveFast shortens the keepalive so tests see it.
func keepaliveFast(c *node.Config) { c.Keepalive = 150 * time.Millisecond }

// openSSE opens an SSE stream; lastID (may be "") is sent as Last-Event-ID.
func openSSE(t testing.TB, e *nodetest.Env, path, key, lastID string) *client {
	t.Helper()
	c, err := dialSSE(e, path, key, lastID)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	if c.Status != 200 {
		t.Fatalf("open %s: status %d", path, c.Status)
	}
	c.t = t
	t.Cleanup(c.Close)
	return c
}

// dialSSE opens an SSE stream and reads it in the background.
func dialSSE(e *nodetest.Env, path, key, lastID string) (*client, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.Srv.URL+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		cancel()
		return nil, err
	}
	c := &client{Header: res.Header, Status: res.StatusCode, msgs: make(chan msg, 1<<16), comments: make(chan string, 1<<10), done: make(chan struct{}), cancel: cancel}
	if res.StatusCode != 200 {
		res.Body.Close()
		cancel()
		close(c.done)
		return c, nil
	}
	go func() {
		defer close(c.done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		var id string
		var data bytes.Buffer
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if data.Len() > 0 {
					c.deliver(id, append([]byte(nil), data.Bytes()...))
				}
				id = ""
				data.Reset()
			case strings.HasPrefix(line, ":"):
				select {
				case c.comments <- line:
				default:
				}
			case strings.HasPrefix(line, "id: "):
				id = line[4:]
			case strings.HasPrefix(line, "data: "):
				data.WriteString(line[6:])
			}
		}
	}()
	return c, nil
}

func (c *client) deliver(id string, raw []byte) {
	m := msg{ID: id, Raw: raw, At: time.Now()}
	_ = json.Unmarshal(raw, &m.Payload)
	m.Type, _ = m.Payload["type"].(string)
	if m.ID == "" {
		m.ID, _ = m.Payload["id"].(string)
	}
	c.msgs <- m
}

// openWS opens a WebSocket stream (query may carry last_event_id).
func openWS(t testing.TB, e *nodetest.Env, path, key string) *client {
	t.Helper()
	c, err := dialWS(e, path, key)
	if err != nil {
		t.Fatalf("websocket %s: %v", path, err)
	}
	c.t = t
	t.Cleanup(c.Close)
	return c
}

// dialWS opens a WebSocket stream and reads it in the background.
func dialWS(e *nodetest.Env, path, key string) (*client, error) {
	ctx, cancel := context.WithCancel(context.Background())
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	ws, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.Srv.URL, "http")+path, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		cancel()
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		return nil, fmt.Errorf("%w (status %d)", err, status)
	}
	ws.SetReadLimit(8 << 20)
	c := &client{Status: res.StatusCode, msgs: make(chan msg, 1<<16), comments: make(chan string, 1), done: make(chan struct{}), cancel: cancel, wsClose: -1}
	go func() {
		defer close(c.done)
		defer ws.CloseNow()
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				c.wsClose = websocket.CloseStatus(err)
				return
			}
			c.deliver("", b)
		}
	}()
	return c, nil
}

// Close ends the stream and waits for its reader.
func (c *client) Close() {
	c.closeMu.Do(func() {
		c.cancel()
		<-c.done
	})
}

// next is the next event (fails after d).
func (c *client) next(d time.Duration) msg {
	c.t.Helper()
	select {
	case m := <-c.msgs:
		return m
	case <-c.done:
		select {
		case m := <-c.msgs:
			return m
		default:
		}
		c.t.Fatalf("stream ended while waiting for an event")
	case <-time.After(d):
		c.t.Fatalf("no event within %v", d)
	}
	return msg{}
}

// expect reads events until one of type typ arrives, returning it and the others.
func (c *client) expect(typ string) (msg, []msg) {
	c.t.Helper()
	var skipped []msg
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		m := c.next(time.Until(deadline))
		if m.Type == typ {
			return m, skipped
		}
		skipped = append(skipped, m)
	}
	c.t.Fatalf("no %s event; got %v", typ, types(skipped))
	return msg{}, nil
}

// collect reads events until cond holds on the list so far.
func (c *client) collect(d time.Duration, cond func([]msg) bool) []msg {
	c.t.Helper()
	var got []msg
	deadline := time.Now().Add(d)
	for !cond(got) {
		if time.Now().After(deadline) {
			c.t.Fatalf("condition not met within %v; got %v", d, types(got))
		}
		select {
		case m := <-c.msgs:
			got = append(got, m)
		case <-time.After(time.Until(deadline)):
		}
	}
	return got
}

// quiet asserts no event arrives for d.
func (c *client) quiet(d time.Duration) {
	c.t.Helper()
	select {
	case m := <-c.msgs:
		c.t.Fatalf("unexpected event %s %s", m.Type, m.Raw)
	case <-time.After(d):
	}
}

// ended waits for the server to close the stream.
func (c *client) ended(d time.Duration) bool {
	select {
	case <-c.done:
		return true
	case <-time.After(d):
		return false
	}
}

func types(ms []msg) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Type
	}
	return out
}

// eventually polls cond until it holds (fails after d).
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// comment posts a comment with the key and returns its id.
func comment(t testing.TB, e *nodetest.Env, key, pageID, content string) string {
	t.Helper()
	return e.Must(201, "POST", "/v1/pages/"+pageID+"/comments", key, map[string]any{"content": content})["id"].(string)
}

func decodeJSON(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }
