package client

import (
	"context"
	"time"
)

// WorkflowRequest is the body of POST /v1/workflows: 1-20 pages, published one after
// another (flow sequential, the default) or all at once (parallel).
type WorkflowRequest struct {
	Name  string        `json:"name"`
	Flow  string        `json:"flow,omitempty"`
	Pages []PageRequest `json:"pages"`
}

// WorkflowCreated is a new workflow: its pages' ids in order.
type WorkflowCreated struct {
	GroupID   string    `json:"group_id"`
	Name      string    `json:"name"`
	Flow      string    `json:"flow"`
	Status    string    `json:"status"`
	Pages     []string  `json:"pages"`
	CreatedAt time.Time `json:"created_at"`
	Warnings  []string  `json:"warnings"`
}

// Workflow is a workflow and its pages' statuses.
type Workflow struct {
	GroupID     string         `json:"group_id"`
	Name        string         `json:"name"`
	Flow        string         `json:"flow"`
	Status      string         `json:"status"` // active, in_progress, completed, cancelled
	Pages       []WorkflowPage `json:"pages"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
	CompletedAt time.Time      `json:"completed_at"`
	CancelledAt time.Time      `json:"cancelled_at"`
}

// WorkflowPage is one page of a workflow.
type WorkflowPage struct {
	PageID  string `json:"pageId"`
	Status  string `json:"status"`
	PageURL string `json:"pageUrl"`
}

// CreateWorkflow creates a workflow and all its pages in one step (POST
// /v1/workflows).
func (c *Client) CreateWorkflow(ctx context.Context, req WorkflowRequest) (*WorkflowCreated, error) {
	return call[WorkflowCreated](ctx, c, "POST", "/v1/workflows", req)
}

// GetWorkflow reads a workflow (GET /v1/workflows/:groupId).
func (c *Client) GetWorkflow(ctx context.Context, groupID string) (*Workflow, error) {
	return call[Workflow](ctx, c, "GET", "/v1/workflows/"+esc(groupID), nil)
}
