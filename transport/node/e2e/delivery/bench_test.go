package delivery_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// BenchmarkActionToCallback publishes pages whose on_action points at a local
// receiver, executes one action on each from parallel clients, and reports callbacks
// per second (first action to last callback) and the latency from sending the action
// request to the receiver getting the signed callback (p50, p99).
func BenchmarkActionToCallback(b *testing.B) {
	const pages, clients = 2000, 32
	var mu sync.Mutex
	got := map[string]time.Time{}
	rv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			PageID string `json:"page_id"`
		}
		body, _ := io.ReadAll(r.Body)
		now := time.Now()
		if json.Unmarshal(body, &ev) == nil {
			mu.Lock()
			if _, seen := got[ev.PageID]; !seen {
				got[ev.PageID] = now
			}
			mu.Unlock()
		}
		w.WriteHeader(204)
	}))
	defer rv.Close()
	var all, actions []time.Duration
	var rate []float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := nodetest.New(b, allowPrivate)
		key, _ := e.Register(fmt.Sprintf("bench-%d", i))
		ids := make([]string, pages)
		work := make(chan int)
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range work {
					ids[j] = publish(e, key, map[string]any{"on_action": map[string]any{"default_url": rv.URL, "hmac_secret": "bench", "events": []any{"action.executed"}}})["pageId"].(string)
				}
			}()
		}
		for j := 0; j < pages; j++ {
			work <- j
		}
		close(work)
		wg.Wait()
		// Actions go straight to the node's handler (not through the test harness's
		// OpenAPI checker, which would dominate the measurement).
		direct := httptest.NewServer(e.Node.Handler())
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
		sent := make([]time.Time, pages)
		acked := make([]time.Duration, pages)
		b.StartTimer()
		start := time.Now()
		work = make(chan int)
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range work {
					req, _ := http.NewRequest("POST", direct.URL+"/v1/pages/"+ids[j]+"/actions/approve", nil)
					req.Header.Set("Authorization", "Bearer "+key)
					sent[j] = time.Now()
					res, err := client.Do(req)
					if err != nil || res.StatusCode != 200 {
						b.Errorf("action: %v %v", err, res)
						return
					}
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					acked[j] = time.Since(sent[j])
				}
			}()
		}
		for j := 0; j < pages; j++ {
			work <- j
		}
		close(work)
		wg.Wait()
		deadline := time.Now().Add(30 * time.Second)
		var last time.Time
		for {
			mu.Lock()
			n := 0
			for _, id := range ids {
				if at, ok := got[id]; ok {
					n++
					if at.After(last) {
						last = at
					}
				}
			}
			mu.Unlock()
			if n == pages {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d callbacks arrived", n, pages)
			}
			time.Sleep(2 * time.Millisecond)
		}
		b.StopTimer()
		rate = append(rate, float64(pages)/last.Sub(start).Seconds())
		mu.Lock()
		for j, id := range ids {
			all = append(all, got[id].Sub(sent[j]))
		}
		mu.Unlock()
		actions = append(actions, acked...)
		direct.Close()
		e.Close()
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	sort.Slice(actions, func(i, j int) bool { return actions[i] < actions[j] })
	b.ReportMetric(float64(actions[len(actions)/2].Microseconds())/1000, "action-p50-ms")
	sort.Float64s(rate)
	b.ReportMetric(rate[len(rate)/2], "callbacks/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
}
