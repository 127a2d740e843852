package client

import (
	"context"
	"time"

	"folio/transport/apitypes"
)

// CommentRequest is the body of POST /v1/pages/:id/comments.
type CommentRequest struct {
	Content    string `json:"content"`
	AuthorName string `json:"author_name,omitempty"` // "anonymous" when absent
	AuthorType string `json:"author_type,omitempty"` // user (default) or agent (the owner's key only)
	BlockID    string `json:"block_id,omitempty"`    // anchors the comment to a block
	// LineStart..LineEnd (from 1, inclusive; LineEnd 0: LineStart alone) anchor it
	// to lines of a code or diff block; LineSide is a diff's side, new (default) or old.
	LineStart int    `json:"line_start,omitempty"`
	LineEnd   int    `json:"line_end,omitempty"`
	LineSide  string `json:"line_side,omitempty"`
	ParentID  string `json:"parent_id,omitempty"` // makes it a reply
}

// Comment is a comment of a page.
type Comment struct {
	ID         string    `json:"id"`
	PageID     string    `json:"pageId"`
	Content    string    `json:"content"`
	AuthorName string    `json:"authorName"`
	AuthorType string    `json:"authorType"`
	BlockID    string    `json:"block_id"`
	LineStart  int       `json:"line_start"` // 0: about the whole block
	LineEnd    int       `json:"line_end"`
	LineSide   string    `json:"line_side"` // a diff's side: new or old
	ParentID   string    `json:"parent_id"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	// EditToken is returned once, when an anonymous comment is made: it proves the
	// right to edit or delete it.
	EditToken string `json:"editToken"`
}

// CommentList is one window of a page's comments, in creation order.
type CommentList = apitypes.CommentList[Comment]

// CommentEdit is the body of PATCH /v1/pages/:id/comments/:commentId. The owner's
// key needs neither identity nor token.
type CommentEdit struct {
	Content        string `json:"content"`
	EditorIdentity string `json:"editor_identity,omitempty"`
	EditToken      string `json:"edit_token,omitempty"`
}

// CommentDelete is the optional body of DELETE /v1/pages/:id/comments/:commentId.
type CommentDelete struct {
	DeleterIdentity string `json:"deleter_identity,omitempty"`
	EditToken       string `json:"edit_token,omitempty"`
}

// AddComment comments on a page (POST /v1/pages/:id/comments).
func (c *Client) AddComment(ctx context.Context, pageID string, req CommentRequest) (*Comment, error) {
	return call[Comment](ctx, c, "POST", "/v1/pages/"+esc(pageID)+"/comments", req)
}

// ListComments lists a page's comments (GET /v1/pages/:id/comments).
func (c *Client) ListComments(ctx context.Context, pageID string, o ListOptions) (*CommentList, error) {
	return call[CommentList](ctx, c, "GET", withQuery("/v1/pages/"+esc(pageID)+"/comments", o.values()), nil)
}

// EditComment changes a comment's content (PATCH /v1/pages/:id/comments/:commentId).
func (c *Client) EditComment(ctx context.Context, pageID, commentID string, req CommentEdit) (*Comment, error) {
	return call[Comment](ctx, c, "PATCH", "/v1/pages/"+esc(pageID)+"/comments/"+esc(commentID), req)
}

// DeleteComment removes a comment (DELETE /v1/pages/:id/comments/:commentId).
func (c *Client) DeleteComment(ctx context.Context, pageID, commentID string, req CommentDelete) error {
	return c.do(ctx, "DELETE", "/v1/pages/"+esc(pageID)+"/comments/"+esc(commentID), req, nil)
}
