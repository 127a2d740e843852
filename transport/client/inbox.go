package client

import (
	"context"
	"net/url"

	"folio/transport/apitypes"
)

// Inbox entry statuses.
const (
	InboxUnread   = "unread"
	InboxRead     = "read"
	InboxArchived = "archived"
)

// InboxEntry is one page in the tenant's inbox.
type InboxEntry = apitypes.InboxEntry

// InboxList is one window of the inbox, newest first.
type InboxList = apitypes.InboxList

// InboxFilter selects inbox entries; zero values leave the server's defaults
// (unread and read entries, 50 at a time).
type InboxFilter struct {
	Status   string // unread, read or archived
	Priority string
	PageType string
	Limit    int
	Offset   int
}

type starRequest struct {
	Starred bool `json:"starred"`
}

// ListInbox lists the tenant's inbox (GET /v1/inbox).
func (c *Client) ListInbox(ctx context.Context, f InboxFilter) (*InboxList, error) {
	q := url.Values{}
	setString(q, "status", f.Status)
	setString(q, "priority", f.Priority)
	setString(q, "pageType", f.PageType)
	setInt(q, "limit", f.Limit)
	setInt(q, "offset", f.Offset)
	return call[InboxList](ctx, c, "GET", withQuery("/v1/inbox", q), nil)
}

// MarkRead marks an inbox entry read (PATCH /v1/inbox/:id/read).
func (c *Client) MarkRead(ctx context.Context, entryID string) error {
	return c.do(ctx, "PATCH", "/v1/inbox/"+esc(entryID)+"/read", nil, nil)
}

// Star stars or unstars an inbox entry (PATCH /v1/inbox/:id/star).
func (c *Client) Star(ctx context.Context, entryID string, starred bool) error {
	return c.do(ctx, "PATCH", "/v1/inbox/"+esc(entryID)+"/star", starRequest{Starred: starred}, nil)
}

// Archive archives an inbox entry (DELETE /v1/inbox/:id).
func (c *Client) Archive(ctx context.Context, entryID string) error {
	return c.do(ctx, "DELETE", "/v1/inbox/"+esc(entryID), nil, nil)
}
