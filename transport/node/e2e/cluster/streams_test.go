//go:build linux

package cluster_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"folio/persistence/pgtest"
	"folio/transport/bus"
	"folio/transport/client"
	"folio/transport/node"
	"folio/transport/node/nodetest"
	"folio/transport/node/nodetest/ports"
)

// busNodes starts n nodes on one database. withNATS: each embeds a NATS server, the
// later ones routed to the first; otherwise they hear of each other only through
// the periodic check. check is the check's period.
func busNodes(t *testing.T, n int, withNATS bool, check time.Duration) []*nodetest.Env {
	t.Helper()
	url := pgtest.URL(t)
	first := ""
	out := make([]*nodetest.Env, n)
	for i := range out {
		cfg := bus.Config{Check: check}
		if withNATS {
			cfg.Listen = ports.Free(t)
			if first == "" {
				first = cfg.Listen
			} else {
				cfg.Routes = "nats://" + first
			}
		}
		out[i] = nodetest.Open(t, t.TempDir(), nil, func(c *node.Config) { c.Store = url; c.Bus = cfg })
	}
	if withNATS {
		for i, e := range out {
			deadline := time.Now().Add(15 * time.Second)
			for nodetest.Metric(t, e.Srv.URL, "folio_cluster_peers") != float64(n-1) {
				if time.Now().After(deadline) {
					t.Fatalf("node %d: routes to the other NATS servers never came up", i)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	return out
}

func appendText(t *testing.T, e *nodetest.Env, key, pageID, text string) {
	t.Helper()
	e.Must(200, "PATCH", "/v1/pages/"+pageID+"/blocks", key, map[string]any{"blocks": []any{
		map[string]any{"type": "text", "data": map[string]any{"content": text}}}})
}

// inOrderOnce checks stream ids strictly increase (so no event repeats).
func inOrderOnce(t *testing.T, evs []sseEvent) {
	t.Helper()
	var last uint64
	for i, ev := range evs {
		n, err := strconv.ParseUint(ev.ID, 10, 64)
		if err != nil || n <= last {
			t.Fatalf("event %d has id %q after %d: %v", i, ev.ID, last, evs)
		}
		last = n
	}
}

// TestViewerOnAnotherNodeSeesEveryEvent: a browser's page stream is on node B, the
// agent writes through node A. Every event reaches B's viewer, in order, once, by
// the NATS doorbell (the periodic check is a minute: it cannot be what delivers).
func TestViewerOnAnotherNodeSeesEveryEvent(t *testing.T) {
	ns := busNodes(t, 2, true, time.Minute)
	a, b := ns[0], ns[1]
	key, _ := a.Register("viewer")
	id := a.Publish(key, nil)
	events := pageStream(t, b.Srv.URL, id, key)
	// The viewer's interest reaches A's NATS server a moment after B subscribes:
	// write until one event arrives promptly.
	deadline := time.Now().Add(15 * time.Second)
	for warm := 0; ; warm++ {
		appendText(t, a, key, id, fmt.Sprintf("warm-up %d", warm))
		select {
		case <-events:
		case <-time.After(500 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no event written through A ever reached B's viewer")
			}
			continue
		}
		break
	}
	for len(events) > 0 { // late warm-up events
		<-events
	}
	const n = 40
	for i := 0; i < n; i++ {
		if i%4 == 3 {
			a.Must(201, "POST", "/v1/pages/"+id+"/comments", key, map[string]any{"content": fmt.Sprintf("comment %d", i), "author": map[string]any{"name": "agent"}})
		} else {
			appendText(t, a, key, id, fmt.Sprintf("block %d", i))
		}
	}
	got := take(t, events, n, 10*time.Second)
	inOrderOnce(t, got)
	comments := 0
	for _, ev := range got {
		if ev.Type == "comment.added" {
			comments++
		}
	}
	if comments != n/4 {
		t.Fatalf("%d comment events, want %d: %v", comments, n/4, got)
	}
	select {
	case ev := <-events:
		t.Fatalf("an extra event after the %d written: %v", n, ev)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestCheckAloneCoversLostDoorbells: without NATS (as when a node dies between its
// commit and its doorbell) B's viewer still gets every event written through A,
// from the store, in order, once, within the check period.
func TestCheckAloneCoversLostDoorbells(t *testing.T) {
	ns := busNodes(t, 2, false, 200*time.Millisecond)
	a, b := ns[0], ns[1]
	key, _ := a.Register("nobell")
	id := a.Publish(key, nil)
	events := pageStream(t, b.Srv.URL, id, key)
	const n = 15
	for i := 0; i < n; i++ {
		appendText(t, a, key, id, fmt.Sprintf("block %d", i))
	}
	// Writes through B interleave; they reach B's viewer directly, after A's.
	appendText(t, b, key, id, "from B")
	got := take(t, events, n+1, 10*time.Second)
	inOrderOnce(t, got)
}

// TestAgentStreamAcrossNodes: two nodes write one tenant's events at once; the
// agent's stream on a third sees every one exactly once with strictly increasing
// ids, and resumes on another node with Last-Event-ID after its node is gone.
func TestAgentStreamAcrossNodes(t *testing.T) {
	ns := busNodes(t, 3, true, 300*time.Millisecond)
	key, _ := ns[0].Register("agent")
	ids := []string{ns[0].Publish(key, nil), ns[1].Publish(key, nil)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stream, err := client.New(ns[2].Srv.URL, key).Events(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	const per = 25
	write := func() {
		var wg sync.WaitGroup
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < per; i++ {
					appendText(t, ns[w], key, ids[w], fmt.Sprintf("node %d block %d", w, i))
				}
			}(w)
		}
		wg.Wait()
	}
	write()
	var last uint64
	seen := 0
	read := func(s *client.EventStream, want int) {
		for seen < want {
			ev, err := s.Next()
			if err != nil {
				t.Fatalf("after %d events: %v", seen, err)
			}
			n, err := strconv.ParseUint(ev.ID, 10, 64)
			if err != nil || n <= last {
				t.Fatalf("event id %q after %d", ev.ID, last)
			}
			last = n
			seen++
		}
	}
	read(stream, 2*per)
	resumeFrom := stream.LastEventID()
	stream.Close()
	ns[2].Close() // the stream's node is gone; the agent reconnects elsewhere
	write()
	resumed, err := client.New(ns[0].Srv.URL, key).Events(ctx, resumeFrom)
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	read(resumed, 4*per)
}
