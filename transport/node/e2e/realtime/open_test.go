package realtime_test

import (
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestStreamsArePerCredentialBounded: with limits on, one API key holds at most
// --streams-per-credential (2 here) event streams, whatever the route (agent or
// page stream); the next is 429 RATE_LIMITED naming the credential, with
// Retry-After, while another key opens one; closing a stream gives its place back.
func TestStreamsArePerCredentialBounded(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.EnforceLimits, c.StreamsPerCredential = true, 2 })
	key, _ := e.Register("many-streams")
	id := e.Publish(key, nil)
	first := openSSE(t, e, "/v1/agent/events", key, "")
	openSSE(t, e, "/v1/pages/"+id+"/events", key, "")
	third, err := dialSSE(e, "/v1/pages/"+id+"/events", key, "")
	if err != nil {
		t.Fatal(err)
	}
	if third.Status != 429 {
		third.Close()
		t.Fatalf("a third stream of one key: status %d, want 429", third.Status)
	}
	r := e.Do("GET", "/v1/agent/events", key, nil)
	d := r.ErrDetails(t)
	if r.Status != 429 || r.ErrCode(t) != "RATE_LIMITED" || d["scope"] != "credential" || d["limit"] != "open_streams" || d["max_open"] != 2.0 ||
		r.Header.Get("Retry-After") == "" {
		t.Fatalf("a third stream of one key: %d %v %s", r.Status, r.Header, r.Body)
	}
	other := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "second"})["key"].(string)
	openSSE(t, e, "/v1/pages/"+id+"/events", other, "")
	first.Close()
	eventually(t, 5*time.Second, "the closed stream's place given back", func() bool {
		c, err := dialSSE(e, "/v1/agent/events", key, "")
		if err != nil || c.Status != 200 {
			return false
		}
		t.Cleanup(c.Close)
		return true
	})
}
