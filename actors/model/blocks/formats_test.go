package blocks

import (
	"strings"
	"testing"
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
		"data:image/png;base64,": `scheme "data:"`, // only image fields take data:image/
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
	if p := urlProblem("data:image/png;base64,AAAA", true); p != "" {
		t.Errorf("data:image/ in an image field: %s", p)
	}
	if p := urlProblem("data:text/html,x", true); !strings.Contains(p, `scheme "data:"`) {
		t.Errorf("data:text/html in an image field: %q", p)
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
