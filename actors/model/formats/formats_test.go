package formats

import "testing"

// The agreed behaviour, pinned: every form, template, block and account check uses
// these, so a value accepted in one place is accepted in all.
func TestEmail(t *testing.T) {
	for s, want := range map[string]bool{
		"ada@example.com": true, "a.b+tag@sub.example.org": true, "x@y": true,
		"": false, "ada": false, "Ada <ada@example.com>": false, "<ada@example.com>": false,
		"ada@example.com, bob@example.com": false, " ada@example.com": false, "ada@@example.com": false,
		string(make([]byte, 321)): false,
	} {
		if Email(s) != want {
			t.Errorf("Email(%q) = %v, want %v", s, !want, want)
		}
	}
}

func TestWebURL(t *testing.T) {
	for s, want := range map[string]bool{
		"https://example.com": true, "http://example.com/a?b=c#d": true, "HTTPS://EXAMPLE.COM": true,
		"": false, "/relative": false, "example.com": false, "ftp://example.com": false,
		"javascript:alert(1)": false, "https://": false, "mailto:a@b.c": false,
	} {
		if WebURL(s) != want {
			t.Errorf("WebURL(%q) = %v, want %v", s, !want, want)
		}
	}
}

func TestDatesAndTimes(t *testing.T) {
	for s, want := range map[string][3]bool{ // Date, DateTime, Timestamp
		"2026-05-01":                {true, false, true},
		"2026-02-30":                {false, false, false},
		"2026-05-01T14:30:00Z":      {false, true, true},
		"2026-05-01T14:30:00+02:00": {false, true, true},
		"2026-05-01T14:30:00.123Z":  {false, true, true},
		"2026-05-01T14:30":          {false, true, true},
		"2026-05-01T14:30:05":       {false, true, true},
		"2026-05-01 14:30":          {false, false, false},
		"01/05/2026":                {false, false, false},
		"":                          {false, false, false},
		// RFC 3339 allows a leap second; seconds may be left out with a zone too.
		"2016-12-31T23:59:60Z":   {false, true, true},
		"2026-05-01T14:30Z":      {false, true, true},
		"2026-05-01T14:30-08:00": {false, true, true},
		// What Go's parser alone would take, and RFC 3339 does not.
		"2026-05-01T9:30":           {false, false, false},
		"2026-05-01T9:30:00Z":       {false, false, false},
		"2026-05-01T14:30:00,5Z":    {false, false, false},
		"2026-05-01T14:30:00+24:00": {false, false, false},
		"2026-05-01T14:30:00+02:60": {false, false, false},
		// Neither.
		"2026-05-01T24:00":         {false, false, false},
		"2026-05-01T14:60":         {false, false, false},
		"2026-05-01t14:30:00z":     {false, false, false},
		"2026-05-01T14:30:00+0200": {false, false, false},
		"2026-05-01T14:30:00.":     {false, false, false},
		"2026-05-01T14:30.5":       {false, false, false},
		"2026-02-29T10:00:00Z":     {false, false, false},
		" 2026-05-01":              {false, false, false},
		"2026-05-01\n":             {false, false, false},
		"2026-05-01T14:30:00Z\nx":  {false, false, false},
	} {
		_, d := Date(s)
		_, dt := DateTime(s)
		_, ts := Timestamp(s)
		if [3]bool{d, dt, ts} != want {
			t.Errorf("%q: Date %v DateTime %v Timestamp %v, want %v", s, d, dt, ts, want)
		}
	}
	if at, _ := DateTime("2026-05-01T14:30:00+02:00"); at.Format("15:04 MST") != "12:30 UTC" {
		t.Errorf("DateTime is not in UTC: %v", at)
	}
	if at, _ := DateTime("2016-12-31T23:59:60.5Z"); at.Format("15:04:05.0") != "23:59:59.5" {
		t.Errorf("a leap second reads as %v, want 23:59:59.5", at)
	}
	for s, want := range map[string]bool{"2026-05-01T14:30:00Z": true, "2026-05-01T14:30-08:00": true, "2026-05-01T14:30": false, "2026-05-01T14:30:05.1": false} {
		if _, zoned, ok := DateTimeZone(s); !ok || zoned != want {
			t.Errorf("DateTimeZone(%q): zoned %v ok %v, want zoned %v", s, zoned, ok, want)
		}
	}
}
