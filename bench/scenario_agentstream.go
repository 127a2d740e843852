package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"
)

// agentStreamScenario: the agent follows its tenant's event stream while comments
// are added (o.Count, or o.Rate × o.Duration), dropping the connection at random
// points and reconnecting with Last-Event-ID. Checks: every event arrives exactly
// once, ids strictly increasing. Extra: time to replay 100 missed events. Comment n
// goes through node n mod N and the agent reads its stream through the last node,
// so with several nodes it follows writes made on the others.
func agentStreamScenario(ctx context.Context, t *Target, o Options) (*Result, error) {
	key, err := t.Register(ctx, "bench-agent")
	if err != nil {
		return nil, err
	}
	var pub struct {
		PageID string `json:"pageId"`
	}
	if st, err := t.Call(ctx, "POST", "/v1/publish", key, pageBody(0, 0), &pub); err != nil || st != 201 {
		return nil, fmt.Errorf("publish: %s", statusCode(st, err))
	}
	events := o.Count
	if events <= 0 {
		events = int(o.Rate * o.Duration.Seconds())
	}
	if events < 1 {
		events = 1
	}
	comment := func(n int) error {
		body := fmt.Sprintf(`{"content":"bench %d %d","author_name":"bench","author_type":"agent"}`, n, time.Now().UnixNano())
		st, err := t.On(n).Call(ctx, "POST", "/v1/pages/"+pub.PageID+"/comments", key, []byte(body), nil)
		if err != nil || st != 201 {
			return fmt.Errorf("comment: %s", statusCode(st, err))
		}
		return nil
	}

	// The reader: reconnects after every random drop, resuming from the last id.
	reader := t.Last()
	var mu sync.Mutex
	seen := map[int]int{}
	var lat []time.Duration
	lastID, monotonic, reconnects := "", true, 0
	var prev int64 = -1
	done := make(chan struct{})
	// following closes once the first connection is open: it carries no
	// Last-Event-ID, so it sees only what is committed after it, and the comments
	// wait for it (a comment committed before it would be missed by design).
	following := make(chan struct{})
	var followOnce sync.Once
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	go func() {
		defer close(done)
		defer followOnce.Do(func() { close(following) })
		rng := rand.New(rand.NewPCG(1, 2))
		for readCtx.Err() == nil {
			budget := 1 + rng.IntN(max(2, events/5)) // events to read before dropping
			connCtx, drop := context.WithCancel(readCtx)
			mu.Lock()
			from := lastID
			mu.Unlock()
			_ = reader.Subscribe(connCtx, o.Transport, "/v1/agent/events", key, from, func(m Message) bool {
				followOnce.Do(func() { close(following) }) // the stream opens with "connected"
				now := time.Now()
				mu.Lock()
				defer mu.Unlock()
				if m.ID != "" {
					if id, err := strconv.ParseInt(m.ID, 10, 64); err == nil {
						if id <= prev {
							monotonic = false
						}
						prev, lastID = id, m.ID
					}
				}
				if m.Type == "comment.added" {
					if n, sent, ok := benchStamp(m.Data); ok {
						seen[n]++
						lat = append(lat, now.Sub(sent))
						budget--
					}
				}
				return budget > 0
			})
			drop()
			mu.Lock()
			reconnects++
			complete := len(seen) >= events
			mu.Unlock()
			if complete {
				return
			}
			time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
		}
	}()

	select {
	case <-following:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	rec := NewRecorder()
	start := time.Now()
	interval := time.Duration(float64(time.Second) / o.Rate)
	for n := 0; n < events && ctx.Err() == nil; n++ {
		if d := time.Until(start.Add(time.Duration(n) * interval)); d > 0 {
			time.Sleep(d)
		}
		t0 := time.Now()
		if err := comment(n); err != nil {
			rec.Fail(err.Error())
			continue
		}
		rec.OK(time.Since(t0))
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		stopReading()
		<-done
	}
	elapsed := time.Since(start)

	// Replay: miss 100 events, then reconnect from the last id and time the catch-up.
	mu.Lock()
	from := lastID
	mu.Unlock()
	for n := events; n < events+100; n++ {
		if err := comment(n); err != nil {
			return nil, err
		}
	}
	got := 0
	t0 := time.Now()
	var replay time.Duration
	rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
	_ = reader.Subscribe(rctx, o.Transport, "/v1/agent/events", key, from, func(m Message) bool {
		if m.Type == "comment.added" {
			got++
		}
		if got == 100 {
			replay = time.Since(t0)
			return false
		}
		return true
	})
	rcancel()

	mu.Lock()
	defer mu.Unlock()
	dups, missing := 0, 0
	for n := 0; n < events; n++ {
		switch c := seen[n]; {
		case c == 0:
			missing++
		case c > 1:
			dups += c - 1
		}
	}
	_, _, errs := rec.Summary()
	res := &Result{Scenario: "agent-stream", Operations: len(lat), Seconds: elapsed.Seconds(), Unit: "events/s",
		Latency: Percentiles(lat), Errors: errs,
		Params: map[string]any{"events": events, "rate_per_s": o.Rate, "transport": o.Transport},
		Extra:  map[string]float64{"reconnects": float64(reconnects), "replay_100_ms": float64(replay.Microseconds()) / 1000}}
	res.check("every event exactly once", missing == 0 && dups == 0, "%d events, %d missing, %d duplicated, %d reconnects", events, missing, dups, reconnects)
	res.check("ids strictly increasing", monotonic, "across %d connections", reconnects)
	res.check("100 missed events replayed", got == 100, "%d of 100 replayed in %v", got, replay)
	return res, nil
}
