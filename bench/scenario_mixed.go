package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// mixedScenario is a realistic day compressed: on o.Concurrency workers, each
// operation is one page's life — the agent publishes it (with a signed callback to a
// local receiver), every fourth page gets a viewer watching its stream, a reviewer
// comments, and two people race to decide it (one approves, one rejects).
// Meanwhile the agent follows its tenant's event stream.
//
// Across the target's nodes: page i is published and commented on through node
// i mod N, its two deciders go through nodes i and i+1 mod N (the race crosses
// nodes), its viewer (every fourth page) watches through node i/4 mod N (with i
// mod N, two or four nodes would have every viewer on the first), and the agent
// follows its stream through the last node.
//
// Checks: exactly one winner per page (the other 409); every decision reached the
// agent stream exactly once, the page's viewer, and the receiver with a valid
// signature. Latency: every HTTP request of the scenario; per-kind p99 in Extra.
func mixedScenario(ctx context.Context, t *Target, o Options) (*Result, error) {
	raiseFileLimit()
	key, err := t.Register(ctx, "bench-mixed")
	if err != nil {
		return nil, err
	}
	rv, hook, stop, err := startReceiver("bench-mixed-secret-0123", o.BrokenReceiver)
	if err != nil {
		return nil, err
	}
	defer stop()

	// The agent's own stream: action.executed per page, counted.
	var agentMu sync.Mutex
	agentSeen := map[string]int{}
	agentCtx, stopAgent := context.WithCancel(ctx)
	defer stopAgent()
	agentReady := make(chan struct{})
	agentDone := make(chan error, 1)
	go func() {
		var once sync.Once
		agentDone <- t.Last().Subscribe(agentCtx, o.Transport, "/v1/agent/events", key, "", func(m Message) bool {
			once.Do(func() { close(agentReady) })
			if m.Type == "action.executed" {
				if id := pageOf(m.Data); id != "" {
					agentMu.Lock()
					agentSeen[id]++
					agentMu.Unlock()
				}
			}
			return true
		})
	}()
	select {
	case <-agentReady:
	case err := <-agentDone:
		return nil, fmt.Errorf("agent stream: %v", err)
	case <-time.After(10 * time.Second):
		return nil, fmt.Errorf("agent stream did not connect")
	}

	all, publishes, acts := NewRecorder(), NewRecorder(), NewRecorder()
	timed := func(n *Node, r *Recorder, method, path string, body []byte, out any, want ...int) (int, string) {
		t0 := time.Now()
		st, err := n.Call(ctx, method, path, key, body, out)
		d := time.Since(t0)
		for _, w := range want {
			if err == nil && st == w {
				all.OK(d)
				r.OK(d)
				return st, ""
			}
		}
		code := statusCode(st, err)
		all.Fail(code)
		return st, code
	}

	var (
		mu          sync.Mutex
		decided     = map[string]time.Time{} // page -> when the people started deciding it
		wrongRaces  int                      // pages without exactly one 200 and one 409
		viewersWant atomic.Int64
		viewersGot  atomic.Int64
		viewers     sync.WaitGroup
		viewerWhy   sync.Map // why a viewer ended without the decision -> how many
	)
	viewCtx, stopViewers := context.WithCancel(ctx)
	defer stopViewers()

	start := time.Now()
	drive(ctx, "mixed", o, NewRecorder(), func(ctx context.Context, i int) string {
		var body map[string]any
		_ = json.Unmarshal(pageBody(i, o.PayloadBytes), &body)
		body["on_action"] = map[string]any{"default_url": hook, "hmac_secret": string(rv.secret), "events": []string{"action.executed"}}
		raw, _ := json.Marshal(body)
		var pub struct {
			PageID string `json:"pageId"`
		}
		if _, code := timed(t.On(i), publishes, "POST", "/v1/publish", raw, &pub, 201); code != "" {
			return code
		}
		id := pub.PageID

		if i%4 == 0 { // a person watches this page live
			connected := make(chan struct{})
			viewersWant.Add(1)
			viewers.Add(1)
			go func() {
				defer viewers.Done()
				var once sync.Once
				saw := false
				err := t.On(i/4).Subscribe(viewCtx, o.Transport, "/v1/pages/"+id+"/events", "", "", func(m Message) bool {
					once.Do(func() { close(connected) })
					if m.Type == "action.executed" {
						saw = true
						viewersGot.Add(1)
						return false
					}
					return true
				})
				once.Do(func() { close(connected) })
				if !saw {
					why := "still waiting when the run ended"
					switch {
					case viewCtx.Err() != nil:
					case err != nil:
						why = "stream failed: " + err.Error()
					default:
						why = "stream closed by the server"
					}
					n, _ := viewerWhy.LoadOrStore(why, new(atomic.Int64))
					n.(*atomic.Int64).Add(1)
				}
			}()
			select {
			case <-connected:
			case <-time.After(10 * time.Second):
				return "viewer-timeout"
			}
		}

		// A reviewer comments (comments are taken while the page is active)...
		if _, code := timed(t.On(i), NewRecorder(), "POST", "/v1/pages/"+id+"/comments", []byte(`{"content":"Looks right to me.","author_name":"ann"}`), nil, 201); code != "" {
			return code
		}
		// ...then two people decide at once: exactly one wins.
		raceStart := time.Now()
		var wins, conflicts atomic.Int64
		var race sync.WaitGroup
		for k, action := range []string{"approve", "reject"} {
			race.Add(1)
			go func() {
				defer race.Done()
				st, _ := timed(t.On(i+k), acts, "POST", "/v1/pages/"+id+"/actions/"+action, []byte(`{"actor":{"identity":"`+action+`@example.com"}}`), nil, 200, 409)
				switch st {
				case 200:
					wins.Add(1)
				case 409:
					conflicts.Add(1)
				}
			}()
		}
		race.Wait()
		mu.Lock()
		if wins.Load() != 1 || conflicts.Load() != 1 {
			wrongRaces++
		} else {
			decided[id] = raceStart
		}
		mu.Unlock()
		return ""
	})
	elapsed := time.Since(start)

	// Let the callbacks, the agent stream and the viewers catch up.
	mu.Lock()
	pages := len(decided)
	mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rv.mu.Lock()
		delivered := len(rv.got)
		rv.mu.Unlock()
		agentMu.Lock()
		streamed := len(agentSeen)
		agentMu.Unlock()
		if (delivered >= pages || (rv.broken && rv.received.Load() >= int64(pages))) && streamed >= pages && viewersGot.Load() >= viewersWant.Load() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopViewers()
	viewers.Wait()
	stopAgent()

	mu.Lock()
	defer mu.Unlock()
	rv.mu.Lock()
	defer rv.mu.Unlock()
	agentMu.Lock()
	defer agentMu.Unlock()
	var cbLat []time.Duration
	missingCB := 0
	for id, at := range decided {
		got, ok := rv.got[id]
		if !ok {
			missingCB++
			continue
		}
		cbLat = append(cbLat, max(0, got.Sub(at)))
	}
	missingStream, dupStream := 0, 0
	for id := range decided {
		switch c := agentSeen[id]; {
		case c == 0:
			missingStream++
		case c > 1:
			dupStream += c - 1
		}
	}
	_, lat, errs := all.Summary()
	_, pubLat, _ := publishes.Summary()
	_, actLat, _ := acts.Summary()
	cb := Percentiles(cbLat)
	res := &Result{Scenario: "mixed", Operations: pages, Seconds: elapsed.Seconds(), Unit: "pages/s (publish, watch, race, decide, comment)",
		Latency: lat, Errors: errs,
		Params: map[string]any{"concurrency": o.Concurrency, "transport": o.Transport, "payload_bytes": o.PayloadBytes},
		Extra: map[string]float64{"publish_p99_ms": pubLat.P99, "act_p99_ms": actLat.P99, "callback_p99_ms": cb.P99,
			"viewers": float64(viewersWant.Load())}}
	res.check("one winner per page", wrongRaces == 0 && pages > 0, "%d pages decided, %d without exactly one 200 and one 409", pages, wrongRaces)
	res.check("every decision on the agent stream exactly once", missingStream == 0 && dupStream == 0, "%d missing, %d duplicated", missingStream, dupStream)
	var whys []string
	viewerWhy.Range(func(k, v any) bool {
		whys = append(whys, fmt.Sprintf("%d %s", v.(*atomic.Int64).Load(), k))
		return true
	})
	sort.Strings(whys)
	detail := fmt.Sprintf("%d of %d viewers", viewersGot.Load(), viewersWant.Load())
	if len(whys) > 0 {
		detail += "; the others: " + strings.Join(whys, "; ")
	}
	res.check("every viewer saw its page decided", viewersGot.Load() == viewersWant.Load(), "%s", detail)
	res.check("every decision called back with a valid signature", missingCB == 0 && rv.invalid.Load() == 0,
		"%d missing, %d with an invalid signature", missingCB, rv.invalid.Load())
	return res, nil
}

// pageOf reads pageId from an event payload.
func pageOf(raw json.RawMessage) string {
	var m struct {
		PageID string `json:"pageId"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.PageID
}
