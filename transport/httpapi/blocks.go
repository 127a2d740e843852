package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/tenant"
)

func (s *Server) appendBlocks(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	var req struct {
		Blocks []blocks.Block `json:"blocks"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.askPage(ps.ByName("id"), &page.AppendBlocks{Caller: callerOf(who), Blocks: req.Blocks})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"pageId": res.Page.ID, "version": res.Page.Version, "totalBlocks": len(res.Page.Blocks),
		"appendedBlocks": len(res.BlockIDs), "appendedBlockIds": res.BlockIDs, "warnings": warningsOrEmpty(res.Warnings),
	})
}

func (s *Server) fixBlock(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	var req page.BlockPatch
	if err := s.decode(w, r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Data == nil && req.Type == nil && req.Title == nil && req.Group == nil && req.Tab == nil {
		s.writeError(w, r, fault.Field("data", "required", "send at least one of data, type, title, group, tab"))
		return
	}
	res, err := s.askPage(ps.ByName("id"), &page.FixBlock{Caller: callerOf(who), BlockID: ps.ByName("blockId"), Patch: &req})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"pageId": res.Page.ID, "blockId": res.Block.ID, "version": res.Page.Version,
		"block": res.Block, "warnings": warningsOrEmpty(res.Warnings),
	})
}

func (s *Server) reorderBlocks(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	var req struct {
		BlockOrder *[]string `json:"block_order"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.BlockOrder == nil {
		s.writeError(w, r, fault.Field("block_order", "required", "block_order is required"))
		return
	}
	res, err := s.askPage(ps.ByName("id"), &page.Reorder{Caller: callerOf(who), Order: *req.BlockOrder})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeBlockList(w, res)
}

func (s *Server) insertBlock(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	var req struct {
		Position *int          `json:"position"`
		Block    *blocks.Block `json:"block"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Position == nil {
		s.writeError(w, r, fault.Field("position", "required", "position is required"))
		return
	}
	if req.Block == nil {
		s.writeError(w, r, fault.Field("block", "required", "block is required"))
		return
	}
	res, err := s.askPage(ps.ByName("id"), &page.Insert{Caller: callerOf(who), Position: *req.Position, Block: *req.Block})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeBlockList(w, res)
}

func (s *Server) writeBlockList(w http.ResponseWriter, res *page.Result) {
	out := map[string]any{"pageId": res.Page.ID, "version": res.Page.Version, "totalBlocks": len(res.Page.Blocks), "blockIds": res.Page.BlockIDs()}
	if res.Block != nil {
		out["blockId"] = res.Block.ID
		out["warnings"] = warningsOrEmpty(res.Warnings)
	}
	writeJSON(w, http.StatusOK, out)
}
