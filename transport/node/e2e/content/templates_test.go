package content_test

import (
	"slices"
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

func TestListTemplates(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("template-agent")
	m := e.Must(200, "GET", "/v1/templates", key, nil)
	var names []string
	for _, x := range m["templates"].([]any) {
		tp := x.(map[string]any)
		names = append(names, tp["name"].(string))
		if tp["description"] == "" || len(tp["variables"].([]any)) == 0 {
			t.Errorf("template %v lacks a description or variables", tp["name"])
		}
		for _, v := range tp["variables"].([]any) {
			v := v.(map[string]any)
			if _, ok := v["required"].(bool); !ok || v["key"] == "" || v["label"] == "" || v["type"] == "" {
				t.Errorf("variable %v of %v is not {key, label, required, type}", v, tp["name"])
			}
		}
	}
	for _, want := range []string{"approval", "deploy_review", "incident_report", "data_review", "expense_approval"} {
		if !slices.Contains(names, want) {
			t.Errorf("templates %v lack %s", names, want)
		}
	}
	if r := e.Do("GET", "/v1/templates", "", nil); r.Status != 401 {
		t.Errorf("no key: %d", r.Status)
	}
}

func TestPublishTemplate(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("template-agent")
	m := e.Must(201, "POST", "/v1/publish/template/expense_approval", key, map[string]any{
		"variables": map[string]any{"employee": "Jane Doe", "amount": 1234.5, "currency": "EUR", "category": "travel",
			"description": "Flight to **Lisbon** <script>alert(1)</script>", "receipt_url": "https://files.example.com/r.pdf",
			"typo_key": 1},
		"expires_at": "2099-01-01T00:00:00Z",
	})
	id := wantPublished(t, m)
	if w := warnings(m); len(w) != 1 || !strings.Contains(w[0], "variables.typo_key") {
		t.Errorf("warnings = %q", w)
	}
	if !strings.HasPrefix(m["expiresAt"].(string), "2099-01-01") {
		t.Errorf("expires_at beside the variables is applied: %v", m["expiresAt"])
	}
	p := getPage(t, e, key, id)
	if p["title"] != "Approve 1,234.50 EUR expense for Jane Doe?" || p["page_type"] != "expense_approval" {
		t.Errorf("page = %v %v", p["title"], p["page_type"])
	}
	if !equal(actionIDs(p), []string{"approve", "reject"}) {
		t.Errorf("actions = %v", actionIDs(p))
	}
	// The description is text: escaped where it lands in Markdown.
	found := false
	for i := range p["blocks"].([]any) {
		if c, _ := blockData(p, i)["content"].(string); strings.Contains(c, "Lisbon") {
			found = true
			if strings.Contains(c, "**Lisbon**") || strings.Contains(c, "<script>") || !strings.Contains(c, `\*\*Lisbon\*\*`) {
				t.Errorf("markup from a variable is not escaped: %q", c)
			}
		}
	}
	if !found {
		t.Error("the description is not on the page")
	}
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)

	// Every built-in template publishes with its required variables only.
	for name, vars := range map[string]map[string]any{
		"approval":         {"title": "Ship it?"},
		"deploy_review":    {"service": "api", "version": "1.0.0", "environment": "production"},
		"incident_report":  {"title": "Outage", "severity": "sev1", "summary": "Down.", "started_at": "2025-05-01T10:00:00Z"},
		"data_review":      {"title": "Rows", "rows": []any{map[string]any{"a": 1, "b": "x"}}},
		"expense_approval": {"employee": "Jo", "amount": 10},
	} {
		m := e.Must(201, "POST", "/v1/publish/template/"+name, key, map[string]any{"variables": vars})
		if w := warnings(m); len(w) != 0 {
			t.Errorf("%s: warnings %q", name, w)
		}
		if p := getPage(t, e, key, wantPublished(t, m)); p["status"] != "active" || len(p["actions"].([]any)) != 2 {
			t.Errorf("%s: page = %v", name, p)
		}
	}
}

func TestPublishTemplateErrors(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("template-agent")
	r := e.Do("POST", "/v1/publish/template/nope", key, map[string]any{"variables": map[string]any{}})
	if r.Status != 404 || r.ErrCode(t) != "NOT_FOUND" {
		t.Fatalf("unknown template: %d %s", r.Status, r.Body)
	}
	avail, _ := r.ErrDetails(t)["available"].([]any)
	if len(avail) < 5 || !strings.Contains(string(r.Body), "deploy_review") {
		t.Errorf("the 404 lists the templates: %s", r.Body)
	}
	for _, c := range []struct {
		name  string
		body  any
		field string
		cons  string
	}{
		{"expense_approval", map[string]any{"variables": map[string]any{"employee": "Jo"}}, "variables.amount", "required"},
		{"expense_approval", map[string]any{"variables": map[string]any{"employee": "Jo", "amount": "10"}}, "variables.amount", "type"},
		{"expense_approval", nil, "variables.employee", "required"},
		{"deploy_review", map[string]any{"variables": map[string]any{"service": "a", "version": "1", "environment": "moon"}}, "variables.environment", "enum"},
		{"incident_report", map[string]any{"variables": map[string]any{"title": "x", "severity": "sev1", "summary": "s", "started_at": "yesterday"}}, "variables.started_at", "format"},
		{"approval", map[string]any{"variables": []any{"title"}}, "variables", "type"},
		{"approval", map[string]any{"variables": map[string]any{"title": "x"}, "priority": "asap"}, "priority", "enum"},
	} {
		r := e.Do("POST", "/v1/publish/template/"+c.name, key, c.body)
		d := r.ErrDetails(t)
		if r.Status != 400 || d["field"] != c.field || d["constraint"] != c.cons {
			t.Errorf("%s %v: %d %s, want 400 %s/%s", c.name, c.body, r.Status, r.Body, c.field, c.cons)
		}
	}
	if n := len(e.Must(200, "GET", "/v1/pages", key, nil)["pages"].([]any)); n != 0 {
		t.Errorf("refused publishes created %d pages", n)
	}
}
