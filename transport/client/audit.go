package client

import (
	"context"
	"net/url"
	"time"

	"folio/transport/apitypes"
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
type AuditList = apitypes.AuditList[AuditEntry]

// PageAudit reads a page's audit records (GET /v1/pages/:id/audit); page is 1-based
// and perPage 1-200, zero for the defaults (1 and 50).
func (c *Client) PageAudit(ctx context.Context, pageID string, page, perPage int) (*AuditList, error) {
	q := url.Values{}
	setInt(q, "page", page)
	setInt(q, "per_page", perPage)
	return call[AuditList](ctx, c, "GET", withQuery("/v1/pages/"+esc(pageID)+"/audit", q), nil)
}

// Receipt proves a decision is in the tenant's audit log (docs/audit.md): the
// audit entry that recorded it, its leaf in the audit tree, and the content version
// and hash decided on. Callbacks and agent events carry one without Checkpoint and
// Proof (fetch ProofURL once a checkpoint covers the entry); the wait answer
// carries both. `folio audit verify-receipt` checks one offline.
type Receipt struct {
	Entry       int64    `json:"entry"`        // the entry's sequence in the audit chain, from 1
	LeafIndex   int64    `json:"leaf_index"`   // Entry-1
	LeafHash    string   `json:"leaf_hash"`    // SHA-256(0x00 || entry bytes), base64
	ChainHash   string   `json:"chain_hash"`   // sha256:<hex>
	EntryBase64 string   `json:"entry_base64"` // the entry's exact bytes, base64
	PageVersion int      `json:"page_version"`
	ContentHash string   `json:"content_hash"`
	Checkpoint  string   `json:"checkpoint"` // a signed note whose tree includes the entry; "" when none yet
	Proof       []string `json:"proof"`      // the inclusion proof in Checkpoint's tree (base64 hashes)
	ProofURL    string   `json:"proof_url"`  // the inclusion proof's path, relative to the API
}
