package status

import (
	"errors"
	"net/http"
	"testing"

	"folio/actors/model/fault"
	"folio/persistence"
)

// Both faces tell a refused client when to try again from the refusal itself: a
// full month's 429 its seconds, a full node's 503 for streams its seconds, a store
// that did not answer 1 s, and a refusal that already set its own header keeps it.
func TestRetryAfterComesFromTheRefusal(t *testing.T) {
	for _, c := range []struct {
		name, preset string
		err          error
		want         string
	}{
		{"quota", "", fault.New(fault.RateLimited, "full", map[string]any{"retry_after": 3600}), "3600"},
		{"store down", "", persistence.ErrUnavailable, RetryAfter},
		{"a full node that knows", "", fault.New(fault.Unavailable, "full", map[string]any{"retry_after": 10}), "10"},
		{"a rate that set its own", "7", fault.New(fault.RateLimited, "slow down", map[string]any{"retry_after": 3600}), "7"},
		{"a 429 that does not know", "", fault.New(fault.RateLimited, "slow down", nil), ""},
		{"not a refusal", "", fault.New(fault.NotFound, "no such page", nil), ""},
		{"internal", "", errors.New("boom"), ""},
	} {
		h := http.Header{}
		if c.preset != "" {
			h.Set("Retry-After", c.preset)
		}
		SetRetryAfter(h, c.err)
		if got := h.Get("Retry-After"); got != c.want {
			t.Errorf("%s: Retry-After %q, want %q", c.name, got, c.want)
		}
	}
}
