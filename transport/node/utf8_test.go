package node_test

import (
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

// TestInvalidUTF8IsRefusedWhereItEnters: a string that is not valid UTF-8 anywhere
// in a JSON body (block data, a title, a comment, form data, template variables,
// A2UI and AG-UI payloads, even a member name) is a 400 INVALID_REQUEST (the specification's validation error) naming the
// field with constraint "utf8", on every write; nothing of it is stored, so the page
// is still served as valid JSON. A body with valid multi-byte text is accepted.
func TestInvalidUTF8IsRefusedWhereItEnters(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("utf8")
	id := e.Publish(key, map[string]any{"blocks": []any{
		map[string]any{"type": "text", "data": map[string]any{"content": "héllo"}},
		map[string]any{"type": "form", "data": map[string]any{"fields": []any{map[string]any{"field_id": "a", "type": "text"}}}}}})
	bad := "caf\xe9 \xff\xfe" // Latin-1 é and two bytes that are never UTF-8
	blockID := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["blocks"].([]any)[0].(map[string]any)["id"].(string)
	for _, c := range []struct {
		method, path, body, field string
	}{
		{"POST", "/v1/publish", `{"title":"t","blocks":[{"type":"text","data":{"content":"` + bad + `"}}]}`, "blocks[0].data.content"},
		{"POST", "/v1/publish", `{"title":"` + bad + `","blocks":[]}`, "title"},
		{"POST", "/v1/publish", `{"title":"t","blocks":[{"type":"future","data":{"` + bad + `":1}}]}`, "blocks[0].data.caf"},
		{"POST", "/v1/pages", `{"title":"t","blocks":[{"type":"table","data":{"rows":[["a","` + bad + `"]]}}]}`, "blocks[0].data.rows[0][1]"},
		{"PATCH", "/v1/pages/" + id, `{"title":"` + bad + `"}`, "title"},
		{"PATCH", "/v1/pages/" + id + "/blocks", `{"blocks":[{"type":"text","data":{"content":"` + bad + `"}}]}`, "blocks[0].data.content"},
		{"POST", "/v1/pages/" + id + "/blocks/insert", `{"position":0,"block":{"type":"text","data":{"content":"` + bad + `"}}}`, "block.data.content"},
		{"PATCH", "/v1/pages/" + id + "/blocks/" + blockID, `{"data":{"content":"` + bad + `"}}`, "data.content"},
		{"POST", "/v1/pages/" + id + "/comments", `{"content":"` + bad + `","author_type":"agent"}`, "content"},
		{"POST", "/v1/pages/" + id + "/actions/approve", `{"form_data":{"a":"` + bad + `"}}`, "form_data.a"},
		{"POST", "/v1/publish/template/approval", `{"variables":{"title":"` + bad + `"}}`, "variables.title"},
		{"POST", "/v1/publish/a2ui", `[{"id":"t","component":"Text","text":"` + bad + `"}]`, "[0].text"},
		{"POST", "/v1/publish/ag-ui", `{"title":"t","events":[{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + bad + `"}]}`, "events[0].delta"},
	} {
		r := e.Do(c.method, c.path, key, c.body)
		d := r.ErrDetails(t)
		if r.Status != 400 || r.ErrCode(t) != "INVALID_REQUEST" || d["constraint"] != "utf8" || !strings.HasPrefix(d["field"].(string), c.field) {
			t.Errorf("%s %s: %d %s, want 400 INVALID_REQUEST utf8 naming %s", c.method, c.path, r.Status, clip(r.Body), c.field)
		}
	}
	e.Must(201, "POST", "/v1/publish", key, `{"title":"Grüße, 東京 🌍","blocks":[{"type":"text","data":{"content":"naïve \"quoted\" \\u00e9"}}]}`)
	if r := e.Do("GET", "/v1/pages/"+id, key, ""); r.Status != 200 || !strings.Contains(string(r.Body), "héllo") || strings.Contains(string(r.Body), "\xff") {
		t.Fatalf("the page after the refusals: %d %s", r.Status, clip(r.Body))
	}
}
