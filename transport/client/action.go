package client

import (
	"context"
	"time"
)

// ActionRequest is the body of POST /v1/pages/:id/actions/:actionId. Empty fields
// are left out.
type ActionRequest struct {
	Actor    *ActionActor   `json:"actor,omitempty"`
	Comment  string         `json:"comment,omitempty"`
	FormData map[string]any `json:"form_data,omitempty"` // keyed by the form's field_id
}

// ActionActor names who decides: Identity as claimed (recorded with auth_method
// api_key under a key, link without one), or AuthToken, a person's session token,
// which makes the action theirs, verified.
type ActionActor struct {
	Identity  string `json:"identity,omitempty"`
	AuthToken string `json:"auth_token,omitempty"`
}

// ActionExecuted is the answer of an execution.
type ActionExecuted struct {
	ActionID   string    `json:"action_id"`
	Status     string    `json:"status"` // "executed"
	PageState  PageState `json:"page_state"`
	ExecutedAt time.Time `json:"executedAt"`
}

// PageState is the page's status before and after an execution.
type PageState struct {
	Previous string `json:"previous"`
	Current  string `json:"current"`
}

// ExecuteAction executes an action of an active page (POST
// /v1/pages/:id/actions/:actionId). A page already decided answers 409
// (IsConflict).
func (c *Client) ExecuteAction(ctx context.Context, pageID, actionID string, req ActionRequest) (*ActionExecuted, error) {
	return call[ActionExecuted](ctx, c, "POST", "/v1/pages/"+esc(pageID)+"/actions/"+esc(actionID), req)
}
