package client_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"folio/transport/client"
)

// TestEventsNeverRepeatOrReturnACutEvent drives the stream with a scripted server
// that misbehaves: it splits data over lines, ends lines with CRLF, refuses a
// reconnection with a proxy's 502, replays events the client already has, and drops a
// connection inside an event (every request carrying the client's User-Agent). The reader still gets 1, 2, 3, 4, 5 once each; each
// reconnection asks for the events after the last one returned; a 401 ends the
// stream with that error.
func TestEventsNeverRepeatOrReturnACutEvent(t *testing.T) {
	script := []func(w http.ResponseWriter){
		func(w http.ResponseWriter) {
			sse(w, ": hello\n\n"+
				"data: {\"type\":\"connected\",\"latestId\":\"9\"}\n\n"+
				"id: 1\ndata: {\"type\":\"a\",\n"+"data: \"pageId\":\"p\"}\n\n"+
				"id: 2\ndata: {\"type\":\"b\"}\n\n"+
				"id: 3\r\ndata: {\"type\":\"c\"}\r\n\r\n")
		},
		func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(502) // a proxy's answer: no envelope
			_, _ = io.WriteString(w, "upstream busy")
		},
		func(w http.ResponseWriter) {
			sse(w, "id: 2\ndata: {\"type\":\"b\"}\n\n"+ // already returned
				"id: 3\ndata: {\"type\":\"c\"}\n\n"+ // already returned
				"id: 4\ndata: {\"type\":\"d\"}\n\n"+
				"id: 5\ndata: {\"type\":\"e\"}\n") // cut before its blank line
		},
		func(w http.ResponseWriter) {
			sse(w, "id: 5\ndata: {\"type\":\"e\"}\n\n")
		},
		func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			_, _ = io.WriteString(w, `{"error":{"code":"UNAUTHORIZED","message":"key deleted","details":{}}}`)
		},
	}
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := len(asked)
		asked = append(asked, r.Header.Get("Last-Event-ID"))
		mu.Unlock()
		if r.URL.Path != "/v1/agent/events" || r.Header.Get("Authorization") != "Bearer sk_test_k" ||
			r.Header.Get("User-Agent") != "scripted/1" || n >= len(script) {
			http.Error(w, "unexpected", 500)
			return
		}
		script[n](w)
	}))
	defer srv.Close()

	s, err := client.New(srv.URL, "sk_test_k", client.WithUserAgent("scripted/1")).Events(ctx(t), "0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var types, ids []string
	for {
		ev, err := s.Next()
		if err != nil {
			if !client.IsUnauthorized(err) {
				t.Fatalf("the stream ended with %v, want the 401", err)
			}
			break
		}
		types, ids = append(types, ev.Type), append(ids, ev.ID)
	}
	if !slices.Equal(types, []string{"a", "b", "c", "d", "e"}) || !slices.Equal(ids, []string{"1", "2", "3", "4", "5"}) {
		t.Errorf("events %v with ids %v", types, ids)
	}
	if want := []string{"0", "3", "3", "4", "5"}; !slices.Equal(asked, want) {
		t.Errorf("Last-Event-ID of each connection %q, want %q", asked, want)
	}
}

func sse(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, body)
}
