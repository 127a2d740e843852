package page

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"folio/actors/model/audit"
	"folio/actors/model/blocks"
	"folio/actors/model/fault"
)

// Block operations are allowed on draft and active pages; each raises the content
// version by one and emits its event.

func (a *Actor) editable(op string) error {
	if s := a.page.Status; s != Draft && s != Active {
		return fault.State(op, s)
	}
	return nil
}

func (a *Actor) appendBlocks(m *AppendBlocks) any {
	if err := a.editable("append blocks to"); err != nil {
		return err
	}
	if len(m.Blocks) == 0 {
		return fault.Field("blocks", "min_items", "blocks must hold at least one block")
	}
	added, warnings, err := prepareBlocks("blocks", m.Blocks, a.page.Blocks, len(a.page.Blocks), a.deps.Limits)
	if err != nil {
		return err
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	next.Blocks = append(next.Blocks, added...)
	bumpContent(a.page, next)
	next.UpdatedAt = now
	newIDs := idsOf(added)
	entry := audit.New("blocks.appended", m.Agent, a.id, now, map[string]any{"block_ids": newIDs, "version": next.Version})
	ev := a.event(now, BlocksAppended{Version: next.Version, NewBlocks: added})
	if err := a.apply(next, []audit.Entry{entry}, []Event{ev}); err != nil {
		return err
	}
	return &Result{Page: next, Warnings: warnings, BlockIDs: newIDs}
}

func (a *Actor) fixBlock(m *FixBlock) any {
	if err := a.editable("edit blocks of"); err != nil {
		return err
	}
	idx := a.blockIndex(m.BlockID)
	if idx < 0 {
		return fault.Missing("block", m.BlockID)
	}
	b := a.page.Blocks[idx]
	p := m.Patch
	if p.Data != nil {
		if !isObject(p.Data) {
			return fault.Field("data", "type", "data must be an object")
		}
		b.Data = append(json.RawMessage(nil), p.Data...)
	}
	if p.Type != nil {
		if *p.Type == "" || len(*p.Type) > 64 {
			return fault.Field("type", "required", "type must be a non-empty string of at most 64 characters")
		}
		b.Type = *p.Type
	}
	if p.Title != nil {
		var data map[string]any
		if err := json.Unmarshal(b.Data, &data); err != nil || data == nil {
			data = map[string]any{}
		}
		data["title"] = *p.Title
		b.Data, _ = json.Marshal(data)
	}
	if p.Group != nil {
		b.Group = *p.Group
	}
	if p.Tab != nil {
		b.Tab = *p.Tab
	}
	if p.Editable != nil {
		b.Editable = *p.Editable
	}
	if d := blocks.Depth(b); d > a.deps.Limits.Depth {
		return fault.Limit("data", "max_depth", a.deps.Limits.Depth, "the block nests blocks %d deep; the limit is %d", d, a.deps.Limits.Depth)
	}
	others := append(append([]blocks.Block(nil), a.page.Blocks[:idx]...), a.page.Blocks[idx+1:]...)
	if blocks.Count(others)+blocks.Count([]blocks.Block{b}) > a.deps.Limits.Blocks {
		return fault.Limit("data", "max_blocks", a.deps.Limits.Blocks, "the page would have more than %d blocks", a.deps.Limits.Blocks)
	}
	b, warnings := blocks.PrepareBlock(fmt.Sprintf("blocks[%d]", idx), b)
	warnings = append(warnings, capEditable(fmt.Sprintf("blocks[%d]", idx), &b, a.deps.Limits)...)
	now := a.deps.Now().UTC()
	next := a.page.clone()
	next.Blocks[idx] = b
	bumpContent(a.page, next)
	next.UpdatedAt = now
	entry := audit.New("block.updated", m.Agent, a.id, now, map[string]any{"block_id": b.ID, "version": next.Version})
	ev := a.event(now, blockUpdated{Version: next.Version, Block: b})
	if err := a.apply(next, []audit.Entry{entry}, []Event{ev}); err != nil {
		return err
	}
	return &Result{Page: next, Block: &b, Warnings: warnings}
}

func (a *Actor) reorder(m *Reorder) any {
	if err := a.editable("reorder blocks of"); err != nil {
		return err
	}
	pos := map[string]int{}
	for i, b := range a.page.Blocks {
		pos[b.ID] = i
	}
	listed := map[string]bool{}
	order := make([]blocks.Block, 0, len(a.page.Blocks))
	for i, id := range m.Order {
		at := fmt.Sprintf("block_order[%d]", i)
		j, ok := pos[id]
		if !ok {
			e := fault.Field(at, "unknown_block", "block %q is not on this page", id)
			e.Details["block_id"] = id
			return e
		}
		if listed[id] {
			return fault.Field(at, "unique", "block %q is listed twice", id)
		}
		listed[id] = true
		order = append(order, a.page.Blocks[j])
	}
	for _, b := range a.page.Blocks { // blocks not listed keep their old order, after
		if !listed[b.ID] {
			order = append(order, b)
		}
	}
	if sameOrder(order, a.page.Blocks) {
		return &Result{Page: a.page} // nothing moves: no new version, no event
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	next.Blocks = order
	bumpContent(a.page, next)
	next.UpdatedAt = now
	entry := audit.New("blocks.reordered", m.Agent, a.id, now, map[string]any{"block_ids": next.BlockIDs(), "version": next.Version})
	ev := a.event(now, blocksReordered{Version: next.Version, BlockIDs: next.BlockIDs()})
	if err := a.apply(next, []audit.Entry{entry}, []Event{ev}); err != nil {
		return err
	}
	return &Result{Page: next}
}

// insert places one block at position; a position past the end is clamped to the
// end, a negative one is 400.
func (a *Actor) insert(m *Insert) any {
	if err := a.editable("insert blocks into"); err != nil {
		return err
	}
	if m.Position < 0 {
		return fault.Field("position", "minimum", "position must be 0 or more")
	}
	pos := min(m.Position, len(a.page.Blocks))
	added, warnings, err := prepareBlocks("block", []blocks.Block{m.Block}, a.page.Blocks, pos, a.deps.Limits)
	if err != nil {
		return rebaseErr(err, "block[0]", "block") // the request names it "block"
	}
	warnings = rebase(warnings, "block[0]", "block")
	now := a.deps.Now().UTC()
	next := a.page.clone()
	next.Blocks = append(next.Blocks[:pos], append([]blocks.Block{added[0]}, a.page.Blocks[pos:]...)...)
	bumpContent(a.page, next)
	next.UpdatedAt = now
	entry := audit.New("block.inserted", m.Agent, a.id, now, map[string]any{"block_id": added[0].ID, "position": pos, "version": next.Version})
	ev := a.event(now, BlockInserted{Version: next.Version, Position: pos, Block: added[0]})
	if err := a.apply(next, []audit.Entry{entry}, []Event{ev}); err != nil {
		return err
	}
	return &Result{Page: next, Warnings: warnings, BlockIDs: []string{added[0].ID}, Block: &added[0]}
}

func (a *Actor) blockIndex(id string) int {
	for i, b := range a.page.Blocks {
		if b.ID == id {
			return i
		}
	}
	return -1
}

func idsOf(bs []blocks.Block) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}

// rebase rewrites the leading path of warnings.
func sameOrder(a, b []blocks.Block) bool {
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
	}
	return len(a) == len(b)
}

// rebaseErr renames the field an error names (and its message) from one path to
// another, like rebase.
func rebaseErr(err error, from, to string) error {
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return err
	}
	field, _ := fe.Details["field"].(string)
	if !strings.HasPrefix(field, from) {
		return err
	}
	out := fault.New(fe.Code, strings.ReplaceAll(fe.Message, from, to), maps.Clone(fe.Details))
	out.Details["field"] = to + field[len(from):]
	return out
}

func rebase(warnings []string, from, to string) []string {
	out := make([]string, len(warnings))
	for i, w := range warnings {
		if len(w) >= len(from) && w[:len(from)] == from {
			w = to + w[len(from):]
		}
		out[i] = w
	}
	return out
}
