package realtime_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// TestPageStreamReplayAcrossDrops: a viewer of a public page (no credential) that
// drops and reconnects with Last-Event-ID at random points, alternately over SSE
// (the header, as a browser's EventSource sends it) and WebSocket (?last_event_id=),
// while comments keep coming, receives every event of the page exactly once, ids
// strictly increasing. A replayed action.executed is framed as the live one was:
// without the reviewer's private comment.
func TestPageStreamReplayAcrossDrops(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("page-replayer")
	id := e.Publish(key, nil)
	other := e.Publish(key, nil) // its events share the tenant sequence but not this stream
	const events = 300

	var published atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := published.Add(1)
				if n > events {
					return
				}
				comment(t, e, key, id, fmt.Sprintf("c%04d", n))
				if n%10 == 0 {
					comment(t, e, key, other, "elsewhere")
				}
			}
		}()
	}

	rng := rand.New(rand.NewPCG(3, 5))
	seen := map[string]int{}
	var last uint64
	lastID := "0" // from the page's first event, as if the viewer had loaded it before any
	conns := 0
	read := func(budget int) {
		var c *client
		var err error
		if conns%2 == 0 {
			c, err = dialSSE(e, "/v1/pages/"+id+"/events", "", lastID)
		} else {
			path := "/v1/pages/" + id + "/events"
			if lastID != "" {
				path += "?last_event_id=" + lastID
			}
			c, err = dialWS(e, path, "")
		}
		if err != nil {
			t.Fatalf("connection %d: %v", conns, err)
		}
		c.t = t
		conns++
		defer c.Close()
		for budget > 0 {
			select {
			case m := <-c.msgs:
				if m.Type == "connected" {
					continue
				}
				n, err := strconv.ParseUint(m.ID, 10, 64)
				if err != nil || n <= last {
					t.Fatalf("connection %d: id %q after %d (%s)", conns, m.ID, last, m.Raw)
				}
				if m.Payload["pageId"] != id {
					t.Fatalf("another page's event on this stream: %s", m.Raw)
				}
				last, lastID = n, m.ID
				if m.Type == "comment.added" {
					seen[m.data()["content"].(string)]++
				}
				budget--
			case <-time.After(2 * time.Second):
				return
			}
		}
	}
	deadline := time.Now().Add(90 * time.Second)
	for len(seen) < events {
		if time.Now().After(deadline) {
			var missing []string
			for n := 1; n <= events; n++ {
				if c := fmt.Sprintf("c%04d", n); seen[c] == 0 {
					missing = append(missing, c)
				}
			}
			log := e.Must(200, "GET", "/v1/pages/"+id+"/agent-events?limit=500", key, nil)
			for _, ev := range log["events"].([]any) {
				m := ev.(map[string]any)
				d, _ := m["data"].(map[string]any)
				for _, c := range missing {
					if d["content"] == c {
						t.Logf("missing %s has id %v", c, m["id"])
					}
				}
			}
			t.Fatalf("gave up: %d of %d comments over %d connections, last id %d; missing %v", len(seen), events, conns, last, missing)
		}
		budget := 1 + rng.IntN(20)
		if conns%5 == 4 {
			budget = 1 + rng.IntN(3) // drop right inside a replay
		}
		read(budget)
	}
	wg.Wait()
	for content, n := range seen {
		if n != 1 {
			t.Fatalf("%s arrived %d times", content, n)
		}
	}

	// Decided while no one watched: the replay carries it, without the private comment.
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"comment": "private note", "actor": map[string]any{"identity": "r@example.com"}})
	c := openSSE(t, e, "/v1/pages/"+id+"/events", "", lastID)
	c.expect("connected")
	m, skipped := c.expect("action.executed")
	if len(skipped) > 0 {
		t.Fatalf("replayed before the decision: %v (already delivered)", types(skipped))
	}
	if _, leaked := m.data()["comment"]; leaked {
		t.Fatalf("replayed action.executed carries the reviewer's comment: %s", m.Raw)
	}
	c.expect("page.completed")
	c.quiet(100 * time.Millisecond)
	t.Logf("%d comments over %d connections", len(seen), conns)
}

// TestCommentStreamReplaysCommentsOnly: the comment stream resumes from
// Last-Event-ID with the page's comment events only, then continues live.
func TestCommentStreamReplaysCommentsOnly(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("comment-replayer")
	id := e.Publish(key, nil)
	first := openSSE(t, e, "/v1/pages/"+id+"/comments/stream", "", "")
	comment(t, e, key, id, "one")
	m, _ := first.expect("comment.added")
	first.Close()
	e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{map[string]any{"type": "divider", "data": map[string]any{}}}})
	comment(t, e, key, id, "two")
	comment(t, e, key, id, "three")

	c := openSSE(t, e, "/v1/pages/"+id+"/comments/stream", "", m.ID)
	var got []string
	for _, want := range []string{"two", "three"} {
		r, skipped := c.expect("comment.added")
		if len(skipped) > 0 {
			t.Fatalf("the comment stream replayed %v", types(skipped))
		}
		got = append(got, r.data()["content"].(string))
		if r.data()["content"] != want {
			t.Fatalf("replayed %v, want two then three", got)
		}
	}
	comment(t, e, key, id, "four")
	if r, _ := c.expect("comment.added"); r.data()["content"] != "four" {
		t.Fatalf("live after replay: %s", r.Raw)
	}
	if r := e.Do("GET", "/v1/pages/"+id+"/events?last_event_id=evt_x", "", nil); r.Status != 400 {
		t.Fatalf("a non-numeric Last-Event-ID: %d %s", r.Status, r.Body)
	}
}
