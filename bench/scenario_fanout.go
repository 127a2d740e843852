package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// fanoutScenario: o.Subscribers viewers watch one public page over SSE or WebSocket
// while comments are added at o.Rate per second (o.Count of them, or for
// o.Duration). Each comment carries its send time, so every viewer measures delivery
// latency. The page and its comments go through the first node and viewer i watches
// through node i mod N, so with several nodes most viewers need events from another
// node. Checks: every viewer got every event exactly once, in order. Extra: server
// CPU µs per delivered event and server memory per idle subscriber (meaningful with a
// separate server process; summed over the nodes).
func fanoutScenario(ctx context.Context, t *Target, o Options) (*Result, error) {
	raiseFileLimit()
	key, err := t.Register(ctx, "bench-fanout")
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

	_, rssBefore, _ := t.usageSample(ctx)
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type viewer struct {
		got     []int
		lat     []time.Duration
		ordered bool
	}
	viewers := make([]*viewer, o.Subscribers)
	var connected, finished atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, o.Subscribers)
	for i := range viewers {
		v := &viewer{ordered: true}
		viewers[i] = v
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := t.On(i).Subscribe(subCtx, o.Transport, "/v1/pages/"+pub.PageID+"/events", "", "", func(m Message) bool {
				now := time.Now()
				switch m.Type {
				case "connected":
					connected.Add(1)
				case "comment.added":
					n, sent, ok := benchStamp(m.Data)
					if !ok {
						return true
					}
					if len(v.got) > 0 && n <= v.got[len(v.got)-1] {
						v.ordered = false
					}
					v.got = append(v.got, n)
					v.lat = append(v.lat, now.Sub(sent))
					if len(v.got) == events {
						finished.Add(1)
					}
				}
				return true
			})
			if err != nil && subCtx.Err() == nil {
				errs <- err
			}
		}()
	}
	// Wait for every viewer's `connected` event.
	deadline := time.Now().Add(60 * time.Second)
	for connected.Load() < int64(o.Subscribers) {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("only %d of %d viewers connected", connected.Load(), o.Subscribers)
		}
		select {
		case err := <-errs:
			return nil, fmt.Errorf("a viewer failed to connect: %w", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	time.Sleep(500 * time.Millisecond) // let the server settle before measuring idle memory
	cpu0, rssIdle, _ := t.usageSample(ctx)

	rec := NewRecorder()
	start := time.Now()
	interval := time.Duration(float64(time.Second) / o.Rate)
	for n := 0; n < events && ctx.Err() == nil; n++ {
		if d := time.Until(start.Add(time.Duration(n) * interval)); d > 0 {
			time.Sleep(d)
		}
		body := fmt.Sprintf(`{"content":"bench %d %d","author_name":"bench","author_type":"agent"}`, n, time.Now().UnixNano())
		t0 := time.Now()
		st, err := t.Call(ctx, "POST", "/v1/pages/"+pub.PageID+"/comments", key, []byte(body), nil)
		if err != nil || st != 201 {
			rec.Fail(statusCode(st, err))
			continue
		}
		rec.OK(time.Since(t0))
	}
	waitUntil := time.Now().Add(15 * time.Second)
	for finished.Load() < int64(o.Subscribers) && time.Now().Before(waitUntil) {
		time.Sleep(20 * time.Millisecond)
	}
	elapsed := time.Since(start)
	cpu1, _, _ := t.usageSample(ctx)
	cancel()
	wg.Wait()

	var all []time.Duration
	complete, inOrder, deliveries := 0, 0, 0
	for _, v := range viewers {
		deliveries += len(v.got)
		all = append(all, v.lat...)
		if len(v.got) == events {
			complete++
		}
		if v.ordered {
			inOrder++
		}
	}
	_, _, sendErrs := rec.Summary()
	res := &Result{Scenario: "fanout", Operations: deliveries, Seconds: elapsed.Seconds(), Unit: "deliveries/s",
		Latency: Percentiles(all), Errors: sendErrs,
		Params: map[string]any{"subscribers": o.Subscribers, "events": events, "rate_per_s": o.Rate, "transport": o.Transport},
		Extra:  map[string]float64{}}
	if deliveries > 0 {
		res.Extra["server_cpu_us_per_delivery"] = (cpu1 - cpu0) * 1e6 / float64(deliveries)
	}
	// The server's resident memory before the viewers connect (a fresh server holding
	// one page), and with all of them connected and idle.
	res.Extra["server_rss_mib_before_viewers"] = rssBefore
	res.Extra["server_rss_mib_idle_viewers"] = rssIdle
	if o.Subscribers > 0 && rssIdle > rssBefore {
		res.Extra["server_kib_per_idle_subscriber"] = (rssIdle - rssBefore) * 1024 / float64(o.Subscribers)
	}
	res.check("every viewer got every event", complete == o.Subscribers, "%d of %d viewers got all %d events", complete, o.Subscribers, events)
	res.check("events in order, no duplicates", inOrder == o.Subscribers, "%d of %d viewers saw strictly increasing events", inOrder, o.Subscribers)
	return res, nil
}

// benchStamp reads "bench <n> <unixnano>" from a comment.added payload.
func benchStamp(raw json.RawMessage) (int, time.Time, bool) {
	if content, ok := plainField(raw, `"content":"`); ok {
		return parseStamp(content)
	}
	var m struct {
		Data struct {
			Content string `json:"content"`
		} `json:"data"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return 0, time.Time{}, false
	}
	return parseStamp(m.Data.Content)
}

// parseStamp reads "bench <n> <unix nanoseconds>".
func parseStamp(content string) (int, time.Time, bool) {
	f := strings.Fields(content)
	if len(f) != 3 || f[0] != "bench" {
		return 0, time.Time{}, false
	}
	n, err1 := strconv.Atoi(f[1])
	ns, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, time.Time{}, false
	}
	return n, time.Unix(0, ns), true
}

// raiseFileLimit lifts this process's open-file limit to its hard limit (thousands
// of viewers need thousands of sockets); a server process started afterwards
// inherits it.
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}
