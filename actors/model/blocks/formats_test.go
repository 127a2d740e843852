package blocks

import (
	"strings"
	"testing"

	"folio/actors/model/formats"
)

func TestTimes(t *testing.T) {
	ok := []string{"2024-05-01", "2024-05-01T14:30", "2024-05-01T14:30:00", "2024-05-01T14:30:00Z",
		"2024-05-01T14:30:00.123456789+05:30", "2024-05-01T00:00-08:00", "2024-02-29T23:59:60Z"}
	bad := map[string]string{
		"yesterday":                 "is not an ISO 8601 timestamp",
		"2024-05-01 14:30:00":       "put T between date and time",
		"2024-05-01T24:00:00Z":      "is not an ISO 8601 timestamp",
		"2024-05-01T14:30:00+0200":  "is not an ISO 8601 timestamp",
		"2023-02-29":                "is not a calendar date",
		"2024-13-01T00:00:00Z":      "is not a calendar date",
		"1714573800":                "is not an ISO 8601 timestamp",
		"":                          "is not an ISO 8601 timestamp",
		"2024-05-01T14:30:00Z\nfoo": "is not an ISO 8601 timestamp",
	}
	for _, s := range ok {
		if p := timeProblem(s); p != "" {
			t.Errorf("%q: %s", s, p)
		}
	}
	for s, want := range bad {
		if p := timeProblem(s); !strings.Contains(p, want) {
			t.Errorf("%q: got %q, want ...%s...", s, p, want)
		}
	}
}

// timeAgreement pairs example timestamps with whether formats.Timestamp accepts
// them. The JSON Schema pattern must say the same, except on calendar dates (the
// last group), which a pattern cannot know.
var timeAgreement = []struct {
	s        string
	accepted bool
	calendar bool // the shape is right and only the calendar date is wrong
}{
	{"2024-05-01", true, false},
	{"0000-01-01", true, false},
	{"2024-05-01T14:30", true, false},
	{"2024-05-01T14:30:05", true, false},
	{"2024-05-01T14:30:05.123456789123", true, false},
	{"2024-05-01T14:30Z", true, false},
	{"2024-05-01T14:30:00Z", true, false},
	{"2024-05-01T14:30:00.5+05:30", true, false},
	{"2024-05-01T00:00-08:00", true, false},
	{"2024-05-01T23:59:59-00:00", true, false},
	{"2024-02-29T23:59:60Z", true, false},
	{"2024-05-01T14:30:60", true, false},

	{"", false, false},
	{"yesterday", false, false},
	{"1714573800", false, false},
	{"2024-5-01", false, false},
	{"24-05-01", false, false},
	{"+2024-05-01", false, false},
	{"2024-05-01T", false, false},
	{"2024-05-01T14", false, false},
	{"2024-05-01T9:30", false, false},
	{"2024-05-01T9:30:00Z", false, false},
	{"2024-05-01T24:00", false, false},
	{"2024-05-01T14:60", false, false},
	{"2024-05-01T14:30:61Z", false, false},
	{"2024-05-01T14:30:00,5Z", false, false},
	{"2024-05-01T14:30:00.Z", false, false},
	{"2024-05-01T14:30.5", false, false},
	{"2024-05-01T14:30:00+24:00", false, false},
	{"2024-05-01T14:30:00+02:60", false, false},
	{"2024-05-01T14:30:00+0200", false, false},
	{"2024-05-01T14:30:00+02", false, false},
	{"2024-05-01T14:30:00 Z", false, false},
	{"2024-05-01T14:30:00UTC", false, false},
	{"2024-05-01t14:30:00z", false, false},
	{"2024-05-01 14:30:00", false, false},
	{" 2024-05-01", false, false},
	{"2024-05-01\n", false, false},
	{"2024-05-01T14:30:00Z\nfoo", false, false},
	{"２０２４-05-01", false, false},

	{"2023-02-29", false, true},
	{"2024-13-01T00:00:00Z", false, true},
	{"2024-04-31T10:00", false, true},
	{"2024-00-10", false, true},
	{"2024-05-00T10:00:00+02:00", false, true},
}

// The block catalog's JSON Schema pattern and the Go check (formats.Timestamp)
// accept the same timestamps; only a calendar date the pattern cannot know (2023-02-29)
// is refused by Go alone.
func TestTimePatternAgreesWithFormats(t *testing.T) {
	for _, c := range timeAgreement {
		_, ok := formats.Timestamp(c.s)
		if ok != c.accepted {
			t.Errorf("formats.Timestamp(%q) = %v, want %v", c.s, ok, c.accepted)
		}
		if match := timeRE.MatchString(c.s); match != (c.accepted || c.calendar) {
			t.Errorf("timePattern matches %q: %v, want %v", c.s, match, c.accepted || c.calendar)
		}
		if p := timeProblem(c.s); (p == "") != c.accepted {
			t.Errorf("timeProblem(%q) = %q, want accepted %v", c.s, p, c.accepted)
		}
	}
}

// FuzzTimePatternAgreesWithFormats checks the same agreement on any text: what
// formats.Timestamp accepts matches the pattern, and what matches the pattern is
// accepted unless its calendar date is wrong.
func FuzzTimePatternAgreesWithFormats(f *testing.F) {
	for _, c := range timeAgreement {
		f.Add(c.s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, ok := formats.Timestamp(s)
		match := timeRE.MatchString(s)
		if ok && !match {
			t.Fatalf("formats.Timestamp accepts %q, the pattern does not", s)
		}
		if match && !ok {
			if _, date := formats.Date(s[:10]); date {
				t.Fatalf("the pattern matches %q, formats.Timestamp refuses it, and its date is valid", s)
			}
		}
	})
}

func TestURLs(t *testing.T) {
	ok := []string{"https://example.com/a?b#c", "http://x", "HTTPS://X", "/abs/path", "rel/path.png", "./a", "../a",
		"#anchor", "?q=1", "//cdn.example.com/x", "a.png", "path/with:colon", "a b.png", "é.png"}
	bad := map[string]string{
		"javascript:alert(1)":    `scheme "javascript:"`,
		"JavaScript:alert(1)":    `scheme "javascript:"`,
		" javascript:alert(1)":   `scheme "javascript:"`,
		"java\nscript:alert(1)":  `scheme "javascript:"`,
		"\x01javascript:x":       `scheme "javascript:"`,
		"vbscript:x":             `scheme "vbscript:"`,
		"data:text/html,<b>":     `scheme "data:"`,
		"mailto:a@example.com":   `scheme "mailto:"`,
		"ftp://example.com":      `scheme "ftp:"`,
		"file:///etc/passwd":     `scheme "file:"`,
		"   ":                    "is empty",
		"data:image/png;base64,": `scheme "data:"`,
	}
	for _, s := range ok {
		if p := urlProblem(s, false); p != "" {
			t.Errorf("%q: %s", s, p)
		}
	}
	for s, want := range bad {
		if p := urlProblem(s, false); !strings.Contains(p, want) {
			t.Errorf("%q: got %q, want ...%s...", s, p, want)
		}
	}
	// An inline image is refused too, with the way to send it instead.
	for _, s := range []string{"data:image/png;base64,AAAA", "DATA:image/gif,x", "data:text/html,x"} {
		if p := urlProblem(s, true); !strings.Contains(p, "inline data: images are not shown") || !strings.Contains(p, "/files") {
			t.Errorf("%q in an image field: %q", s, p)
		}
	}
}

func TestPaths(t *testing.T) {
	cases := map[string]string{
		join("blocks[0].data", "cpu"):      "blocks[0].data.cpu",
		join("blocks[0].data", "cpu %"):    `blocks[0].data["cpu %"]`,
		join("blocks[0].data", "9lives"):   `blocks[0].data["9lives"]`,
		join("blocks[0].data", ""):         `blocks[0].data[""]`,
		join("", "blocks"):                 "blocks",
		index("blocks", 3):                 "blocks[3]",
		join("r", strings.Repeat("k", 70)): `r["` + strings.Repeat("k", 64) + `…"]`,
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

func TestKindsTableIsComplete(t *testing.T) {
	for k := kString; k <= kPoint; k++ {
		info, ok := kinds[k]
		if !ok || info.expect == "" || info.send == "" || info.plural == "" {
			t.Errorf("kind %d has no complete entry in kinds", k)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	cases := map[string]string{
		"Warning": `"warning"`, "warn": `"warning"`, "multiselect": `"multi_select"`,
		"date-time": `"datetime"`, "dates": `"date"`, "xyz": "",
	}
	allowed := append([]string{"warning", "info"}, formTypes...)
	for in, want := range cases {
		got := didYouMean(in, allowed)
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("didYouMean(%q) = %q, want %s", in, got, want)
		}
	}
}
