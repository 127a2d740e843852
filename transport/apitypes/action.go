package apitypes

import (
	"encoding/json"
	"time"
)

// ActionExecuted is the answer of an execution (POST /v1/pages/:id/actions/:actionId).
type ActionExecuted struct {
	ActionID   string    `json:"action_id"`
	Status     string    `json:"status"` // "executed"
	PageState  PageState `json:"page_state"`
	ExecutedAt time.Time `json:"executedAt"`
	Verdict
}

// Verdict is what an execution decided and about which content: the outcome
// (approved, rejected, none), whether it ended the page, and the content version
// and hash it was decided on; Edits only when the reviewer corrected blocks.
type Verdict struct {
	Outcome     string `json:"outcome"`
	Final       bool   `json:"final"`
	PageVersion int    `json:"page_version"`
	ContentHash string `json:"content_hash"`
	Edits       []Edit `json:"edits,omitempty"`
}

// PageState is the page's status before and after an execution.
type PageState struct {
	Previous string `json:"previous"`
	Current  string `json:"current"`
}

// Edit is one block's correction as the decision recorded it: the block's data
// after it and a unified diff from the agent's version.
type Edit struct {
	BlockID       string          `json:"block_id"`
	Type          string          `json:"type"`
	Data          json.RawMessage `json:"data"`
	Diff          string          `json:"diff"`
	DiffTruncated bool            `json:"diff_truncated,omitempty"`
}
