package page

import "folio/actors/model/blocks"

// Caller is who sends a command: the tenant of the API key and its agent name. A
// page of another tenant answers NotFound, never Forbidden.
type Caller struct {
	TenantID string
	Agent    string // "agent:<name>"
	Test     bool   // sk_test_ key
	Key      *KeyRef
}

// Create makes the page (the actor's id) as a draft, or active when Publish is set.
type Create struct {
	Caller
	// Prepared is the new page, validated and built by Prepare for this id and caller
	// (the API prepares before it reserves quota); the actor commits it as is.
	Prepared *Prepared
}

// Get reads the page.
type Get struct{ Caller }

// Read reads the page without a tenant check: for viewers of the page itself (the
// web viewer and public streams), which apply the page's access policy themselves.
type Read struct{}

// Update is PATCH /v1/pages/:id.
type Update struct {
	Caller
	Req *Request
}

// PublishDraft is POST /v1/pages/:id/publish; Req carries optional overrides.
type PublishDraft struct {
	Caller
	Req *Request
}

// Revoke is POST /v1/pages/:id/revoke.
type Revoke struct {
	Caller
	Reason string
}

// Renew is POST /v1/pages/:id/renew; ExpiresAt nil means now + default lifetime.
type Renew struct {
	Caller
	ExpiresAt *string
}

// AppendBlocks is PATCH /v1/pages/:id/blocks.
type AppendBlocks struct {
	Caller
	Blocks []blocks.Block
}

// FixBlock is PATCH /v1/pages/:id/blocks/:blockId.
type FixBlock struct {
	Caller
	BlockID string
	Patch   *BlockPatch
}

// Reorder is PUT /v1/pages/:id/blocks/reorder.
type Reorder struct {
	Caller
	Order []string
}

// Insert is POST /v1/pages/:id/blocks/insert.
type Insert struct {
	Caller
	Position int
	Block    blocks.Block
}

// Execute is POST /v1/pages/:id/actions/:actionId.
type Execute struct {
	Caller
	ActionID string
	Req      *ActionRequest
}

// Expire is sent by the expiry scheduler when the page's expiry time is due.
type Expire struct{}

// Result answers every command that changes or reads a page: the committed page
// (never mutated afterwards) and what the command produced.
type Result struct {
	Page      *Page
	Warnings  []string
	BlockIDs  []string // ids of blocks the command added
	Block     *blocks.Block
	Execution *Execution
	Previous  string // status before the command
}
