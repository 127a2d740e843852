package node_test

import (
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

// TestDeeplyNestedJSONIsRefusedWhereItEnters: JSON nested deeper than 64 levels is
// a 400 naming where, whatever carries it (block data, form data, template
// variables, an A2UI payload), before anything decodes, stores or renders it. The
// 60 KB, 10,000-level page that once made one anonymous view cost 4 GiB is never
// stored.
func TestDeeplyNestedJSONIsRefusedWhereItEnters(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("deep")
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	id := e.Publish(key, map[string]any{"blocks": []any{map[string]any{"type": "form", "data": map[string]any{"fields": []any{
		map[string]any{"field_id": "a", "type": "text"}}}}}})
	for _, c := range []struct {
		method, path, body, field string
	}{
		{"POST", "/v1/publish", `{"title":"t","blocks":[{"type":"future","data":{"x":` + deep + `}}]}`, "blocks[0].data.x[0]"},
		{"POST", "/v1/pages", `{"title":"t","blocks":[{"type":"text","data":{"content":"a","more":` + deep + `}}]}`, "blocks[0].data.more[0]"},
		{"PATCH", "/v1/pages/" + id + "/blocks", `{"blocks":[{"type":"tree","data":{"nodes":` + deep + `}}]}`, "blocks[0].data.nodes[0]"},
		{"POST", "/v1/pages/" + id + "/actions/approve", `{"form_data":{"a":` + deep + `}}`, "form_data.a[0]"},
		{"POST", "/v1/publish/template/approval", `{"variables":{"title":` + deep + `}}`, "variables.title[0]"},
		{"POST", "/v1/publish/a2ui", deep, "[0]"},
	} {
		r := e.Do(c.method, c.path, key, c.body)
		d := r.ErrDetails(t)
		if r.Status != 400 || d["constraint"] != "max_depth" || d["limit"] != 64.0 || !strings.HasPrefix(d["field"].(string), c.field) {
			t.Errorf("%s %s: %d %s, want 400 max_depth naming %s", c.method, c.path, r.Status, clip(r.Body), c.field)
		}
	}
	at64 := strings.Repeat(`{"a":`, 61) + `1` + strings.Repeat(`}`, 61) // with the body, blocks and block: 64 levels
	e.Must(201, "POST", "/v1/publish", key, `{"title":"t","blocks":[{"type":"future","data":`+at64+`}]}`)
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
