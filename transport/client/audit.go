package client

import (
	"context"
	"net/url"
	"time"
)

// AuditEntry is one record of the tenant's hash-chained audit log.
type AuditEntry struct {
	EventID   string         `json:"event_id"`
	EventType string         `json:"event_type"` // page.created, page.published, action.executed, …
	Timestamp time.Time      `json:"timestamp"`
	Actor     string         `json:"actor"` // agent:<name>, user:<identity> or system
	PageID    string         `json:"page_id"`
	Details   map[string]any `json:"details"`
	ChainHash string         `json:"chain_hash"` // sha256:<hex>
}

// AuditList is one window of a page's audit records, oldest first.
type AuditList struct {
	Items   []AuditEntry `json:"items"`
	Total   int          `json:"total"`
	Page    int          `json:"page"`
	PerPage int          `json:"per_page"`
}

// PageAudit reads a page's audit records (GET /v1/pages/:id/audit); page is 1-based
// and perPage 1-200, zero for the defaults (1 and 50).
func (c *Client) PageAudit(ctx context.Context, pageID string, page, perPage int) (*AuditList, error) {
	q := url.Values{}
	setInt(q, "page", page)
	setInt(q, "per_page", perPage)
	return call[AuditList](ctx, c, "GET", withQuery("/v1/pages/"+esc(pageID)+"/audit", q), nil)
}
