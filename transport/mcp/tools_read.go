package foliomcp

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/client"
)

// InboxQuery filters the inbox.
type InboxQuery struct {
	Status   string `json:"status,omitempty" enum:"unread,read,archived" jsonschema:"only pages in this inbox state (default: everything not archived)"`
	Priority string `json:"priority,omitempty" enum:"low,normal,high,urgent" jsonschema:"only pages of this priority"`
	PageType string `json:"page_type,omitempty" jsonschema:"only pages of this page_type"`
	Limit    int    `json:"limit,omitempty" minimum:"1" jsonschema:"at most this many (default 50, at most 200)"`
	Offset   int    `json:"offset,omitempty" minimum:"0" jsonschema:"skip this many first (for the next page of results)"`
}

// CommentQuery reads a page's comments.
type CommentQuery struct {
	PageID string `json:"page_id" jsonschema:"the page's id: pageId from the answer of publish_page, create_draft, request_approval or list_inbox"`
	Limit  int    `json:"limit,omitempty" minimum:"1" jsonschema:"at most this many (default 50, at most 200)"`
	Offset int    `json:"offset,omitempty" minimum:"0" jsonschema:"skip this many first (for the next page of results)"`
}

// NewComment is a comment to add.
type NewComment struct {
	PageID    string `json:"page_id" jsonschema:"the page's id: pageId from the answer of publish_page, create_draft, request_approval or list_inbox"`
	Content   string `json:"content" jsonschema:"the comment (markdown is shown as text)"`
	BlockID   string `json:"block_id,omitempty" jsonschema:"anchor it to one block of the page"`
	LineStart int    `json:"line_start,omitempty" minimum:"1" jsonschema:"with block_id of a code or diff block: the first line (from 1) the comment is about"`
	LineEnd   int    `json:"line_end,omitempty" minimum:"1" jsonschema:"the last line of that range (default line_start)"`
	LineSide  string `json:"line_side,omitempty" enum:"new,old" jsonschema:"a diff's side the lines are on: new (new_text, the default) or old (old_text)"`
	ParentID  string `json:"parent_id,omitempty" jsonschema:"reply to this comment"`
}

// EventsQuery asks what happened since a cursor.
type EventsQuery struct {
	After string `json:"after,omitempty" jsonschema:"the cursor an earlier call returned; empty or 0: every event still kept"`
	Limit int    `json:"limit,omitempty" minimum:"1" jsonschema:"at most this many events (default 50, at most 200)"`
}

// Events is what happened: the events in order and the cursor to ask from next.
// It goes out as an Answer, like the API's answers the tools pass on.
type Events struct {
	Events []client.Event `json:"events" jsonschema:"each: id (the cursor of this event), type (page.viewed, action.executed, comment.added, approval.step_completed…), pageId, timestamp, data, actor"`
	Cursor string         `json:"cursor" jsonschema:"pass it as after next time"`
}

// readTools: the inbox, comments, approval chains and the agent's events.
func (f *folio) readTools(s *mcp.Server) {
	add(f, s, &mcp.Tool{Name: "list_inbox", Annotations: annotations(true, false, true, false), Description: "List your pages as your human's inbox shows them, newest first: title, status, whether it was decided, read and starred."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in InboxQuery) (Answer[client.InboxList], error) {
			l, err := c.ListInbox(ctx, client.InboxFilter{Status: in.Status, Priority: in.Priority, PageType: in.PageType, Limit: in.Limit, Offset: in.Offset})
			if err != nil {
				return Answer[client.InboxList]{}, err
			}
			return answerOf(l)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "get_comments", Annotations: annotations(true, false, true, false), Description: "Read the comments people left on a page, oldest first (with author, the block they are about, and replies)."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in CommentQuery) (Answer[client.CommentList], error) {
			l, err := c.ListComments(ctx, in.PageID, client.ListOptions{Limit: in.Limit, Offset: in.Offset})
			if err != nil {
				return Answer[client.CommentList]{}, err
			}
			return answerOf(l)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "add_comment", Annotations: annotations(false, false, false, true),
		Description: "Comment on a page as its agent, for example to answer a person's question; people watching see it at once. Each call adds a comment."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in NewComment) (Answer[client.Comment], error) {
			cm, err := c.AddComment(ctx, in.PageID, client.CommentRequest{Content: in.Content, AuthorType: "agent", BlockID: in.BlockID,
				LineStart: in.LineStart, LineEnd: in.LineEnd, LineSide: in.LineSide, ParentID: in.ParentID})
			if err != nil {
				return Answer[client.Comment]{}, err
			}
			return answerOf(cm)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "get_approval", Annotations: annotations(true, false, true, false), Description: "Read a page's approval chain: each step, who must decide it, and who already did."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageRef) (Answer[client.ApprovalStatus], error) {
			a, err := c.GetApproval(ctx, in.PageID)
			if err != nil {
				return Answer[client.ApprovalStatus]{}, err
			}
			return answerOf(a)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "agent_events", Annotations: annotations(true, false, true, false), Description: "What happened on your pages since a cursor: views, decisions, comments, files, approval steps. " +
		"Call it with the cursor of the previous call to get only what is new."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in EventsQuery) (Answer[Events], error) {
			ev, err := readEvents(ctx, c, in)
			return Answer[Events]{Of: ev}, err
		}, inAnswer)
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
	out := Events{Events: []client.Event{}, Cursor: after}
	const quiet = 400 * time.Millisecond
	timer := time.NewTimer(quiet)
	defer timer.Stop()
	for len(out.Events) < limit {
		select {
		case ev, ok := <-got:
			if !ok {
				return out, nil
			}
			out.Events = append(out.Events, *ev)
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
