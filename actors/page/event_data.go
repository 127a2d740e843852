package page

import (
	"encoding/json"
	"time"

	"folio/actors/model/blocks"
)

// The payloads of the events a page emits, one struct per event type. They hold Go
// values only: each audience's spelling lives with its encoder (see eventData). A
// string field that may be absent is "" when it is; encoders write it as null or
// leave it out, as their audience expects.

// pageCreated is page.created: the new page's status (draft).
type pageCreated struct{ Status string }

// pagePublished is page.published: the page's status (active).
type pagePublished struct{ Status string }

// PageUpdated is page.updated: the request fields the update set, and the content
// version after it.
type PageUpdated struct {
	Fields  []string
	Version int
}

// pageRevoked is page.revoked.
type pageRevoked struct{ Reason string }

// pageRenewed is page.renewed: the new expiry time.
type pageRenewed struct{ ExpiresAt time.Time }

// PageExpired is page.expired: why ("timeout") and the expiry time that passed.
type PageExpired struct {
	Reason    string
	ExpiredAt time.Time
}

// PageCompleted is page.completed: the action that completed the page and the
// page's decision.
type PageCompleted struct {
	ActionID string
	Decision string
}

// PageViewed is page.viewed: the page's view count after the view and the viewer's
// user agent (the viewer is the event's Actor).
type PageViewed struct {
	ViewCount int
	UserAgent string
}

// ActionExecuted is action.executed (the person is the event's Actor). Comment and
// FormData are the reviewer's private input: only the owning agent sees them.
type ActionExecuted struct {
	ActionID    string
	ActionLabel string
	Comment     *string         // nil: none given
	Decision    string          // "": a neutral action that did not complete the page
	FormData    json.RawMessage // nil: none sent
	PageState   PageState
	// Verdict: the outcome, whether the page ended, and the content version and
	// hash the decision was made on (verdict.go, version.go).
	Verdict Verdict
	// Receipt: the audit entry that recorded it (receipt.go), set in the commit.
	Receipt *Receipt
}

// PageState is the page's status before and after an action.
type PageState struct {
	Previous string
	Current  string
}

// FormSubmitted is form.submitted: the form data an action carried on a page with
// form blocks (the person is the event's Actor).
type FormSubmitted struct {
	ActionID string
	FormData json.RawMessage
}

// ApprovalStepCompleted is approval.step_completed.
type ApprovalStepCompleted struct {
	StepID    string
	StepName  string
	Decision  string
	DecidedBy string
	NextStep  string // "": no step is pending any more
	// How DecidedBy was established; in the audit, and as the event's actor.
	AuthMethod string
	Key        *KeyRef
}

// ApprovalChainCompleted is approval.chain_completed: the chain's final decision and each
// step's decision.
type ApprovalChainCompleted struct {
	FinalDecision string
	Steps         []StepSummary
}

// StepSummary is one step of a completed chain.
type StepSummary struct {
	StepID   string
	Decision string // "": the step was skipped
}

// BlocksAppended is blocks.appended (by the agent, or by a callback reply).
type BlocksAppended struct {
	Version   int
	NewBlocks []blocks.Block
}

// blockUpdated is block.updated: the block as it is now.
type blockUpdated struct {
	Version int
	Block   blocks.Block
}

// BlockInserted is block.inserted: the block and where it went.
type BlockInserted struct {
	Version  int
	Position int
	Block    blocks.Block
}

// blocksReordered is blocks.reordered: every block id in the new order.
type blocksReordered struct {
	Version  int
	BlockIDs []string
}

// commentAdded is comment.added.
type commentAdded struct {
	CommentID  string
	Content    string
	AuthorName string
	AuthorType string
	BlockID    string // "": not about one block
	// LineStart..LineEnd on LineSide: the block's lines it is about (0: the whole block).
	LineStart, LineEnd int
	LineSide           string
	ParentID           string // "": not a reply
}

// commentUpdated is comment.updated: the comment's new content.
type commentUpdated struct {
	CommentID string
	Content   string
}

// commentDeleted is comment.deleted.
type commentDeleted struct{ CommentID string }

// FileUploaded is file.uploaded.
type FileUploaded struct {
	FileID    string
	Filename  string
	MimeType  string
	SizeBytes int64
}

// fileDeleted is file.deleted.
type fileDeleted struct {
	FileID   string
	Filename string
}

func (pageCreated) EventType() string            { return "page.created" }
func (pagePublished) EventType() string          { return "page.published" }
func (PageUpdated) EventType() string            { return "page.updated" }
func (pageRevoked) EventType() string            { return "page.revoked" }
func (pageRenewed) EventType() string            { return "page.renewed" }
func (PageExpired) EventType() string            { return "page.expired" }
func (PageCompleted) EventType() string          { return "page.completed" }
func (PageViewed) EventType() string             { return "page.viewed" }
func (ActionExecuted) EventType() string         { return "action.executed" }
func (FormSubmitted) EventType() string          { return "form.submitted" }
func (ApprovalStepCompleted) EventType() string  { return "approval.step_completed" }
func (ApprovalChainCompleted) EventType() string { return "approval.chain_completed" }
func (BlocksAppended) EventType() string         { return "blocks.appended" }
func (blockUpdated) EventType() string           { return "block.updated" }
func (BlockInserted) EventType() string          { return "block.inserted" }
func (blocksReordered) EventType() string        { return "blocks.reordered" }
func (commentAdded) EventType() string           { return "comment.added" }
func (commentUpdated) EventType() string         { return "comment.updated" }
func (commentDeleted) EventType() string         { return "comment.deleted" }
func (FileUploaded) EventType() string           { return "file.uploaded" }
func (fileDeleted) EventType() string            { return "file.deleted" }
