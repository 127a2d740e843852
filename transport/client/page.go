package client

import (
	"context"
	"net/url"
	"time"

	"folio/transport/apitypes"
)

// Page statuses (docs/spec.md section 3).
const (
	StatusDraft     = "draft"
	StatusActive    = "active"
	StatusCompleted = "completed"
	StatusRevoked   = "revoked"
	StatusExpired   = "expired"
)

// Page is a page as its owner reads it (GET /v1/pages/:id).
type Page struct {
	PageID string `json:"pageId"`
	apitypes.Link
	ShortURL        string         `json:"shortUrl"`
	Status          string         `json:"status"`
	PageType        string         `json:"page_type"`
	Title           string         `json:"title"`
	Summary         string         `json:"summary"`
	Priority        string         `json:"priority"`
	Tags            []string       `json:"tags"`
	CreatedBy       string         `json:"created_by"` // agent:<name of the key>
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
	PublishedAt     time.Time      `json:"published_at"` // zero for a draft
	ExpiresAt       time.Time      `json:"expires_at"`
	RevokedAt       time.Time      `json:"revoked_at"`
	CompletedAt     time.Time      `json:"completed_at"`
	Version         int            `json:"version"` // the content version: it grows as title, summary, blocks or actions change
	Livemode        bool           `json:"livemode"`
	Blocks          []Block        `json:"blocks"`
	Actions         []Action       `json:"actions"`
	Access          Access         `json:"access"`
	Notify          *Notify        `json:"notify"`
	OnAction        *OnAction      `json:"on_action"`
	ApprovalChain   *ApprovalChain `json:"approval_chain"`
	RequireVerified bool           `json:"require_verified"`
	Stats           Stats          `json:"stats"`
	Decision        string         `json:"decision"` // approved or rejected once completed
	// LastAction is the most recent executed action; nil before any.
	LastAction *LastAction `json:"last_action"`
	// ContentHash is sha256:… of the canonical content (GetPage only).
	ContentHash string `json:"content_hash"`
	// Deadline is the page's own deadline (nil: none); DueAt the nearest running
	// due time, its own or an open step's (zero: none); Overdue: DueAt has passed.
	Deadline *Deadline `json:"deadline"`
	DueAt    time.Time `json:"due_at"`
	Overdue  bool      `json:"overdue"`
}

// LastAction is the page's most recent executed action and what it decided.
type LastAction struct {
	ActionID    string    `json:"action_id"`
	ActionLabel string    `json:"action_label"`
	Actor       string    `json:"actor"`
	ExecutedAt  time.Time `json:"executed_at"`
	Verdict
}

// Stats are the page's views and actions.
type Stats struct {
	ViewCount    int       `json:"view_count"`
	ActionCount  int       `json:"action_count"`
	LastViewedAt time.Time `json:"last_viewed_at"`
}

// UpdatedPage is the page after PATCH /v1/pages/:id, with advisory warnings about
// its blocks.
type UpdatedPage struct {
	Page
	Warnings []string `json:"warnings"`
}

// PublishResult is a page made active by publishing (also from a template, A2UI or
// AG-UI). Warnings are advisory: the page was published.
type PublishResult = apitypes.PublishResult

// DraftCreated is a new draft (POST /v1/pages).
type DraftCreated = apitypes.DraftCreated

// DraftPublished is a draft made active (POST /v1/pages/:id/publish).
type DraftPublished = apitypes.DraftPublished

// PageList is one window of the tenant's pages, newest first.
type PageList = apitypes.PageList[Page]

// PageFilter selects pages to list; zero values leave the server's defaults.
type PageFilter struct {
	Status   string // draft, active, completed, revoked, expired
	PageType string
	Limit    int // 1-200, default 50
	Offset   int
}

// Revoked is a page withdrawn (POST /v1/pages/:id/revoke).
type Revoked = apitypes.Revoked

// Renewed is a page made active again, or extended (POST /v1/pages/:id/renew).
type Renewed = apitypes.Renewed

// revokeRequest and renewRequest are the bodies of revoke and renew.
type revokeRequest struct {
	Reason string `json:"reason,omitempty"`
}

type renewRequest struct {
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// Publish publishes an active page (POST /v1/publish).
func (c *Client) Publish(ctx context.Context, req PageRequest) (*PublishResult, error) {
	return call[PublishResult](ctx, c, "POST", "/v1/publish", req)
}

// CreateDraft makes a draft, published later by PublishDraft (POST /v1/pages).
func (c *Client) CreateDraft(ctx context.Context, req PageRequest) (*DraftCreated, error) {
	return call[DraftCreated](ctx, c, "POST", "/v1/pages", req)
}

// PublishDraft makes a draft active, applying the overrides first (POST
// /v1/pages/:id/publish).
func (c *Client) PublishDraft(ctx context.Context, pageID string, overrides PageUpdate) (*DraftPublished, error) {
	return call[DraftPublished](ctx, c, "POST", "/v1/pages/"+esc(pageID)+"/publish", overrides)
}

// GetPage reads a page of the tenant (GET /v1/pages/:id).
func (c *Client) GetPage(ctx context.Context, pageID string) (*Page, error) {
	return call[Page](ctx, c, "GET", "/v1/pages/"+esc(pageID), nil)
}

// ListPages lists the tenant's pages, newest first (GET /v1/pages).
func (c *Client) ListPages(ctx context.Context, f PageFilter) (*PageList, error) {
	q := url.Values{}
	setString(q, "status", f.Status)
	setString(q, "page_type", f.PageType)
	setInt(q, "limit", f.Limit)
	setInt(q, "offset", f.Offset)
	return call[PageList](ctx, c, "GET", withQuery("/v1/pages", q), nil)
}

// UpdatePage changes the fields set in u of a draft or active page (PATCH
// /v1/pages/:id).
func (c *Client) UpdatePage(ctx context.Context, pageID string, u PageUpdate) (*UpdatedPage, error) {
	return call[UpdatedPage](ctx, c, "PATCH", "/v1/pages/"+esc(pageID), u)
}

// RevokePage withdraws a draft or active page (POST /v1/pages/:id/revoke); reason
// may be empty.
func (c *Client) RevokePage(ctx context.Context, pageID, reason string) (*Revoked, error) {
	return call[Revoked](ctx, c, "POST", "/v1/pages/"+esc(pageID)+"/revoke", revokeRequest{Reason: reason})
}

// RenewPage reactivates an expired page or extends an active one until expiresAt
// (POST /v1/pages/:id/renew); a zero expiresAt adds the default lifetime.
func (c *Client) RenewPage(ctx context.Context, pageID string, expiresAt time.Time) (*Renewed, error) {
	return call[Renewed](ctx, c, "POST", "/v1/pages/"+esc(pageID)+"/renew", renewRequest{ExpiresAt: expiresAt})
}
