package client_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"folio/transport/client"
)

// TestTemplatesProtocolsAndWorkflows: templates are listed and published from
// (an unknown one is 404 naming the others); A2UI and AG-UI payloads become pages;
// a sequential workflow publishes its second page once the first completes.
func TestTemplatesProtocolsAndWorkflows(t *testing.T) {
	_, c := agent(t, "content")
	cx := ctx(t)

	tl := must(c.ListTemplates(cx))(t)
	var names []string
	for _, tp := range tl.Templates {
		names = append(names, tp.Name)
	}
	if !slices.Contains(names, "approval") || len(tl.Templates[0].Variables) == 0 {
		t.Fatalf("ListTemplates = %v", names)
	}
	pub := must(c.PublishTemplate(cx, "approval", client.TemplateRequest{
		Variables:  map[string]any{"title": "Grant Ana access to billing?", "details": map[string]any{"Account": "acme"}},
		PageExtras: client.PageExtras{Priority: "high", Tags: []string{"access"}},
	}))(t)
	if p := must(c.GetPage(cx, pub.PageID))(t); p.Title != "Grant Ana access to billing?" || p.Priority != "high" || p.Status != client.StatusActive {
		t.Errorf("page from the template = %+v", p)
	}
	_, err := c.PublishTemplate(cx, "no_such_template", client.TemplateRequest{})
	var fe *client.Error
	if !client.IsNotFound(err) || !asError(err, &fe) || fe.Details["resource"] != "template" || fe.Details["available"] == nil {
		t.Errorf("unknown template: %v", err)
	}

	a2ui := json.RawMessage(`{"version":"v0.9","title":"From A2UI","updateComponents":{"surfaceId":"s","components":[
		{"id":"root","component":"Column","children":["t"]},{"id":"t","component":"Text","text":"Hello from A2UI"}]}}`)
	ap := must(c.PublishA2UI(cx, a2ui))(t)
	if p := must(c.GetPage(cx, ap.PageID))(t); p.Title != "From A2UI" || p.PageType != "a2ui" || len(p.Blocks) == 0 {
		t.Errorf("A2UI page = %+v", p)
	}
	ag := must(c.PublishAGUI(cx, client.AGUIRequest{Title: "From AG-UI", Events: []map[string]any{
		{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
		{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Plan ready."},
		{"type": "TEXT_MESSAGE_END", "messageId": "m1"},
	}}))(t)
	if p := must(c.GetPage(cx, ag.PageID))(t); p.Title != "From AG-UI" || p.PageType != "ag-ui" || len(p.Blocks) != 1 || p.Blocks[0].Type != "text" {
		t.Errorf("AG-UI page = %+v", p)
	}

	wf := must(c.CreateWorkflow(cx, client.WorkflowRequest{Name: "Release", Pages: []client.PageRequest{approvalPage("Step 1"), approvalPage("Step 2")}}))(t)
	if wf.Flow != "sequential" || len(wf.Pages) != 2 || wf.GroupID == "" {
		t.Fatalf("CreateWorkflow = %+v", wf)
	}
	got := must(c.GetWorkflow(cx, wf.GroupID))(t)
	if got.Pages[0].Status != client.StatusActive || got.Pages[1].Status != client.StatusDraft {
		t.Fatalf("GetWorkflow = %+v", got)
	}
	must(c.ExecuteAction(cx, wf.Pages[0], "approve", client.ActionRequest{}))(t)
	eventually(t, 5*time.Second, "the second page published", func() bool {
		return must(c.GetWorkflow(cx, wf.GroupID))(t).Pages[1].Status == client.StatusActive
	})
	if _, err := c.GetWorkflow(cx, "wf_unknown"); !client.IsNotFound(err) {
		t.Errorf("unknown workflow: %v", err)
	}
}
