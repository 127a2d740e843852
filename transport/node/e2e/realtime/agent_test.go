package realtime_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestAgentReplayAcrossRandomDrops: 1,000 events are published on two pages by
// parallel writers while an agent reads its stream, dropping the connection at
// random points (also in the middle of a replay) and reconnecting with
// Last-Event-ID, alternately over SSE (header) and WebSocket (?last_event_id=). The
// union of what it received is every event exactly once, and ids increase strictly
// across all connections.
func TestAgentReplayAcrossRandomDrops(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("replayer")
	pages := []string{e.Publish(key, nil), e.Publish(key, nil)}
	const events = 1000

	var published atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := published.Add(1)
				if n > events {
					return
				}
				comment(t, e, key, pages[n%2], fmt.Sprintf("c%04d", n))
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	rng := rand.New(rand.NewPCG(7, 11))
	seen := map[uint64]int{}
	comments := map[string]bool{}
	var last uint64
	lastID := "0" // from the very first event
	conns, resets := 0, 0
	finished := false
	deadline := time.Now().Add(120 * time.Second)
	for !finished {
		if time.Now().After(deadline) {
			t.Fatalf("gave up: %d events seen, last id %d, %d connections", len(seen), last, conns)
		}
		var c *client
		var err error
		if conns%2 == 0 {
			c, err = dialSSE(e, "/v1/agent/events", key, lastID)
		} else {
			path := "/v1/agent/events"
			if lastID != "" {
				path += "?last_event_id=" + lastID
			}
			c, err = dialWS(e, path, key)
		}
		if err != nil {
			t.Fatalf("connection %d: %v", conns, err)
		}
		c.t = t
		conns++
		budget := 1 + rng.IntN(60)
		if conns%7 == 0 {
			budget = 1 + rng.IntN(3) // drop right inside a replay
		}
	read:
		for budget > 0 {
			select {
			case m := <-c.msgs:
				switch m.Type {
				case "connected":
					continue
				case "reset":
					resets++
					continue
				}
				id, err := strconv.ParseUint(m.ID, 10, 64)
				if err != nil || id <= last {
					t.Fatalf("connection %d: id %q after %d (%s)", conns, m.ID, last, m.Raw)
				}
				last, lastID = id, m.ID
				seen[id]++
				if m.Type == "comment.added" {
					comments[m.data()["content"].(string)] = true
				}
				budget--
			case <-time.After(2 * time.Second):
				select {
				case <-done:
					finished = len(comments) == events
				default:
				}
				break read
			}
		}
		c.Close()
		if len(comments) == events {
			finished = true
		}
		if rng.IntN(3) == 0 {
			time.Sleep(time.Duration(rng.IntN(10)) * time.Millisecond)
		}
	}
	<-done
	if resets != 0 {
		t.Fatalf("%d resets without retention pressure", resets)
	}
	total := uint64(events + 4) // two pages: created + published each
	for id := uint64(1); id <= total; id++ {
		if seen[id] != 1 {
			t.Fatalf("event %d seen %d times (of %d events, %d connections)", id, seen[id], total, conns)
		}
	}
	if len(seen) != int(total) {
		t.Fatalf("seen %d distinct events, want %d", len(seen), total)
	}
	t.Logf("%d events over %d connections", len(seen), conns)
}

// TestAgentReplayResetsBeyondRetention: with retention of 5 events, asking to resume
// from an id that is no longer kept yields a `reset` event (with the oldest id
// still kept), then the retained events; an id from the future is reset too; the
// inbox keeps only retained events.
func TestAgentReplayResetsBeyondRetention(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.AgentRetention = 5 })
	key, _ := e.Register("forgetful")
	id := e.Publish(key, nil) // events 1, 2
	for i := 0; i < 8; i++ {
		comment(t, e, key, id, fmt.Sprintf("c%d", i)) // events 3..10
	}
	c := openSSE(t, e, "/v1/agent/events", key, "2")
	ms := c.collect(5*time.Second, func(ms []msg) bool { return len(ms) >= 7 })
	if ms[0].Type != "connected" || ms[0].Payload["latestId"] != "10" {
		t.Fatalf("first: %s", ms[0].Raw)
	}
	if ms[1].Type != "reset" || ms[1].ID != "" || ms[1].data()["reason"] != "expired" || ms[1].data()["oldestId"] != "6" || ms[1].data()["lastEventId"] != "2" {
		t.Fatalf("reset: %s", ms[1].Raw)
	}
	for i, m := range ms[2:] {
		if m.ID != strconv.Itoa(6+i) {
			t.Fatalf("after the reset: %v", types(ms))
		}
	}
	comment(t, e, key, id, "live")
	if m := c.next(5 * time.Second); m.ID != "11" {
		t.Fatalf("live after replay: %s", m.Raw)
	}
	// An id the server never issued.
	w := openWS(t, e, "/v1/agent/events?last_event_id=999", key)
	w.expect("connected")
	if m := w.next(5 * time.Second); m.Type != "reset" || m.data()["reason"] != "unknown_id" {
		t.Fatalf("future id: %s", m.Raw)
	}
	// Retained, unacknowledged: 7..11.
	in := e.Must(200, "GET", "/v1/agent/inbox", key, nil)
	if in["total"] != 5.0 || len(in["events"].([]any)) != 5 || in["events"].([]any)[0].(map[string]any)["id"] != "7" {
		t.Fatalf("inbox: %v", in)
	}
	if r := e.Must(200, "GET", "/v1/agent/inbox/count", key, nil); r["count"] != 5.0 {
		t.Fatalf("count: %v", r)
	}
}

// TestAgentInboxAndAcks: the inbox lists unacknowledged events oldest first with
// limit/offset and total; acknowledging (by stream id or eventId) removes them, is
// idempotent, and is 404 for unknown ids or another tenant's; the page's event list
// shows acknowledgement state; the count follows.
func TestAgentInboxAndAcks(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("inboxer")
	other, _ := e.Register("other")
	id := e.Publish(key, nil)                                   // 1, 2
	comment(t, e, key, id, "one")                               // 3
	comment(t, e, key, id, "two")                               // 4
	e.Must(200, "POST", "/internal/pages/"+id+"/view", "", nil) // 5 page.viewed

	in := e.Must(200, "GET", "/v1/agent/inbox?limit=2&offset=1", key, nil)
	evs := in["events"].([]any)
	if in["total"] != 5.0 || len(evs) != 2 || in["limit"] != 2.0 || in["offset"] != 1.0 {
		t.Fatalf("inbox page: %v", in)
	}
	first := evs[0].(map[string]any)
	if first["id"] != "2" || first["type"] != "page.published" || first["pageId"] != id || first["acknowledged"] != false || first["eventId"] == nil {
		t.Fatalf("inbox event: %v", first)
	}
	if e.Must(200, "GET", "/v1/agent/inbox/count", key, nil)["count"] != 5.0 {
		t.Fatal("count before acks")
	}
	e.Must(204, "POST", "/v1/events/1/ack", key, nil)
	e.Must(204, "POST", "/v1/events/1/ack", key, nil) // idempotent
	e.Must(204, "POST", "/v1/events/"+first["eventId"].(string)+"/ack", key, nil)
	for _, bad := range []string{"999", "0", "evt_nope", "abc"} {
		if r := e.Do("POST", "/v1/events/"+bad+"/ack", key, nil); r.Status != 404 || r.ErrCode(t) != "NOT_FOUND" {
			t.Fatalf("ack %s: %d %s", bad, r.Status, r.Body)
		}
	}
	if r := e.Do("POST", "/v1/events/3/ack", other, nil); r.Status != 404 {
		t.Fatalf("another tenant's ack: %d", r.Status)
	}
	if r := e.Do("POST", "/v1/events/3/ack", "", nil); r.Status != 401 {
		t.Fatalf("ack without key: %d", r.Status)
	}
	in = e.Must(200, "GET", "/v1/agent/inbox", key, nil)
	var ids []string
	for _, ev := range in["events"].([]any) {
		ids = append(ids, ev.(map[string]any)["id"].(string))
	}
	if in["total"] != 3.0 || fmt.Sprint(ids) != "[3 4 5]" {
		t.Fatalf("inbox after acks: %v %v", in["total"], ids)
	}
	if e.Must(200, "GET", "/v1/agent/inbox/count", key, nil)["count"] != 3.0 {
		t.Fatal("count after acks")
	}
	if e.Must(200, "GET", "/v1/agent/inbox/count", other, nil)["count"] != 0.0 {
		t.Fatal("other tenant's count")
	}
	pe := e.Must(200, "GET", "/v1/pages/"+id+"/agent-events", key, nil)
	list := pe["events"].([]any)
	if len(list) != 5 || list[0].(map[string]any)["acknowledged"] != true || list[2].(map[string]any)["acknowledged"] != false || list[4].(map[string]any)["type"] != "page.viewed" {
		t.Fatalf("page events: %v", pe)
	}
	if r := e.Do("GET", "/v1/pages/"+id+"/agent-events", other, nil); r.Status != 404 {
		t.Fatalf("another tenant's page events: %d", r.Status)
	}
	if r := e.Do("GET", "/v1/agent/inbox?limit=0", key, nil); r.Status != 400 {
		t.Fatalf("limit 0: %d", r.Status)
	}
}

// TestAgentReplaySurvivesRestart: the log is durable: after a restart the agent
// resumes from its last id and gets exactly what it missed, then live events with
// the sequence continuing.
func TestAgentReplaySurvivesRestart(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("durable")
	id := e.Publish(key, nil)
	comment(t, e, key, id, "before")
	c := openSSE(t, e, "/v1/agent/events", key, "0")
	ms := c.collect(5*time.Second, func(ms []msg) bool { return len(ms) >= 4 })
	if ms[3].ID != "3" {
		t.Fatalf("before restart: %v", types(ms))
	}
	c.Close()
	comment(t, e, key, id, "missed")
	e = e.Reopen()
	c = openSSE(t, e, "/v1/agent/events", key, "3")
	c.expect("connected")
	if m := c.next(5 * time.Second); m.ID != "4" || m.data()["content"] != "missed" {
		t.Fatalf("replayed: %s", m.Raw)
	}
	comment(t, e, key, id, "after")
	if m := c.next(5 * time.Second); m.ID != "5" || m.data()["content"] != "after" {
		t.Fatalf("live: %s", m.Raw)
	}
}
