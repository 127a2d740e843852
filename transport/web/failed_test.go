package web

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/persistence"
)

// TestEveryFaultDrawsThePageWithTheAPIsStatus: whatever fault a handler for people
// returns, the one error page (failed) answers with the status the API's envelope
// gives the same fault (the one table, fault.Status), and an actor or store that
// did not answer is 503 with Retry-After, as on the API.
func TestEveryFaultDrawsThePageWithTheAPIsStatus(t *testing.T) {
	s := &Site{c: Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, assets: buildAssets()}
	draw := func(err error) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.failed(rec, httptest.NewRequest("GET", "/p/pg_x", nil), err)
		return rec
	}
	for _, code := range fault.Codes() {
		rec := draw(fault.New(code, "refused", nil))
		if want := fault.Status(code); rec.Code != want {
			t.Errorf("%s: the page answers %d, the API %d", code, rec.Code, want)
		}
	}
	for _, err := range []error{registry.ErrTimeout, persistence.ErrUnavailable, fmt.Errorf("ask: %w", registry.ErrTimeout)} {
		rec := draw(err)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
			t.Errorf("%v: the page answers %d (Retry-After %q), want 503 with Retry-After", err, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
}
