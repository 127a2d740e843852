package delivery_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// allowPrivate lets the node deliver to the loopback receivers of these tests.
func allowPrivate(c *node.Config) { c.AllowPrivateCallbacks = true }

// hit is one request a receiver got.
type hit struct {
	At     time.Time
	Header http.Header
	Body   []byte
}

func (h hit) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(h.Body, &m); err != nil {
		t.Fatalf("callback body is not JSON: %v: %s", err, h.Body)
	}
	return m
}

// reply is what a receiver answers to its n-th request (0-based).
type reply func(n int, h hit) (status int, header map[string]string, body string)

func ok(int, hit) (int, map[string]string, string) { return 200, nil, "" }

// receiver is a callback endpoint on 127.0.0.1 that records every request.
type receiver struct {
	t     testing.TB
	srv   *httptest.Server
	reply reply
	mu    sync.Mutex
	hits  []hit
}

func newReceiver(t testing.TB, r reply) *receiver {
	t.Helper()
	if r == nil {
		r = ok
	}
	rv := &receiver{t: t, reply: r}
	rv.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		h := hit{At: time.Now(), Header: req.Header.Clone(), Body: body}
		rv.mu.Lock()
		n := len(rv.hits)
		rv.hits = append(rv.hits, h)
		rv.mu.Unlock()
		status, hdr, out := rv.reply(n, h)
		for k, v := range hdr {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, out)
	}))
	t.Cleanup(rv.srv.Close)
	return rv
}

func (rv *receiver) URL() string { return rv.srv.URL + "/hook" }

func (rv *receiver) all() []hit {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return append([]hit(nil), rv.hits...)
}

// events lists the hits whose body has the event type.
func (rv *receiver) events(event string) []hit {
	var out []hit
	for _, h := range rv.all() {
		var m struct {
			Event string `json:"event"`
		}
		if json.Unmarshal(h.Body, &m) == nil && m.Event == event {
			out = append(out, h)
		}
	}
	return out
}

// waitEvents polls until the receiver has n hits of event.
func (rv *receiver) waitEvents(event string, n int, within time.Duration) []hit {
	rv.t.Helper()
	deadline := time.Now().Add(within)
	for {
		hs := rv.events(event)
		if len(hs) >= n {
			return hs
		}
		if time.Now().After(deadline) {
			rv.t.Fatalf("receiver got %d %s callbacks within %s, want %d (all hits: %d)", len(hs), event, within, n, len(rv.all()))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// eventually polls cond until it holds.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// verifyBoth checks the two signatures of a callback the way a receiver does.
func verifyBoth(t testing.TB, secret string, h hit) {
	t.Helper()
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(h.Body)
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	if got := h.Header.Get("X-Service-Signature"); !hmac.Equal([]byte(got), []byte(want)) {
		t.Errorf("X-Service-Signature = %q, want %q", got, want)
	}
	id, ts := h.Header.Get("webhook-id"), h.Header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		t.Errorf("webhook-timestamp %q is not a recent unix time", ts)
	}
	std := hmac.New(sha256.New, []byte(secret))
	std.Write([]byte(id + "." + ts + "."))
	std.Write(h.Body)
	expected := "v1," + base64.StdEncoding.EncodeToString(std.Sum(nil))
	found := false
	for _, sig := range strings.Fields(h.Header.Get("webhook-signature")) {
		found = found || hmac.Equal([]byte(sig), []byte(expected))
	}
	if !found {
		t.Errorf("webhook-signature %q does not verify (want %q)", h.Header.Get("webhook-signature"), expected)
	}
	if h.Header.Get("X-Service-Event-Id") != id || h.Header.Get("X-Service-Timestamp") != ts {
		t.Errorf("X-Service-Event-Id/Timestamp %q/%q differ from webhook-id/timestamp %q/%q",
			h.Header.Get("X-Service-Event-Id"), h.Header.Get("X-Service-Timestamp"), id, ts)
	}
}

// publish publishes a page with approve/reject actions and the extra fields.
func publish(e *nodetest.Env, key string, extra map[string]any) map[string]any {
	body := map[string]any{
		"title":     "Deploy v2 to production?",
		"summary":   "All checks passed.",
		"page_type": "approval",
		"blocks":    []any{map[string]any{"type": "text", "data": map[string]any{"content": "Ready to ship."}}},
		"actions": []any{
			map[string]any{"action_id": "approve", "label": "Approve", "style": "primary"},
			map[string]any{"action_id": "reject", "label": "Reject", "style": "danger"},
		},
	}
	for k, v := range extra {
		body[k] = v
	}
	return e.Must(201, "POST", "/v1/publish", key, body)
}

// deliveries reads a page's delivery log.
func deliveries(e *nodetest.Env, key, pageID string) []map[string]any {
	m := e.Must(200, "GET", "/v1/pages/"+pageID+"/deliveries", key, nil)
	var out []map[string]any
	for _, d := range m["deliveries"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

func deliveryFor(t testing.TB, e *nodetest.Env, key, pageID, event string) map[string]any {
	t.Helper()
	for _, d := range deliveries(e, key, pageID) {
		if d["event"] == event {
			return d
		}
	}
	t.Fatalf("no %s delivery for page %s", event, pageID)
	return nil
}

func warnings(m map[string]any) []string {
	var out []string
	ws, _ := m["warnings"].([]any)
	for _, w := range ws {
		out = append(out, w.(string))
	}
	return out
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
