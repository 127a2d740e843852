package client

import (
	"context"

	"folio/transport/apitypes"
)

// WorkflowRequest is the body of POST /v1/workflows: 1-20 pages, published one after
// another (flow sequential, the default) or all at once (parallel).
type WorkflowRequest struct {
	Name  string        `json:"name"`
	Flow  string        `json:"flow,omitempty"`
	Pages []PageRequest `json:"pages"`
}

// WorkflowCreated is a new workflow: its pages' ids in order.
type WorkflowCreated = apitypes.WorkflowCreated

// Workflow is a workflow and its pages' statuses.
type Workflow = apitypes.Workflow

// WorkflowPage is one page of a workflow.
type WorkflowPage = apitypes.WorkflowPage

// CreateWorkflow creates a workflow and all its pages in one step (POST
// /v1/workflows).
func (c *Client) CreateWorkflow(ctx context.Context, req WorkflowRequest) (*WorkflowCreated, error) {
	return call[WorkflowCreated](ctx, c, "POST", "/v1/workflows", req)
}

// GetWorkflow reads a workflow (GET /v1/workflows/:groupId).
func (c *Client) GetWorkflow(ctx context.Context, groupID string) (*Workflow, error) {
	return call[Workflow](ctx, c, "GET", "/v1/workflows/"+esc(groupID), nil)
}
