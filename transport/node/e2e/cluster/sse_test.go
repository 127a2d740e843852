//go:build linux

package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sseEvent is one event of a page stream.
type sseEvent struct {
	ID, Type string
}

// pageStream reads GET /v1/pages/:id/events of a node into a channel.
func pageStream(t *testing.T, base, pageID, key string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/pages/"+pageID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("page stream: %d", resp.StatusCode)
	}
	out := make(chan sseEvent, 1024)
	connected := make(chan struct{})
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var id string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				var p struct {
					Type string `json:"type"`
				}
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &p)
				if p.Type == "connected" {
					close(connected)
				} else {
					out <- sseEvent{ID: id, Type: p.Type}
				}
				id = ""
			}
		}
	}()
	select {
	case <-connected:
	case <-time.After(10 * time.Second):
		t.Fatal("the page stream never said connected")
	}
	return out
}

// take reads n events, failing after d.
func take(t *testing.T, ch <-chan sseEvent, n int, d time.Duration) []sseEvent {
	t.Helper()
	var got []sseEvent
	deadline := time.After(d)
	for len(got) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("the stream ended after %d of %d events: %v", len(got), n, got)
			}
			got = append(got, ev)
		case <-deadline:
			t.Fatalf("%d of %d events within %s: %v", len(got), n, d, got)
		}
	}
	return got
}
