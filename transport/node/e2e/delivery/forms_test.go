package delivery_test

import (
	"encoding/json"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

var formBlock = map[string]any{"type": "form", "data": map[string]any{"title": "Change request", "fields": []any{
	map[string]any{"field_id": "reason", "type": "text", "label": "Reason", "required": true, "max_length": 20},
	map[string]any{"field_id": "notes", "type": "textarea"},
	map[string]any{"field_id": "replicas", "type": "number", "validation": map[string]any{"min": 1, "max": 10}},
	map[string]any{"field_id": "date", "type": "date"},
	map[string]any{"field_id": "window", "type": "datetime"},
	map[string]any{"field_id": "owner", "type": "email"},
	map[string]any{"field_id": "ticket", "type": "url"},
	map[string]any{"field_id": "agree", "type": "checkbox", "required": true},
	map[string]any{"field_id": "env", "type": "select", "options": []any{map[string]any{"value": "staging"}, map[string]any{"value": "prod"}}},
	map[string]any{"field_id": "regions", "type": "multi_select", "options": []any{map[string]any{"value": "eu"}, map[string]any{"value": "us"}}},
	map[string]any{"field_id": "tier", "type": "radio", "options": []any{map[string]any{"value": 1}, map[string]any{"value": 2}}},
}}}

// nested puts the form inside a layout, to check nested forms are found.
var nestedForm = map[string]any{"type": "layout", "data": map[string]any{"columns": []any{
	map[string]any{"width": "1/2", "blocks": []any{formBlock}},
}}}

func TestFormValidationTable(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("forms")
	rv := newReceiver(t, nil)
	id := publish(e, key, map[string]any{"page_type": "form", "blocks": []any{nestedForm},
		"on_action": map[string]any{"default_url": rv.URL()},
		"actions":   []any{map[string]any{"action_id": "submit", "label": "Submit"}}})["pageId"].(string)
	valid := func() map[string]any {
		return map[string]any{"reason": "scale up", "agree": true}
	}
	cases := []struct {
		name       string
		set        map[string]any
		drop       string
		field      string
		constraint string
	}{
		{"required missing", nil, "reason", "form_data.reason", "required"},
		{"required empty", map[string]any{"reason": "  "}, "", "form_data.reason", "required"},
		{"text type", map[string]any{"reason": 5}, "", "form_data.reason", "type"},
		{"max_length", map[string]any{"reason": "this reason is far too long"}, "", "form_data.reason", "max_length"},
		{"number type", map[string]any{"replicas": "3"}, "", "form_data.replicas", "type"},
		{"number below min", map[string]any{"replicas": 0}, "", "form_data.replicas", "min"},
		{"number above max", map[string]any{"replicas": 11}, "", "form_data.replicas", "max"},
		{"date", map[string]any{"date": "2026-13-01"}, "", "form_data.date", "date"},
		{"datetime", map[string]any{"window": "tomorrow"}, "", "form_data.window", "datetime"},
		{"email", map[string]any{"owner": "not-an-address"}, "", "form_data.owner", "email"},
		{"url", map[string]any{"ticket": "javascript:alert(1)"}, "", "form_data.ticket", "url"},
		{"checkbox type", map[string]any{"agree": "yes"}, "", "form_data.agree", "type"},
		{"required checkbox unchecked", map[string]any{"agree": false}, "", "form_data.agree", "required"},
		{"select option", map[string]any{"env": "dev"}, "", "form_data.env", "enum"},
		{"multi_select option", map[string]any{"regions": []any{"eu", "apac"}}, "", "form_data.regions", "enum"},
		{"multi_select type", map[string]any{"regions": "eu"}, "", "form_data.regions", "type"},
		{"multi_select duplicate", map[string]any{"regions": []any{"eu", "eu"}}, "", "form_data.regions", "unique"},
		{"radio option", map[string]any{"tier": 3}, "", "form_data.tier", "enum"},
		{"unknown field", map[string]any{"colour": "red"}, "", "form_data.colour", "unknown_field"},
	}
	for _, c := range cases {
		fd := valid()
		for k, v := range c.set {
			fd[k] = v
		}
		delete(fd, c.drop)
		r := e.Do("POST", "/v1/pages/"+id+"/actions/submit", key, map[string]any{"form_data": fd})
		d := r.ErrDetails(t)
		if r.Status != 400 || r.ErrCode(t) != "INVALID_REQUEST" || d["field"] != c.field || d["constraint"] != c.constraint {
			t.Errorf("%s: %d %s, want 400 naming %s (%s)", c.name, r.Status, r.Body, c.field, c.constraint)
		}
	}
	// Nothing was recorded by the failures.
	pg := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	if pg["status"] != "active" || pg["stats"].(map[string]any)["action_count"] != 0.0 {
		t.Fatalf("failed submissions changed the page: %v %v", pg["status"], pg["stats"])
	}
	if n := len(e.Must(200, "GET", "/v1/pages/"+id+"/audit", key, nil)["items"].([]any)); n != 2 {
		t.Errorf("audit has %d entries after failed submissions, want 2 (created, published)", n)
	}

	fd := map[string]any{"reason": "scale up", "notes": "", "replicas": 3, "date": "2026-05-01", "window": "2026-05-01T14:30",
		"owner": "ops@example.com", "ticket": "https://tracker.example.com/T-1", "agree": true, "env": "prod",
		"regions": []any{"eu", "us"}, "tier": 2}
	r := e.Do("POST", "/v1/pages/"+id+"/actions/submit", key, map[string]any{"form_data": fd, "actor": map[string]any{"identity": "ops@example.com"}})
	if r.Status != 200 {
		t.Fatalf("valid submission: %d %s", r.Status, r.Body)
	}
	sent, _ := json.Marshal(fd)
	fs := rv.waitEvents("form.submitted", 1, 5*time.Second)[0].json(t)
	got, _ := json.Marshal(fs["data"].(map[string]any)["form_data"])
	if string(got) != string(sent) || fs["actor"].(map[string]any)["identity"] != "ops@example.com" || len(fs["data"].(map[string]any)) != 1 {
		t.Errorf("form.submitted = %v", fs)
	}
	ex := rv.waitEvents("action.executed", 1, 5*time.Second)[0].json(t)
	got, _ = json.Marshal(ex["data"].(map[string]any)["form_data"])
	if string(got) != string(sent) {
		t.Errorf("action.executed form_data = %s, want %s", got, sent)
	}

	// form_data on a page without form blocks is kept as sent (no form.submitted).
	id2 := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": rv.URL()}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id2+"/actions/approve", key, map[string]any{"form_data": map[string]any{"anything": 1}})
	h := rv.waitEvents("action.executed", 2, 5*time.Second)[1].json(t)
	if h["data"].(map[string]any)["form_data"].(map[string]any)["anything"] != 1.0 {
		t.Errorf("free form_data = %v", h["data"])
	}
	time.Sleep(50 * time.Millisecond)
	if n := len(rv.events("form.submitted")); n != 1 {
		t.Errorf("form.submitted sent %d times, want 1", n)
	}
}
