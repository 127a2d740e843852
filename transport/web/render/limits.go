package render

import (
	"bytes"

	"folio/actors/model/blocks"
)

// Bounds on what one render draws, so that the work and the output of a page stay
// proportional to its stored size whatever an agent sends. The API already refuses
// deeper or larger input (blocks.MaxDepth and the data limits); these hold for
// anything stored before those limits existed, too.
//
// Output is bounded where it is written, not only where it is read (budget.go):
//
//   - a top-level block's HTML is at most blockRoom(it): blockFactor × its data's
//     length + blockConst bytes (denseFactor for a chart or heatmap, or a block
//     holding one); its nested blocks are drawn within it;
//   - a page's blocks together are at most Options.MaxBytes (DefaultMaxPageBytes),
//     plus one note of under 1 KiB when blocks were left out;
//   - a block past its room, or past what is left of the page, is cut where it ran
//     out, its open elements closed and a visible "Content truncated" note added.
//
// Work follows output: templates stop at the first write past the room, Markdown
// stops rendering at the first node past its own room (markdown.go), and the views
// that build large pieces before writing them (the heatmap's grid) size them by the
// block's room.
const (
	// MaxDepth is the deepest block nesting drawn; deeper blocks show a note.
	MaxDepth = 8
	// maxBlocks is the most blocks one render draws, nested ones included.
	maxBlocks = 2000
	// maxItems is the most elements drawn from one list of a block (table rows are
	// paged by max_rows first); the rest are counted in a note.
	maxItems = 1000
	// genericDepth and genericNodes bound the generic view of unknown data.
	genericDepth = 6
	genericNodes = 500
	// genericText is the longest string the generic view shows in full.
	genericText = 2000

	// blockFactor and blockConst make a top-level block's room: the most bytes of
	// HTML it draws. The constant covers the fixed cost of small blocks (a chart of
	// three bars is about 10 KB of SVG); the factor, markup around every value of
	// larger ones (the block types' own examples draw at most 10× their data, nearly
	// all of it within the constant).
	blockFactor = 8
	blockConst  = 32 << 10
	// denseFactor replaces blockFactor for a chart or a heatmap, and for a block
	// holding one (its data names "chart" or "heatmap"): each value of theirs, two
	// bytes stored, is a bar or cell in two drawings and a row of their table,
	// 100-250 bytes (a 20 × 20 heatmap of two-digit values is 1.5 KB drawn as 92 KB).
	denseFactor = 64
	// DefaultMaxPageBytes is the most bytes of block HTML one page draws when
	// Options.MaxBytes is not set (serve --render-max-page-bytes).
	DefaultMaxPageBytes = 4 << 20
)

// blockRoom is the most bytes of HTML a top-level block draws.
func blockRoom(b blocks.Block) int {
	if dense(b) {
		return denseFactor*len(b.Data) + blockConst
	}
	return blockFactor*len(b.Data) + blockConst
}

// dense reports whether b is, or may hold, a chart or a heatmap.
func dense(b blocks.Block) bool {
	return b.Type == "chart" || b.Type == "heatmap" ||
		bytes.Contains(b.Data, []byte(`"chart"`)) || bytes.Contains(b.Data, []byte(`"heatmap"`))
}
