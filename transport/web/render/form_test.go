package render

// Tests of the form and buttons blocks: real inputs that belong to the page's form,
// submit buttons only for actions the page accepts, and everything disabled when
// the page takes no input.

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// stField finds the one element named form_data.<id> (the first, for groups).
func stFields(doc *html.Node, id string) []*html.Node {
	return stAll(doc, func(n *html.Node) bool { return attr(n, "name") == "form_data."+id })
}

// stLabelFor is the text of the <label for=id>.
func stLabelFor(doc *html.Node, id string) string {
	for _, l := range stAll(doc, stTag("label")) {
		if attr(l, "for") == id {
			return stText(l)
		}
	}
	return ""
}

func TestFormFieldsAreRealLabelledInputsOfThePageForm(t *testing.T) {
	doc, _ := stRenderBlocks(t, stFixture(t, "form")[:1], testOptions())
	stNoFallback(t, doc)
	for _, tc := range []struct {
		id, tag, typ, label string
		attrs               map[string]string // attribute -> value ("" = present)
		value               string            // the pre-filled value (textarea: its text)
	}{
		{"service", "input", "text", "Service name Required", map[string]string{"required": "", "maxlength": "64", "placeholder": "e.g. billing-api"}, ""},
		{"reason", "textarea", "", "Why now?", map[string]string{"placeholder": "A sentence or two"}, "Fixes the retry storm seen on Friday."},
		{"replicas", "input", "number", "Replicas Required", map[string]string{"min": "1", "max": "12", "required": "", "step": "any"}, "3"},
		{"region", "select", "", "Region Required", map[string]string{"required": ""}, ""},
		{"window", "input", "datetime-local", "Window start", nil, "2026-11-25T08:00"},
		{"freeze", "input", "date", "Freeze ends", nil, ""},
		{"contact", "input", "email", "Contact e-mail", map[string]string{"placeholder": "you@example.com"}, ""},
		{"ticket", "input", "url", "Ticket link", nil, ""},
		{"evidence", "input", "file", "Evidence", map[string]string{"data-upload": ""}, ""},
	} {
		t.Run(tc.id, func(t *testing.T) {
			got := stFields(doc, tc.id)
			if len(got) != 1 {
				t.Fatalf("%d elements named form_data.%s", len(got), tc.id)
			}
			n := got[0]
			if n.Data != tc.tag || tc.typ != "" && attr(n, "type") != tc.typ {
				t.Errorf("<%s type=%q>, want <%s type=%q>", n.Data, attr(n, "type"), tc.tag, tc.typ)
			}
			if attr(n, "form") != "decide" {
				t.Errorf("form=%q: the field does not belong to the page's form", attr(n, "form"))
			}
			if id := attr(n, "id"); id == "" || stLabelFor(doc, id) != tc.label {
				t.Errorf("label for %q reads %q, want %q", id, stLabelFor(doc, attr(n, "id")), tc.label)
			}
			for k, v := range tc.attrs {
				if !stHas(n, k) || v != "" && attr(n, k) != v {
					t.Errorf("%s=%q, want %q", k, attr(n, k), v)
				}
			}
			if stHas(n, "disabled") {
				t.Errorf("disabled on an interactive page")
			}
			val := attr(n, "value")
			if n.Data == "textarea" {
				val = stText(n)
			}
			if tc.tag != "select" && val != tc.value {
				t.Errorf("value %q, want %q", val, tc.value)
			}
			errID := attr(n, "id") + "-err"
			if !strings.Contains(" "+attr(n, "aria-describedby")+" ", " "+errID+" ") {
				t.Errorf("aria-describedby=%q does not name the error slot %s", attr(n, "aria-describedby"), errID)
			}
			slot := stAll(doc, func(x *html.Node) bool { return attr(x, "id") == errID })
			if len(slot) != 1 || !hasClass(slot[0], "field-error") || !stHas(slot[0], "hidden") || stText(slot[0]) != "" {
				t.Errorf("no empty hidden error slot #%s", errID)
			}
		})
	}
	// The wrapper says which field it is, for the page script's server messages.
	if w := stAll(doc, func(n *html.Node) bool { return attr(n, "data-field") == "replicas" }); len(w) != 1 {
		t.Errorf("no [data-field=replicas] wrapper")
	}
	// Hints repeat the native constraints in words and are described-by.
	if h := stAll(doc, stClass("fm-help")); len(h) != 2 || stText(h[0]) != "Up to 64 characters" || stText(h[1]) != "From 1 to 12" {
		t.Errorf("hints: %d", len(h))
	}
}

func TestFormChoiceFields(t *testing.T) {
	doc, _ := stRenderBlocks(t, stFixture(t, "form")[:1], testOptions())
	// select: the default is selected, and a required select with a default has no empty choice
	sel := stFields(doc, "region")[0]
	opts := stAll(sel, stTag("option"))
	if len(opts) != 2 || attr(opts[0], "value") != "eu-west-1" || !stHas(opts[0], "selected") || stText(opts[1]) != "US East (Virginia)" {
		t.Errorf("select options: %d", len(opts))
	}
	// multi_select: a checkbox group in a fieldset with a legend, the same name repeated
	boxes := stFields(doc, "notify")
	if len(boxes) != 3 {
		t.Fatalf("%d notify boxes", len(boxes))
	}
	for i, b := range boxes {
		if attr(b, "type") != "checkbox" || attr(b, "form") != "decide" || stLabelFor(doc, attr(b, "id")) == "" {
			t.Errorf("box %d: type %q form %q", i, attr(b, "type"), attr(b, "form"))
		}
		if stHas(b, "checked") != (attr(b, "value") == "owners") {
			t.Errorf("box %s checked=%v", attr(b, "value"), stHas(b, "checked"))
		}
		if fs := b.Parent.Parent; fs.Data != "fieldset" || stText(stAll(fs, stTag("legend"))[0]) != "Notify" {
			t.Errorf("box %d is not in a fieldset with legend Notify", i)
		}
	}
	// radio: numeric option values say so for the page script, the default is checked, required on each
	radios := stFields(doc, "priority")
	if len(radios) != 3 {
		t.Fatalf("%d radios", len(radios))
	}
	for i, r := range radios {
		if attr(r, "type") != "radio" || attr(r, "data-kind") != "number" || !stHas(r, "required") {
			t.Errorf("radio %d: type %q data-kind %q required %v", i, attr(r, "type"), attr(r, "data-kind"), stHas(r, "required"))
		}
		if stHas(r, "checked") != (attr(r, "value") == "2") {
			t.Errorf("radio %s checked=%v", attr(r, "value"), stHas(r, "checked"))
		}
	}
	if l := stLabelFor(doc, attr(radios[2], "id")); l != "Urgent" {
		t.Errorf("radio label %q", l)
	}
	// checkbox: value "true", its own label
	cb := stFields(doc, "confirm")
	if len(cb) != 1 || attr(cb[0], "type") != "checkbox" || attr(cb[0], "value") != "true" || !stHas(cb[0], "required") || stHas(cb[0], "checked") {
		t.Errorf("checkbox: %v", cb)
	}
	if l := stLabelFor(doc, attr(cb[0], "id")); l != "I have read the runbook Required" {
		t.Errorf("checkbox label %q", l)
	}
}

func TestFormSubmitButtonOnlyWhenThePageTakesABareSubmit(t *testing.T) {
	form := `{"submit_label":"Send request","fields":[{"field_id":"a","type":"text"}]}`
	submits := func(doc *html.Node) []*html.Node {
		return stAll(doc, func(n *html.Node) bool { return n.Data == "button" && attr(n, "type") == "submit" })
	}
	// The page accepts a bare submit (action ""): the form has its own button.
	opt := testOptions()
	opt.Actions = map[string]bool{"": true, "approve": true}
	doc, out := stRender(t, "form", form, opt)
	b := submits(doc)
	if len(b) != 1 || stText(b[0]) != "Send request" || attr(b[0], "form") != "decide" || attr(b[0], "name") != "action" || !stHas(b[0], "value") || attr(b[0], "value") != "" {
		t.Errorf("submit button: %s", out)
	}
	// Default label.
	doc, _ = stRender(t, "form", `{"fields":[]}`, opt)
	if b := submits(doc); len(b) != 1 || stText(b[0]) != "Submit" {
		t.Errorf("default submit label")
	}
	// The page's action buttons submit it: no button, a hint.
	doc, out = stRender(t, "form", form, testOptions())
	if len(submits(doc)) != 0 || !strings.Contains(out, "Submitted with your decision below.") {
		t.Errorf("without the bare action: %s", out)
	}
	// Read-only page: fields disabled, no form attribute, no button, no hint.
	ro := testOptions()
	ro.FormID, ro.Actions = "", map[string]bool{"": true}
	doc, out = stRenderBlocks(t, stFixture(t, "form"), ro)
	if len(submits(doc)) != 0 || strings.Contains(out, "Submitted with") || !strings.Contains(out, "read-only") {
		t.Errorf("read-only form offers a submission")
	}
	for _, n := range stAll(doc, func(n *html.Node) bool { return strings.HasPrefix(attr(n, "name"), "form_data.") }) {
		if !stHas(n, "disabled") || stHas(n, "form") {
			t.Errorf("%s on a read-only page: disabled=%v form=%q", attr(n, "name"), stHas(n, "disabled"), attr(n, "form"))
		}
	}
}

func TestFormOddData(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"empty", `{}`},
		{"fields not a list", `{"fields":"x"}`},
		{"null fields", `{"fields":[null,1,"x",{}]}`},
		{"wrong member types", `{"fields":[{"field_id":7,"type":["x"],"label":{},"required":"yes","validation":"big","options":"x","max_length":"NaN"}]}`},
		{"huge numbers", `{"fields":[{"field_id":"n","type":"number","validation":{"min":-1e400,"max":1e400},"default_value":1e400,"max_length":1e400}]}`},
		{"min over max", `{"fields":[{"field_id":"n","type":"number","validation":{"min":10,"max":1}}]}`},
		{"options of odd values", `{"fields":[{"field_id":"s","type":"select","options":[null,{"value":{"a":1}},{"value":true,"label":"Yes"},{"label":"no value"}],"default_value":true}]}`},
		{"select without options", `{"fields":[{"field_id":"s","type":"radio"},{"field_id":"m","type":"multi_select","options":[]}]}`},
		{"unknown type", `{"fields":[{"field_id":"x","type":"colour","default_value":"#fff"}]}`},
		{"bad dates", `{"fields":[{"field_id":"d","type":"date","default_value":"yesterday"},{"field_id":"t","type":"datetime","default_value":42}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := stRender(t, "form", tc.data, testOptions())
			stNoFallback(t, doc)
			stSafe(t, doc)
		})
	}
	// A select's default that is an array names nothing; a multi_select's names each.
	doc, _ := stRender(t, "form", `{"fields":[{"field_id":"s","type":"select","options":[{"value":"a"},{"value":"b"}],"default_value":["a"]},
		{"field_id":"m","type":"multi_select","options":[{"value":1},{"value":2},{"value":3}],"default_value":[1,3]}]}`, testOptions())
	if n := stAll(doc, func(n *html.Node) bool { return stHas(n, "selected") }); len(n) != 0 {
		t.Errorf("a select default of an array selected %d options", len(n))
	}
	if n := stAll(doc, func(n *html.Node) bool { return stHas(n, "checked") }); len(n) != 2 {
		t.Errorf("multi_select default [1,3] checked %d boxes", len(n))
	}
	// A field without field_id cannot be submitted: no name, disabled.
	doc, _ = stRender(t, "form", `{"fields":[{"type":"text","label":"Orphan"}]}`, testOptions())
	in := stAll(doc, stClass("fm-input"))
	if len(in) != 1 || stHas(in[0], "name") || !stHas(in[0], "disabled") {
		t.Errorf("a field without field_id: %v", in)
	}
	// Repeated field_ids still get unique DOM ids.
	doc, _ = stRender(t, "form", `{"fields":[{"field_id":"a","type":"text"},{"field_id":"a","type":"text"},{"field_id":"a b","type":"text"}]}`, testOptions())
	seen := map[string]bool{}
	for _, n := range stAll(doc, func(n *html.Node) bool { return attr(n, "id") != "" }) {
		if seen[attr(n, "id")] {
			t.Errorf("duplicate id %s", attr(n, "id"))
		}
		seen[attr(n, "id")] = true
	}
	// A label falls back to the humanised field_id.
	doc, _ = stRender(t, "form", `{"fields":[{"field_id":"cost_centre","type":"text"}]}`, testOptions())
	if l := stLabelFor(doc, attr(stFields(doc, "cost_centre")[0], "id")); l != "Cost centre" {
		t.Errorf("label %q", l)
	}
}

func TestFormHugeListsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"fields":[`)
	for i := 0; i < maxItems+7; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"field_id":"f%d","type":"text"}`, i)
	}
	b.WriteString(`,{"field_id":"s","type":"select","options":[` + strings.TrimSuffix(strings.Repeat(`{"value":"v"},`, maxItems+3), ",") + `]}]}`)
	doc, out := stRender(t, "form", b.String(), testOptions())
	if n := len(stAll(doc, stClass("fm-field"))); n != maxItems {
		t.Errorf("%d fields drawn", n)
	}
	if !strings.Contains(out, "8 more fields not shown.") {
		t.Errorf("no note of the fields left out")
	}
	_, out = stRender(t, "form", `{"fields":[{"field_id":"s","type":"select","options":[`+strings.TrimSuffix(strings.Repeat(`{"value":"v"},`, maxItems+3), ",")+`]}]}`, testOptions())
	if !strings.Contains(out, "3 more options not shown.") {
		t.Errorf("no note of the options left out")
	}
}

func TestFormHostileInputIsInert(t *testing.T) {
	tmpl := `{"title":"t","submit_label":"s","fields":[
		{"field_id":"a","type":"text","label":"l","placeholder":"p","default_value":"d","validation":{"min":"1","max":"2"}},
		{"field_id":"b","type":"select","label":"l","options":[{"value":"v","label":"l"}],"default_value":"v"},
		{"field_id":"c","type":"radio","label":"l","options":[{"value":"v","label":"l"}]},
		{"field_id":"d","type":"multi_select","label":"l","options":[{"value":"v","label":"l"}]},
		{"field_id":"e","type":"textarea","label":"l","default_value":"d"},
		{"field_id":"f","type":"url","label":"l","default_value":"d"},
		{"field_id":"g","type":"file","label":"l"}]}`
	opt := testOptions()
	opt.Actions = map[string]bool{"": true}
	for _, p := range stHostile {
		data := stFill(t, tmpl, p)
		// keep the types, so every kind of input carries the payload
		for _, k := range []string{"text", "select", "radio", "multi_select", "textarea", "url", "file"} {
			data = strings.Replace(data, `"type":`+jsonString(p), `"type":"`+k+`"`, 1)
		}
		doc, out := stRender(t, "form", data, opt)
		stNoFallback(t, doc)
		stSafe(t, doc)
		if strings.Contains(out, "<script>window") {
			t.Errorf("payload survived unescaped")
		}
		if len(stAll(doc, stTag("select"))) != 1 || len(stAll(doc, stTag("textarea"))) != 1 || len(stAll(doc, stTag("fieldset"))) != 2 {
			t.Errorf("the payload did not reach every kind of input")
		}
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '<':
			b.WriteString(`\u003c`)
		case '>':
			b.WriteString(`\u003e`)
		case '&':
			b.WriteString(`\u0026`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ---- buttons ----

func TestButtons(t *testing.T) {
	data := `{"layout":"horizontal","items":[
		{"label":"Approve","action_id":"approve","style":"primary"},
		{"label":"Reject","action_id":"reject","style":"danger"},
		{"label":"Escalate","action_id":"escalate"},
		{"label":"Docs","url":"https://example.com/docs","style":"secondary"},
		{"label":"Local","url":"/v1/pages/p_1","style":"danger"},
		{"label":"Mail","url":"mailto:a@example.com"},
		{"label":"Shout","url":"HTTPS://EXAMPLE.COM"},
		{"label":"Evil","url":"javascript:alert(1)"},
		{"label":"Nothing"},
		{"action_id":"approve"}]}`
	doc, _ := stRender(t, "buttons", data, testOptions())
	stNoFallback(t, doc)
	stSafe(t, doc)
	items := stAll(doc, func(n *html.Node) bool { return hasClass(n, "bt") || hasClass(n, "bt-text") })
	if len(items) != 10 {
		t.Fatalf("%d items", len(items))
	}
	type want struct {
		tag, text, class string
		attrs            map[string]string
		absent           []string
	}
	for i, w := range []want{
		{"button", "Approve", "bt-primary", map[string]string{"type": "submit", "form": "decide", "name": "action", "value": "approve"}, []string{"disabled", "data-danger"}},
		{"button", "Reject", "bt-danger", map[string]string{"type": "submit", "value": "reject", "data-danger": ""}, []string{"disabled"}},
		{"button", "Escalate (not available)", "bt-secondary", map[string]string{"type": "button", "disabled": ""}, []string{"form", "name"}},
		{"a", "Docs (opens in a new tab)", "bt-secondary", map[string]string{"href": "https://example.com/docs", "rel": "noopener noreferrer", "target": "_blank"}, nil},
		{"a", "Local", "bt-danger", map[string]string{"href": "/v1/pages/p_1", "rel": "noopener noreferrer"}, []string{"target"}},
		{"a", "Mail", "bt-secondary", map[string]string{"href": "mailto:a@example.com"}, []string{"target"}},
		{"a", "Shout (opens in a new tab)", "bt-secondary", map[string]string{"target": "_blank"}, nil},
		{"span", "Evil", "bt-text", nil, []string{"href"}},
		{"button", "Nothing (not available)", "bt-secondary", map[string]string{"disabled": ""}, nil},
		{"button", "Approve", "bt-secondary", map[string]string{"type": "submit", "value": "approve"}, nil},
	} {
		n := items[i]
		if n.Data != w.tag || stText(n) != w.text || !hasClass(n, w.class) {
			t.Errorf("item %d: <%s class=%q> %q, want <%s .%s> %q", i, n.Data, attr(n, "class"), stText(n), w.tag, w.class, w.text)
		}
		for k, v := range w.attrs {
			if !stHas(n, k) || v != "" && attr(n, k) != v {
				t.Errorf("item %d: %s=%q, want %q", i, k, attr(n, k), v)
			}
		}
		for _, k := range w.absent {
			if stHas(n, k) {
				t.Errorf("item %d has %s", i, k)
			}
		}
	}
	// Vertical layout.
	doc, _ = stRender(t, "buttons", `{"layout":"vertical","items":[{"label":"a","url":"/x"}]}`, testOptions())
	if len(stAll(doc, stClass("bts-v"))) != 1 {
		t.Errorf("vertical layout not marked")
	}
}

func TestButtonsOnAReadOnlyPageAreDisabled(t *testing.T) {
	ro := testOptions()
	ro.FormID = ""
	doc, _ := stRender(t, "buttons", `{"items":[{"label":"Approve","action_id":"approve"},{"label":"Docs","url":"https://example.com"}]}`, ro)
	b := stAll(doc, stClass("bt"))
	b = b[:len(b)-1] // the link comes last
	if len(b) != 1 || b[0].Data != "button" || !stHas(b[0], "disabled") || attr(b[0], "type") != "button" || !strings.Contains(stText(b[0]), "takes no input now") {
		t.Errorf("action on a read-only page: %v", stText(b[0]))
	}
	if a := stAll(doc, func(n *html.Node) bool { return n.Data == "a" && !hasClass(n, "blk-comment") }); len(a) != 1 || !hasClass(a[0], "bt") {
		t.Errorf("links stay links on a read-only page")
	}
}

func TestButtonsOddAndHostileData(t *testing.T) {
	for _, data := range []string{`{}`, `{"items":null}`, `{"items":[null,1,{"label":{},"url":5,"action_id":[1],"style":7}]}`, `{"layout":3,"items":"x"}`} {
		doc, _ := stRender(t, "buttons", data, testOptions())
		stNoFallback(t, doc)
	}
	for _, p := range stHostile {
		opt := testOptions()
		opt.Actions = map[string]bool{p: true}
		doc, out := stRender(t, "buttons", stFill(t, `{"title":"t","layout":"l","items":[{"label":"l","url":"u","style":"s"},{"label":"l","action_id":"a","style":"s"}]}`, p), opt)
		stNoFallback(t, doc)
		stSafe(t, doc)
		if strings.Contains(out, "<script>window") {
			t.Errorf("payload survived unescaped")
		}
	}
	many := `{"items":[` + strings.TrimSuffix(strings.Repeat(`{"label":"x","url":"/x"},`, maxItems+4), ",") + `]}`
	_, out := stRender(t, "buttons", many, testOptions())
	if !strings.Contains(out, "4 more buttons not shown.") {
		t.Errorf("no note of the buttons left out")
	}
}
