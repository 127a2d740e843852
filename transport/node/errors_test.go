package node_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

func TestEveryErrorUsesTheEnvelope(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("errs")
	id := e.Publish(key, nil)
	nested := func(depth int) map[string]any {
		b := map[string]any{"type": "text", "data": map[string]any{"content": "leaf"}}
		for i := 1; i < depth; i++ {
			b = map[string]any{"type": "group", "data": map[string]any{"blocks": []any{b}}}
		}
		return b
	}
	many := make([]any, 501)
	for i := range many {
		many[i] = text("x")
	}
	cases := []struct {
		name                    string
		method, path            string
		body                    any
		status                  int
		code, field, constraint string
	}{
		{"router 404", "GET", "/v1/nothing", nil, 404, "NOT_FOUND", "", ""},
		{"router 405", "DELETE", "/v1/publish", nil, 405, "METHOD_NOT_ALLOWED", "", ""},
		{"malformed JSON", "POST", "/v1/publish", `{"title": "x",`, 400, "INVALID_REQUEST", "", "json"},
		{"not JSON", "POST", "/v1/publish", `hello`, 400, "INVALID_REQUEST", "", "json"},
		{"empty body", "POST", "/v1/publish", ``, 400, "INVALID_REQUEST", "", "required"},
		{"title missing", "POST", "/v1/publish", map[string]any{"summary": "s"}, 400, "INVALID_REQUEST", "title", "required"},
		{"title wrong type", "POST", "/v1/publish", map[string]any{"title": 7}, 400, "INVALID_REQUEST", "title", "type"},
		{"title too long", "POST", "/v1/publish", map[string]any{"title": strings.Repeat("t", 201)}, 400, "INVALID_REQUEST", "title", "max_length"},
		{"tags wrong type", "POST", "/v1/publish", map[string]any{"title": "x", "tags": "a,b"}, 400, "INVALID_REQUEST", "tags", "type"},
		{"blocks wrong type", "POST", "/v1/publish", map[string]any{"title": "x", "blocks": map[string]any{}}, 400, "INVALID_REQUEST", "blocks", "type"},
		{"block without type", "POST", "/v1/publish", map[string]any{"title": "x", "blocks": []any{map[string]any{"data": map[string]any{}}}}, 400, "INVALID_REQUEST", "blocks[0].type", "required"},
		{"block type not a string", "POST", "/v1/publish", map[string]any{"title": "x", "blocks": []any{map[string]any{"type": 3, "data": map[string]any{}}}}, 400, "INVALID_REQUEST", "blocks[0].type", "type"},
		{"block data not an object", "POST", "/v1/publish", map[string]any{"title": "x", "blocks": []any{map[string]any{"type": "text", "data": "hi"}}}, 400, "INVALID_REQUEST", "blocks[0].data", "type"},
		{"too many blocks", "POST", "/v1/publish", map[string]any{"title": "x", "blocks": many}, 400, "INVALID_REQUEST", "blocks", "max_blocks"},
		{"nested too deep", "POST", "/v1/publish", map[string]any{"title": "x", "blocks": []any{nested(7)}}, 400, "INVALID_REQUEST", "blocks[0]", "max_depth"},
		{"unsupported version", "POST", "/v1/publish", map[string]any{"title": "x", "version": "2.0"}, 400, "INVALID_REQUEST", "version", "supported_versions"},
		{"malformed version", "POST", "/v1/publish", map[string]any{"title": "x", "version": "v1"}, 400, "INVALID_REQUEST", "version", "format"},
		{"bad priority", "POST", "/v1/publish", map[string]any{"title": "x", "priority": "meh"}, 400, "INVALID_REQUEST", "priority", "enum"},
		{"bad access mode", "POST", "/v1/publish", map[string]any{"title": "x", "access": map[string]any{"mode": "secret"}}, 400, "INVALID_REQUEST", "access.mode", "enum"},
		{"bad identity type", "POST", "/v1/publish", map[string]any{"title": "x", "access": map[string]any{"mode": "authenticated", "allowed_identities": []any{map[string]any{"type": "phone", "value": "1"}}}}, 400, "INVALID_REQUEST", "access.allowed_identities[0].type", "enum"},
		{"duplicate action", "POST", "/v1/publish", map[string]any{"title": "x", "actions": []any{map[string]any{"action_id": "a"}, map[string]any{"action_id": "a"}}}, 400, "INVALID_REQUEST", "actions[1].action_id", "unique"},
		{"action without id", "POST", "/v1/publish", map[string]any{"title": "x", "actions": []any{map[string]any{"label": "Go"}}}, 400, "INVALID_REQUEST", "actions[0].action_id", "required"},
		{"on_action not an object", "POST", "/v1/publish", map[string]any{"title": "x", "on_action": "http://x"}, 400, "INVALID_REQUEST", "on_action", "type"},
		{"expires_at in the past", "POST", "/v1/publish", map[string]any{"title": "x", "expires_at": "2020-01-01T00:00:00Z"}, 400, "INVALID_REQUEST", "expires_at", "future"},
		{"expires_at malformed", "POST", "/v1/publish", map[string]any{"title": "x", "expires_at": "tomorrow"}, 400, "INVALID_REQUEST", "expires_at", "format"},
		{"body too large", "POST", "/v1/publish", `{"title":"` + strings.Repeat("x", 1<<20) + `"}`, 413, "PAYLOAD_TOO_LARGE", "", "max_body_bytes"},
		{"unknown page", "GET", "/v1/pages/pg_nope", nil, 404, "NOT_FOUND", "", ""},
		{"overlong page id", "GET", "/v1/pages/" + strings.Repeat("p", 300), nil, 404, "NOT_FOUND", "", ""},
		{"audit page zero", "GET", "/v1/pages/" + id + "/audit?page=0", nil, 400, "INVALID_REQUEST", "page", "range"},
		{"audit per_page text", "GET", "/v1/pages/" + id + "/audit?per_page=lots", nil, 400, "INVALID_REQUEST", "per_page", "integer"},
		{"patch wrong type", "PATCH", "/v1/pages/" + id, map[string]any{"summary": []int{1}}, 400, "INVALID_REQUEST", "summary", "type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(c.method, c.path, key, c.body)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Body)
			}
			m := r.JSON(t)
			env, ok := m["error"].(map[string]any)
			if !ok || env["code"] != c.code || env["message"] == "" {
				t.Fatalf("envelope %s", r.Body)
			}
			d, ok := env["details"].(map[string]any)
			if !ok {
				t.Fatalf("details missing: %s", r.Body)
			}
			if c.field != "" && d["field"] != c.field {
				t.Fatalf("details.field %v, want %q", d["field"], c.field)
			}
			if c.constraint != "" && d["constraint"] != c.constraint {
				t.Fatalf("details.constraint %v, want %q", d["constraint"], c.constraint)
			}
		})
	}
	// None of the refused requests left anything behind.
	if n := e.Must(200, "GET", "/v1/pages", key, nil)["total"].(float64); n != 1 {
		t.Fatalf("%v pages after refused publishes, want 1", n)
	}
	if v := e.Must(200, "GET", "/v1/audit/verify", key, nil); v["status"] != "valid" || v["chain_length"].(float64) != 2 {
		t.Fatalf("audit after refused requests: %v", v)
	}
}

// TestOpenReportsAnUnusableFileStore: a data directory whose file store cannot be
// created makes Open fail with an error naming it (the binary exits with it), never
// a panic, and leaves the database closed so a fixed directory opens again.
func TestOpenReportsAnUnusableFileStore(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "blobs"), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	n, err := node.Open(node.Config{DataDir: dir, Log: quiet})
	if err == nil {
		_ = n.Close(context.Background())
		t.Fatal("Open succeeded with a file where the blob directory belongs")
	}
	if !strings.Contains(err.Error(), "file store") {
		t.Errorf("the error does not say what failed: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "blobs")); err != nil {
		t.Fatal(err)
	}
	n, err = node.Open(node.Config{DataDir: dir, Log: quiet})
	if err != nil {
		t.Fatalf("after fixing the directory: %v", err)
	}
	_ = n.Close(context.Background())
}

// TestAWrongTypeInsideAListIsNamedWithItsIndex: in a body of many blocks, "blocks.type"
// does not say which block; the error names the first one, as blocks[2].type.
func TestAWrongTypeInsideAListIsNamedWithItsIndex(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("types")
	text := map[string]any{"type": "text", "data": map[string]any{"content": "ok"}}
	cases := []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"title": "t", "blocks": []any{text, text, map[string]any{"type": 5, "data": map[string]any{}}}}, "blocks[2].type"},
		{map[string]any{"title": "t", "tags": []any{"a", "b", true}}, "tags[2]"},
		{map[string]any{"title": "t", "actions": []any{map[string]any{"action_id": "a"}, map[string]any{"action_id": []any{}}}}, "actions[1].action_id"},
		{map[string]any{"title": 7}, "title"},
	}
	for _, c := range cases {
		res := e.Do("POST", "/v1/publish", key, c.body)
		if res.Status != 400 {
			t.Fatalf("%v: %d", c.body, res.Status)
		}
		if d := res.ErrDetails(t); d["field"] != c.want || d["constraint"] != "type" {
			t.Errorf("%v: details %v, want field %s", c.body, d, c.want)
		}
	}
}
