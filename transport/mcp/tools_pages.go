package foliomcp

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/client"
)

// PageRef names a page.
type PageRef struct {
	PageID string `json:"page_id" jsonschema:"the page's id: pageId from the answer of publish_page, create_draft, request_approval or list_inbox"`
}

// PageChange is a change to a page: only the fields given change.
type PageChange struct {
	PageID  string   `json:"page_id" jsonschema:"the page's id: pageId from the answer of publish_page, create_draft, request_approval or list_inbox"`
	Title   string   `json:"title,omitempty" jsonschema:"the new title (at most 200 characters)"`
	Summary string   `json:"summary,omitempty" jsonschema:"the new summary"`
	Blocks  []Block  `json:"blocks,omitempty" jsonschema:"replaces every block"`
	Actions []Action `json:"actions,omitempty" jsonschema:"replaces every action"`
}

// BlocksToAdd are blocks appended at the end of a page.
type BlocksToAdd struct {
	PageID string  `json:"page_id" jsonschema:"the page's id: pageId from the answer of publish_page, create_draft, request_approval or list_inbox"`
	Blocks []Block `json:"blocks" jsonschema:"appended after the page's blocks; people watching see them arrive"`
}

// Revocation withdraws a page.
type Revocation struct {
	PageID string `json:"page_id" jsonschema:"the page's id: pageId from the answer of publish_page, create_draft, request_approval or list_inbox"`
	Reason string `json:"reason,omitempty" jsonschema:"why, for the audit log"`
}

// Renewal extends a page.
type Renewal struct {
	PageID    string `json:"page_id" jsonschema:"the page's id: pageId from the answer of publish_page, create_draft, request_approval or list_inbox"`
	ExpiresAt string `json:"expires_at,omitempty" jsonschema:"RFC 3339; default: 7 days from now"`
}

func publishedOf(p *client.PublishResult) Published {
	out := Published{PageID: p.PageID, PageURL: p.PageURL, ShortURL: p.ShortURL, Status: p.Status, Warnings: p.Warnings}
	if !p.ExpiresAt.IsZero() {
		out.ExpiresAt = p.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return out
}

func setAccount(out *Published, p *Provisioned) { out.Account = p }

func blocksOf(in []Block) ([]client.Block, error) {
	var out []client.Block
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return out, json.Unmarshal(b, &out)
}

func actionsOf(in []Action) []client.Action {
	out := make([]client.Action, len(in))
	for i, a := range in {
		out[i] = client.Action{ActionID: a.ActionID, Label: a.Label, Style: a.Style, Decision: a.Decision, Final: a.Final, Confirm: a.Confirm}
	}
	return out
}

// pageTools: publishing and changing pages.
func (f *folio) pageTools(s *mcp.Server) {
	add(f, s, &mcp.Tool{Name: "publish_page", Annotations: annotations(false, false, false, true),
		Description: "Publish a page for people now and get its address (pageUrl) to give them; it does not wait. " +
			"A page has a title, content blocks and action buttons; without actions it gets Approve (action_id approve) and Reject (action_id reject). " +
			"It takes one decision, until it expires (7 days by default). Get the decision with wait_for_decision (page_id = pageId); " +
			"to publish and wait in one call, use request_approval instead. Each call publishes a new page."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageInput) (Published, error) {
			req, err := in.withDefaults().request()
			if err != nil {
				return Published{}, err
			}
			p, err := c.Publish(ctx, req)
			if err != nil {
				return Published{}, err
			}
			return publishedOf(p), nil
		}, setAccount)

	add(f, s, &mcp.Tool{Name: "create_draft", Annotations: annotations(false, false, false, false),
		Description: "Create a page as a draft that nobody else can see yet (the same fields as publish_page; without actions it gets Approve and Reject); " +
			"change it with update_page and append_blocks, then make it visible with publish_draft. Answers pageId and status draft."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageInput) (Answer[client.DraftCreated], error) {
			req, err := in.withDefaults().request()
			if err != nil {
				return Answer[client.DraftCreated]{}, err
			}
			d, err := c.CreateDraft(ctx, req)
			if err != nil {
				return Answer[client.DraftCreated]{}, err
			}
			return answerOf(d)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "publish_draft", Annotations: annotations(false, false, false, true),
		Description: "Publish a draft made with create_draft: it becomes visible at its pageUrl and starts taking decisions (get them with wait_for_decision). A page that is not a draft is refused (409)."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageRef) (Answer[client.DraftPublished], error) {
			d, err := c.PublishDraft(ctx, in.PageID, client.PageUpdate{})
			if err != nil {
				return Answer[client.DraftPublished]{}, err
			}
			return answerOf(d)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "get_page", Annotations: annotations(true, false, true, false),
		Description: "Read one of your pages as it stands, without waiting: status (draft, active, completed, expired, revoked), decision, blocks, actions, approval chain and view counts. Times not yet reached (completed_at on an active page) are absent."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageRef) (Answer[client.Page], error) {
			p, err := c.GetPage(ctx, in.PageID)
			if err != nil {
				return Answer[client.Page]{}, err
			}
			return answerOf(p)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "update_page", Annotations: annotations(false, true, true, false),
		Description: "Change a draft or active page's title, summary, blocks or actions; people watching see the change at once. Fields left out stay as they are; blocks and actions, when given, replace all the page had."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageChange) (Answer[client.UpdatedPage], error) {
			var u client.PageUpdate
			if in.Title != "" {
				u.Title = &in.Title
			}
			if in.Summary != "" {
				u.Summary = &in.Summary
			}
			if in.Blocks != nil {
				b, err := blocksOf(in.Blocks)
				if err != nil {
					return Answer[client.UpdatedPage]{}, err
				}
				u.Blocks = &b
			}
			if in.Actions != nil {
				a := actionsOf(in.Actions)
				u.Actions = &a
			}
			p, err := c.UpdatePage(ctx, in.PageID, u)
			if err != nil {
				return Answer[client.UpdatedPage]{}, err
			}
			return answerOf(p)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "append_blocks", Annotations: annotations(false, false, false, false),
		Description: "Add blocks at the end of a draft or active page, for example progress or new findings while the person reads it; each call appends again."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in BlocksToAdd) (Answer[client.BlocksAppended], error) {
			b, err := blocksOf(in.Blocks)
			if err != nil {
				return Answer[client.BlocksAppended]{}, err
			}
			r, err := c.AppendBlocks(ctx, in.PageID, b)
			if err != nil {
				return Answer[client.BlocksAppended]{}, err
			}
			return answerOf(r)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "revoke_page", Annotations: annotations(false, true, true, false),
		Description: "Withdraw a draft or active page: it stops taking decisions and people see that it was withdrawn. Final: it cannot be published again."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in Revocation) (Answer[client.Revoked], error) {
			r, err := c.RevokePage(ctx, in.PageID, in.Reason)
			if err != nil {
				return Answer[client.Revoked]{}, err
			}
			return answerOf(r)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "renew_page", Annotations: annotations(false, false, false, false),
		Description: "Extend an active page's lifetime, or reopen an expired one, until expires_at (default: 7 days past the later of now and its current expiry)."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in Renewal) (Answer[client.Renewed], error) {
			var at time.Time
			if in.ExpiresAt != "" {
				t, err := time.Parse(time.RFC3339, in.ExpiresAt)
				if err != nil {
					return Answer[client.Renewed]{}, err
				}
				at = t
			}
			r, err := c.RenewPage(ctx, in.PageID, at)
			if err != nil {
				return Answer[client.Renewed]{}, err
			}
			return answerOf(r)
		}, inAnswer)
}
