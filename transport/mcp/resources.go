package foliomcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/client"
)

// Resources: the block catalog's JSON Schema, and each page as Markdown.
const (
	schemaURI    = "folio://schema/blocks"
	pageTemplate = "folio://pages/{id}"
)

func (f *folio) resources(s *mcp.Server) {
	s.AddResource(&mcp.Resource{URI: schemaURI, Name: "block-schema", Title: "Folio block catalog",
		Description: "The JSON Schema of every block type a page may hold (text, table, code, diff, chart, form…) and its data.", MIMEType: "application/schema+json"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			raw, err := f.client("").BlockSchema(ctx) // public: no account needed
			if err != nil {
				return nil, explain(err)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: schemaURI, MIMEType: "application/schema+json", Text: string(raw)}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: pageTemplate, Name: "page", Title: "A page you published",
		Description: "One of your pages as Markdown: its status, decision, content and actions.", MIMEType: "text/markdown"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimPrefix(req.Params.URI, "folio://pages/")
			if id == "" || strings.ContainsAny(id, "/?#") {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			c, err := f.readerFor(req.Extra, req.Session)
			if err != nil {
				return nil, err
			}
			p, err := c.GetPage(ctx, id)
			if err != nil {
				var ae *client.Error
				if errors.As(err, &ae) && ae.Status == 404 {
					return nil, mcp.ResourceNotFoundError(req.Params.URI)
				}
				return nil, explain(err)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: markdownOf(p)}}}, nil
		})
}

// markdownOf is a page as an agent reads it back: the facts first, then each
// block's text, then the actions.
func markdownOf(p *client.Page) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.Title)
	if p.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", p.Summary)
	}
	fmt.Fprintf(&b, "- status: %s\n- url: %s\n", p.Status, p.PageURL)
	if p.Decision != "" {
		fmt.Fprintf(&b, "- decision: %s\n", p.Decision)
	}
	if p.PageType != "" {
		fmt.Fprintf(&b, "- type: %s\n", p.PageType)
	}
	fmt.Fprintf(&b, "- views: %d\n\n", p.Stats.ViewCount)
	for _, bl := range p.Blocks {
		fmt.Fprintf(&b, "## %s block", bl.Type)
		if bl.ID != "" {
			fmt.Fprintf(&b, " `%s`", bl.ID)
		}
		b.WriteString("\n\n")
		b.WriteString(blockText(bl.Data))
		b.WriteString("\n\n")
	}
	if len(p.Actions) > 0 {
		b.WriteString("## Actions\n\n")
		for _, a := range p.Actions {
			fmt.Fprintf(&b, "- `%s` %s\n", a.ActionID, a.Label)
		}
	}
	return b.String()
}

// blockText is a block's data as readable text: a text block's markdown as is,
// anything else as its fields.
func blockText(data any) string {
	m, ok := data.(map[string]any)
	if !ok {
		raw, _ := json.Marshal(data)
		return string(raw)
	}
	if c, ok := m["content"].(string); ok && len(m) <= 2 {
		return c
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		raw, _ := json.Marshal(m[k])
		fmt.Fprintf(&b, "- %s: %s\n", k, raw)
	}
	return strings.TrimRight(b.String(), "\n")
}
