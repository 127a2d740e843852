package apitypes

import (
	"encoding/json"
	"testing"
	"time"
)

// TestUnsetIsNullOnTheWireAndZeroInGo: an unset time or string is null on the
// wire, reads back as zero, and a set one round-trips unchanged.
func TestUnsetIsNullOnTheWireAndZeroInGo(t *testing.T) {
	at := time.Date(2026, 11, 28, 5, 30, 0, 123, time.UTC)
	for _, c := range []struct {
		v    Revoked
		want string
	}{
		{Revoked{PageID: "pg_1", Status: "active"}, `{"pageId":"pg_1","status":"active","revokedAt":null}`},
		{Revoked{PageID: "pg_1", Status: "revoked", RevokedAt: TimeOf(&at)}, `{"pageId":"pg_1","status":"revoked","revokedAt":"2026-11-28T05:30:00.000000123Z"}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Fatalf("Marshal(%+v) = %s, %v; want %s", c.v, b, err, c.want)
		}
		var back Revoked
		if err := json.Unmarshal(b, &back); err != nil || !back.RevokedAt.Equal(c.v.RevokedAt.Time) {
			t.Fatalf("Unmarshal(%s) = %+v, %v", b, back, err)
		}
	}
	e := InboxEntry{Decision: "approved"}
	b, _ := json.Marshal(e)
	var back InboxEntry
	if err := json.Unmarshal(b, &back); err != nil || back.Decision != "approved" || back.ActionID != "" {
		t.Fatalf("round trip of %s = %+v, %v", b, back, err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if v, ok := m["actionId"]; !ok || v != nil {
		t.Fatalf("an unset actionId is %v (present %v), want null", v, ok)
	}
}
