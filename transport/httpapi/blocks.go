package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/apitypes"
)

func (s *Server) appendBlocks(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	var req struct {
		Blocks []blocks.Block `json:"blocks"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.AppendBlocks{Caller: callerOf(who), Blocks: req.Blocks})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, apitypes.BlocksAppended{PageID: res.Page.ID, Version: res.Page.Version, TotalBlocks: len(res.Page.Blocks),
		AppendedBlocks: len(res.BlockIDs), AppendedBlockIDs: res.BlockIDs, Warnings: warningsOrEmpty(res.Warnings)})
	return nil
}

func (s *Server) fixBlock(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	var req page.BlockPatch
	if err := s.decode(w, r, &req, false); err != nil {
		return err
	}
	if req.Data == nil && req.Type == nil && req.Title == nil && req.Group == nil && req.Tab == nil {
		return fault.Field("data", "required", "send at least one of data, type, title, group, tab")
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.FixBlock{Caller: callerOf(who), BlockID: ps.ByName("blockId"), Patch: &req})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, apitypes.BlockFixed[*blocks.Block]{PageID: res.Page.ID, BlockID: res.Block.ID, Version: res.Page.Version,
		Block: res.Block, Warnings: warningsOrEmpty(res.Warnings)})
	return nil
}

func (s *Server) reorderBlocks(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	var req struct {
		BlockOrder *[]string `json:"block_order"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		return err
	}
	if req.BlockOrder == nil {
		return fault.Field("block_order", "required", "block_order is required")
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.Reorder{Caller: callerOf(who), Order: *req.BlockOrder})
	if err != nil {
		return err
	}
	writeBlockList(w, res)
	return nil
}

func (s *Server) insertBlock(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	var req struct {
		Position *int          `json:"position"`
		Block    *blocks.Block `json:"block"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		return err
	}
	if req.Position == nil {
		return fault.Field("position", "required", "position is required")
	}
	if req.Block == nil {
		return fault.Field("block", "required", "block is required")
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.Insert{Caller: callerOf(who), Position: *req.Position, Block: *req.Block})
	if err != nil {
		return err
	}
	writeBlockList(w, res)
	return nil
}

// writeBlockList answers a reorder with the block order, and an insert (res.Block
// set) with the order, the new block's id and the warnings about it.
func writeBlockList(w http.ResponseWriter, res *page.Result) {
	list := apitypes.BlockList{PageID: res.Page.ID, Version: res.Page.Version, TotalBlocks: len(res.Page.Blocks), BlockIDs: res.Page.BlockIDs()}
	if res.Block == nil {
		writeJSON(w, http.StatusOK, list)
		return
	}
	writeJSON(w, http.StatusOK, apitypes.BlockInserted{BlockList: list, BlockID: res.Block.ID, Warnings: warningsOrEmpty(res.Warnings)})
}
