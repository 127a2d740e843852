package realtime_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"folio/transport/httpapi"
	"folio/transport/node/nodetest"
)

// TestCommentStreamReplayIsBounded: a comment-stream client that reconnects with a
// Last-Event-ID older than the replay window (here: before the page's first event,
// on a page with 120 comments) gets the latest httpapi.CommentReplay comment events
// in order, after an SSE comment line saying the older ones were left out and where
// to read them; one whose Last-Event-ID is inside the window gets just what it
// missed, with no such line.
func TestCommentStreamReplayIsBounded(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("comment-replayer")
	id := e.Publish(key, nil)
	const total = 120
	for i := range total {
		comment(t, e, key, id, fmt.Sprintf("c%03d", i))
	}
	c := openSSE(t, e, "/v1/pages/"+id+"/comments/stream", "", "0")
	got := c.collect(3*time.Second, func(ms []msg) bool { return len(ms) >= httpapi.CommentReplay })
	c.quiet(300 * time.Millisecond)
	for len(c.msgs) > 0 {
		got = append(got, <-c.msgs)
	}
	if len(got) != httpapi.CommentReplay {
		t.Fatalf("replayed %d comment events, want the latest %d", len(got), httpapi.CommentReplay)
	}
	for i, m := range got {
		want := fmt.Sprintf("c%03d", total-httpapi.CommentReplay+i)
		if !strings.Contains(string(m.Raw), `"`+want+`"`) {
			t.Fatalf("event %d is not %s: %s", i, want, m.Raw)
		}
	}
	var note string
	for len(c.comments) > 0 && note == "" {
		if line := <-c.comments; strings.Contains(line, "replay cut") {
			note = line
		}
	}
	if !strings.Contains(note, "/v1/pages/"+id+"/comments") {
		t.Errorf("no note of the older comments left out (got %q)", note)
	}

	// Inside the window: the two missed events, no note.
	c2 := openSSE(t, e, "/v1/pages/"+id+"/comments/stream", "", got[len(got)-3].ID)
	rest := c2.collect(3*time.Second, func(ms []msg) bool { return len(ms) >= 2 })
	c2.quiet(300 * time.Millisecond)
	if len(rest) != 2 || len(c2.msgs) != 0 {
		t.Errorf("replay inside the window: %d events then %d more, want 2", len(rest), len(c2.msgs))
	}
	for len(c2.comments) > 0 {
		if line := <-c2.comments; strings.Contains(line, "replay cut") {
			t.Errorf("a replay inside the window says it was cut: %q", line)
		}
	}
}
