package client

import (
	"context"
	"time"
)

// ApprovalChain is the state of a page's approval chain.
type ApprovalChain struct {
	ChainStatus string         `json:"chain_status"` // in_progress, approved, rejected
	Mode        string         `json:"mode"`         // sequential or parallel
	CurrentStep string         `json:"current_step"` // empty once finished
	Steps       []ApprovalStep `json:"steps"`
	CompletedAt time.Time      `json:"completed_at"`
}

// ApprovalStep is one step of a chain; a completed step has Decision, DecidedBy
// and DecidedAt.
type ApprovalStep struct {
	StepID       string             `json:"step_id"`
	Name         string             `json:"name"`
	Status       string             `json:"status"` // pending, completed, skipped
	Assignees    []string           `json:"assignees"`
	MinApprovals int                `json:"min_approvals"`
	Decisions    []ApprovalDecision `json:"decisions"`
	Decision     string             `json:"decision"`
	DecidedBy    string             `json:"decided_by"`
	DecidedAt    time.Time          `json:"decided_at"`
	AuthMethod   string             `json:"auth_method"` // how DecidedBy was established: magic_link, oauth, api_key
	Key          *KeyRef            `json:"key"`         // the API key that recorded it for DecidedBy, if one did
	Deadline     *Deadline          `json:"deadline"`    // the step's own deadline; nil when it has none
}

// KeyRef names the API key that recorded a decision for the person it named.
type KeyRef struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
}

// ApprovalDecision is one assignee's decision on a step.
type ApprovalDecision struct {
	Identity   string    `json:"identity"`
	Decision   string    `json:"decision"` // approved or rejected
	ActionID   string    `json:"action_id"`
	Comment    string    `json:"comment"`
	DecidedAt  time.Time `json:"decided_at"`
	AuthMethod string    `json:"auth_method"`
	Key        *KeyRef   `json:"key"`
}

// ApprovalStatus is a page's approval chain (GET /v1/pages/:id/approval).
type ApprovalStatus struct {
	PageID string `json:"pageId"`
	ApprovalChain
}

// GetApproval reads a page's approval chain (GET /v1/pages/:id/approval); a page
// without one is 404.
func (c *Client) GetApproval(ctx context.Context, pageID string) (*ApprovalStatus, error) {
	return call[ApprovalStatus](ctx, c, "GET", "/v1/pages/"+esc(pageID)+"/approval", nil)
}
