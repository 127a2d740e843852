package templates

import (
	"encoding/json"
	"strings"
	"testing"

	"folio/actors/model/formats"
)

// A url, email, date or datetime variable accepts exactly what actors/model/formats
// accepts, so a template and a form field of the same type agree.
func TestFormatVariablesAcceptWhatFormatsAccepts(t *testing.T) {
	examples := map[string][]string{
		TURL:      {"https://example.com/x", "HTTP://EXAMPLE.COM", "/relative", "example.com", "ftp://example.com", "javascript:alert(1)", "https://"},
		tEmail:    {"ana@example.com", "x@y", "Ana <ana@example.com>", "ana@example.com, bob@example.com", "ana", "a@" + strings.Repeat("b", 319)},
		tDate:     {"2025-05-01", "2025-02-29", "30/04/2025", "2025-5-1", "2025-05-01T10:00:00Z"},
		tDateTime: {"2025-05-01T10:00:00Z", "2025-05-01T10:00:00.5+02:00", "2025-05-01T10:00", "2025-05-01T10:00:05", "2025-05-01T10:00Z", "2016-12-31T23:59:60Z", "2025-05-01 10:00", "2025-05-01T9:00:00Z", "2025-05-01T10:00:00,5Z", "2025-05-01T10:00:00+24:00", "2025-05-01", "2025-02-29T10:00:00Z"},
	}
	accepts := map[string]func(string) bool{
		TURL:      formats.WebURL,
		tEmail:    formats.Email,
		tDate:     func(s string) bool { _, ok := formats.Date(s); return ok },
		tDateTime: func(s string) bool { _, ok := formats.DateTime(s); return ok },
	}
	tp := &Template{Name: "probe"}
	for typ, list := range examples {
		v := Variable{Key: "v", Label: "V", Type: typ}
		for _, s := range list {
			raw, _ := json.Marshal(s)
			_, err := tp.check(v, raw)
			if (err == nil) != accepts[typ](s) {
				t.Errorf("%s variable %q: err = %v, formats accepts %v", typ, s, err, accepts[typ](s))
			}
		}
	}
	v := Variable{Key: "at", Label: "At", Type: tDateTime}
	for in, want := range map[string]string{"2025-05-01T12:00:00+02:00": "2025-05-01T10:00:00Z", "2025-05-01T10:00": "2025-05-01T10:00:00Z"} {
		raw, _ := json.Marshal(in)
		if got, err := tp.check(v, raw); err != nil || got != want {
			t.Errorf("datetime %q = %v, %v; want %q (UTC, RFC 3339)", in, got, err, want)
		}
	}
}
