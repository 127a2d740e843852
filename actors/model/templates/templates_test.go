package templates

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"folio/actors/model/blocks"
	"folio/actors/model/fault"
)

// full sets every variable of every template.
var full = map[string]string{
	"approval": `{"title": "Grant Ana access to billing?", "description": "Ana joins finance.\n\nShe needs read access.",
		"details": {"Account": "acme", "Seats": 12, "Trial": false}, "requested_by": "ops-bot",
		"due_at": "2030-05-01T14:30:00+02:00", "approve_label": "Grant", "reject_label": "Deny", "priority": "high"}`,
	"deploy_review": `{"service": "checkout", "version": "v2.4.1", "environment": "production",
		"changes": ["Faster cart", "Fix VAT rounding"], "risk": "medium", "requested_by": "deploy-bot",
		"tests_passed": 1204, "tests_failed": 0, "coverage": 87.5, "diff": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b",
		"rollback_plan": "Redeploy v2.4.0.", "commit_url": "https://git.example.com/c/abc", "pipeline_url": "https://ci.example.com/r/1"}`,
	"incident_report": `{"title": "Checkout errors", "severity": "sev2", "summary": "5% of checkouts fail.",
		"started_at": "2025-05-01T10:00:00Z", "status": "resolved", "resolved_at": "2025-05-01T11:30:00Z",
		"impact": "EU customers", "affected_services": ["checkout", "payments"], "root_cause": "A bad config push.",
		"owner": "Ana", "owner_email": "ana@example.com", "dashboard_url": "https://grafana.example.com/d/1",
		"runbook_url": "https://wiki.example.com/runbook"}`,
	"data_review": `{"title": "Q2 refunds", "rows": [{"order": "A-1", "amount": 12.5, "ok": true}, {"order": "A-2", "amount": 3, "note": null}],
		"description": "Sample of refunds.", "source": "warehouse.refunds", "record_count": 1200, "query": "select * from refunds"}`,
	"expense_approval": `{"employee": "Jane Doe", "amount": 1234.5, "currency": "EUR", "category": "travel",
		"description": "Flight to Lisbon", "merchant": "TAP", "expense_date": "2025-04-30", "cost_center": "CC-42",
		"receipt_url": "https://files.example.com/r.pdf", "policy_compliant": false}`,
}

// minimal sets only the required variables.
var minimal = map[string]string{
	"approval":         `{"title": "Ship it?"}`,
	"deploy_review":    `{"service": "api", "version": "1.0.0", "environment": "staging"}`,
	"incident_report":  `{"title": "Outage", "severity": "sev1", "summary": "Down.", "started_at": "2025-05-01T10:00:00Z"}`,
	"data_review":      `{"title": "Rows", "rows": [{"a": 1}]}`,
	"expense_approval": `{"employee": "Jo", "amount": 10}`,
}

func TestCatalog(t *testing.T) {
	for _, want := range []string{"approval", "deploy_review", "incident_report", "data_review", "expense_approval"} {
		if _, ok := Lookup(want); !ok {
			t.Errorf("template %s is missing", want)
		}
	}
	if !slices.IsSorted(Names()) {
		t.Errorf("names are not sorted: %v", Names())
	}
	for _, tp := range All() {
		if tp.Description == "" || len(tp.Variables) == 0 {
			t.Errorf("%s: description or variables missing", tp.Name)
		}
		seen := map[string]bool{}
		for _, v := range tp.Variables {
			if v.Key == "" || v.Label == "" || !slices.Contains(Types, v.Type) || seen[v.Key] {
				t.Errorf("%s.%s: bad variable %+v", tp.Name, v.Key, v)
			}
			seen[v.Key] = true
			if (v.Type == tEnum) != (len(v.Options) > 0) {
				t.Errorf("%s.%s: options only and always on enums", tp.Name, v.Key)
			}
			if v.Default != nil {
				raw, _ := json.Marshal(v.Default)
				if _, err := tp.check(v, raw); err != nil || v.Required {
					t.Errorf("%s.%s: default %v does not fit (or the variable is required): %v", tp.Name, v.Key, v.Default, err)
				}
			}
		}
	}
	if _, ok := Lookup("Approval"); ok {
		t.Error("names are exact")
	}
}

// Every template renders, with all variables and with only the required ones, into
// a page the block catalog accepts without a single warning.
func TestEveryTemplateRenders(t *testing.T) {
	for _, tp := range All() {
		for set, vars := range map[string]map[string]string{"full": full, "minimal": minimal} {
			raw, ok := vars[tp.Name]
			if !ok {
				t.Fatalf("no %s variables for %s", set, tp.Name)
			}
			p, warnings, err := tp.Render(json.RawMessage(raw))
			if err != nil {
				t.Fatalf("%s/%s: %v", tp.Name, set, err)
			}
			if len(warnings) != 0 {
				t.Errorf("%s/%s: warnings %q", tp.Name, set, warnings)
			}
			if p.Title == "" || p.PageType == "" || (set == "full" && len(p.Blocks) == 0) || len(p.Actions) != 2 {
				t.Errorf("%s/%s: incomplete page %+v", tp.Name, set, p)
			}
			if p.Priority != "" && !slices.Contains(priorities, p.Priority) {
				t.Errorf("%s/%s: priority %q", tp.Name, set, p.Priority)
			}
			for _, a := range p.Actions {
				if a.ActionID == "" || a.Label == "" || a.Style == "" {
					t.Errorf("%s/%s: action %+v", tp.Name, set, a)
				}
			}
			if _, w := blocks.Prepare("blocks", p.Blocks); len(w) != 0 {
				t.Errorf("%s/%s: the catalog warns: %q", tp.Name, set, w)
			}
		}
	}
}

func TestRenderedContent(t *testing.T) {
	p := render(t, "expense_approval", full["expense_approval"])
	if p.Title != "Approve 1,234.50 EUR expense for Jane Doe?" {
		t.Errorf("title = %q", p.Title)
	}
	if d := data(t, p.Blocks[0]); d["value"] != "1,234.50 EUR" || d["description"] != "Travel" {
		t.Errorf("metric = %v", d)
	}
	p = render(t, "expense_approval", minimal["expense_approval"])
	if p.Title != "Approve 10.00 USD expense for Jo?" {
		t.Errorf("defaults: title = %q", p.Title)
	}
	p = render(t, "deploy_review", full["deploy_review"])
	if p.Title != "Deploy checkout v2.4.1 to production?" || p.Priority != "high" {
		t.Errorf("deploy: %q %q", p.Title, p.Priority)
	}
	p = render(t, "data_review", full["data_review"])
	var table map[string]any
	for _, b := range p.Blocks {
		if b.Type == "table" {
			table = data(t, b)
		}
	}
	cols, _ := json.Marshal(table["columns"])
	if string(cols) != `[{"key":"order","label":"order"},{"key":"amount","label":"amount"},{"key":"ok","label":"ok"},{"key":"note","label":"note"}]` {
		t.Errorf("columns (first-seen order) = %s", cols)
	}
	p = render(t, "approval", `{"title": "`+strings.Repeat("x", 300)+`"}`)
	if n := len([]rune(p.Title)); n != 200 {
		t.Errorf("a long title is clipped to 200, got %d", n)
	}
	for _, in := range []string{`null`, ``, `{}`} {
		tp, _ := Lookup("approval")
		if _, _, err := tp.Render(json.RawMessage(in)); fieldOf(err) != "variables.title" {
			t.Errorf("variables %q: err = %v", in, err)
		}
	}
}

func TestMissingRequiredVariables(t *testing.T) {
	for _, tp := range All() {
		for _, v := range tp.Variables {
			if !v.Required {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(minimal[tp.Name]), &m); err != nil {
				t.Fatal(err)
			}
			for _, absent := range []any{"delete", nil, "", []any{}} {
				if absent == "delete" {
					delete(m, v.Key)
				} else {
					m[v.Key] = absent
				}
				raw, _ := json.Marshal(m)
				_, _, err := tp.Render(raw)
				if fieldOf(err) != "variables."+v.Key || constraintOf(err) != "required" && constraintOf(err) != "type" {
					t.Errorf("%s without %s (%v): err = %v", tp.Name, v.Key, absent, err)
				}
			}
		}
	}
}

func TestMistypedVariables(t *testing.T) {
	cases := []struct {
		template, key, value, field, constraint string
	}{
		{"expense_approval", "amount", `"12.50"`, "variables.amount", "type"},
		{"expense_approval", "amount", `true`, "variables.amount", "type"},
		{"expense_approval", "policy_compliant", `"yes"`, "variables.policy_compliant", "type"},
		{"expense_approval", "expense_date", `"30/04/2025"`, "variables.expense_date", "format"},
		{"expense_approval", "receipt_url", `"javascript:alert(1)"`, "variables.receipt_url", "format"},
		{"expense_approval", "receipt_url", `"/relative"`, "variables.receipt_url", "format"},
		{"expense_approval", "category", `"yachts"`, "variables.category", "enum"},
		{"expense_approval", "employee", `42`, "variables.employee", "type"},
		{"expense_approval", "employee", `"` + strings.Repeat("a", 501) + `"`, "variables.employee", "max_length"},
		{"deploy_review", "tests_passed", `12.5`, "variables.tests_passed", "type"},
		{"deploy_review", "changes", `"one change"`, "variables.changes", "type"},
		{"deploy_review", "changes", `["ok", 3]`, "variables.changes", "type"},
		{"deploy_review", "environment", `"prod"`, "variables.environment", "enum"},
		{"incident_report", "started_at", `"2025-05-01 10:00"`, "variables.started_at", "format"},
		{"incident_report", "owner_email", `"Ana <ana@example.com>"`, "variables.owner_email", "format"},
		{"approval", "details", `["a"]`, "variables.details", "type"},
		{"approval", "details", `{"nested": {"x": 1}}`, "variables.details.nested", "type"},
		{"data_review", "rows", `{"a": 1}`, "variables.rows", "type"},
		{"data_review", "rows", `[{"a": [1]}]`, "variables.rows[0].a", "type"},
		{"data_review", "rows", `[{"a": 1}, 2]`, "variables.rows", "type"},
	}
	for _, c := range cases {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(full[c.template]), &m); err != nil {
			t.Fatal(err)
		}
		m[c.key] = json.RawMessage(c.value)
		raw, _ := json.Marshal(m)
		tp, _ := Lookup(c.template)
		_, _, err := tp.Render(raw)
		if fieldOf(err) != c.field || constraintOf(err) != c.constraint {
			t.Errorf("%s.%s = %s: err = %v (details %v), want %s/%s", c.template, c.key, c.value, err, detailsOf(err), c.field, c.constraint)
		}
	}
	tp, _ := Lookup("approval")
	if _, _, err := tp.Render(json.RawMessage(`["title"]`)); fieldOf(err) != "variables" {
		t.Errorf("variables as an array: %v", err)
	}
}

func TestUnknownVariablesWarn(t *testing.T) {
	tp, _ := Lookup("incident_report")
	var m map[string]any
	_ = json.Unmarshal([]byte(minimal["incident_report"]), &m)
	m["sevrity"], m["zzz_other"] = "sev1", 1
	raw, _ := json.Marshal(m)
	_, w, err := tp.Render(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 2 || !strings.Contains(w[0], `variables.sevrity`) || !strings.Contains(w[0], `did you mean "severity"?`) ||
		strings.Contains(w[1], "did you mean") {
		t.Errorf("warnings = %q", w)
	}
}

// Markup and JSON in a variable stay text: the block structure does not change and
// every Markdown field shows the variable exactly as sent.
func TestMarkupInVariablesStaysText(t *testing.T) {
	hostile := "**bold** _em_ [click](javascript:alert(1)) ![x](http://e/x.png) <script>alert(1)</script> `code` # head\n" +
		"1. item\n- item\n> quote\n| a | b |\n===\n&amp; \\*x\\* ~~s~~ \"}]},{\"type\":\"html\",\"data\":{\"x\":\"<b>\"}}"
	for _, tp := range All() {
		var base map[string]any
		_ = json.Unmarshal([]byte(full[tp.Name]), &base)
		clean, _, err := tp.Render(mustJSON(t, base))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range tp.Variables {
			if v.Type != TString && v.Type != TText && v.Type != tList {
				continue
			}
			m := map[string]any{}
			for k, x := range base {
				m[k] = x
			}
			if v.Type == tList {
				m[v.Key] = []string{hostile}
			} else {
				m[v.Key] = hostile
			}
			p, _, err := tp.Render(mustJSON(t, m))
			if err != nil {
				t.Fatalf("%s.%s: %v", tp.Name, v.Key, err)
			}
			if len(p.Blocks) != len(clean.Blocks) || len(p.Actions) != len(clean.Actions) {
				t.Errorf("%s.%s: the variable changed the page's structure", tp.Name, v.Key)
			}
			want := strings.Join(strings.Fields(hostile), " ") // a one-line string
			if v.Type == TText {
				want = hostile
			}
			found := strings.Contains(p.Title+p.Summary, want)
			for _, a := range p.Actions {
				found = found || a.Label == want
			}
			for i, b := range p.Blocks {
				if b.Type != clean.Blocks[i].Type {
					t.Errorf("%s.%s: block %d is %s, was %s", tp.Name, v.Key, i, b.Type, clean.Blocks[i].Type)
				}
				d := data(t, b)
				if s, _ := d["content"].(string); b.Type != "code" && s != "" {
					// A Markdown field: the variable only ever appears escaped.
					if strings.Contains(s, "<script>") || strings.Contains(s, "[click]") {
						t.Errorf("%s.%s: Markdown field of a %s block holds the variable unescaped: %q", tp.Name, v.Key, b.Type, s)
					}
					found = found || strings.Contains(s, md(want))
					delete(d, "content")
				}
				walkStrings(d, func(s string) { found = found || strings.Contains(s, want) })
			}
			if !found && !strings.Contains(p.Title+p.Summary, want) {
				t.Errorf("%s.%s: the variable's text is not on the page", tp.Name, v.Key)
			}
		}
	}
}

func TestMarkdownEscapeLeavesNothingActive(t *testing.T) {
	for _, s := range []string{"**b**", "a\\*b", "x\n- y", "<a href=x>", "1) one", "\\", "`` ` ``", "a  \n===", "a|b\n-|-"} {
		out := md(s)
		if u := unescapedSpecial(out, false); u != "" {
			t.Errorf("md(%q) = %q leaves %q unescaped", s, out, u)
		}
		if back := unescapeMarkdown(out); strings.ReplaceAll(back, " ", "") != strings.ReplaceAll(s, " ", "") {
			t.Errorf("md(%q) = %q reads back as %q", s, out, back)
		}
	}
}

func TestMarkdownEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain words":       "plain words",
		"**b** [l](u)":      `\*\*b\*\* \[l\]\(u\)`,
		"<b>&amp;":          `\<b\>\&amp;`,
		"# h\n1. x":         "\\# h\\\n1\\. x",
		"a\n\nb":            "a\n\nb",
		"    indented code": "indented code",
		`back\slash`:        `back\\slash`,
		"ünïcödé ✓":         "ünïcödé ✓",
		"a\r\nb":            "a\\\nb",
	} {
		if got := md(in); got != want {
			t.Errorf("md(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNotFoundListsNames(t *testing.T) {
	e := NotFound("nope")
	if e.Code != fault.NotFound || !slices.Equal(e.Details["available"].([]string), Names()) {
		t.Errorf("NotFound = %+v", e)
	}
}

func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case map[string]any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	}
}

// unescapedSpecial returns the first Markdown special character of s that is not
// backslash-escaped. list allows the "- " bullets the template itself writes.
func unescapedSpecial(s string, list bool) string {
	for _, line := range strings.Split(s, "\n") {
		if list {
			line = strings.TrimPrefix(line, "- ")
		}
		line = strings.TrimSuffix(line, `\`) // a hard line break
		esc := false
		for _, r := range line {
			switch {
			case esc:
				esc = false
			case r == '\\':
				esc = true
			case r < 128 && strings.ContainsRune(markdownSpecial, r):
				return string(r)
			}
		}
	}
	return ""
}

// unescapeMarkdown undoes md (escapes and hard breaks).
func unescapeMarkdown(s string) string {
	s = strings.ReplaceAll(s, "\\\n", "\n")
	var b strings.Builder
	esc := false
	for _, r := range s {
		if !esc && r == '\\' {
			esc = true
			continue
		}
		esc = false
		b.WriteRune(r)
	}
	return b.String()
}

func render(t *testing.T, name, vars string) Page {
	t.Helper()
	tp, ok := Lookup(name)
	if !ok {
		t.Fatalf("no template %s", name)
	}
	p, _, err := tp.Render(json.RawMessage(vars))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

func data(t *testing.T, b blocks.Block) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b.Data, &m); err != nil {
		t.Fatalf("block data: %v", err)
	}
	return m
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func detailsOf(err error) map[string]any {
	var fe *fault.Error
	if errors.As(err, &fe) {
		return fe.Details
	}
	return nil
}

func fieldOf(err error) string      { s, _ := detailsOf(err)["field"].(string); return s }
func constraintOf(err error) string { s, _ := detailsOf(err)["constraint"].(string); return s }
