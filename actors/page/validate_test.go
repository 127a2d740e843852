package page

import (
	"errors"
	"testing"
	"time"

	"folio/actors/model/fault"
)

// expires_at is a formats.DateTime (a zone-less value is read as UTC) that must lie
// after now; anything else is a 400 naming the field and the broken rule.
func TestExpiresAtIsAFutureDateTime(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for s, want := range map[string]string{
		"2026-05-02T12:00:00Z":      "2026-05-02T12:00:00Z",
		"2026-05-02T14:00:00+02:00": "2026-05-02T12:00:00Z",
		"2026-05-02T12:00":          "2026-05-02T12:00:00Z",
		"2026-05-02T12:00:00.5Z":    "2026-05-02T12:00:00.5Z",
		"tomorrow":                  "format",
		"2026-05-02":                "format",
		"2026-05-02 12:00:00Z":      "format",
		"2026-05-02T9:00:00Z":       "format",
		"2026-05-01T12:00:00Z":      "future",
	} {
		at, err := futureTime("expires_at", s, now)
		var fe *fault.Error
		switch {
		case err == nil:
			if got := at.Format(time.RFC3339Nano); got != want || at.Location() != time.UTC {
				t.Errorf("%q reads as %s (%v), want %s", s, got, at.Location(), want)
			}
		case !errors.As(err, &fe) || fe.Details["field"] != "expires_at" || fe.Details["constraint"] != want:
			t.Errorf("%q: err = %v, want constraint %s", s, err, want)
		}
	}
}
