package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// actScenario: many parallel executions of the actions of each page (o.Racers per
// page, on distinct pages spread over the workers, and over the target's nodes: a
// page's racers meet on different nodes). Check: exactly one 200 per page, every
// other execution 409.
func actScenario(ctx context.Context, t *Target, o Options) (*Result, error) {
	return actOn(ctx, t, o, "act")
}

// actDistinctScenario: one execution per page, every worker on a page of its own,
// so each execution is a winning, committing one (with racers, seven in eight are
// 409s answered before any write, which hides the cost of a decision). Check: every
// execution won.
func actDistinctScenario(ctx context.Context, t *Target, o Options) (*Result, error) {
	o.Racers = 1
	if o.Count <= 0 {
		o.Count = 10000 // pages: enough executions for a steady p99
	}
	return actOn(ctx, t, o, "act-distinct")
}

// actOn publishes the pages through the first node, then runs o.Racers executions
// of each under name. Racer r of page p talks to node p+r mod N: a page's racers
// spread over min(racers, N) nodes, so the one-winner check holds across nodes,
// and the node of a page's first racer turns with the page. With o.Affinity every
// racer of page p talks to node p mod N, as behind the documented balancer.
func actOn(ctx context.Context, t *Target, o Options, name string) (*Result, error) {
	key, err := t.Register(ctx, "bench-actor")
	if err != nil {
		return nil, err
	}
	pages := o.Count
	if pages <= 0 {
		pages = 2000
	}
	ids := make([]string, pages)
	var next atomic.Int64
	var wg sync.WaitGroup
	var setupErr atomic.Value
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < pages; i = int(next.Add(1)) - 1 {
				var out struct {
					PageID string `json:"pageId"`
				}
				if st, err := t.Call(ctx, "POST", "/v1/publish", key, pageBody(i, 0), &out); err != nil || st != 201 {
					setupErr.Store(statusCode(st, err))
					return
				}
				ids[i] = out.PageID
			}
		}()
	}
	wg.Wait()
	if e := setupErr.Load(); e != nil {
		return nil, fmt.Errorf("publishing the pages to act on: %v", e)
	}
	rec := NewRecorder()
	wins := make([]atomic.Int32, pages)
	var conflicts atomic.Int64
	body := []byte(`{"actor":{"identity":"reviewer@example.com"},"comment":"looks good"}`)
	o.Count = pages * o.Racers
	elapsed := drive(ctx, "act", o, rec, func(ctx context.Context, i int) string {
		p, r := i/o.Racers, i%o.Racers
		action := "approve"
		if i%2 == 1 {
			action = "reject"
		}
		node := p + r
		if o.Affinity {
			node = p
		}
		st, err := t.On(node).Call(ctx, "POST", "/v1/pages/"+ids[p]+"/actions/"+action, key, body, nil)
		switch {
		case err == nil && st == 200:
			wins[p].Add(1)
			return ""
		case err == nil && st == 409:
			conflicts.Add(1)
			return "" // the expected answer for every loser
		}
		return statusCode(st, err)
	})
	n, lat, errs := rec.Summary()
	res := &Result{Scenario: name, Operations: n, Seconds: elapsed.Seconds(), Unit: "executions/s", Latency: lat, Errors: errs,
		Params: map[string]any{"concurrency": o.Concurrency, "pages": pages, "racers_per_page": o.Racers, "affinity": o.Affinity}}
	bad := 0
	for i := range wins {
		if wins[i].Load() != 1 {
			bad++
		}
	}
	res.check("exactly one winner per page", bad == 0, "%d pages, %d without exactly one winner, %d conflicts (409)", pages, bad, conflicts.Load())
	return res, nil
}
