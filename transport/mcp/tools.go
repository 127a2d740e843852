package foliomcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/transport/client"
)

// handler is a tool's body: it gets the caller's API client.
type handler[In, Out any] func(ctx context.Context, c *client.Client, req *mcp.CallToolRequest, in In) (Out, error)

// add registers a tool whose body runs with the caller's client (clientFor). When
// the call created the account, account records it in the output (and the
// sentence for the human leads the text the model reads). Its input and output
// schemas are the portable ones of In and Out (schemaOf).
func add[In, Out any](f *folio, s *mcp.Server, t *mcp.Tool, h handler[In, Out], account func(*Out, *Provisioned)) {
	if t.InputSchema == nil {
		t.InputSchema = schemaOf[In]()
	}
	if t.OutputSchema == nil {
		if a, ok := any(*new(Out)).(interface{ outputSchema() map[string]any }); ok {
			t.OutputSchema = a.outputSchema() // an Answer: its T's schema, unset members optional
		} else {
			t.OutputSchema = schemaOf[Out]()
		}
	}
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		c, prov, err := f.clientFor(ctx, req)
		if err != nil {
			return nil, zero, err
		}
		out, err := h(ctx, c, req, in)
		if err != nil {
			return nil, zero, explain(err)
		}
		if prov == nil {
			return nil, out, nil
		}
		account(&out, prov)
		b, err := json.Marshal(out)
		if err != nil {
			return nil, zero, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: prov.Message}, &mcp.TextContent{Text: string(b)}}}, out, nil
	})
}

// annotations are a tool's hints to the client: whether it only reads, whether
// what it changes can be lost (destructive), whether repeating it changes nothing
// more (idempotent), and whether it reaches people or addresses outside Folio
// (open world: a page people are shown, a callback).
func annotations(readOnly, destructive, idempotent, openWorld bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: &openWorld}
}

// explain makes an API refusal readable for a model: the status, the code, the
// message (which names the field and the constraint) and the details.
func explain(err error) error {
	var ae *client.Error
	if !errors.As(err, &ae) {
		return err
	}
	details := ""
	if len(ae.Details) > 0 {
		if b, err := json.Marshal(ae.Details); err == nil {
			details = " details: " + string(b)
		}
	}
	return fmt.Errorf("refused by Folio (%d %s): %s.%s", ae.Status, ae.Code, ae.Message, details)
}
