package bench

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// receiver is a local callback endpoint that verifies X-Service-Signature.
type receiver struct {
	secret   []byte
	broken   bool // verifies with the wrong secret: the scenario's check must fail
	mu       sync.Mutex
	got      map[string]time.Time // page_id -> first valid action.executed
	invalid  atomic.Int64
	received atomic.Int64
}

func (rv *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	now := time.Now()
	rv.received.Add(1)
	secret := rv.secret
	if rv.broken {
		secret = []byte("not-the-secret")
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(r.Header.Get("X-Service-Signature"))) {
		rv.invalid.Add(1)
		w.WriteHeader(http.StatusOK) // accepted, but counted as invalid
		return
	}
	var ev struct {
		Event  string `json:"event"`
		PageID string `json:"page_id"`
	}
	if json.Unmarshal(body, &ev) == nil && ev.Event == "action.executed" {
		rv.mu.Lock()
		if _, ok := rv.got[ev.PageID]; !ok {
			rv.got[ev.PageID] = now
		}
		rv.mu.Unlock()
	}
	w.WriteHeader(http.StatusOK)
}

// startReceiver serves a receiver on a loopback port; url is its callback address.
func startReceiver(secret string, broken bool) (rv *receiver, url string, stop func(), err error) {
	rv = &receiver{secret: []byte(secret), broken: broken, got: map[string]time.Time{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	srv := &http.Server{Handler: rv}
	go func() { _ = srv.Serve(ln) }()
	return rv, "http://" + ln.Addr().String() + "/hook", func() { _ = srv.Close() }, nil
}

// callbacksScenario: pages with an on_action callback to a local receiver get one
// action each (page i published and acted on through node i mod N); the receiver
// verifies every signature. Checks: every action's
// callback delivered with a valid signature. Latency: action executed → callback
// received.
func callbacksScenario(ctx context.Context, t *Target, o Options) (*Result, error) {
	key, err := t.Register(ctx, "bench-callbacks")
	if err != nil {
		return nil, err
	}
	rv, url, stop, err := startReceiver("bench-secret-0123456789", o.BrokenReceiver)
	if err != nil {
		return nil, err
	}
	defer stop()

	pages := o.Count
	if pages <= 0 {
		pages = 2000
	}
	// Publish the pages first (not timed), then execute one action on each: the
	// timed part is action -> signed callback received.
	ids := make([]string, pages)
	rec := NewRecorder()
	o.Count = pages
	drive(ctx, "callbacks:publish", o, NewRecorder(), func(ctx context.Context, i int) string {
		var body map[string]any
		_ = json.Unmarshal(pageBody(i, 0), &body)
		body["on_action"] = map[string]any{"default_url": url, "hmac_secret": string(rv.secret), "events": []string{"action.executed"}}
		raw, _ := json.Marshal(body)
		var pub struct {
			PageID string `json:"pageId"`
		}
		if st, err := t.On(i).Call(ctx, "POST", "/v1/publish", key, raw, &pub); err != nil || st != 201 {
			return statusCode(st, err)
		}
		ids[i] = pub.PageID
		return ""
	})
	var sentMu sync.Mutex
	sent := map[string]time.Time{}
	start := time.Now()
	drive(ctx, "callbacks", o, rec, func(ctx context.Context, i int) string {
		if ids[i] == "" {
			return "unpublished"
		}
		t0 := time.Now()
		sentMu.Lock()
		sent[ids[i]] = t0
		sentMu.Unlock()
		if st, err := t.On(i).Call(ctx, "POST", "/v1/pages/"+ids[i]+"/actions/approve", key, []byte(`{"actor":{"identity":"r@example.com"}}`), nil); err != nil || st != 200 {
			return statusCode(st, err)
		}
		return ""
	})
	// Wait for the deliveries (first attempts are immediate).
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rv.mu.Lock()
		n := len(rv.got)
		rv.mu.Unlock()
		if n >= len(sent) || (rv.broken && rv.received.Load() >= int64(len(sent))) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	rv.mu.Lock()
	last := start
	for _, at := range rv.got {
		if at.After(last) {
			last = at
		}
	}
	elapsed := last.Sub(start) // first action to last callback received
	defer rv.mu.Unlock()
	var lat []time.Duration
	for id, at := range rv.got {
		if t0, ok := sent[id]; ok {
			lat = append(lat, at.Sub(t0))
		}
	}
	_, _, errs := rec.Summary()
	res := &Result{Scenario: "callbacks", Operations: len(rv.got), Seconds: elapsed.Seconds(), Unit: "callbacks/s",
		Latency: Percentiles(lat), Errors: errs, Params: map[string]any{"pages": pages, "concurrency": o.Concurrency}}
	res.check("every callback delivered with a valid signature", len(rv.got) == len(sent) && rv.invalid.Load() == 0,
		"%d actions, %d delivered and verified, %d with an invalid signature", len(sent), len(rv.got), rv.invalid.Load())
	return res, nil
}
