package render

// Bounds on what one render draws, so that the work and the output of a page stay
// proportional to its stored size whatever an agent sends. The API already refuses
// deeper or larger input (blocks.MaxDepth and the data limits); these hold for
// anything stored before those limits existed, too.
const (
	// MaxDepth is the deepest block nesting drawn; deeper blocks show a note.
	MaxDepth = 8
	// MaxBlocks is the most blocks one render draws, nested ones included.
	MaxBlocks = 2000
	// MaxItems is the most elements drawn from one list of a block (table rows are
	// paged by max_rows first); the rest are counted in a note.
	MaxItems = 1000
	// genericDepth and genericNodes bound the generic view of unknown data.
	genericDepth = 6
	genericNodes = 500
	// genericText is the longest string the generic view shows in full.
	genericText = 2000
)
