package client

import (
	"context"
	"encoding/json"

	"folio/transport/apitypes"
)

// Template is a named page the server builds from variables.
type Template struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Variables   []TemplateVariable `json:"variables"`
}

// TemplateVariable is one input of a template.
type TemplateVariable struct {
	Key         string   `json:"key"`
	Label       string   `json:"label"`
	Required    bool     `json:"required"`
	Type        string   `json:"type"` // string, text, number, integer, boolean, url, email, date, datetime, enum, list, map, rows
	Description string   `json:"description"`
	Options     []string `json:"options"` // the values of an enum
	Default     any      `json:"default"`
}

// TemplateList is every template the server offers.
type TemplateList = apitypes.TemplateList[Template]

// TemplateRequest is the body of POST /v1/publish/template/:name: the variables,
// keyed by the template's variable keys, and page fields beside them.
type TemplateRequest struct {
	PageExtras
	Variables map[string]any `json:"variables,omitempty"`
}

// ListTemplates lists the templates (GET /v1/templates).
func (c *Client) ListTemplates(ctx context.Context) (*TemplateList, error) {
	return call[TemplateList](ctx, c, "GET", "/v1/templates", nil)
}

// PublishTemplate publishes a page from a template (POST /v1/publish/template/:name).
// An unknown name is 404 whose details list the available ones.
func (c *Client) PublishTemplate(ctx context.Context, name string, req TemplateRequest) (*PublishResult, error) {
	return call[PublishResult](ctx, c, "POST", "/v1/publish/template/"+esc(name), req)
}

// AGUIRequest is the body of POST /v1/publish/ag-ui: AG-UI events (each an object
// with its "type"), a title, and page fields beside them.
type AGUIRequest struct {
	PageExtras
	Title  string           `json:"title,omitempty"`
	Events []map[string]any `json:"events"`
}

// PublishA2UI publishes a page translated from an A2UI payload (POST
// /v1/publish/a2ui): an envelope {version, title, updateComponents}, a bare
// component array or an array of A2UI messages, as JSON.
func (c *Client) PublishA2UI(ctx context.Context, payload json.RawMessage) (*PublishResult, error) {
	return call[PublishResult](ctx, c, "POST", "/v1/publish/a2ui", payload)
}

// PublishAGUI publishes a page translated from AG-UI events (POST /v1/publish/ag-ui).
func (c *Client) PublishAGUI(ctx context.Context, req AGUIRequest) (*PublishResult, error) {
	return call[PublishResult](ctx, c, "POST", "/v1/publish/ag-ui", req)
}

// BlockSchema is the JSON Schema of the block catalog (GET /v1/schema/blocks): every
// block type and its data. No credential is needed.
func (c *Client) BlockSchema(ctx context.Context) (json.RawMessage, error) {
	raw, err := call[json.RawMessage](ctx, c, "GET", "/v1/schema/blocks", nil)
	if err != nil {
		return nil, err
	}
	return *raw, nil
}
