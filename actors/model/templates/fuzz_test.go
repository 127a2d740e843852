package templates

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"folio/actors/model/blocks"
)

// FuzzRender feeds arbitrary variables to every template: Render never panics, and
// whatever it accepts becomes a page the block catalog accepts without a warning,
// with a title within the limit and Markdown fields free of unescaped markup.
func FuzzRender(f *testing.F) {
	for _, set := range []map[string]string{full, minimal} {
		for _, v := range set {
			f.Add([]byte(v))
		}
	}
	f.Add([]byte(`{"title": "a\n# b", "description": "<b>x</b>\n\n    code", "details": {"k": 1.5e300}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, tp := range All() {
			p, warnings, err := tp.Render(json.RawMessage(raw))
			if err != nil {
				if fieldOf(err) == "" {
					t.Fatalf("%s: an error without a field: %v", tp.Name, err)
				}
				continue
			}
			if utf8.RuneCountInString(p.Title) > maxTitle || strings.TrimSpace(p.Title) == "" {
				t.Fatalf("%s: title %q", tp.Name, p.Title)
			}
			if len(warnings) > 20 {
				t.Fatalf("%s: %d warnings", tp.Name, len(warnings))
			}
			if _, w := blocks.Prepare("blocks", p.Blocks); len(w) != 0 {
				t.Fatalf("%s: the catalog warns on %s: %q", tp.Name, raw, w)
			}
		}
	})
}
