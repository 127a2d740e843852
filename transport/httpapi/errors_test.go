package httpapi

import (
	"encoding/json"
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

// TestEveryFaultHasTheTablesStatusInTheEnvelope: the API answers every fault with
// the status of the one table (fault.Status), the code in its envelope, and an
// actor or store that did not answer with 503 and Retry-After.
func TestEveryFaultHasTheTablesStatusInTheEnvelope(t *testing.T) {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	write := func(err error) (*httptest.ResponseRecorder, string) {
		rec := httptest.NewRecorder()
		s.writeError(rec, httptest.NewRequest("GET", "/v1/pages/pg_x", nil), err)
		var env envelope
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
			t.Fatalf("%v: not an envelope: %s", err, rec.Body)
		}
		return rec, env.Error.Code
	}
	for _, code := range fault.Codes() {
		rec, got := write(fault.New(code, "refused", nil))
		if want := fault.Status(code); rec.Code != want || got != code {
			t.Errorf("%s: the API answers %d %s, want %d %s", code, rec.Code, got, want, code)
		}
	}
	for _, err := range []error{registry.ErrTimeout, persistence.ErrUnavailable, fmt.Errorf("ask: %w", registry.ErrTimeout)} {
		rec, got := write(err)
		if rec.Code != http.StatusServiceUnavailable || got != fault.Unavailable || rec.Header().Get("Retry-After") == "" {
			t.Errorf("%v: the API answers %d %s (Retry-After %q), want 503 with Retry-After", err, rec.Code, got, rec.Header().Get("Retry-After"))
		}
	}
}
