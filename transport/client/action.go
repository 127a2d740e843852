package client

import (
	"context"

	"folio/transport/apitypes"
)

// ActionRequest is the body of POST /v1/pages/:id/actions/:actionId. Empty fields
// are left out.
type ActionRequest struct {
	Actor    *ActionActor   `json:"actor,omitempty"`
	Comment  string         `json:"comment,omitempty"`
	FormData map[string]any `json:"form_data,omitempty"` // keyed by the form's field_id
	// PageVersion is the content version decided on (Page.Version); 0 names none.
	// On another version the answer is 409 with details.reason page_changed.
	PageVersion int `json:"page_version,omitempty"`
	// Edits correct blocks the page marked editable; only with the approval that
	// completes the page.
	Edits []EditRequest `json:"edits,omitempty"`
}

// EditRequest is one block's correction: Content for a text, rich_text or code
// block, Values (one per pair) for key_value, Rows (column key -> cell, one per
// row) for a table.
type EditRequest struct {
	BlockID string           `json:"block_id"`
	Content *string          `json:"content,omitempty"`
	Values  []any            `json:"values,omitempty"`
	Rows    []map[string]any `json:"rows,omitempty"`
}

// Edit is one block's correction as the decision recorded it: the block's data
// after it and a unified diff from the agent's version.
type Edit = apitypes.Edit

// ActionActor names who decides: Identity as claimed (recorded with auth_method
// api_key under a key, link without one), or AuthToken, a person's session token,
// which makes the action theirs, verified.
type ActionActor struct {
	Identity  string `json:"identity,omitempty"`
	AuthToken string `json:"auth_token,omitempty"`
}

// ActionExecuted is the answer of an execution.
type ActionExecuted = apitypes.ActionExecuted

// Verdict is what an execution decided and about which content: the outcome
// (approved, rejected, none), whether it ended the page, and the content version
// and hash it was decided on.
type Verdict = apitypes.Verdict

// PageState is the page's status before and after an execution.
type PageState = apitypes.PageState

// ExecuteAction executes an action of an active page (POST
// /v1/pages/:id/actions/:actionId). A page already decided answers 409
// (IsConflict).
func (c *Client) ExecuteAction(ctx context.Context, pageID, actionID string, req ActionRequest) (*ActionExecuted, error) {
	return call[ActionExecuted](ctx, c, "POST", "/v1/pages/"+esc(pageID)+"/actions/"+esc(actionID), req)
}
