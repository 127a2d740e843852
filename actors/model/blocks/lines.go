package blocks

import "strings"

// Line anchors. A comment may name a range of lines of a code block or of a text
// diff (old_text/new_text). Lines are numbered from 1 as the review page numbers
// them: a final line end starts no further line, "\r\n" counts as one line end,
// and an empty text has no lines. A diff's lines are those of one of its sides:
// "new" (new_text, the default) or "old" (old_text).

// LineSides are the sides of a diff a line range may name.
var LineSides = []string{"new", "old"}

// HasLines reports whether comments on blocks of type t may name lines: code and
// diff (a diff of numeric items has none; Lines says so for the block).
func HasLines(t string) bool { return t == "code" || t == "diff" }

// Lines is how many lines of b a comment may name on side ("" or "new" for a
// diff's new_text, "old" for its old_text; a code block has one side, its
// content, and takes only ""). ok is false when b has no such lines: another
// type, a diff of items, or a side the block does not have.
func Lines(b Block, side string) (n int, ok bool) {
	m := asObject(decodeLoose(b.Data))
	field := ""
	switch {
	case b.Type == "code" && side == "":
		field = "content"
	case b.Type == "diff" && (side == "" || side == "new"):
		field = "new_text"
	case b.Type == "diff" && side == "old":
		field = "old_text"
	default:
		return 0, false
	}
	if b.Type == "diff" && m["old_text"] == nil && m["new_text"] == nil {
		return 0, false // numeric items
	}
	text, _ := m[field].(string)
	return countLines(text), true
}

// countLines counts the lines of text as the review page numbers them.
func countLines(text string) int {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if text == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
}
