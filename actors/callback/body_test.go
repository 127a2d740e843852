package callback

import (
	"folio/actors/model/webhook"
	"testing"
	"time"

	"folio/actors/page"
	"folio/persistence"
)

func TestCallbackBodiesHaveExactlyTheSpecFields(t *testing.T) {
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	ev := page.Event{ID: "evt_1", Type: "action.executed", PageID: "pg_1", At: at,
		Data: page.ActionExecuted{ActionID: "approve", ActionLabel: "Approve",
			Comment: nil, FormData: nil, PageState: page.PageState{Previous: "active", Current: "completed"}, Decision: "approved",
			Verdict: page.Verdict{PageVersion: 3, ContentHash: "sha256:ab"},
			Receipt: page.NewReceipt(persistence.AuditRecord{Seq: 7, Hash: "sha256:cd", Entry: []byte(`{"a":1}`)},
				page.Verdict{PageVersion: 3, ContentHash: "sha256:ab"})},
		Actor: &page.Person{Identity: "alice", AuthMethod: "api_key"}}
	b, err := callbackBody(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event":"action.executed","event_id":"evt_1","page_id":"pg_1","timestamp":"2026-02-03T04:05:06Z",` +
		`"data":{"action_id":"approve","action_label":"Approve","comment":null,"content_hash":"sha256:ab","decision":"approved","final":true,"form_data":null,"outcome":"approved","page_version":3,` +
		`"receipt":{"chain_hash":"sha256:cd","checkpoint":null,"content_hash":"sha256:ab","entry":7,"entry_base64":"eyJhIjoxfQ==",` +
		`"leaf_hash":"xyYUY+vXdvRlC20P6ULZzDjJJdkPd9RAq2341d0ljF8=","leaf_index":6,"page_version":3,"proof":null,"proof_url":"/v1/audit/proof/inclusion?entry=7"}},` +
		`"actor":{"auth_method":"api_key","identity":"alice"},"page_state":{"current":"completed","previous":"active"}}`
	if string(b) != want {
		t.Errorf("body\n%s\nwant\n%s", b, want)
	}
	// The same event always gives the same bytes.
	if b2, _ := callbackBody(ev); string(b2) != string(b) {
		t.Errorf("bodies differ between builds")
	}
	ex := page.Event{ID: "evt_2", Type: "page.expired", PageID: "pg_1", At: at, Data: page.PageExpired{Reason: "timeout", ExpiredAt: at}}
	b, _ = callbackBody(ex)
	want = `{"event":"page.expired","event_id":"evt_2","page_id":"pg_1","timestamp":"2026-02-03T04:05:06Z","data":{"expired_at":"2026-02-03T04:05:06Z","reason":"timeout"}}`
	if string(b) != want {
		t.Errorf("body\n%s\nwant\n%s", b, want)
	}
}

func TestSignatures(t *testing.T) {
	body := []byte(`{"a":1}`)
	// HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog"), a published test vector.
	if got := webhook.Signature("key", []byte("The quick brown fox jumps over the lazy dog")); got != "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8" {
		t.Errorf("Signature = %s", got)
	}
	if webhook.Signature("k", body) == webhook.Signature("k2", body) || webhook.Signature("k", body) == webhook.Signature("k", []byte(`{"a":2}`)) {
		t.Error("signature ignores the key or the body")
	}
	// A whsec_ secret signs webhook-signature with its decoded bytes.
	if webhook.StandardSignature("whsec_"+"aGVsbG8=", "id", 1, body) != webhook.StandardSignature("hello", "id", 1, body) {
		t.Error("whsec_ secret not decoded")
	}
	if webhook.StandardSignature("k", "id", 1, body) == webhook.StandardSignature("k", "id", 2, body) {
		t.Error("webhook-signature ignores the timestamp")
	}
}
