package client

import "time"

// What an agent sends to make or change a page: the OpenAPI document's PageRequest,
// PageUpdate and PageExtras, and the parts they share with the page it reads back
// (Block, Action, Access).

// PageRequest is the body of POST /v1/publish, POST /v1/pages and each page of a
// workflow. Only Title is required.
type PageRequest struct {
	Version       string                `json:"version,omitempty"`   // "<major>.<minor>"; 1.x accepted
	PageType      string                `json:"page_type,omitempty"` // "approval", or any kind of the agent's
	Title         string                `json:"title"`
	Summary       string                `json:"summary,omitempty"`
	Priority      string                `json:"priority,omitempty"` // low, normal (default), high, urgent
	Tags          []string              `json:"tags,omitempty"`
	Blocks        []Block               `json:"blocks,omitempty"`
	Actions       []Action              `json:"actions,omitempty"`
	Access        *Access               `json:"access,omitempty"`
	Notify        *Notify               `json:"notify,omitempty"`
	OnAction      *OnAction             `json:"on_action,omitempty"`
	ApprovalChain *ApprovalChainRequest `json:"approval_chain,omitempty"`
	// RequireVerified: the chain's steps are decided only by signed-in assignees.
	RequireVerified bool      `json:"require_verified,omitempty"`
	ExpiresAt       time.Time `json:"expires_at,omitzero"` // zero: the server's default lifetime
	DeadlineRequest           // due_at or due_in, remind, on_timeout: the page's own deadline
}

// PageUpdate is the body of PATCH /v1/pages/:id and the overrides of POST
// /v1/pages/:id/publish: a nil field is left as it is (use Ptr for the others).
type PageUpdate struct {
	Version         *string               `json:"version,omitempty"`
	PageType        *string               `json:"page_type,omitempty"`
	Title           *string               `json:"title,omitempty"`
	Summary         *string               `json:"summary,omitempty"`
	Priority        *string               `json:"priority,omitempty"`
	Tags            *[]string             `json:"tags,omitempty"`
	Blocks          *[]Block              `json:"blocks,omitempty"`
	Actions         *[]Action             `json:"actions,omitempty"`
	Access          *Access               `json:"access,omitempty"`
	Notify          *Notify               `json:"notify,omitempty"`
	OnAction        *OnAction             `json:"on_action,omitempty"`
	ApprovalChain   *ApprovalChainRequest `json:"approval_chain,omitempty"`
	RequireVerified *bool                 `json:"require_verified,omitempty"`
	ExpiresAt       *time.Time            `json:"expires_at,omitempty"`
	DeadlineRequest                       // any of its fields replaces the page's deadline
}

// PageExtras are the page fields that may sit beside a template's variables or an
// AG-UI event list.
type PageExtras struct {
	PageType        string                `json:"page_type,omitempty"`
	Summary         string                `json:"summary,omitempty"`
	Priority        string                `json:"priority,omitempty"`
	Tags            []string              `json:"tags,omitempty"`
	Access          *Access               `json:"access,omitempty"`
	Notify          *Notify               `json:"notify,omitempty"`
	OnAction        *OnAction             `json:"on_action,omitempty"`
	ApprovalChain   *ApprovalChainRequest `json:"approval_chain,omitempty"`
	RequireVerified bool                  `json:"require_verified,omitempty"`
	ExpiresAt       time.Time             `json:"expires_at,omitzero"`
}

// Block is one content block, sent and read back alike. Data is the type's fields
// (docs/spec.md 2.6; GET /v1/schema/blocks is their JSON Schema): a map or any
// value that encodes to a JSON object; read back, it is a map[string]any. ID is
// optional when sending: the server assigns b_<index>_<8 alphanumerics>.
type Block struct {
	ID    string `json:"id,omitempty"`
	Type  string `json:"type"`
	Data  any    `json:"data"`
	Group string `json:"group,omitempty"`
	Tab   string `json:"tab,omitempty"`
	// Editable lets the reviewer correct the block before approving (text,
	// rich_text, code, key_value, table); the approval then carries Edits.
	Editable bool `json:"editable,omitempty"`
}

// Action is a button of the page.
type Action struct {
	ActionID string `json:"action_id"`
	Label    string `json:"label,omitempty"`
	Style    string `json:"style,omitempty"`    // primary, danger, …
	Decision string `json:"decision,omitempty"` // approve/reject/none when sending; approved/rejected/none read back
	Final    *bool  `json:"final,omitempty"`    // false: a step that leaves the page active (nil: true)
	Confirm  bool   `json:"confirm,omitempty"`  // the review page asks the person to confirm first
}

// Access is who may read the page: mode "public" (the default) or "authenticated"
// with the identities admitted.
type Access struct {
	Mode              string     `json:"mode"`
	AllowedIdentities []Identity `json:"allowed_identities,omitempty"`
}

// Identity is an admitted reader: type "email" (a whole address) or "domain".
type Identity struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Notify lists the channels told when the page becomes active.
type Notify struct {
	Channels []Channel `json:"channels"`
}

// Channel is one notification channel: type email, slack or webhook, and its
// target. Read back, Secret is "[redacted]".
type Channel struct {
	Type   string `json:"type"`
	Target string `json:"target,omitempty"`
	Secret string `json:"secret,omitempty"`
}

// OnAction configures the page's callbacks (docs/spec.md 6.2). Read back, the
// secret and header values are "[redacted]".
type OnAction struct {
	DefaultURL string            `json:"default_url,omitempty"`
	ActionURLs map[string]string `json:"action_urls,omitempty"`
	HMACSecret string            `json:"hmac_secret,omitempty"`
	// Events are the event types to receive: nil for the six of the
	// specification, an empty non-nil slice for none.
	Events  []string          `json:"events,omitzero"`
	Headers map[string]string `json:"headers,omitempty"`
	Retry   *Retry            `json:"retry,omitempty"`
}

// Retry replaces the default retry schedule of the page's callbacks.
type Retry struct {
	MaxAttempts         int     `json:"max_attempts,omitempty"`          // 1-20, all attempts
	Backoff             string  `json:"backoff,omitempty"`               // exponential (default), linear, fixed
	InitialDelaySeconds float64 `json:"initial_delay_seconds,omitempty"` // 0.1-86,400
}

// ApprovalChainRequest asks for a chain of approval steps.
type ApprovalChainRequest struct {
	Mode  string                `json:"mode,omitempty"` // sequential (default) or parallel
	Steps []ApprovalStepRequest `json:"steps"`
}

// ApprovalStepRequest is one step: who may decide it and how many must approve.
type ApprovalStepRequest struct {
	StepID          string   `json:"step_id,omitempty"` // default step_<n>
	Name            string   `json:"name,omitempty"`
	Assignees       []string `json:"assignees"`
	MinApprovals    int      `json:"min_approvals,omitempty"` // default 1
	DeadlineRequest          // the step's own deadline, from when the step opens
}
