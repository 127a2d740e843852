package blocks

import (
	"encoding/json"
	"testing"
)

// TestLinesCountAsTheReviewPageNumbersThem: a final line end starts no further
// line, "\r\n" is one line end, an empty text has none; a diff has two sides, a
// diff of items and other types have none.
func TestLinesCountAsTheReviewPageNumbersThem(t *testing.T) {
	for _, tc := range []struct {
		typ, data, side string
		n               int
		ok              bool
	}{
		{"code", `{"content":"a\nb\n"}`, "", 2, true},
		{"code", `{"content":"a\r\nb\r\nc"}`, "", 3, true},
		{"code", `{"content":""}`, "", 0, true},
		{"code", `{"content":"a"}`, "new", 0, false},
		{"diff", `{"old_text":"x\n","new_text":"x\ny\nz\n"}`, "", 3, true},
		{"diff", `{"old_text":"x\n","new_text":"x\ny\nz\n"}`, "new", 3, true},
		{"diff", `{"old_text":"x\n","new_text":"x\ny\nz\n"}`, "old", 1, true},
		{"diff", `{"new_text":"x"}`, "old", 0, true},
		{"diff", `{"items":[{"label":"a","old":1,"new":2}]}`, "", 0, false},
		{"text", `{"content":"a\nb"}`, "", 0, false},
	} {
		n, ok := Lines(Block{Type: tc.typ, Data: json.RawMessage(tc.data)}, tc.side)
		if n != tc.n || ok != tc.ok {
			t.Errorf("%s %s side %q: %d %v, want %d %v", tc.typ, tc.data, tc.side, n, ok, tc.n, tc.ok)
		}
	}
}
