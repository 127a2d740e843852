package delivery_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

func TestActionCallbackIsSignedAndHasTheSpecFields(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("signer")
	rv := newReceiver(t, nil)
	const secret = "s3cret-for-tests"
	pub := publish(e, key, map[string]any{"on_action": map[string]any{
		"default_url": rv.URL(), "hmac_secret": secret, "headers": map[string]any{"X-Team": "payments"},
	}})
	if w := warnings(pub); len(w) != 0 {
		t.Fatalf("loopback target with --allow-private-callbacks drew warnings: %v", w)
	}
	id := pub["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{
		"actor": map[string]any{"identity": "alice@example.com"}, "comment": "LGTM"})

	h := rv.waitEvents("action.executed", 1, 5*time.Second)[0]
	verifyBoth(t, secret, h)
	if h.Header.Get("X-Team") != "payments" || h.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers: X-Team %q, Content-Type %q", h.Header.Get("X-Team"), h.Header.Get("Content-Type"))
	}
	body := h.json(t)
	for _, k := range []string{"event", "event_id", "page_id", "timestamp", "data", "actor", "page_state"} {
		if _, ok := body[k]; !ok {
			t.Errorf("body lacks %q: %s", k, h.Body)
		}
	}
	if body["page_id"] != id || body["event_id"] != h.Header.Get("webhook-id") {
		t.Errorf("page_id %v / event_id %v (webhook-id %s)", body["page_id"], body["event_id"], h.Header.Get("webhook-id"))
	}
	if _, err := time.Parse(time.RFC3339Nano, body["timestamp"].(string)); err != nil {
		t.Errorf("timestamp %v: %v", body["timestamp"], err)
	}
	data := body["data"].(map[string]any)
	// The decision names the content it was made on: its version and hash.
	want := map[string]any{"action_id": "approve", "action_label": "Approve", "decision": "approved", "comment": "LGTM", "form_data": nil,
		"outcome": "approved", "final": true, "page_version": float64(1), "content_hash": data["content_hash"]}
	if h, _ := data["content_hash"].(string); !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+64 {
		t.Errorf("data.content_hash = %q, want sha256: and 64 hex digits", h)
	}
	// And the receipt of the audit entry that recorded it (docs/audit.md).
	if r, _ := data["receipt"].(map[string]any); r == nil || r["entry"] != float64(3) || r["page_version"] != float64(1) ||
		r["content_hash"] != data["content_hash"] || r["proof_url"] != "/v1/audit/proof/inclusion?entry=3" || r["checkpoint"] != nil {
		t.Errorf("data.receipt = %v", data["receipt"])
	}
	delete(data, "receipt")
	if len(data) != len(want) {
		t.Errorf("data = %v, want exactly the keys of %v and receipt", data, want)
	}
	for k, v := range want {
		if data[k] != v {
			t.Errorf("data.%s = %v, want %v", k, data[k], v)
		}
	}
	actor := body["actor"].(map[string]any)
	if actor["identity"] != "alice@example.com" || actor["auth_method"] != "api_key" {
		t.Errorf("actor = %v", actor)
	}
	ps := body["page_state"].(map[string]any)
	if ps["previous"] != "active" || ps["current"] != "completed" {
		t.Errorf("page_state = %v", ps)
	}

	// Only the specification's events are delivered by default: not page.completed.
	time.Sleep(100 * time.Millisecond)
	if n := len(rv.all()); n != 1 {
		t.Errorf("receiver got %d callbacks, want 1 (action.executed)", n)
	}
	d := deliveryFor(t, e, key, id, "action.executed")
	eventually(t, 2*time.Second, "delivery recorded as succeeded", func() bool {
		d = deliveryFor(t, e, key, id, "action.executed")
		return d["status"] == "succeeded"
	})
	at := d["attempts"].([]any)[0].(map[string]any)
	if d["attemptCount"] != 1.0 || at["httpStatus"] != 200.0 || d["eventId"] != body["event_id"] || d["channel"] != "callback" {
		t.Errorf("delivery log entry = %v", d)
	}
	if _, ok := at["latencyMs"].(float64); !ok {
		t.Errorf("attempt without latencyMs: %v", at)
	}
}

func TestUnsignedWithoutSecretAndEventsFilterAndActionURLs(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("filter")
	def, rej := newReceiver(t, nil), newReceiver(t, nil)
	id := publish(e, key, map[string]any{"on_action": map[string]any{
		"default_url": def.URL(),
		"action_urls": map[string]any{"reject": rej.URL()},
		"events":      []any{"action.executed", "page.completed"},
	}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/reject", key, nil)
	// Both events of the rejection go to the reject action's address.
	rej.waitEvents("action.executed", 1, 5*time.Second)
	h := rej.waitEvents("page.completed", 1, 5*time.Second)[0]
	if h.Header.Get("X-Service-Signature") != "" || h.Header.Get("webhook-signature") != "" {
		t.Errorf("signed without a secret: %v", h.Header)
	}
	if h.Header.Get("webhook-id") == "" || h.Header.Get("X-Service-Event-Id") == "" {
		t.Errorf("ids missing: %v", h.Header)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(def.all()); n != 0 {
		t.Errorf("default_url got %d callbacks; the action's own address should get them", n)
	}
}

func TestCustomRetryFailFailSucceedKeepsOneBody(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("retrier")
	rv := newReceiver(t, func(n int, _ hit) (int, map[string]string, string) {
		if n < 2 {
			return 500, nil, "try later"
		}
		return 200, nil, ""
	})
	id := publish(e, key, map[string]any{"on_action": map[string]any{
		"default_url": rv.URL(), "hmac_secret": "k",
		"retry": map[string]any{"max_attempts": 4, "backoff": "exponential", "initial_delay_seconds": 1},
	}})["pageId"].(string)
	start := time.Now()
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	hs := rv.waitEvents("action.executed", 3, 10*time.Second)
	// Attempts at once, then 1 s and 2 s after each failure.
	offsets := []time.Duration{0, time.Second, 3 * time.Second}
	for i, h := range hs {
		got := h.At.Sub(start)
		if got < offsets[i] || got > offsets[i]+700*time.Millisecond {
			t.Errorf("attempt %d at +%s, want +%s (tolerance 700ms)", i+1, got.Round(time.Millisecond), offsets[i])
		}
		if !bytes.Equal(h.Body, hs[0].Body) {
			t.Errorf("attempt %d body differs:\n%s\n%s", i+1, h.Body, hs[0].Body)
		}
		if h.Header.Get("webhook-id") != hs[0].Header.Get("webhook-id") || h.Header.Get("X-Service-Signature") != hs[0].Header.Get("X-Service-Signature") {
			t.Errorf("attempt %d has another event id or body signature", i+1)
		}
		verifyBoth(t, "k", h)
	}
	var d map[string]any
	eventually(t, 2*time.Second, "third attempt recorded", func() bool {
		d = deliveryFor(t, e, key, id, "action.executed")
		return d["status"] == "succeeded"
	})
	atts := d["attempts"].([]any)
	if len(atts) != 3 || d["maxAttempts"] != 4.0 {
		t.Fatalf("delivery log: %v", d)
	}
	first := atts[0].(map[string]any)
	if first["httpStatus"] != 500.0 || first["error"] == nil || first["nextAttemptAt"] == nil {
		t.Errorf("first attempt = %v", first)
	}
	time.Sleep(1500 * time.Millisecond)
	if n := len(rv.all()); n != 3 {
		t.Errorf("receiver got %d attempts, want 3 (no attempt after the success)", n)
	}
}

func TestRedirectIsAFailureAndItsTargetIsNeverHit(t *testing.T) {
	e := nodetest.New(t, allowPrivate, func(c *node.Config) { c.CallbackSchedule = []time.Duration{200 * time.Millisecond} })
	key, _ := e.Register("redirect")
	target := newReceiver(t, nil)
	redirector := newReceiver(t, func(int, hit) (int, map[string]string, string) {
		return 307, map[string]string{"Location": target.URL()}, ""
	})
	id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": redirector.URL()}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	redirector.waitEvents("action.executed", 2, 5*time.Second) // the first attempt and the one retry
	var d map[string]any
	eventually(t, 2*time.Second, "delivery given up", func() bool {
		d = deliveryFor(t, e, key, id, "action.executed")
		return d["status"] == "failed"
	})
	at := d["attempts"].([]any)[0].(map[string]any)
	if at["httpStatus"] != 307.0 || !strings.Contains(fmt.Sprint(at["error"]), "redirect") {
		t.Errorf("attempt = %v", at)
	}
	if n := len(target.all()); n != 0 {
		t.Fatalf("the redirect target was hit %d times", n)
	}
}

func TestGoneStopsRetriesAndRetryAfterIsHonoured(t *testing.T) {
	e := nodetest.New(t, allowPrivate, func(c *node.Config) {
		c.CallbackSchedule = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond}
	})
	key, _ := e.Register("gone")
	gone := newReceiver(t, func(int, hit) (int, map[string]string, string) { return 410, nil, "" })
	id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": gone.URL()}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	eventually(t, 3*time.Second, "410 recorded as failed", func() bool {
		return deliveryFor(t, e, key, id, "action.executed")["status"] == "failed"
	})
	time.Sleep(300 * time.Millisecond)
	if n := len(gone.all()); n != 1 {
		t.Errorf("a 410 receiver got %d attempts, want 1", n)
	}

	busy := newReceiver(t, func(n int, _ hit) (int, map[string]string, string) {
		if n == 0 {
			return 429, map[string]string{"Retry-After": "1"}, ""
		}
		return 200, nil, ""
	})
	id2 := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": busy.URL()}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id2+"/actions/approve", key, nil)
	hs := busy.waitEvents("action.executed", 2, 5*time.Second)
	// The schedule says 50 ms; the receiver asked for 1 s.
	if gap := hs[1].At.Sub(hs[0].At); gap < 950*time.Millisecond || gap > 1700*time.Millisecond {
		t.Errorf("retry after a 429 with Retry-After: 1 came %s later, want about 1 s", gap)
	}
}

// TestDeadEndpointDoesNotDelayHealthyOnes: while one endpoint holds every attempt
// sent to it until the attempt times out (10 s), callbacks to a healthy endpoint
// still arrive as soon as they are committed: each one within a few seconds of its
// approval (measured per delivery, so a slow machine publishing slowly does not
// count against it), never behind the dead endpoint's timeout.
func TestDeadEndpointDoesNotDelayHealthyOnes(t *testing.T) {
	const attemptTimeout = 10 * time.Second
	e := nodetest.New(t, allowPrivate, func(c *node.Config) { c.CallbackTimeout = attemptTimeout })
	key, _ := e.Register("isolation")
	release := make(chan struct{})
	var held atomic.Int64
	dead := newReceiver(t, func(int, hit) (int, map[string]string, string) {
		held.Add(1)
		<-release // hangs until the test ends
		return 200, nil, ""
	})
	t.Cleanup(func() { close(release) })
	healthy := newReceiver(t, nil)
	// Many events to the dead endpoint first, more than its lane admits at once.
	const deadPages, healthyPages = 80, 20
	for i := 0; i < deadPages; i++ {
		id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": dead.URL()}})["pageId"].(string)
		e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	}
	eventually(t, 3*time.Second, "the dead endpoint holding attempts", func() bool { return held.Load() > 0 })
	approved := map[string]time.Time{}
	for i := 0; i < healthyPages; i++ {
		id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": healthy.URL()}})["pageId"].(string)
		e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
		approved[id] = time.Now()
	}
	for _, h := range healthy.waitEvents("action.executed", healthyPages, attemptTimeout/2) {
		id, _ := h.json(t)["page_id"].(string)
		at, ok := approved[id]
		if !ok {
			t.Fatalf("a callback for a page the test did not approve: %s", id)
		}
		if lag := h.At.Sub(at); lag > attemptTimeout/2 {
			t.Errorf("page %s's callback came %s after its approval, behind the dead endpoint's %s timeout", id, lag, attemptTimeout)
		}
	}
}

func TestPageExpiredCallback(t *testing.T) {
	clk := nodetest.NewClock(time.Now())
	e := nodetest.Open(t, t.TempDir(), clk, allowPrivate)
	key, _ := e.Register("expiry")
	rv := newReceiver(t, nil)
	id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": rv.URL()}})["pageId"].(string)
	clk.Advance(8 * 24 * time.Hour)
	h := rv.waitEvents("page.expired", 1, 5*time.Second)[0]
	body := h.json(t)
	data := body["data"].(map[string]any)
	if body["page_id"] != id || data["reason"] != "timeout" || data["expired_at"] == nil || len(data) != 2 {
		t.Errorf("page.expired body = %s", h.Body)
	}
	if _, has := body["actor"]; has {
		t.Errorf("page.expired carries an actor: %s", h.Body)
	}
}

func TestManualRetryRedeliversTheSameBody(t *testing.T) {
	e := nodetest.New(t, allowPrivate, func(c *node.Config) { c.CallbackSchedule = []time.Duration{} })
	key, _ := e.Register("manual")
	other, _ := e.Register("someone-else")
	rv := newReceiver(t, func(n int, _ hit) (int, map[string]string, string) {
		if n == 0 {
			return 500, nil, ""
		}
		return 204, nil, ""
	})
	id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": rv.URL(), "hmac_secret": "m"}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	var d map[string]any
	eventually(t, 3*time.Second, "the only attempt failing", func() bool {
		d = deliveryFor(t, e, key, id, "action.executed")
		return d["status"] == "failed"
	})
	dlv := d["id"].(string)
	if r := e.Do("POST", "/v1/deliveries/"+dlv+"/retry", other, nil); r.Status != 404 {
		t.Errorf("another tenant's retry: %d, want 404", r.Status)
	}
	if r := e.Do("POST", "/v1/deliveries/nope/retry", key, nil); r.Status != 404 {
		t.Errorf("unknown delivery retry: %d, want 404", r.Status)
	}
	res := e.Must(202, "POST", "/v1/deliveries/"+dlv+"/retry", key, nil)
	if res["status"] != "queued" || res["id"] != dlv {
		t.Errorf("retry answer = %v", res)
	}
	hs := rv.waitEvents("action.executed", 2, 5*time.Second)
	if !bytes.Equal(hs[0].Body, hs[1].Body) || hs[0].Header.Get("webhook-id") != hs[1].Header.Get("webhook-id") {
		t.Errorf("manual redelivery changed the body or the event id")
	}
	verifyBoth(t, "m", hs[1])
	eventually(t, 2*time.Second, "the manual attempt recorded", func() bool {
		d = e.Must(200, "GET", "/v1/deliveries/"+dlv, key, nil)
		return d["status"] == "succeeded"
	})
	atts := d["attempts"].([]any)
	if len(atts) != 2 || atts[1].(map[string]any)["manual"] != true || atts[1].(map[string]any)["httpStatus"] != 204.0 {
		t.Errorf("attempts = %v", atts)
	}
}

func TestPageViewedCallbackCarriesTheViewer(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("viewed")
	rv := newReceiver(t, nil)
	id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": rv.URL(), "hmac_secret": "v"}})["pageId"].(string)
	e.Must(200, "POST", "/internal/pages/"+id+"/view", "", nil)
	h := rv.waitEvents("page.viewed", 1, 5*time.Second)[0]
	verifyBoth(t, "v", h)
	body := h.json(t)
	data := body["data"].(map[string]any)
	if data["view_count"] != 1.0 || !strings.HasPrefix(fmt.Sprint(data["user_agent"]), "Go-http-client") || len(data) != 2 {
		t.Errorf("page.viewed data = %v", data)
	}
	actor, _ := body["actor"].(map[string]any)
	if actor == nil || actor["identity"] == nil || actor["auth_method"] == nil {
		t.Errorf("page.viewed actor = %v", body["actor"])
	}
}
