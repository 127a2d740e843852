package page

import (
	"encoding/json"

	"folio/actors/model/blocks"
)

// Request is the page request body of POST /v1/publish, POST /v1/pages and
// PATCH /v1/pages/:id. Pointers tell "absent" from "empty" for partial updates.
type Request struct {
	Version       *string         `json:"version"`
	PageType      *string         `json:"page_type"`
	Title         *string         `json:"title"`
	Summary       *string         `json:"summary"`
	Priority      *string         `json:"priority"`
	Tags          *[]string       `json:"tags"`
	Blocks        *[]blocks.Block `json:"blocks"`
	Actions       *[]Action       `json:"actions"`
	Access        *Access         `json:"access"`
	Notify        json.RawMessage `json:"notify"`
	OnAction      json.RawMessage `json:"on_action"`
	ApprovalChain json.RawMessage `json:"approval_chain"`
	// RequireVerified: the approval chain's steps accept only identities proven by
	// a session (magic link, OAuth), never one an API key names.
	RequireVerified *bool   `json:"require_verified"`
	ExpiresAt       *string `json:"expires_at"`
	// The page's deadline (deadline.go): due_at or due_in, remind, on_timeout;
	// raw, so that deadline_request.go names the field of any bad value.
	DueAt     json.RawMessage `json:"due_at"`
	DueIn     json.RawMessage `json:"due_in"`
	Remind    json.RawMessage `json:"remind"`
	OnTimeout json.RawMessage `json:"on_timeout"`
}

// ActionRequest is the body of POST /v1/pages/:id/actions/:actionId.
type ActionRequest struct {
	Actor *struct {
		Identity  string `json:"identity"`
		AuthToken string `json:"auth_token"`
	} `json:"actor"`
	Comment  *string         `json:"comment"`
	FormData json.RawMessage `json:"form_data"`
	// FormValues is what an HTML form sends instead of form_data: each form field's
	// values as typed (name "form_data.<field_id>" without the prefix). The page
	// types them by its form fields (formDataFromValues), so a browser's submission
	// is checked by the same rules as an agent's JSON. Ignored when form_data is set.
	FormValues map[string][]string `json:"form_values"`
	// PageVersion is the content version the person decided on (the page's
	// `version`, or the ETag sent as If-Match). nil: none named, the decision is
	// taken on whatever the page holds (version.go).
	PageVersion *int `json:"page_version"`
	// Edits are the reviewer's corrections of editable blocks, sent with an
	// approval that completes the page (edits.go).
	Edits []EditRequest `json:"edits"`
}

// BlockPatch is the body of PATCH /v1/pages/:id/blocks/:blockId.
type BlockPatch struct {
	Data  json.RawMessage `json:"data"`
	Type  *string         `json:"type"`
	Title *string         `json:"title"`
	Group *string         `json:"group"`
	Tab   *string         `json:"tab"`
	// Editable marks the block editable by the reviewer (or not); absent: unchanged.
	Editable *bool `json:"editable"`
}
