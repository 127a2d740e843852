package foliomcp

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/client"
)

// InboxQuery filters the inbox.
type InboxQuery struct {
	Status   string `json:"status,omitempty" jsonschema:"unread, read or archived; default: everything not archived"`
	Priority string `json:"priority,omitempty" jsonschema:"low, normal, high or urgent"`
	PageType string `json:"page_type,omitempty"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many (default 50, at most 200)"`
	Offset   int    `json:"offset,omitempty"`
}

// CommentQuery reads a page's comments.
type CommentQuery struct {
	PageID string `json:"page_id"`
	Limit  int    `json:"limit,omitempty"`
	Offset int    `json:"offset,omitempty"`
}

// NewComment is a comment to add.
type NewComment struct {
	PageID   string `json:"page_id"`
	Content  string `json:"content" jsonschema:"the comment (markdown is shown as text)"`
	BlockID  string `json:"block_id,omitempty" jsonschema:"anchor it to one block of the page"`
	ParentID string `json:"parent_id,omitempty" jsonschema:"reply to this comment"`
}

// EventsQuery asks what happened since a cursor.
type EventsQuery struct {
	After string `json:"after,omitempty" jsonschema:"the cursor an earlier call returned; empty or 0: every event still kept"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many events (default 50, at most 200)"`
}

// Events is what happened: the events in order and the cursor to ask from next.
type Events struct {
	Events  []map[string]any `json:"events" jsonschema:"each: id (the cursor of this event), type (page.viewed, action.executed, comment.added, approval.step_completed…), pageId, timestamp, data, actor"`
	Cursor  string           `json:"cursor" jsonschema:"pass it as after next time"`
	Account *Provisioned     `json:"account,omitempty"`
}

// readTools: the inbox, comments, approval chains and the agent's events.
func (f *folio) readTools(s *mcp.Server) {
	add(f, s, &mcp.Tool{Name: "list_inbox", Description: "List your pages as your human's inbox shows them, newest first: title, status, whether it was decided, read and starred."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in InboxQuery) (map[string]any, error) {
			l, err := c.ListInbox(ctx, client.InboxFilter{Status: in.Status, Priority: in.Priority, PageType: in.PageType, Limit: in.Limit, Offset: in.Offset})
			if err != nil {
				return nil, err
			}
			return plain(l)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "get_comments", Description: "Read the comments people left on a page, oldest first (with author, the block they are about, and replies)."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in CommentQuery) (map[string]any, error) {
			l, err := c.ListComments(ctx, in.PageID, client.ListOptions{Limit: in.Limit, Offset: in.Offset})
			if err != nil {
				return nil, err
			}
			return plain(l)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "add_comment", Description: "Comment on a page as its agent, for example to answer a person's question; people watching see it at once."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in NewComment) (map[string]any, error) {
			cm, err := c.AddComment(ctx, in.PageID, client.CommentRequest{Content: in.Content, AuthorType: "agent", BlockID: in.BlockID, ParentID: in.ParentID})
			if err != nil {
				return nil, err
			}
			return plain(cm)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "get_approval", Description: "Read a page's approval chain: each step, who must decide it, and who already did."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageRef) (map[string]any, error) {
			a, err := c.GetApproval(ctx, in.PageID)
			if err != nil {
				return nil, err
			}
			return plain(a)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "agent_events", Description: "What happened on your pages since a cursor: views, decisions, comments, files, approval steps. " +
		"Call it with the cursor of the previous call to get only what is new."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in EventsQuery) (Events, error) {
			return readEvents(ctx, c, in)
		}, func(out *Events, p *Provisioned) { out.Account = p })
}

// readEvents reads the agent stream from the cursor: the events still kept after
// it, until the stream goes quiet (it is then live) or the limit is reached.
func readEvents(ctx context.Context, c *client.Client, in EventsQuery) (Events, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 200)
	after := in.After
	if after == "" {
		after = "0"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.Events(ctx, after)
	if err != nil {
		return Events{}, err
	}
	defer func() { _ = st.Close() }()
	got := make(chan *client.Event)
	go func() {
		defer close(got)
		for {
			ev, err := st.Next()
			if err != nil {
				return
			}
			select {
			case got <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	out := Events{Events: []map[string]any{}, Cursor: after}
	const quiet = 400 * time.Millisecond
	timer := time.NewTimer(quiet)
	defer timer.Stop()
	for len(out.Events) < limit {
		select {
		case ev, ok := <-got:
			if !ok {
				return out, nil
			}
			m, err := eventMap(ev)
			if err != nil {
				return out, err
			}
			out.Events = append(out.Events, m)
			if ev.ID != "" {
				out.Cursor = ev.ID
			}
			timer.Reset(quiet)
		case <-timer.C:
			return out, nil
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
	return out, nil
}

func eventMap(ev *client.Event) (map[string]any, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}
