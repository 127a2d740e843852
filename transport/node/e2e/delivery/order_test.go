package delivery_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestCallbacksOfOnePageArriveInEventOrder: the events of one page reach one target
// in the order they happened. A receiver that answers each request after a random
// delay, and fails every page's first delivery once, still sees, for every page,
// action.executed, approval.step_completed and approval.chain_completed in that
// order: a delivery starts only once the one before it has succeeded (or given up),
// while pages proceed in parallel.
func TestCallbacksOfOnePageArriveInEventOrder(t *testing.T) {
	e := newOrderEnv(t)
	key, _ := e.Register("order")
	var mu sync.Mutex
	delivered := map[string][]string{} // pageId -> events in the order their 2xx answers began
	failedOnce := map[string]bool{}
	rv := newReceiver(t, func(_ int, h hit) (int, map[string]string, string) {
		var b struct {
			Event  string `json:"event"`
			PageID string `json:"page_id"`
		}
		_ = json.Unmarshal(h.Body, &b)
		time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond) // answers finish out of order
		mu.Lock()
		defer mu.Unlock()
		if !failedOnce[b.PageID] {
			failedOnce[b.PageID] = true
			return http.StatusInternalServerError, nil, ""
		}
		delivered[b.PageID] = append(delivered[b.PageID], b.Event)
		return 200, nil, ""
	})
	const pages = 12
	ids := make([]string, pages)
	for i := range ids {
		ids[i] = publish(e, key, map[string]any{
			"on_action": map[string]any{"default_url": rv.URL()},
			"approval_chain": map[string]any{"steps": []any{
				map[string]any{"step_id": "only", "name": "Owner", "assignees": []any{"alice@example.com"}}}},
		})["pageId"].(string)
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := act(e, key, id, "approve", "alice@example.com"); r.Status != 200 {
				t.Errorf("approve %s: %d %s", id, r.Status, r.Body)
			}
		}()
	}
	wg.Wait()
	want := []string{"action.executed", "approval.step_completed", "approval.chain_completed"}
	eventually(t, 20*time.Second, "every page's three callbacks", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			if len(delivered[id]) < len(want) {
				return false
			}
		}
		return true
	})
	mu.Lock()
	defer mu.Unlock()
	for _, id := range ids {
		if got := fmt.Sprint(delivered[id]); got != fmt.Sprint(want) {
			t.Errorf("page %s: callbacks delivered as %s, want %s", id, got, want)
		}
	}
}

// TestAWaitingDeliveryShowsWhatItWaitsFor: while the first callback of a page is
// failing, the next ones wait for it (no next attempt time, waitingFor names it) and
// a manual retry of a waiting one is refused; once the first has given up they go.
func TestAWaitingDeliveryShowsWhatItWaitsFor(t *testing.T) {
	e := newOrderEnv(t)
	key, _ := e.Register("wait")
	var mu sync.Mutex
	down := true
	rv := newReceiver(t, func(int, hit) (int, map[string]string, string) {
		mu.Lock()
		defer mu.Unlock()
		if down {
			return 503, nil, ""
		}
		return 200, nil, ""
	})
	id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": rv.URL(),
		"retry": map[string]any{"max_attempts": 3, "backoff": "fixed", "initial_delay_seconds": 0.3}},
		"approval_chain": map[string]any{"steps": []any{
			map[string]any{"step_id": "only", "name": "Owner", "assignees": []any{"alice@example.com"}}}}})["pageId"].(string)
	if r := act(e, key, id, "approve", "alice@example.com"); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	first := deliveryFor(t, e, key, id, "action.executed")
	step := deliveryFor(t, e, key, id, "approval.step_completed")
	if step["waitingFor"] != first["id"] || step["nextAttemptAt"] != nil || step["status"] != "pending" {
		t.Fatalf("the second delivery while the first fails: %v", step)
	}
	if r := e.Do("POST", "/v1/deliveries/"+step["id"].(string)+"/retry", key, nil); r.Status != 409 || r.ErrDetails(t)["status"] != "waiting" {
		t.Fatalf("manual retry of a waiting delivery: %d %s", r.Status, r.Body)
	}
	eventually(t, 10*time.Second, "the first delivery to give up", func() bool {
		return deliveryFor(t, e, key, id, "action.executed")["status"] == "failed"
	})
	mu.Lock()
	down = false
	mu.Unlock()
	rv.waitEvents("approval.chain_completed", 1, 10*time.Second)
	if got := deliveryFor(t, e, key, id, "approval.step_completed"); got["status"] != "succeeded" || got["waitingFor"] != nil {
		t.Fatalf("after the first gave up: %v", got)
	}
}

func newOrderEnv(t *testing.T) *nodetest.Env {
	return nodetest.New(t, allowPrivate, func(c *node.Config) {
		c.CallbackSchedule = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond}
	})
}
