package client

import (
	"context"

	"folio/transport/apitypes"
)

// BlocksAppended is the page after PATCH /v1/pages/:id/blocks.
type BlocksAppended = apitypes.BlocksAppended

// BlockPatch changes one top-level block: nil fields are left as they are; Title
// sets data.title.
type BlockPatch struct {
	Data  any     `json:"data,omitempty"`
	Type  *string `json:"type,omitempty"`
	Title *string `json:"title,omitempty"`
	Group *string `json:"group,omitempty"`
	Tab   *string `json:"tab,omitempty"`
	// Editable marks the block editable by the reviewer (or not); nil: unchanged.
	Editable *bool `json:"editable,omitempty"`
}

// BlockFixed is the block after PATCH /v1/pages/:id/blocks/:blockId.
type BlockFixed = apitypes.BlockFixed[Block]

// BlockList is the page's top-level block order after a reorder.
type BlockList = apitypes.BlockList

// BlockInserted is the block order after an insert, and the new block's id.
type BlockInserted = apitypes.BlockInserted

type blockAppend struct {
	Blocks []Block `json:"blocks"`
}

type blockOrder struct {
	BlockOrder []string `json:"block_order"`
}

type blockInsert struct {
	Position int   `json:"position"`
	Block    Block `json:"block"`
}

// AppendBlocks adds blocks at the end of a draft or active page (PATCH
// /v1/pages/:id/blocks).
func (c *Client) AppendBlocks(ctx context.Context, pageID string, blocks []Block) (*BlocksAppended, error) {
	return call[BlocksAppended](ctx, c, "PATCH", "/v1/pages/"+esc(pageID)+"/blocks", blockAppend{Blocks: blocks})
}

// FixBlock changes one top-level block (PATCH /v1/pages/:id/blocks/:blockId).
func (c *Client) FixBlock(ctx context.Context, pageID, blockID string, p BlockPatch) (*BlockFixed, error) {
	return call[BlockFixed](ctx, c, "PATCH", "/v1/pages/"+esc(pageID)+"/blocks/"+esc(blockID), p)
}

// ReorderBlocks puts the listed block ids first, the others after them in their
// old order (PUT /v1/pages/:id/blocks/reorder).
func (c *Client) ReorderBlocks(ctx context.Context, pageID string, order []string) (*BlockList, error) {
	return call[BlockList](ctx, c, "PUT", "/v1/pages/"+esc(pageID)+"/blocks/reorder", blockOrder{BlockOrder: order})
}

// InsertBlock inserts block at position (0-based; past the end: at the end) (POST
// /v1/pages/:id/blocks/insert).
func (c *Client) InsertBlock(ctx context.Context, pageID string, position int, block Block) (*BlockInserted, error) {
	return call[BlockInserted](ctx, c, "POST", "/v1/pages/"+esc(pageID)+"/blocks/insert", blockInsert{Position: position, Block: block})
}
