package content_test

import (
	"slices"
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

func TestPublishA2UIEnvelope(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("a2ui-agent")
	m := e.Must(201, "POST", "/v1/publish/a2ui", key, `{
	  "version": "v0.9", "title": "Quarterly report",
	  "updateComponents": {"surfaceId": "main", "components": [
	    {"id": "root", "component": "Column", "children": ["heading", "row"]},
	    {"id": "heading", "component": "Text", "text": "Revenue is up", "variant": "h2"},
	    {"id": "row", "component": "Row", "children": ["left", "right"]},
	    {"id": "left", "component": "Image", "src": "https://example.com/chart.png", "weight": 2},
	    {"id": "right", "component": "Text", "text": "EMEA grew 12%.", "weight": 1}
	  ]}}`)
	id := wantPublished(t, m)
	if len(warnings(m)) != 0 {
		t.Errorf("warnings = %q", warnings(m))
	}
	p := getPage(t, e, key, id)
	if p["title"] != "Quarterly report" || p["status"] != "active" || p["page_type"] != "a2ui" {
		t.Fatalf("page = %v", p)
	}
	if got := blockTypes(p); !equal(got, []string{"rich_text", "layout"}) {
		t.Fatalf("blocks = %v", got)
	}
	cols := blockData(p, 1)["columns"].([]any)
	if len(cols) != 2 || cols[0].(map[string]any)["width"] != "2/3" {
		t.Errorf("layout columns = %v", cols)
	}
	// The page carries the request's page fields beside the envelope.
	m = e.Must(201, "POST", "/v1/publish/a2ui", key, `{"title": "With extras", "priority": "high", "tags": ["q3"],
	  "updateComponents": {"surfaceId": "s", "components": [{"id": "root", "component": "Text", "text": "hi"}]}}`)
	p = getPage(t, e, key, wantPublished(t, m))
	if p["priority"] != "high" || len(p["tags"].([]any)) != 1 {
		t.Errorf("extras not applied: %v", p)
	}
}

// A real v0.9 message list: data bindings, a templated list, inputs and buttons
// become blocks, one form and page actions; the approve action executes.
func TestPublishA2UIMessages(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("a2ui-agent")
	m := e.Must(201, "POST", "/v1/publish/a2ui", key, `[
	  {"version": "v0.9", "createSurface": {"surfaceId": "orders", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}},
	  {"version": "v0.9", "updateComponents": {"surfaceId": "orders", "components": [
	    {"id": "root", "component": "Column", "children": ["title", "summary", "order_list", "cols", "actions"]},
	    {"id": "title", "component": "Text", "variant": "h1", "text": {"path": "/customer/name"}},
	    {"id": "summary", "component": "Text", "text": "Orders for ${/customer/name}: ${/count}"},
	    {"id": "order_list", "component": "List", "children": {"componentId": "order_card", "path": "/items"}},
	    {"id": "order_card", "component": "Card", "child": "order_name"},
	    {"id": "order_name", "component": "Text", "text": {"path": "name"}},
	    {"id": "cols", "component": "Row", "children": ["note", "qty"]},
	    {"id": "note", "component": "TextField", "label": "Note", "value": {"path": "/form/note"}},
	    {"id": "qty", "component": "Slider", "label": "Quantity", "min": 1, "max": 10, "value": 3},
	    {"id": "actions", "component": "Row", "children": ["approve_btn", "reject_btn"]},
	    {"id": "approve_btn", "component": "Button", "child": "approve_label", "variant": "primary",
	     "action": {"event": {"name": "approve"}}},
	    {"id": "approve_label", "component": "Text", "text": "Approve all"},
	    {"id": "reject_btn", "component": "Button", "child": "reject_label", "action": {"event": {"name": "reject"}}},
	    {"id": "reject_label", "component": "Text", "text": "Reject"}
	  ]}},
	  {"version": "v0.9", "updateDataModel": {"surfaceId": "orders", "value": {
	    "customer": {"name": "ACME Corp"}, "count": 2,
	    "items": [{"name": "Order #1"}, {"name": "Order #2"}], "form": {"note": "Dock 4"}}}}
	]`)
	id := wantPublished(t, m)
	p := getPage(t, e, key, id)
	if p["title"] != "ACME Corp" {
		t.Errorf("title (the bound h1) = %v", p["title"])
	}
	types := blockTypes(p)
	for _, want := range []string{"rich_text", "text", "group", "form"} {
		if !slices.Contains(types, want) {
			t.Errorf("blocks %v lack %s", types, want)
		}
	}
	if blockData(p, 1)["content"] != "Orders for ACME Corp: 2" {
		t.Errorf("bound text = %v", blockData(p, 1))
	}
	if ids := actionIDs(p); !equal(ids, []string{"approve", "reject"}) {
		t.Fatalf("actions = %v", ids)
	}
	r := e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "ana@example.com"}})
	if r["page_state"].(map[string]any)["current"] != "completed" {
		t.Errorf("execute = %v", r)
	}
}

// A realistic AG-UI run: a step, a streamed tool call with its result, streamed
// text; and a run that ends in an interrupt becomes an approval page.
func TestPublishAGUI(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("agui-agent")
	m := e.Must(201, "POST", "/v1/publish/ag-ui", key, `{"title": "Flight search", "events": [
	  {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
	  {"type": "STEP_STARTED", "stepName": "search"},
	  {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search_flights"},
	  {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"from\": \"BER\", "},
	  {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\"to\": \"LIS\"}"},
	  {"type": "TOOL_CALL_END", "toolCallId": "c1"},
	  {"type": "TOOL_CALL_RESULT", "messageId": "m1", "toolCallId": "c1", "content": "3 flights found"},
	  {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
	  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "The cheapest "},
	  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "is TP 537."},
	  {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
	  {"type": "STEP_FINISHED", "stepName": "search"},
	  {"type": "SOMETHING_NEW"},
	  {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}
	]}`)
	id := wantPublished(t, m)
	if w := warnings(m); len(w) != 1 || !strings.Contains(w[0], `events[12]: unknown AG-UI event type "SOMETHING_NEW"`) {
		t.Errorf("warnings = %q", w)
	}
	p := getPage(t, e, key, id)
	if got := blockTypes(p); !equal(got, []string{"stepper", "code", "callout", "text"}) || p["page_type"] != "ag-ui" || len(p["actions"].([]any)) != 0 {
		t.Fatalf("page = %v", p)
	}
	if blockData(p, 1)["title"] != "search_flights" || blockData(p, 3)["content"] != "The cheapest is TP 537." {
		t.Errorf("tool call / text = %v / %v", blockData(p, 1), blockData(p, 3))
	}

	m = e.Must(201, "POST", "/v1/publish/ag-ui", key, `{"title": "Clean-up", "events": [
	  {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
	  {"type": "TOOL_CALL_START", "toolCallId": "c9", "toolCallName": "delete_records"},
	  {"type": "TOOL_CALL_ARGS", "toolCallId": "c9", "delta": "{\"table\": \"users\"}"},
	  {"type": "TOOL_CALL_END", "toolCallId": "c9"},
	  {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "interrupt", "interrupts": [
	    {"id": "i1", "reason": "tool_approval", "message": "Delete 1,204 inactive users?", "toolCallId": "c9"}]}}
	], "on_action": {"default_url": "https://hooks.example.com/folio"}}`)
	id = wantPublished(t, m)
	p = getPage(t, e, key, id)
	if p["page_type"] != "approval" || !equal(actionIDs(p), []string{"approve", "reject"}) {
		t.Fatalf("interrupt page = %v", p)
	}
	if got := blockTypes(p); !equal(got, []string{"code", "callout"}) || !strings.Contains(blockData(p, 1)["content"].(string), "Delete 1,204 inactive users?") {
		t.Errorf("interrupt blocks = %v", p["blocks"])
	}
	if p["on_action"] == nil {
		t.Error("on_action beside the events is kept")
	}
	r := e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"comment": "go"})
	if r["action_id"] != "approve" || r["page_state"].(map[string]any)["current"] != "completed" {
		t.Errorf("approve = %v", r)
	}
}

func TestPublishProtocolErrors(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("bad-agent")
	for _, c := range []struct {
		path, body, field, constraint string
	}{
		{"/v1/publish/a2ui", `{"title": "x", "updateComponents": `, "", "json"},
		{"/v1/publish/a2ui", `"components"`, "", "type"},
		{"/v1/publish/ag-ui", `{"title": "no events"}`, "events", "required"},
		{"/v1/publish/ag-ui", `{"events": "RUN_STARTED"}`, "events", "type"},
		{"/v1/publish/ag-ui", `{"events": [{"type": "RUN_STARTED"}], "priority": 5}`, "priority", "type"},
		{"/v1/publish/ag-ui", `{"events": [{"type": "RUN_STARTED"}], "priority": "asap"}`, "priority", "enum"},
		{"/v1/publish/a2ui", `[{"id":"root","component":"Text","text":"x"}]`, "", ""}, // fine: 201
	} {
		r := e.Do("POST", c.path, key, c.body)
		if c.constraint == "" {
			if r.Status != 201 {
				t.Errorf("%s %s: %d %s", c.path, c.body, r.Status, r.Body)
			}
			continue
		}
		d := r.ErrDetails(t)
		if r.Status != 400 || r.ErrCode(t) != "INVALID_REQUEST" || d["field"] != c.field || d["constraint"] != c.constraint {
			t.Errorf("%s %s: %d %s, want 400 %s/%s", c.path, c.body, r.Status, r.Body, c.field, c.constraint)
		}
	}
	if r := e.Do("POST", "/v1/publish/a2ui", "", `[]`); r.Status != 401 {
		t.Errorf("no key: %d", r.Status)
	}
	if r := e.Do("POST", "/v1/publish/ag-ui", key, ""); r.Status != 400 {
		t.Errorf("empty body: %d", r.Status)
	}
	long := strings.Repeat("T", 300)
	m := e.Must(201, "POST", "/v1/publish/ag-ui", key, `{"title": "`+long+`", "events": [{"type": "RUN_STARTED"}]}`)
	if p := getPage(t, e, key, wantPublished(t, m)); len([]rune(p["title"].(string))) != 200 {
		t.Errorf("a long translated title is clipped: %d", len([]rune(p["title"].(string))))
	}
	if w := warnings(m); len(w) == 0 || !strings.Contains(w[len(w)-1], "title") {
		t.Errorf("clipping warns: %q", w)
	}
}

func TestBlockSchema(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	r := e.Do("GET", "/v1/schema/blocks", "", nil)
	if r.Status != 200 || !strings.Contains(r.Header.Get("Content-Type"), "json") {
		t.Fatalf("schema: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	m := r.JSON(t)
	if !strings.Contains(m["$schema"].(string), "2020-12") {
		t.Errorf("$schema = %v", m["$schema"])
	}
	if !strings.Contains(string(r.Body), `"evidence_gallery"`) || !strings.Contains(string(r.Body), `"heatmap"`) {
		t.Error("the schema lists the catalog's types")
	}
}
