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
	PageID string `json:"page_id" jsonschema:"the pageId publish_page or create_draft returned"`
}

// PageChange is a change to a page: only the fields given change.
type PageChange struct {
	PageID  string   `json:"page_id" jsonschema:"the page to change"`
	Title   string   `json:"title,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Blocks  []Block  `json:"blocks,omitempty" jsonschema:"replaces every block"`
	Actions []Action `json:"actions,omitempty" jsonschema:"replaces every action"`
}

// BlocksToAdd are blocks appended at the end of a page.
type BlocksToAdd struct {
	PageID string  `json:"page_id"`
	Blocks []Block `json:"blocks" jsonschema:"appended after the page's blocks; people watching see them arrive"`
}

// Revocation withdraws a page.
type Revocation struct {
	PageID string `json:"page_id"`
	Reason string `json:"reason,omitempty" jsonschema:"why, for the audit log"`
}

// Renewal extends a page.
type Renewal struct {
	PageID    string `json:"page_id"`
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
		out[i] = client.Action{ActionID: a.ActionID, Label: a.Label, Style: a.Style}
	}
	return out
}

// pageTools: publishing and changing pages.
func (f *folio) pageTools(s *mcp.Server) {
	add(f, s, &mcp.Tool{Name: "publish_page", Description: "Publish a page for people now and get its address (pageUrl) to share. " +
		"Use it to show a person something and let them act on it later; to ask and wait for the answer in one step, use request_approval instead. " +
		"A page has a title, content blocks and action buttons; it takes decisions until one is made or it expires (7 days by default)."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageInput) (Published, error) {
			req, err := in.request()
			if err != nil {
				return Published{}, err
			}
			p, err := c.Publish(ctx, req)
			if err != nil {
				return Published{}, err
			}
			return publishedOf(p), nil
		}, setAccount)

	add(f, s, &mcp.Tool{Name: "create_draft", Description: "Create a page as a draft that nobody else can see yet; change it with update_page and append_blocks, then make it visible with publish_draft."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageInput) (map[string]any, error) {
			req, err := in.request()
			if err != nil {
				return nil, err
			}
			d, err := c.CreateDraft(ctx, req)
			if err != nil {
				return nil, err
			}
			return plain(d)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "publish_draft", Description: "Publish a draft made with create_draft: it becomes visible at its pageUrl and starts taking decisions."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageRef) (map[string]any, error) {
			d, err := c.PublishDraft(ctx, in.PageID, client.PageUpdate{})
			if err != nil {
				return nil, err
			}
			return plain(d)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "get_page", Description: "Read one of your pages as it stands: status (draft, active, completed, expired, revoked), decision, blocks, actions, approval chain and view counts."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageRef) (map[string]any, error) {
			p, err := c.GetPage(ctx, in.PageID)
			if err != nil {
				return nil, err
			}
			return plain(p)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "update_page", Description: "Change a draft or active page's title, summary, blocks or actions; people watching see the change at once. Fields left out stay as they are."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in PageChange) (map[string]any, error) {
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
					return nil, err
				}
				u.Blocks = &b
			}
			if in.Actions != nil {
				a := actionsOf(in.Actions)
				u.Actions = &a
			}
			p, err := c.UpdatePage(ctx, in.PageID, u)
			if err != nil {
				return nil, err
			}
			return plain(p)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "append_blocks", Description: "Add blocks at the end of a page, for example progress or new findings while the person reads it."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in BlocksToAdd) (map[string]any, error) {
			b, err := blocksOf(in.Blocks)
			if err != nil {
				return nil, err
			}
			r, err := c.AppendBlocks(ctx, in.PageID, b)
			if err != nil {
				return nil, err
			}
			return plain(r)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "revoke_page", Description: "Withdraw a draft or active page: it stops taking decisions and people see that it was withdrawn. Final."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in Revocation) (map[string]any, error) {
			r, err := c.RevokePage(ctx, in.PageID, in.Reason)
			if err != nil {
				return nil, err
			}
			return plain(r)
		}, inMap)

	add(f, s, &mcp.Tool{Name: "renew_page", Description: "Extend an active page's lifetime, or reopen an expired one, until expires_at (default: 7 days from now)."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in Renewal) (map[string]any, error) {
			var at time.Time
			if in.ExpiresAt != "" {
				t, err := time.Parse(time.RFC3339, in.ExpiresAt)
				if err != nil {
					return nil, err
				}
				at = t
			}
			r, err := c.RenewPage(ctx, in.PageID, at)
			if err != nil {
				return nil, err
			}
			return plain(r)
		}, inMap)
}
