package page

import (
	"encoding/json"
	"strings"
	"testing"

	"folio/actors/model/formats"
)

// An email, url, date or datetime form field accepts exactly what
// actors/model/formats accepts, and refuses the rest with the field's own
// constraint (the field type), so a form and a template variable agree.
func TestFormFieldsAcceptWhatFormatsAccepts(t *testing.T) {
	examples := map[string][]string{
		"url":      {"https://example.com/x", "HTTP://EXAMPLE.COM", "/relative", "example.com", "ftp://example.com", "javascript:alert(1)", "https://"},
		"email":    {"ana@example.com", "x@y", "Ana <ana@example.com>", "ana@example.com, bob@example.com", "ana", "a@" + strings.Repeat("b", 319)},
		"date":     {"2026-05-01", "2026-02-29", "01/05/2026", "2026-5-1", "2026-05-01T10:00:00Z"},
		"datetime": {"2026-05-01T14:30:00Z", "2026-05-01T14:30:00.5+02:00", "2026-05-01T14:30", "2026-05-01T14:30:05", "2026-05-01T14:30Z", "2016-12-31T23:59:60Z", "2026-05-01 14:30", "2026-05-01T9:30", "2026-05-01T14:30:00,5Z", "2026-05-01T14:30:00+24:00", "2026-05-01", "tomorrow"},
	}
	accepts := map[string]func(string) bool{
		"url":      formats.WebURL,
		"email":    formats.Email,
		"date":     func(s string) bool { _, ok := formats.Date(s); return ok },
		"datetime": func(s string) bool { _, ok := formats.DateTime(s); return ok },
	}
	for typ, list := range examples {
		f := formField{FieldID: "f", Type: typ}
		for _, s := range list {
			raw, _ := json.Marshal(s)
			err := checkField(f, raw)
			if (err == nil) != accepts[typ](s) {
				t.Errorf("%s field %q: err = %v, formats accepts %v", typ, s, err, accepts[typ](s))
			}
			if err != nil && err.Details["constraint"] != typ {
				t.Errorf("%s field %q: constraint %v, want %s", typ, s, err.Details["constraint"], typ)
			}
		}
	}
}
