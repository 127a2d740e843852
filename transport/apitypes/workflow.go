package apitypes

import "time"

// WorkflowCreated is a new workflow (POST /v1/workflows): its pages' ids in order.
type WorkflowCreated struct {
	GroupID   string    `json:"group_id"`
	Name      string    `json:"name"`
	Flow      string    `json:"flow"`
	Status    string    `json:"status"`
	Pages     []string  `json:"pages"`
	CreatedAt time.Time `json:"created_at"`
	Warnings  []string  `json:"warnings"`
}

// Workflow is a workflow and its pages' statuses (GET /v1/workflows/:groupId);
// completed_at and cancelled_at are left out until they happen.
type Workflow struct {
	GroupID     string         `json:"group_id"`
	Name        string         `json:"name"`
	Flow        string         `json:"flow"`
	Status      string         `json:"status"` // active, in_progress, completed, cancelled
	Pages       []WorkflowPage `json:"pages"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
	CompletedAt time.Time      `json:"completed_at,omitzero"`
	CancelledAt time.Time      `json:"cancelled_at,omitzero"`
}

// WorkflowPage is one page of a workflow.
type WorkflowPage struct {
	PageID string `json:"pageId"`
	Status string `json:"status"`
	Link
}
