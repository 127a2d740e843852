package realtime_test

import (
	"testing"
	"time"

	"github.com/coder/websocket"

	"folio/transport/node/nodetest"
)

// expectEnded reads until the stream's final reset, checks its reason, and that the
// server then closes the stream with nothing after it.
func expectEnded(t *testing.T, c *client, reason string) {
	t.Helper()
	m, skipped := c.expect("reset")
	if m.data()["reason"] != reason {
		t.Fatalf("final reset %s, want reason %q (before it: %v)", m.Raw, reason, types(skipped))
	}
	if !c.ended(5 * time.Second) {
		t.Fatalf("the stream stayed open after its final reset")
	}
	select {
	case extra := <-c.msgs:
		t.Fatalf("an event after the final reset: %s", extra.Raw)
	default:
	}
}

// TestAPageTurnedPrivateEndsItsAnonymousStreams: switching a public page to
// `authenticated` ends the anonymous page and comment streams at once (a final
// reset, access_changed), so they receive nothing posted after the switch; the
// owner's own stream stays.
func TestAPageTurnedPrivateEndsItsAnonymousStreams(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("owner")
	id := e.Publish(key, nil)
	anon := openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	anon.expect("connected")
	anonComments := openSSE(t, e, "/v1/pages/"+id+"/comments/stream", "", "")
	anonWS := openWS(t, e, "/v1/pages/"+id+"/events", "")
	anonWS.expect("connected")
	owner := openSSE(t, e, "/v1/pages/"+id+"/events", key, "")
	owner.expect("connected")

	e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"access": map[string]any{"mode": "authenticated",
		"allowed_identities": []any{map[string]any{"type": "email", "value": "a@example.com"}}}})
	comment(t, e, key, id, "posted after the switch")

	expectEnded(t, anon, "access_changed")
	expectEnded(t, anonComments, "access_changed")
	expectEnded(t, anonWS, "access_changed")
	if anonWS.wsClose != websocket.StatusPolicyViolation {
		t.Errorf("WebSocket close status %d, want 1008", anonWS.wsClose)
	}
	if m, _ := owner.expect("comment.added"); m.data()["content"] != "posted after the switch" {
		t.Fatalf("the owner's stream: %s", m.Raw)
	}
	if r := e.Do("GET", "/v1/pages/"+id+"/events", "", nil); r.Status != 401 {
		t.Fatalf("reopening anonymously: %d", r.Status)
	}
}

// TestRevokingAPageEndsItsPublicStreams: revoke ends every anonymous stream with a
// final reset (page_revoked).
func TestRevokingAPageEndsItsPublicStreams(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("owner")
	id := e.Publish(key, nil)
	anon := openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	anon.expect("connected")
	e.Must(200, "POST", "/v1/pages/"+id+"/revoke", key, map[string]any{"reason": "withdrawn"})
	expectEnded(t, anon, "page_revoked")
}

// TestDeletingAKeyEndsTheStreamsItOpened: the agent stream and an owner's page
// stream opened with a key end (reset credential_revoked) when that key is deleted;
// a stream opened with another key of the tenant goes on.
func TestDeletingAKeyEndsTheStreamsItOpened(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("owner")
	other := e.Must(201, "POST", "/v1/account/api-keys", key, map[string]any{"name": "second"})
	id := e.Publish(key, map[string]any{"access": map[string]any{"mode": "authenticated",
		"allowed_identities": []any{map[string]any{"type": "email", "value": "a@example.com"}}}})
	agent := openSSE(t, e, "/v1/agent/events", other["key"].(string), "")
	agent.expect("connected")
	agentWS := openWS(t, e, "/v1/agent/events", other["key"].(string))
	agentWS.expect("connected")
	pageStream := openSSE(t, e, "/v1/pages/"+id+"/events", other["key"].(string), "")
	pageStream.expect("connected")
	kept := openSSE(t, e, "/v1/agent/events", key, "")
	kept.expect("connected")

	e.Must(204, "DELETE", "/v1/account/api-keys/"+other["id"].(string), key, nil)
	expectEnded(t, agent, "credential_revoked")
	expectEnded(t, agentWS, "credential_revoked")
	expectEnded(t, pageStream, "credential_revoked")
	if agentWS.wsClose != websocket.StatusPolicyViolation {
		t.Errorf("WebSocket close status %d, want 1008", agentWS.wsClose)
	}
	comment(t, e, key, id, "still heard")
	if m, _ := kept.expect("comment.added"); m.data()["content"] != "still heard" {
		t.Fatalf("the other key's stream: %s", m.Raw)
	}
}
