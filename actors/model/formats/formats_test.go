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
}
