package page

import (
	"slices"
	"strings"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
)

// lineAnchor checks the line range a comment names against its block: a range
// needs a block_id naming a code block or a text diff, starts at 1 or later, ends
// (line_end, default line_start) at or after its start and at or before the
// block's last line on its side (line_side, diff only: new by default, or old).
// It returns the range as stored: all zero when the request names none, and the
// side set for a diff. Every refusal is a 400 naming the field and the constraint.
func (a *Actor) lineAnchor(req *CommentRequest, blockID string) (start, end int, side string, err error) {
	if req.LineStart == nil && req.LineEnd == nil && req.LineSide == nil {
		return 0, 0, "", nil
	}
	if req.LineStart == nil {
		field := "line_end"
		if req.LineEnd == nil {
			field = "line_side"
		}
		return 0, 0, "", fault.Field(field, "requires_line_start", "%s needs line_start: send the first line of the range (from 1)", field)
	}
	if blockID == "" {
		return 0, 0, "", fault.Field("line_start", "requires_block_id", "line_start needs block_id: name the code or diff block whose lines the comment is about")
	}
	b := a.page.Blocks[a.blockIndex(blockID)]
	if !blocks.HasLines(b.Type) {
		return 0, 0, "", fault.Field("line_start", "block_type", "line ranges are for code and diff blocks; block %s is a %s block: send the comment without line_start and line_end", blockID, b.Type)
	}
	if req.LineSide != nil {
		side = strings.TrimSpace(*req.LineSide)
		if b.Type != "diff" {
			return 0, 0, "", fault.Field("line_side", "block_type", "line_side is for diff blocks; leave it out for a code block")
		}
		if !slices.Contains(blocks.LineSides, side) {
			return 0, 0, "", fault.Field("line_side", "enum", "line_side must be new (the diff's new_text) or old (its old_text)")
		}
	}
	if b.Type == "diff" && side == "" {
		side = "new"
	}
	n, ok := blocks.Lines(b, side)
	if !ok {
		return 0, 0, "", fault.Field("line_start", "block_type", "block %s is a diff of numeric items, which has no lines: send the comment without line_start and line_end", blockID)
	}
	start, end = *req.LineStart, *req.LineStart
	if req.LineEnd != nil {
		end = *req.LineEnd
	}
	switch {
	case n == 0:
		return 0, 0, "", fault.Limit("line_start", "max", 0, "block %s has no lines%s to comment on: send the comment without line_start and line_end", blockID, sideText(side))
	case start < 1 || start > n:
		return 0, 0, "", fault.Limit("line_start", "range", n, "line_start must be a line of block %s%s, from 1 to %d", blockID, sideText(side), n)
	case end < start:
		return 0, 0, "", fault.Limit("line_end", "min", start, "line_end must be line_start (%d) or a later line", start)
	case end > n:
		return 0, 0, "", fault.Limit("line_end", "max", n, "line_end must be at most %d, the last line of block %s%s", n, blockID, sideText(side))
	}
	return start, end, side, nil
}

// sideText names a diff's side in a message ("" for a code block).
func sideText(side string) string {
	switch side {
	case "new":
		return " (its new_text)"
	case "old":
		return " (its old_text)"
	}
	return ""
}
