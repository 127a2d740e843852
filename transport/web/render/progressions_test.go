package render

import (
	"testing"
	"time"

	"folio/actors/model/formats"
)

// The timeline and the countdown show as a time exactly what the catalog accepts
// at publish (formats.Timestamp); what the agent was warned about stays text.
func TestTimesAreReadByThePublishRule(t *testing.T) {
	for _, s := range []string{"2024-05-01", "2024-05-01T14:30", "2024-05-01T14:30:05.5", "2024-05-01T14:30Z",
		"2024-05-01T14:30:00+02:00", "2024-02-29T23:59:60Z", "2024-05-01 14:30", " 2024-05-01", "2024-05-01T9:30",
		"2024-05-01T14:30:00,5Z", "2024-05-01T14:30:00+24:00", "2023-02-29", "soon", ""} {
		_, want := formats.Timestamp(s)
		if _, ok := parseWhen(s); ok != want {
			t.Errorf("parseWhen(%q) reads a time: %v, formats.Timestamp: %v", s, ok, want)
		}
	}
	for s, want := range map[string]when{
		"2024-05-01":                {T: mustUTC("2024-05-01T00:00:00Z"), DateOnly: true},
		"2024-05-01T14:30":          {T: mustUTC("2024-05-01T14:30:00Z")},
		"2024-05-01T16:30:00+02:00": {T: mustUTC("2024-05-01T14:30:00Z"), Zoned: true},
	} {
		if got, _ := parseWhen(s); !got.T.Equal(want.T) || got.T.Location() != time.UTC || got.Zoned != want.Zoned || got.DateOnly != want.DateOnly {
			t.Errorf("parseWhen(%q) = %+v, want %+v", s, got, want)
		}
	}
}

func mustUTC(s string) time.Time {
	t, ok := formats.DateTime(s)
	if !ok {
		panic(s)
	}
	return t
}
