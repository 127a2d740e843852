package realtime_test

import (
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestMaxLivePagesEvictsButKeepsWatchedPages: past --max-live-pages the least
// recently used pages passivate and come back from storage intact, while a page with
// a live viewer is never evicted: its stream keeps delivering.
func TestMaxLivePagesEvictsButKeepsWatchedPages(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.MaxLivePages = 2 })
	key, _ := e.Register("evictions")
	watched := e.Publish(key, nil)
	c := openSSE(t, e, "/v1/pages/"+watched+"/events", "", "")
	c.expect("connected")

	var ids []string
	for i := 0; i < 8; i++ {
		ids = append(ids, e.Publish(key, nil))
	}
	deadline := time.Now().Add(10 * time.Second)
	for nodetest.Metric(t, e.Srv.URL, "folio_actors_passivated_total") < 6 {
		if time.Now().After(deadline) {
			t.Fatalf("%v pages passivated with 9 live and a bound of 2, want at least 6",
				nodetest.Metric(t, e.Srv.URL, "folio_actors_passivated_total"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Every evicted page reloads with its state: one execution wins, the next is 409.
	for _, id := range ids {
		if r := e.Do("POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{}); r.Status != 200 {
			t.Fatalf("approve %s after eviction: %d %s", id, r.Status, r.Body)
		}
	}
	for _, id := range ids {
		if r := e.Do("POST", "/v1/pages/"+id+"/actions/reject", key, map[string]any{}); r.Status != 409 {
			t.Fatalf("second execution on %s: %d, want 409", id, r.Status)
		}
	}
	// The watched page stayed live through all of it: its viewer still hears it.
	if r := e.Do("POST", "/v1/pages/"+watched+"/actions/approve", key, map[string]any{}); r.Status != 200 {
		t.Fatalf("approve the watched page: %d %s", r.Status, r.Body)
	}
	if m, _ := c.expect("action.executed"); m.data()["actionId"] != "approve" {
		t.Fatalf("watched page event: %s", m.Raw)
	}
}

// TestDonePagesPassivateSoonerUnlessWatched: a page no action is left to take on
// passivates after --idle-after-done instead of --idle-after and comes back intact;
// an active page keeps the longer period, and a watched done page stays live.
func TestDonePagesPassivateSoonerUnlessWatched(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.IdleAfter = time.Minute; c.IdleAfterDone = 100 * time.Millisecond })
	key, _ := e.Register("done-pages")
	open, decided, watched := e.Publish(key, nil), e.Publish(key, nil), e.Publish(key, nil)
	c := openSSE(t, e, "/v1/pages/"+watched+"/events", "", "")
	c.expect("connected")
	before := nodetest.Metric(t, e.Srv.URL, "folio_actors_passivated_total")
	for _, id := range []string{decided, watched} {
		e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{})
	}
	deadline := time.Now().Add(10 * time.Second)
	for nodetest.Metric(t, e.Srv.URL, "folio_actors_passivated_total") < before+1 {
		if time.Now().After(deadline) {
			t.Fatal("the decided page did not passivate within 10 s of a 100 ms period for done pages")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // five more periods: nothing else may go
	if got := nodetest.Metric(t, e.Srv.URL, "folio_actors_passivated_total"); got != before+1 {
		t.Fatalf("%v actors passivated, want exactly the decided page (the active one has a minute, the watched one a viewer)", got-before)
	}
	if p := e.Must(200, "GET", "/v1/pages/"+decided, key, nil); p["status"] != "completed" {
		t.Fatalf("the decided page after passivation: %v", p["status"])
	}
	if p := e.Must(200, "GET", "/v1/pages/"+open, key, nil); p["status"] != "active" {
		t.Fatalf("the open page: %v", p["status"])
	}
	// The watched page stayed live and its viewer connected; the viewer heard the
	// decision and nothing closed its stream.
	if m, _ := c.expect("action.executed"); m.data()["actionId"] != "approve" {
		t.Fatalf("watched page event: %s", m.Raw)
	}
	if n := subscribers(t, e); n != 1 {
		t.Fatalf("%d live subscribers after the period, want the watched page's viewer", n)
	}
}
