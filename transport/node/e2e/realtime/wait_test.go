package realtime_test

import (
	"sync"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

func waitPage(t *testing.T, e *nodetest.Env, key string) string {
	t.Helper()
	return e.Must(201, "POST", "/v1/publish", key, map[string]any{
		"title": "Ship it?", "blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "x"}}},
		"actions": []any{map[string]any{"action_id": "approve", "label": "Approve"}, map[string]any{"action_id": "reject", "label": "Reject"}},
	})["pageId"].(string)
}

// TestWaitAnswersWhenThePersonDecides: fifty agents wait on one page; a person
// approves with a comment; every wait answers with the decision, the action's data,
// who decided and how it was verified.
func TestWaitAnswersWhenThePersonDecides(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("waiter")
	id := waitPage(t, e, key)
	const n = 50
	answers := make([]map[string]any, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=20s", key, nil)
		}()
	}
	// The waits are registered once the page holds their subscriptions; a decision
	// made before some of them arrive is answered at once, which is just as right.
	time.Sleep(50 * time.Millisecond)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}, "comment": "Go ahead"})
	wg.Wait()
	for i, a := range answers {
		data, _ := a["data"].(map[string]any)
		actor, _ := a["actor"].(map[string]any)
		if a["status"] != "completed" || a["decision"] != "approved" || a["timed_out"] != false ||
			data["action_id"] != "approve" || data["action_label"] != "Approve" || data["comment"] != "Go ahead" ||
			actor["identity"] != "ann@example.com" || actor["auth_method"] != "api_key" {
			t.Fatalf("wait %d answered %v", i, a)
		}
	}
	// Already decided: at once.
	start := time.Now()
	a := e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=60s", key, nil)
	if a["decision"] != "approved" || time.Since(start) > 5*time.Second {
		t.Fatalf("a wait on a decided page: %v after %v", a, time.Since(start))
	}
}

// TestWaitTimesOutWithThePageStillOpen: nobody decides; the wait answers when its
// timeout passes, saying the page is still active.
func TestWaitTimesOutWithThePageStillOpen(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("patient")
	id := waitPage(t, e, key)
	start := time.Now()
	a := e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=1", key, nil)
	if a["status"] != "active" || a["timed_out"] != true || a["decision"] != nil || a["data"] != nil {
		t.Fatalf("timed-out wait answered %v", a)
	}
	if took := time.Since(start); took < time.Second || took > 10*time.Second {
		t.Fatalf("a 1 s wait took %v", took)
	}
}

// TestWaitEndsWhenThePageIsWithdrawn: a revoke ends the wait with the page's new
// status and no decision.
func TestWaitEndsWhenThePageIsWithdrawn(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("withdrawn")
	id := waitPage(t, e, key)
	done := make(chan map[string]any, 1)
	go func() { done <- e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=20s", key, nil) }()
	time.Sleep(50 * time.Millisecond)
	e.Must(200, "POST", "/v1/pages/"+id+"/revoke", key, map[string]any{"reason": "obsolete"})
	select {
	case a := <-done:
		if a["status"] != "revoked" || a["decision"] != nil || a["timed_out"] != false {
			t.Fatalf("wait answered %v", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end when the page was revoked")
	}
}

// TestWaitChecksItsInput: another tenant's page is 404 at once, no key 401, a bad
// timeout 400.
func TestWaitChecksItsInput(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("owner")
	other, _ := e.Register("other")
	id := waitPage(t, e, key)
	// At once, not when the wait would end: a wait on a page of another tenant
	// (public pages take anyone's subscription) tells nothing of its decision.
	start := time.Now()
	if r := e.Do("GET", "/v1/pages/"+id+"/wait?timeout=60s", other, nil); r.Status != 404 || time.Since(start) > 10*time.Second {
		t.Errorf("another tenant's key: %d after %v, want 404 at once", r.Status, time.Since(start).Round(time.Millisecond))
	}
	if r := e.Do("GET", "/v1/pages/"+id+"/wait", "", nil); r.Status != 401 {
		t.Errorf("no key: %d", r.Status)
	}
	for _, bad := range []string{"soon", "-1s", "10m", "0"} {
		if r := e.Do("GET", "/v1/pages/"+id+"/wait?timeout="+bad, key, nil); r.Status != 400 || r.ErrDetails(t)["field"] != "timeout" {
			t.Errorf("timeout=%s: %d %s", bad, r.Status, r.Body)
		}
	}
}

// TestWaitsArePerCredentialBounded: with limits on, one API key holds at most
// --waits-per-credential (3 here) waits open; the next is 429 RATE_LIMITED naming
// the credential, with Retry-After, while another key of the same tenant still
// waits; once the page is decided the three answer and the key may wait again.
func TestWaitsArePerCredentialBounded(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.EnforceLimits, c.WaitsPerCredential = true, 3 })
	key, _ := e.Register("many-waits")
	id := waitPage(t, e, key)
	answers := make(chan map[string]any, 3)
	for range 3 {
		go func() { answers <- e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=30s", key, nil) }()
	}
	eventually(t, 5*time.Second, "the key's three waits held", func() bool {
		return nodetest.Metric(t, e.Srv.URL, `folio_open_held{kind="waits"}`) == 3
	})
	refused := e.Do("GET", "/v1/pages/"+id+"/wait?timeout=1ms", key, nil)
	d := refused.ErrDetails(t)
	if refused.ErrCode(t) != "RATE_LIMITED" || d["scope"] != "credential" || d["limit"] != "open_waits" || d["max_open"] != 3.0 {
		t.Fatalf("the fourth wait: %d %s", refused.Status, refused.Body)
	}
	if ra := refused.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	other := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "second"})["key"].(string)
	if a := e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=1ms", other, nil); a["timed_out"] != true {
		t.Fatalf("another key's wait: %v", a)
	}
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	for range 3 {
		if a := <-answers; a["decision"] != "approved" {
			t.Fatalf("a held wait answered %v", a)
		}
	}
	e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=1s", key, nil) // its places are back
}

// TestAWaitThatRanOutIsResumedAndLosesNoDecision: a wait that reaches its timeout
// says the page is still pending (status active, timed_out); a person decides
// while no wait is open; the next wait answers that decision at once.
func TestAWaitThatRanOutIsResumedAndLosesNoDecision(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("resumer")
	id := waitPage(t, e, key)
	if a := e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=1", key, nil); a["status"] != "active" || a["timed_out"] != true {
		t.Fatalf("the first wait: %v", a)
	}
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/reject", key, map[string]any{"actor": map[string]any{"identity": "bo@example.com"}, "comment": "Not now"})
	start := time.Now()
	a := e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=60s", key, nil)
	data, _ := a["data"].(map[string]any)
	actor, _ := a["actor"].(map[string]any)
	if a["status"] != "completed" || a["decision"] != "rejected" || a["timed_out"] != false || data["comment"] != "Not now" || actor["identity"] != "bo@example.com" {
		t.Fatalf("the wait after the decision: %v", a)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the wait after the decision took %v; it answers at once", took)
	}
}
