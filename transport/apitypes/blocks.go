package apitypes

// BlocksAppended is the answer of PATCH /v1/pages/:id/blocks: the new content
// version, the page's block count and the appended blocks' ids.
type BlocksAppended struct {
	PageID           string   `json:"pageId"`
	Version          int      `json:"version"`
	TotalBlocks      int      `json:"totalBlocks"`
	AppendedBlocks   int      `json:"appendedBlocks"`
	AppendedBlockIDs []string `json:"appendedBlockIds"`
	Warnings         []string `json:"warnings"`
}

// BlockFixed is the answer of PATCH /v1/pages/:id/blocks/:blockId: the block as
// it now is (B: the server's stored block, the client's Block) and the new
// content version.
type BlockFixed[B any] struct {
	PageID   string   `json:"pageId"`
	BlockID  string   `json:"blockId"`
	Version  int      `json:"version"`
	Block    B        `json:"block"`
	Warnings []string `json:"warnings"`
}

// BlockList is the page's top-level block order after a reorder (PUT
// /v1/pages/:id/blocks/reorder).
type BlockList struct {
	PageID      string   `json:"pageId"`
	Version     int      `json:"version"`
	TotalBlocks int      `json:"totalBlocks"`
	BlockIDs    []string `json:"blockIds"`
}

// BlockInserted is the block order after an insert (POST
// /v1/pages/:id/blocks/insert) and the new block's id.
type BlockInserted struct {
	BlockList
	BlockID  string   `json:"blockId"`
	Warnings []string `json:"warnings"`
}
