package bench

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"folio/transport/client"
)

// waitScenario: o.Subscribers agents long-poll one page's decision at once
// (GET /v1/pages/:id/wait), then a person approves it. Measured: the server's memory
// per waiting request (RSS growth while they wait, meaningful with a separate server
// process), its goroutines per waiting request (0 where waits park), and for each waiter the time from the approval being sent to its answer
// (the p50/p99 of the run, and when the last one answered). Check: every waiter
// got the decision.
func waitScenario(ctx context.Context, t *Target, o Options) (*Result, error) {
	raiseFileLimit()
	key, err := t.Register(ctx, "bench-wait")
	if err != nil {
		return nil, err
	}
	var pub struct {
		PageID string `json:"pageId"`
	}
	if st, err := t.Call(ctx, "POST", "/v1/publish", key, pageBody(0, 0), &pub); err != nil || st != 201 {
		return nil, fmt.Errorf("publish: %s", statusCode(st, err))
	}
	goroutinesBefore := t.metric(ctx, "go_goroutines")
	_, rssBefore, _ := t.usageSample(ctx)
	stackBefore := t.metric(ctx, "go_memstats_stack_inuse_bytes")
	heapBefore := t.metric(ctx, "go_memstats_heap_inuse_bytes") + stackBefore

	// Each waiter is an agent with a connection of its own, waiting through the
	// typed client as an agent would; waiter i waits on node i mod N, and the
	// approval goes through the first node.
	own := client.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableKeepAlives: true}})
	answered := make([]time.Time, o.Subscribers)
	var decided atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, o.Subscribers)
	for i := range o.Subscribers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := client.New(t.On(i).URL, key, own).Wait(ctx, pub.PageID, 5*time.Minute)
			if err != nil {
				errs <- err
				return
			}
			answered[i] = time.Now()
			if out.Decision == "approved" {
				decided.Add(1)
			}
		}()
	}
	// Every waiter holds a place on its node while it waits (folio_open_held
	// {kind="waits"}; a parked waiter holds no goroutine to count): once the nodes
	// together hold that many, they are all registered.
	deadline := time.Now().Add(120 * time.Second)
	for held := int(t.metric(ctx, heldWaits)); held < o.Subscribers; held = int(t.metric(ctx, heldWaits)) {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("only %d of %d waiters arrived", held, o.Subscribers)
		}
		select {
		case err := <-errs:
			return nil, fmt.Errorf("a waiter failed: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	time.Sleep(500 * time.Millisecond) // let the server settle before measuring memory
	cpu0, rssWaiting, _ := t.usageSample(ctx)
	stackWaiting := t.metric(ctx, "go_memstats_stack_inuse_bytes")
	goroutinesWaiting := t.metric(ctx, "go_goroutines")
	heapWaiting := t.metric(ctx, "go_memstats_heap_inuse_bytes") + stackWaiting

	start := time.Now()
	st, err := t.Call(ctx, "POST", "/v1/pages/"+pub.PageID+"/actions/approve", key, []byte(`{"actor":{"identity":"bench@example.com"}}`), nil)
	if err != nil || st != 200 {
		return nil, fmt.Errorf("approve: %s", statusCode(st, err))
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, _, _ := t.usageSample(ctx)
	lat := make([]time.Duration, 0, o.Subscribers)
	var last time.Duration
	for _, at := range answered {
		if at.IsZero() {
			continue
		}
		d := at.Sub(start)
		lat = append(lat, d)
		last = max(last, d)
	}
	res := &Result{Scenario: "wait", Operations: len(lat), Seconds: elapsed.Seconds(), Unit: "answers/s",
		Latency: Percentiles(lat), Errors: map[string]int{},
		Params: map[string]any{"waiters": o.Subscribers}, Extra: map[string]float64{"all_answered_ms": float64(last) / float64(time.Millisecond)}}
	if o.Subscribers > 0 && rssWaiting > rssBefore {
		res.Extra["server_kib_per_waiter"] = (rssWaiting - rssBefore) * 1024 / float64(o.Subscribers)
	}
	if o.Subscribers > 0 && heapWaiting > heapBefore {
		// Heap and stacks in use: what the waiters hold, without the room the
		// collector's pacing leaves in RSS.
		res.Extra["server_heap_stack_kib_per_waiter"] = (heapWaiting - heapBefore) / 1024 / float64(o.Subscribers)
		res.Extra["server_stack_kib_per_waiter"] = (stackWaiting - stackBefore) / 1024 / float64(o.Subscribers)
	}
	if o.Subscribers > 0 {
		res.Extra["server_goroutines_per_waiter"] = (goroutinesWaiting - goroutinesBefore) / float64(o.Subscribers)
	}
	if n := len(lat); n > 0 {
		res.Extra["server_cpu_us_per_answer"] = (cpu1 - cpu0) * 1e6 / float64(n)
	}
	if missed := o.Subscribers - int(decided.Load()); missed > 0 {
		res.Errors["no decision"] = missed
	}
	res.check("every waiter got the decision", decided.Load() == int64(o.Subscribers), "%d of %d waiters answered approved", decided.Load(), o.Subscribers)
	return res, nil
}

// heldWaits is the series of the long-polls a node holds open.
const heldWaits = `folio_open_held{kind="waits"}`

// metric is one value of the servers' /metrics, summed over the target's nodes
// (this process's when the server runs in it); 0 when no node answers.
func (t *Target) metric(ctx context.Context, name string) float64 {
	var sum float64
	for _, n := range t.Nodes {
		var v float64
		err := n.scrape(ctx, func(line string) {
			if x, ok := metricValue(line, name); ok {
				v = x
			}
		})
		if err == nil {
			sum += v
		}
	}
	return sum
}
