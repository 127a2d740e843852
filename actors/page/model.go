// Package page is the PageActor: one actor per page owns its state machine, blocks,
// actions and audit trail. Every command is validated against the current state (the
// 409 check happens here), committed to bbolt in one transaction together with its
// audit entries and indexes, and only then applied in memory, answered and published.
package page

import (
	"encoding/json"
	"strings"
	"time"

	"folio/actors/model/blocks"
)

// Statuses of a page (specification section 3).
const (
	Draft     = "draft"
	Active    = "active"
	Completed = "completed"
	Revoked   = "revoked"
	Expired   = "expired"
)

const schemaV1 = 1

// Page is the state of one page as stored (JSON, schema version V). A committed Page
// is never mutated: commands build a modified clone, so snapshots handed out stay valid.
type Page struct {
	V             int             `json:"v"`
	ID            string          `json:"id"`
	TenantID      string          `json:"tenant_id"`
	Status        string          `json:"status"`
	PageType      string          `json:"page_type"`
	Title         string          `json:"title"`
	Summary       string          `json:"summary"`
	Priority      string          `json:"priority"`
	Tags          []string        `json:"tags"`
	Blocks        []blocks.Block  `json:"blocks"`
	Actions       []Action        `json:"actions"`
	Access        Access          `json:"access"`
	Notify        json.RawMessage `json:"notify,omitempty"`
	OnAction      json.RawMessage `json:"on_action,omitempty"`
	ApprovalChain json.RawMessage `json:"approval_chain,omitempty"`
	// RequireVerified: only a signed-in assignee decides a step (docs/behaviour.md).
	RequireVerified bool       `json:"require_verified,omitempty"`
	CreatedBy       string     `json:"created_by"`
	Livemode        bool       `json:"livemode"`
	ShortCode       string     `json:"short_code"`
	Version         int        `json:"version"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	PublishedAt     *time.Time `json:"published_at,omitempty"`
	ExpiresAt       *time.Time `json:"expires_at,omitempty"`
	RevokedAt       *time.Time `json:"revoked_at,omitempty"`
	RevokeReason    string     `json:"revoke_reason,omitempty"`
	CompletedAt     *time.Time `json:"completed_at,omitempty"`
	// Decision is what completing the page decided: approved or rejected (the
	// approval chain's final decision, else the polarity of the action that
	// completed it); empty until the page completes.
	Decision   string      `json:"decision,omitempty"`
	Executions []Execution `json:"executions,omitempty"`
	Stats      Stats       `json:"stats"`
	// Changes marks the content version at which each part of the content last
	// changed (version.go); nil until the content first changes.
	Changes *ContentChanges `json:"changes,omitempty"`

	// Counters of the page's comments, files and unique viewers (comments.go, files.go,
	// views.go); the records themselves live in their own buckets. *Seq numbers the
	// next record, so listings are in creation order.
	CommentSeq   uint64 `json:"comment_seq,omitempty"`
	CommentCount int    `json:"comment_count,omitempty"`
	// OpenComments counts the comments in the page's open share (comments.go).
	OpenComments  int    `json:"open_comments,omitempty"`
	FileSeq       uint64 `json:"file_seq,omitempty"`
	FileCount     int    `json:"file_count,omitempty"`
	UniqueViewers int    `json:"unique_viewers,omitempty"`
	// FileBytes is the size of the page's completed files; Uploads are the uploads
	// presigned and not yet completed (files.go). Both count against the page's file
	// count and byte budget, so presigning without completing cannot store more.
	FileBytes int64    `json:"file_bytes,omitempty"`
	Uploads   []Upload `json:"uploads,omitempty"`

	// Deadline is the page's own deadline, nil when it has none (deadline.go).
	Deadline *Deadline `json:"deadline,omitempty"`
	// Approval is the approval chain's state (approval.go); ApprovalChain holds its
	// status view as shown on the page object.
	Approval *Chain `json:"approval,omitempty"`
	// AppliedReplies are the event ids whose callback reply instructions were applied
	// (instructions.go), newest last, bounded.
	AppliedReplies []string `json:"applied_replies,omitempty"`
}

// Action is a button on the page.
type Action struct {
	ActionID string `json:"action_id"`
	Label    string `json:"label"`
	Style    string `json:"style,omitempty"`
	// Decision is the polarity an agent declares for the action ("approve" or
	// "reject" on the wire; stored as approved/rejected). Without it the polarity is
	// inferred (Action.decision).
	Decision string `json:"decision,omitempty"`
	// Final: executing the action ends the page (the default, nil); false records
	// the step and tells the agent without completing the page (verdict.go).
	Final *bool `json:"final,omitempty"`
	// Confirm asks the person to confirm in a dialog (or on a page of its own
	// without JavaScript) before the action is sent, as a danger action is.
	Confirm bool `json:"confirm,omitempty"`
}

// Access is the page's access policy.
type Access struct {
	Mode              string     `json:"mode"`
	AllowedIdentities []Identity `json:"allowed_identities,omitempty"`
}

// Identity is one allowed viewer identity.
type Identity struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// sameAccess tells whether two policies admit the same people.
func sameAccess(a, b Access) bool {
	if a.Mode != b.Mode || len(a.AllowedIdentities) != len(b.AllowedIdentities) {
		return false
	}
	for i := range a.AllowedIdentities {
		if a.AllowedIdentities[i] != b.AllowedIdentities[i] {
			return false
		}
	}
	return true
}

// Allows tells whether a verified e-mail address is one of the allowed identities:
// {type: "email"} matches the whole address and {type: "domain"} its domain, both
// without regard to case.
func (a Access) Allows(email string) bool {
	email = strings.TrimSpace(email)
	at := strings.LastIndexByte(email, '@')
	if at <= 0 {
		return false
	}
	domain := email[at+1:]
	for _, id := range a.AllowedIdentities {
		v := strings.TrimSpace(id.Value)
		switch id.Type {
		case "email":
			if strings.EqualFold(v, email) {
				return true
			}
		case "domain":
			if strings.EqualFold(strings.TrimPrefix(v, "@"), domain) {
				return true
			}
		}
	}
	return false
}

// Execution records one executed action.
type Execution struct {
	ActionID   string          `json:"action_id"`
	Actor      string          `json:"actor"`
	AuthMethod string          `json:"auth_method,omitempty"` // how Actor was established (AuthAPIKey, AuthLink, AuthMagicLink, AuthOAuth)
	Key        *KeyRef         `json:"key,omitempty"`         // the API key that named Actor (a key acting for a person)
	Comment    *string         `json:"comment,omitempty"`
	FormData   json.RawMessage `json:"form_data,omitempty"`
	Decision   string          `json:"decision,omitempty"`
	ExecutedAt time.Time       `json:"executed_at"`
	Verdict
}

// Stats are the counters of the page object.
type Stats struct {
	ViewCount    int        `json:"view_count"`
	ActionCount  int        `json:"action_count"`
	LastViewedAt *time.Time `json:"last_viewed_at"`
}

// clone copies p deeply enough that changing the copy never touches p.
func (p *Page) clone() *Page {
	c := *p
	c.Tags = append([]string(nil), p.Tags...)
	c.Blocks = append([]blocks.Block(nil), p.Blocks...)
	c.Actions = append([]Action(nil), p.Actions...)
	c.Access.AllowedIdentities = append([]Identity(nil), p.Access.AllowedIdentities...)
	c.Executions = append([]Execution(nil), p.Executions...)
	c.Uploads = append([]Upload(nil), p.Uploads...)
	return &c
}

// action finds an action by id.
func (p *Page) action(id string) (Action, bool) {
	for _, a := range p.Actions {
		if a.ActionID == id {
			return a, true
		}
	}
	return Action{}, false
}

// BlockIDs lists the ids of the top-level blocks in order.
func (p *Page) BlockIDs() []string {
	out := make([]string, len(p.Blocks))
	for i, b := range p.Blocks {
		out[i] = b.ID
	}
	return out
}
