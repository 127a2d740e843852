package protocols

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func mustA2UI(t *testing.T, body string) Page {
	t.Helper()
	p, err := FromA2UI([]byte(body))
	if err != nil {
		t.Fatalf("FromA2UI: %v", err)
	}
	checkPage(t, p)
	return p
}

// The envelope of spec 4.7: Text, Row, Column, Image with src, weights → widths.
func TestA2UIEnvelopeFromSpec(t *testing.T) {
	p := mustA2UI(t, `{
	  "version": "v0.9",
	  "title": "Quarterly report",
	  "updateComponents": {
	    "surfaceId": "main",
	    "components": [
	      {"id": "root", "component": "Column", "children": ["heading", "row"]},
	      {"id": "heading", "component": "Text", "text": "Revenue is up", "variant": "h2"},
	      {"id": "row", "component": "Row", "children": ["left", "right"]},
	      {"id": "left", "component": "Column", "children": ["chart", "caption"], "weight": 2},
	      {"id": "chart", "component": "Image", "src": "https://example.com/chart.png"},
	      {"id": "caption", "component": "Text", "text": "Revenue by region", "variant": "caption"},
	      {"id": "right", "component": "Text", "text": "EMEA grew 12%.", "weight": 1}
	    ]
	  }
	}`)
	wantNoWarnings(t, p.Warnings)
	if p.Title != "Quarterly report" {
		t.Errorf("title = %q", p.Title)
	}
	wantTypes(t, p.Blocks, "rich_text", "layout")
	wantJSON(t, "heading", dataOfBlock(t, p.Blocks[0]), `{"content": "## Revenue is up"}`)
	wantJSON(t, "layout", dataOfBlock(t, p.Blocks[1]), `{"columns": [
	  {"width": "2/3", "blocks": [
	    {"type": "image", "data": {"url": "https://example.com/chart.png"}},
	    {"type": "text", "data": {"content": "Revenue by region"}}]},
	  {"width": "1/3", "blocks": [
	    {"type": "text", "data": {"content": "EMEA grew 12%."}}]}
	]}`)
}

func TestA2UIBareArray(t *testing.T) {
	p := mustA2UI(t, `[
	  {"id": "title", "component": "Text", "text": "Deploy plan", "variant": "h1"},
	  {"id": "body", "component": "Text", "text": "Roll out to **eu-west** first."},
	  {"id": "sep", "component": "Divider"},
	  {"id": "cols", "component": "Row", "children": ["a", "b", "c"]},
	  {"id": "a", "component": "Text", "text": "A"},
	  {"id": "b", "component": "Text", "text": "B"},
	  {"id": "c", "component": "Text", "text": "C"}
	]`)
	wantNoWarnings(t, p.Warnings)
	if p.Title != "Deploy plan" { // first heading, no envelope title
		t.Errorf("title = %q", p.Title)
	}
	wantTypes(t, p.Blocks, "rich_text", "text", "divider", "layout")
	wantJSON(t, "widths", dataOfBlock(t, p.Blocks[3])["columns"].([]any)[2].(map[string]any)["width"], `"1/3"`)
	if p2 := mustA2UI(t, `[{"id":"x","component":"Text","text":"plain"}]`); p2.Title != "Untitled" {
		t.Errorf("fallback title = %q", p2.Title)
	}
}

// A realistic v0.9 message list: surface, components with bindings and a
// templated list, data model updates, buttons and inputs.
const ordersMessages = `[
  {"version": "v0.9", "createSurface": {"surfaceId": "orders", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}},
  {"version": "v0.9", "updateComponents": {"surfaceId": "orders", "components": [
    {"id": "root", "component": "Column", "children": ["title", "summary", "order_list", "inputs", "actions"]},
    {"id": "title", "component": "Text", "variant": "h1", "text": {"path": "/customer/name"}},
    {"id": "summary", "component": "Text", "text": "Orders for ${/customer/name}: ${/count}"},
    {"id": "order_list", "component": "List", "children": {"componentId": "order_card", "path": "/items"}},
    {"id": "order_card", "component": "Card", "child": "order_body"},
    {"id": "order_body", "component": "Column", "children": ["order_name", "order_status"]},
    {"id": "order_name", "component": "Text", "variant": "h3", "text": {"path": "name"}},
    {"id": "order_status", "component": "Text", "text": {"path": "status"}},
    {"id": "inputs", "component": "Column", "children": ["note", "rush", "carrier", "qty", "ship_on"]},
    {"id": "note", "component": "TextField", "label": "Note", "variant": "longText", "value": {"path": "/form/note"}},
    {"id": "rush", "component": "CheckBox", "label": "Rush delivery", "value": true},
    {"id": "carrier", "component": "ChoicePicker", "label": "Carrier", "variant": "mutuallyExclusive",
     "options": [{"label": "DHL", "value": "dhl"}, {"label": "UPS", "value": "ups"}], "value": ["ups"]},
    {"id": "qty", "component": "Slider", "label": "Quantity", "min": 1, "max": 10, "value": {"path": "/form/qty"}},
    {"id": "ship_on", "component": "DateTimeInput", "label": "Ship on", "enableDate": true, "value": "2025-07-01",
     "checks": [{"call": "required", "args": {"value": {"path": "/form/ship"}}, "message": "Pick a date"}]},
    {"id": "actions", "component": "Row", "children": ["approve_btn", "reject_btn"]},
    {"id": "approve_btn", "component": "Button", "child": "approve_label", "variant": "primary",
     "action": {"event": {"name": "approve_orders", "context": {"customer": {"path": "/customer/name"}}}}},
    {"id": "approve_label", "component": "Text", "text": "Approve all"},
    {"id": "reject_btn", "component": "Button", "child": "reject_label", "action": {"event": {"name": "reject_orders"}}},
    {"id": "reject_label", "component": "Text", "text": "Reject"}
  ]}},
  {"version": "v0.9", "updateDataModel": {"surfaceId": "orders", "value": {
    "customer": {"name": "ACME Corp"}, "count": 2,
    "items": [{"name": "Order #1", "status": "pending"}, {"name": "Order #2", "status": "shipped"}],
    "form": {"note": "Leave at dock 4", "qty": 3}}}},
  {"version": "v0.9", "updateDataModel": {"surfaceId": "orders", "path": "/items/0/status", "value": "on hold"}},
  {"version": "v0.9", "deleteSurface": {"surfaceId": "other"}}
]`

func TestA2UIMessagesWithBindingsTemplatesActionsAndForm(t *testing.T) {
	p := mustA2UI(t, ordersMessages)
	wantNoWarnings(t, p.Warnings)
	if p.Title != "ACME Corp" {
		t.Errorf("title = %q, want the bound h1", p.Title)
	}
	wantTypes(t, p.Blocks, "rich_text", "text", "group", "form")
	wantJSON(t, "heading", dataOfBlock(t, p.Blocks[0]), `{"content": "# ACME Corp"}`)
	wantJSON(t, "interpolated text", dataOfBlock(t, p.Blocks[1]), `{"content": "Orders for ACME Corp: 2"}`)
	wantJSON(t, "templated list", dataOfBlock(t, p.Blocks[2]), `{"blocks": [
	  {"type": "group", "data": {"blocks": [
	    {"type": "rich_text", "data": {"content": "### Order #1"}},
	    {"type": "text", "data": {"content": "on hold"}}]}},
	  {"type": "group", "data": {"blocks": [
	    {"type": "rich_text", "data": {"content": "### Order #2"}},
	    {"type": "text", "data": {"content": "shipped"}}]}}
	]}`)
	wantJSON(t, "form", dataOfBlock(t, p.Blocks[3]), `{"fields": [
	  {"field_id": "note", "type": "textarea", "label": "Note", "default_value": "Leave at dock 4"},
	  {"field_id": "rush", "type": "checkbox", "label": "Rush delivery", "default_value": true},
	  {"field_id": "carrier", "type": "radio", "label": "Carrier", "default_value": "ups",
	   "options": [{"value": "dhl", "label": "DHL"}, {"value": "ups", "label": "UPS"}]},
	  {"field_id": "qty", "type": "number", "label": "Quantity", "default_value": 3, "validation": {"min": 1, "max": 10}},
	  {"field_id": "ship_on", "type": "date", "label": "Ship on", "default_value": "2025-07-01", "required": true}
	]}`)
	wantJSON(t, "actions", p.Actions, `[
	  {"action_id": "approve_orders", "label": "Approve all", "style": "primary"},
	  {"action_id": "reject_orders", "label": "Reject"}
	]`)
}

// JSON Lines of messages are accepted like an array.
func TestA2UIJSONLines(t *testing.T) {
	body := `{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"c"}}
{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":{"path":"/msg"}}]}}
{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/msg","value":"hello"}}`
	p := mustA2UI(t, body)
	wantTypes(t, p.Blocks, "text")
	wantJSON(t, "text", dataOfBlock(t, p.Blocks[0]), `{"content": "hello"}`)
}

// Inputs inside a Row: the single form goes after the layout, not into a column.
func TestA2UIFormHoistedOutOfLayout(t *testing.T) {
	p := mustA2UI(t, `[
	  {"id": "root", "component": "Card", "child": "col"},
	  {"id": "col", "component": "Column", "children": ["head", "names", "email", "agree", "send"]},
	  {"id": "head", "component": "Text", "text": "# Contact us", "variant": "h2"},
	  {"id": "names", "component": "Row", "children": ["first", "last"]},
	  {"id": "first", "component": "TextField", "label": "First name", "variant": "shortText"},
	  {"id": "last", "component": "TextField", "label": "Last name"},
	  {"id": "email", "component": "TextField", "label": "Email", "variant": "shortText"},
	  {"id": "agree", "component": "ChoicePicker", "label": "Topics", "variant": "multipleSelection",
	   "options": [{"label": "Sales", "value": "sales"}, {"label": "Support", "value": "support"}], "value": []},
	  {"id": "send", "component": "Button", "child": "send_label", "action": {"event": {"name": "submit"}}},
	  {"id": "send_label", "component": "Text", "text": "Send"}
	]`)
	wantNoWarnings(t, p.Warnings)
	if p.Title != "Contact us" {
		t.Errorf("title = %q", p.Title)
	}
	wantTypes(t, p.Blocks, "group")
	wantJSON(t, "card", dataOfBlock(t, p.Blocks[0]), `{"blocks": [
	  {"type": "rich_text", "data": {"content": "## Contact us"}},
	  {"type": "form", "data": {"fields": [
	    {"field_id": "first", "type": "text", "label": "First name"},
	    {"field_id": "last", "type": "text", "label": "Last name"},
	    {"field_id": "email", "type": "text", "label": "Email"},
	    {"field_id": "agree", "type": "multi_select", "label": "Topics",
	     "options": [{"value": "sales", "label": "Sales"}, {"value": "support", "label": "Support"}]}]}}
	]}`)
	wantJSON(t, "actions", p.Actions, `[{"action_id": "submit", "label": "Send"}]`)
}

func TestA2UIOtherComponents(t *testing.T) {
	p := mustA2UI(t, `[
	  {"id": "root", "component": "Tabs", "tabs": [{"title": "Media", "child": "media"}, {"title": {"path": "/t2"}, "child": "more"}]},
	  {"id": "media", "component": "Column", "children": ["vid", "aud", "icon"]},
	  {"id": "vid", "component": "Video", "url": "https://example.com/v.mp4"},
	  {"id": "aud", "component": "AudioPlayer", "url": "https://example.com/a.mp3", "description": "Standup"},
	  {"id": "icon", "component": "Icon", "name": "warning"},
	  {"id": "more", "component": "Modal", "trigger": "open", "content": "details"},
	  {"id": "open", "component": "Button", "child": "open_label", "action": {"event": {"name": "noop"}}},
	  {"id": "open_label", "component": "Text", "text": "Show details"},
	  {"id": "details", "component": "Text", "text": "Hidden details"}
	]`)
	wantWarning(t, p.Warnings, "binding /t2 has no value")
	wantTypes(t, p.Blocks, "tab")
	wantJSON(t, "tabs", dataOfBlock(t, p.Blocks[0]), `{"tabs": [
	  {"label": "Media", "blocks": [
	    {"type": "embed", "data": {"url": "https://example.com/v.mp4", "embed_type": "video"}},
	    {"type": "embed", "data": {"url": "https://example.com/a.mp3", "embed_type": "audio", "title": "Standup"}},
	    {"type": "text", "data": {"content": "⚠️"}}]},
	  {"label": "Tab 2", "blocks": [
	    {"type": "group", "data": {"title": "Show details", "collapsible": true, "default_collapsed": true,
	      "blocks": [{"type": "text", "data": {"content": "Hidden details"}}]}}]}
	]}`)
	if len(p.Actions) != 0 {
		t.Errorf("a Modal trigger is not a page action: %+v", p.Actions)
	}
}

// The older v0.8 shape: nested component objects, literalString, explicitList.
func TestA2UIV08Shapes(t *testing.T) {
	p := mustA2UI(t, `[
	  {"beginRendering": {"surfaceId": "s", "root": "main"}},
	  {"surfaceUpdate": {"surfaceId": "s", "components": [
	    {"id": "main", "component": {"Column": {"children": {"explicitList": ["hello", "row"]}}}},
	    {"id": "hello", "component": {"Text": {"text": {"literalString": "Hi there"}, "usageHint": "h2"}}},
	    {"id": "row", "component": {"Row": {"children": {"template": {"componentId": "cell", "dataBinding": "/cells"}}}}},
	    {"id": "cell", "component": {"Text": {"text": {"path": "label"}}}}
	  ]}},
	  {"dataModelUpdate": {"surfaceId": "s", "contents": [
	    {"key": "cells", "valueMap": [{"key": "0", "valueMap": [{"key": "label", "valueString": "x"}]}]}
	  ]}}
	]`)
	wantNoWarnings(t, p.Warnings)
	wantTypes(t, p.Blocks, "rich_text", "text") // a one-column row is inlined
	wantJSON(t, "cell", dataOfBlock(t, p.Blocks[1]), `{"content": "x"}`)
}

func TestA2UIUnknownComponentIsGeneric(t *testing.T) {
	p := mustA2UI(t, `{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
	  {"id": "root", "component": "Column", "children": ["chip"]},
	  {"id": "chip", "component": "StatusChip", "label": "Healthy", "tone": "good", "children": ["note"]},
	  {"id": "note", "component": "Text", "text": "shown after the chip"}
	]}}`)
	wantWarning(t, p.Warnings, "component chip", `unknown component type "StatusChip"`)
	wantTypes(t, p.Blocks, "statuschip", "text")
	wantJSON(t, "generic", dataOfBlock(t, p.Blocks[0]), `{"label": "Healthy", "tone": "good", "children": ["note"]}`)
}

func TestA2UICyclesAndMissingChildren(t *testing.T) {
	done := make(chan Page)
	go func() {
		p, _ := FromA2UI([]byte(`[
		  {"id": "root", "component": "Column", "children": ["a", "ghost"]},
		  {"id": "a", "component": "Card", "child": "b"},
		  {"id": "b", "component": "Column", "children": ["leaf", "a", "b"]},
		  {"id": "leaf", "component": "Text", "text": "still here"}
		]`))
		done <- p
	}()
	select {
	case p := <-done:
		checkPage(t, p)
		wantWarning(t, p.Warnings, "component b", "cycle", "a → b → a")
		wantWarning(t, p.Warnings, "component b", "cycle", "b → b")
		wantWarning(t, p.Warnings, "component root", `child "ghost" not found`)
		wantTypes(t, p.Blocks, "group")
		wantJSON(t, "card", dataOfBlock(t, p.Blocks[0]), `{"blocks": [{"type": "text", "data": {"content": "still here"}}]}`)
	case <-time.After(5 * time.Second):
		t.Fatal("cycle not detected: translation hangs")
	}

	// No root and every component referenced: render from the first, warn.
	p := mustA2UI(t, `[{"id": "x", "component": "Card", "child": "y"}, {"id": "y", "component": "Card", "child": "x"}]`)
	wantWarning(t, p.Warnings, "every component is referenced")
	wantWarning(t, p.Warnings, "cycle")
	wantNoWarningWith(t, p.Warnings, "not reachable")

	p = mustA2UI(t, `[{"id": "root", "component": "Text", "text": "shown"}, {"id": "orphan", "component": "Text", "text": "lost"}]`)
	wantTypes(t, p.Blocks, "text")
	wantWarning(t, p.Warnings, "component orphan", "not reachable")
}

func TestA2UIBoundedWork(t *testing.T) {
	// A template over 5000 items renders 1000.
	items := make([]string, 5000)
	for i := range items {
		items[i] = fmt.Sprintf(`{"n":"item %d"}`, i)
	}
	body := `[{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[
	  {"id":"root","component":"List","children":{"componentId":"row","path":"/items"}},
	  {"id":"row","component":"Text","text":{"path":"n"}}]}},
	  {"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items","value":[` + strings.Join(items, ",") + `]}}]`
	p := mustA2UI(t, body)
	wantWarning(t, p.Warnings, "truncated to 1000 items")
	if n := len(dataOfBlock(t, p.Blocks[0])["blocks"].([]any)); n != maxTemplateItems {
		t.Errorf("rendered %d items, want %d", n, maxTemplateItems)
	}

	// A DAG that doubles at every level (2^40 paths) stops at the render budget.
	var comps []string
	for i := 0; i < 40; i++ {
		comps = append(comps, fmt.Sprintf(`{"id":"c%d","component":"Column","children":["c%d","c%d"]}`, i, i+1, i+1))
	}
	comps = append(comps, `{"id":"c40","component":"Text","text":"leaf"}`)
	start := time.Now()
	p = mustA2UI(t, "["+strings.Join(comps, ",")+"]")
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	wantWarning(t, p.Warnings, "rendered components exhausted")

	// Deep nesting stops at maxDepth.
	comps = comps[:0]
	for i := 0; i < 200; i++ {
		comps = append(comps, fmt.Sprintf(`{"id":"d%d","component":"Card","child":"d%d"}`, i, i+1))
	}
	p = mustA2UI(t, "["+strings.Join(comps, ",")+`,{"id":"d200","component":"Text","text":"deep"}]`)
	wantWarning(t, p.Warnings, "nested deeper than 64")
}

func TestA2UIErrors(t *testing.T) {
	cases := []struct {
		name, body, field, constraint string
	}{
		{"malformed", `{"version": "v0.9", "updateComponents": [`, "", "json"},
		{"empty body", ``, "", "json"},
		{"trailing garbage", `[{"id":"a","component":"Text","text":"x"}] }`, "", "json"},
		{"scalar", `"hello"`, "", "type"},
		{"unknown object", `{"title": "x", "foo": 1}`, "", "shape"},
		{"empty array", `[]`, "components", "min_items"},
		{"no valid component", `[1, 2]`, "components", "min_items"},
		{"components not array", `{"title": "t", "updateComponents": {"surfaceId": "s", "components": {}}}`, "updateComponents.components", "type"},
		{"messages without components", `[{"version": "v0.9", "createSurface": {"surfaceId": "s"}}]`, "updateComponents", "required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := FromA2UI([]byte(c.body))
			wantError(t, err, c.field, c.constraint)
		})
	}
}

func TestA2UIWarningsNameComponents(t *testing.T) {
	p := mustA2UI(t, `[
	  {"id": "root", "component": "Row", "children": ["img", 7]},
	  {"id": "img", "component": "Image", "weight": -1},
	  "junk",
	  {"component": "Text", "text": "no id"}
	]`)
	wantWarning(t, p.Warnings, "component root", "children[1]")
	wantWarning(t, p.Warnings, "component img", "no url")
	wantWarning(t, p.Warnings, "component img", "weight")
	wantWarning(t, p.Warnings, "components[2]", "not an object")
	wantWarning(t, p.Warnings, "components[3]", "no id")
}

// Inputs repeated by a template get unique field ids; Buttons repeated by a
// template give one action and one warning.
func TestA2UITemplatedInputsAndButtons(t *testing.T) {
	p := mustA2UI(t, `[
	  {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
	    {"id": "root", "component": "List", "children": {"componentId": "row", "path": "/people"}},
	    {"id": "row", "component": "Row", "children": ["who", "pick"]},
	    {"id": "who", "component": "Text", "text": {"path": "name"}},
	    {"id": "pick", "component": "ChoicePicker", "label": {"path": "name"}, "filterable": true,
	     "options": [{"label": "Yes", "value": "y"}, {"label": "No", "value": "n"}], "value": {"path": "answer"}},
	    {"id": "extra", "component": "Button", "child": "extra_label", "action": {"event": {"name": "ok"}}},
	    {"id": "extra_label", "component": "Text", "text": "OK"}
	  ]}},
	  {"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/people",
	   "value": [{"name": "Ann", "answer": ["y"]}, {"name": "Bob", "answer": []}, {"name": "Cy"}]}}
	]`)
	wantWarning(t, p.Warnings, "component extra", "not reachable")
	wantWarning(t, p.Warnings, "binding /people/2/answer has no value")
	// The form goes to the nearest non-layout list holding the first input (the
	// List's group), right after the row that held it; one-column rows are inlined.
	wantTypes(t, p.Blocks, "group")
	list := dataOfBlock(t, p.Blocks[0])["blocks"].([]any)
	var kinds []string
	for _, b := range list {
		kinds = append(kinds, b.(map[string]any)["type"].(string))
	}
	if asJSON(kinds) != `["text","form","text","text"]` {
		t.Fatalf("list blocks = %v", kinds)
	}
	wantJSON(t, "fields", list[1].(map[string]any)["data"], `{"fields": [
	  {"field_id": "pick", "type": "select", "label": "Ann", "default_value": "y",
	   "options": [{"value": "y", "label": "Yes"}, {"value": "n", "label": "No"}]},
	  {"field_id": "pick_2", "type": "select", "label": "Bob",
	   "options": [{"value": "y", "label": "Yes"}, {"value": "n", "label": "No"}]},
	  {"field_id": "pick_3", "type": "select", "label": "Cy",
	   "options": [{"value": "y", "label": "Yes"}, {"value": "n", "label": "No"}]}]}`)

	p = mustA2UI(t, `[
	  {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
	    {"id": "root", "component": "Column", "children": {"componentId": "b", "path": "/xs"}},
	    {"id": "b", "component": "Button", "child": "l", "action": {"event": {"name": "pick"}}},
	    {"id": "l", "component": "Text", "text": {"path": "label"}}]}},
	  {"version": "v0.9", "updateDataModel": {"surfaceId": "s", "value": {"xs": [{"label": "First"}, {"label": "Second"}, {"label": "Third"}]}}}
	]`)
	wantJSON(t, "actions", p.Actions, `[{"action_id": "pick", "label": "First"}]`)
	wantWarning(t, p.Warnings, "component b", `action "pick" is already on the page`)
	if n := len(p.Warnings); n != 1 {
		t.Errorf("warnings = %q", p.Warnings)
	}
}

func TestColumnWidths(t *testing.T) {
	cases := []struct {
		weights []float64
		want    string
	}{
		{[]float64{1, 1}, `["1/2","1/2"]`},
		{[]float64{2, 1}, `["2/3","1/3"]`},
		{[]float64{1.5, 0.5}, `["3/4","1/4"]`},
		{[]float64{1, 2, 3}, `["1/6","1/3","1/2"]`},
		{[]float64{0.123456, 1}, `["11.0%","89.0%"]`},
	}
	for _, c := range cases {
		var cols []*column
		for _, w := range c.weights {
			cols = append(cols, &column{weight: w})
		}
		if got := asJSON(columnWidths(cols)); got != c.want {
			t.Errorf("widths(%v) = %s, want %s", c.weights, got, c.want)
		}
	}
}
