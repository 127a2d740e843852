package realtime_test

import (
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// TestCommentsAnchorToLinesOfCodeAndDiffBlocks: a comment names a range of lines
// of a code block, or of either side of a text diff (new by default); the range is
// checked against the block's lines and every refusal is a 400 naming the field
// and the constraint, with nothing stored. The range is in the comment object, its
// list and the comment stream's comment.added.
func TestCommentsAnchorToLinesOfCodeAndDiffBlocks(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("lines")
	id := e.Publish(key, map[string]any{"blocks": []any{
		map[string]any{"id": "code", "type": "code", "data": map[string]any{"content": "a\nb\nc\n", "language": "go"}},
		map[string]any{"id": "diff", "type": "diff", "data": map[string]any{"old_text": "x\ny\n", "new_text": "x\nY\nz\nw\n"}},
		map[string]any{"id": "nums", "type": "diff", "data": map[string]any{"items": []any{map[string]any{"label": "cost", "old": 1, "new": 2}}}},
		map[string]any{"id": "empty", "type": "diff", "data": map[string]any{"old_text": "", "new_text": ""}},
		map[string]any{"id": "note", "type": "text", "data": map[string]any{"content": "one\ntwo"}},
	}})
	cs := openSSE(t, e, "/v1/pages/"+id+"/comments/stream", "", "")
	p := "/v1/pages/" + id + "/comments"

	one := e.Must(201, "POST", p, "", map[string]any{"content": "why b?", "block_id": "code", "line_start": 2})
	if one["line_start"] != 2.0 || one["line_end"] != 2.0 || one["line_side"] != nil {
		t.Fatalf("a single code line: %v", one)
	}
	rng := e.Must(201, "POST", p, "", map[string]any{"content": "these", "block_id": "diff", "line_start": 2, "line_end": 4})
	if rng["line_start"] != 2.0 || rng["line_end"] != 4.0 || rng["line_side"] != "new" {
		t.Fatalf("a diff range defaults to the new side: %v", rng)
	}
	old := e.Must(201, "POST", p, "", map[string]any{"content": "removed y", "block_id": "diff", "line_start": 2, "line_end": 2, "line_side": "old"})
	if old["line_side"] != "old" || old["line_start"] != 2.0 {
		t.Fatalf("old side: %v", old)
	}
	whole := e.Must(201, "POST", p, "", map[string]any{"content": "the block", "block_id": "note"})
	if _, has := whole["line_start"]; has {
		t.Fatalf("a comment on a whole block has no lines: %v", whole)
	}

	for _, tc := range []struct {
		body              map[string]any
		field, constraint string
	}{
		{map[string]any{"line_start": 1}, "line_start", "requires_block_id"},
		{map[string]any{"block_id": "code", "line_end": 2}, "line_end", "requires_line_start"},
		{map[string]any{"block_id": "diff", "line_side": "old"}, "line_side", "requires_line_start"},
		{map[string]any{"block_id": "note", "line_start": 1}, "line_start", "block_type"},
		{map[string]any{"block_id": "nums", "line_start": 1}, "line_start", "block_type"},
		{map[string]any{"block_id": "code", "line_start": 1, "line_side": "new"}, "line_side", "block_type"},
		{map[string]any{"block_id": "diff", "line_start": 1, "line_side": "left"}, "line_side", "enum"},
		{map[string]any{"block_id": "code", "line_start": 0}, "line_start", "range"},
		{map[string]any{"block_id": "code", "line_start": -3}, "line_start", "range"},
		{map[string]any{"block_id": "code", "line_start": 4}, "line_start", "range"}, // "a\nb\nc\n" has 3 lines
		{map[string]any{"block_id": "code", "line_start": 2, "line_end": 1}, "line_end", "min"},
		{map[string]any{"block_id": "code", "line_start": 2, "line_end": 4}, "line_end", "max"},
		{map[string]any{"block_id": "diff", "line_start": 3, "line_side": "old"}, "line_start", "range"}, // old_text has 2
		{map[string]any{"block_id": "diff", "line_start": 1, "line_end": 5}, "line_end", "max"},          // new_text has 4
		{map[string]any{"block_id": "empty", "line_start": 1}, "line_start", "max"},
		{map[string]any{"block_id": "code", "line_start": "2"}, "line_start", ""},
		{map[string]any{"block_id": "code", "line_start": 1.5}, "line_start", ""},
	} {
		tc.body["content"] = "x"
		r := e.Do("POST", p, "", tc.body)
		d := r.ErrDetails(t)
		if r.Status != 400 || d["field"] != tc.field || (tc.constraint != "" && d["constraint"] != tc.constraint) {
			t.Errorf("POST %v: %d %s (want 400 %s %s)", tc.body, r.Status, r.Body, tc.field, tc.constraint)
		}
	}

	list := e.Must(200, "GET", p, "", nil)
	got := list["comments"].([]any)
	if len(got) != 4 {
		t.Fatalf("a refused comment is not stored: %d comments", len(got))
	}
	if c := got[1].(map[string]any); c["line_start"] != 2.0 || c["line_end"] != 4.0 || c["line_side"] != "new" {
		t.Fatalf("listed: %v", c)
	}
	ms := cs.collect(5*time.Second, func(ms []msg) bool { return len(ms) >= 3 })
	if d := ms[2].data(); ms[2].Type != "comment.added" || d["block_id"] != "diff" || d["line_start"] != 2.0 || d["line_end"] != 2.0 || d["line_side"] != "old" {
		t.Fatalf("comment stream: %s", ms[2].Raw)
	}
}
