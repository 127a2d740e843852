package foliomcp

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/client"
)

// Nothing is an input with no fields.
type Nothing struct{}

// TemplateUse publishes a page from a template.
type TemplateUse struct {
	Name      string         `json:"name" jsonschema:"the template's name, from list_templates"`
	Variables map[string]any `json:"variables" jsonschema:"the template's variables, as list_templates describes them"`
	Priority  string         `json:"priority,omitempty" enum:"low,normal,high,urgent" jsonschema:"how urgent it is for the person (default normal)"`
	Tags      []string       `json:"tags,omitempty" jsonschema:"short labels the person can filter by"`
}

// A2UIPayload is an A2UI document.
type A2UIPayload struct {
	Payload any `json:"payload" schema:"object_or_array" jsonschema:"an A2UI envelope {version, title, updateComponents}, a component array, or a list of A2UI messages"`
}

// AGUIEvents is an AG-UI event list.
type AGUIEvents struct {
	Title  string           `json:"title,omitempty" jsonschema:"the page's title"`
	Events []map[string]any `json:"events" jsonschema:"AG-UI events (TEXT_MESSAGE_*, TOOL_CALL_*, STATE_SNAPSHOT…): the page shows the run they describe"`
}

// contentTools: templates and the agent-UI protocols.
func (f *folio) contentTools(s *mcp.Server) {
	add(f, s, &mcp.Tool{Name: "list_templates", Annotations: annotations(true, false, true, false), Description: "List the ready-made page templates (deploy approval, expense report, code review…) with the variables each one takes."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, _ Nothing) (Answer[client.TemplateList], error) {
			l, err := c.ListTemplates(ctx)
			if err != nil {
				return Answer[client.TemplateList]{}, err
			}
			return answerOf(l)
		}, inAnswer)

	add(f, s, &mcp.Tool{Name: "publish_template", Annotations: annotations(false, false, false, true), Description: "Publish a page from a template, filling in its variables: the quickest way to a well-formed page of a common kind. " +
		"The template gives its buttons; get the decision with wait_for_decision (page_id = pageId). Each call publishes a new page."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in TemplateUse) (Published, error) {
			req := client.TemplateRequest{Variables: in.Variables}
			req.Priority, req.Tags = in.Priority, in.Tags
			p, err := c.PublishTemplate(ctx, in.Name, req)
			if err != nil {
				return Published{}, err
			}
			return publishedOf(p), nil
		}, setAccount)

	add(f, s, &mcp.Tool{Name: "publish_a2ui", Annotations: annotations(false, false, false, true), Description: "Publish a page from an A2UI document (Google's agent-to-UI format): its components become Folio blocks and its Button components the page's buttons. " +
		"Without a Button the page only shows the content and cannot be decided. Each call publishes a new page."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in A2UIPayload) (Published, error) {
			raw, err := json.Marshal(in.Payload)
			if err != nil {
				return Published{}, err
			}
			p, err := c.PublishA2UI(ctx, raw)
			if err != nil {
				return Published{}, err
			}
			return publishedOf(p), nil
		}, setAccount)

	add(f, s, &mcp.Tool{Name: "publish_ag_ui", Annotations: annotations(false, false, false, true), Description: "Publish a page from an AG-UI event list (the agent-user interaction protocol): the run's messages, tool calls and state become a page a person can review. " +
		"A run that ends in an interrupt gets its buttons; otherwise the page only shows the run and cannot be decided. Each call publishes a new page."},
		func(ctx context.Context, c *client.Client, _ *mcp.CallToolRequest, in AGUIEvents) (Published, error) {
			p, err := c.PublishAGUI(ctx, client.AGUIRequest{Title: in.Title, Events: in.Events})
			if err != nil {
				return Published{}, err
			}
			return publishedOf(p), nil
		}, setAccount)
}
