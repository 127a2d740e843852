package page

import (
	"folio/actors/model/audit"
	"folio/actors/model/blocks"
	"folio/actors/model/fault"
)

// Reply instructions: a callback receiver's 2xx reply may carry
// {ok, instructions: {update_page: {add_blocks: [Block]}}}. The callback dispatcher
// sends ApplyReply; the page appends the blocks once per event id, however often the
// reply arrives (a retried delivery, a manual redelivery, a re-sent message after a
// crash): the ids of applied events are kept in the page state (the most recent
// maxAppliedReplies of them) and committed with the blocks.

const maxAppliedReplies = 256

// ApplyReply appends the blocks of a callback reply to the page.
type ApplyReply struct {
	Caller
	EventID string
	Blocks  []blocks.Block
}

// ReplyApplied answers ApplyReply: Duplicate when that event's reply was applied
// before (nothing changed).
type ReplyApplied struct {
	Duplicate bool
	BlockIDs  []string
	Version   int
}

func (m *ApplyReply) run(a *Actor) any { return a.applyReply(m) }

// applyReply works on every status but revoked: the agent's own PATCH /blocks is
// limited to draft and active pages, but a reply usually answers the action that
// completed the page, and appending its follow-up to the completed page is the point.
func (a *Actor) applyReply(m *ApplyReply) any {
	for _, id := range a.page.AppliedReplies {
		if id == m.EventID {
			return &ReplyApplied{Duplicate: true, Version: a.page.Version}
		}
	}
	if a.page.Status == Revoked {
		return fault.State("append reply blocks to", Revoked)
	}
	if len(m.Blocks) == 0 {
		return fault.Field("instructions.update_page.add_blocks", "min_items", "add_blocks holds no block")
	}
	added, _, err := prepareBlocks("instructions.update_page.add_blocks", m.Blocks, a.page.Blocks, len(a.page.Blocks), a.deps.Limits)
	if err != nil {
		return err
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	next.Blocks = append(next.Blocks, added...)
	bumpContent(a.page, next)
	next.UpdatedAt = now
	applied := append(append([]string{}, a.page.AppliedReplies...), m.EventID)
	if len(applied) > maxAppliedReplies {
		applied = applied[len(applied)-maxAppliedReplies:]
	}
	next.AppliedReplies = applied
	newIDs := idsOf(added)
	entry := audit.New("blocks.appended", "system", a.id, now, map[string]any{"block_ids": newIDs, "version": next.Version, "source": "callback_reply", "event_id": m.EventID})
	ev := a.event(now, BlocksAppended{Version: next.Version, NewBlocks: added})
	if err := a.apply(next, []audit.Entry{entry}, []Event{ev}); err != nil {
		return err
	}
	return &ReplyApplied{BlockIDs: newIDs, Version: next.Version}
}
