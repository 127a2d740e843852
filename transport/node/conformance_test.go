package node_test

import (
	"testing"

	"folio/transport/node/nodetest"
)

// TestConformanceDeviationsFound: the small deviations an outside conformance check
// found stay fixed.
func TestConformanceDeviationsFound(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("conform")
	id := e.Publish(key, map[string]any{"blocks": []any{
		map[string]any{"id": "a", "type": "text", "data": map[string]any{"content": "a"}},
		map[string]any{"id": "b", "type": "text", "data": map[string]any{"content": "b"}}}})

	// The insert endpoint names its own field, "block", in errors.
	r := e.Do("POST", "/v1/pages/"+id+"/blocks/insert", key, map[string]any{"position": 0, "block": map[string]any{"id": "a", "type": "text", "data": map[string]any{"content": "dup"}}})
	if r.Status != 400 || r.ErrDetails(t)["field"] != "block.id" || r.ErrDetails(t)["constraint"] != "unique" {
		t.Errorf("insert of a duplicate id: %d %s, want 400 naming block.id", r.Status, r.Body)
	}

	// A reorder that moves nothing changes nothing: no new version.
	v := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["version"]
	for _, order := range [][]string{{}, {"a"}, {"a", "b"}} {
		got := e.Must(200, "PUT", "/v1/pages/"+id+"/blocks/reorder", key, map[string]any{"block_order": order})
		if got["version"] != v {
			t.Errorf("reorder %v: version %v, want %v (unchanged)", order, got["version"], v)
		}
	}
	if got := e.Must(200, "PUT", "/v1/pages/"+id+"/blocks/reorder", key, map[string]any{"block_order": []string{"b"}}); got["version"] == v {
		t.Errorf("a reorder that moves a block keeps version %v", v)
	}

	// A media type with parameters is a media type.
	p := e.Must(200, "POST", "/v1/pages/"+id+"/files/presign", key, map[string]any{"filename": "a.html", "mime_type": "text/html; charset=utf-8", "size_bytes": 2})
	if p["mimeType"] != "text/html; charset=utf-8" {
		t.Errorf("presign with parameters: %v", p)
	}
	if r := e.Do("POST", "/v1/pages/"+id+"/files/presign", key, map[string]any{"filename": "a", "mime_type": "text/html; charset", "size_bytes": 2}); r.Status != 400 || r.ErrDetails(t)["field"] != "mime_type" {
		t.Errorf("a malformed media type: %d %s", r.Status, r.Body)
	}

	// A loopback name written with its trailing dot is still loopback.
	m := e.Must(201, "POST", "/v1/publish", key, map[string]any{"title": "t", "on_action": map[string]any{"default_url": "http://localhost.:9000/hook"}})
	if w, _ := m["warnings"].([]any); len(w) == 0 {
		t.Errorf("no warning for http://localhost.:9000: %v", m)
	}
}
