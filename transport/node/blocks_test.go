package node_test

import (
	"fmt"
	"strings"
	"testing"

	"folio/transport/node/nodetest"
)

func blockIDs(t *testing.T, e *nodetest.Env, key, id string) []string {
	t.Helper()
	var out []string
	for _, b := range e.Must(200, "GET", "/v1/pages/"+id, key, nil)["blocks"].([]any) {
		out = append(out, b.(map[string]any)["id"].(string))
	}
	return out
}

func text(s string) map[string]any {
	return map[string]any{"type": "text", "data": map[string]any{"content": s}}
}

func TestAppendBlocks(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("appender")
	id := e.Publish(key, nil)
	m := e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{text("a"), text("b")}})
	appended := m["appendedBlockIds"].([]any)
	if m["version"].(float64) != 2 || m["totalBlocks"].(float64) != 3 || m["appendedBlocks"].(float64) != 2 || len(appended) != 2 {
		t.Fatalf("append: %v", m)
	}
	if !strings.HasPrefix(appended[0].(string), "b_1_") || !strings.HasPrefix(appended[1].(string), "b_2_") {
		t.Fatalf("appended ids should carry their page index: %v", appended)
	}
	if r := e.Do("PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{}}); r.Status != 400 {
		t.Fatalf("empty append: %d", r.Status)
	}
	dup := map[string]any{"id": appended[0], "type": "text", "data": map[string]any{}}
	if r := e.Do("PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{dup}}); r.Status != 400 || r.ErrDetails(t)["constraint"] != "unique" {
		t.Fatalf("duplicate block id: %d %s", r.Status, r.Body)
	}
}

func TestFixBlock(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("fixer")
	id := e.Publish(key, map[string]any{"blocks": []any{text("a"), map[string]any{"id": "chart1", "type": "chart", "data": map[string]any{"chart_type": "bar"}}}})
	m := e.Must(200, "PATCH", "/v1/pages/"+id+"/blocks/chart1", key, map[string]any{
		"data": map[string]any{"chart_type": "donut"}, "title": "Latency", "group": "g1", "tab": "Overview",
	})
	b := m["block"].(map[string]any)
	if m["blockId"] != "chart1" || m["version"].(float64) != 2 || b["type"] != "chart" {
		t.Fatalf("fix: %v", m)
	}
	if b["data"].(map[string]any)["title"] != "Latency" || b["data"].(map[string]any)["chart_type"] != "donut" {
		t.Fatalf("fixed data: %v", b["data"])
	}
	ws := m["warnings"].([]any)
	if len(ws) == 0 || !strings.Contains(fmt.Sprint(ws), "blocks[1].data.chart_type") {
		t.Fatalf("a bad chart_type should warn at its path on the page: %v", ws)
	}
	p := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	stored := p["blocks"].([]any)[1].(map[string]any)
	if stored["group"] != "g1" || stored["tab"] != "Overview" {
		t.Fatalf("group/tab not stored: %v", stored)
	}
	if r := e.Do("PATCH", "/v1/pages/"+id+"/blocks/nope", key, map[string]any{"data": map[string]any{}}); r.Status != 404 {
		t.Fatalf("unknown block: %d", r.Status)
	}
	if r := e.Do("PATCH", "/v1/pages/"+id+"/blocks/chart1", key, map[string]any{"data": []int{1}}); r.Status != 400 || r.ErrDetails(t)["field"] != "data" {
		t.Fatalf("array data: %d %s", r.Status, r.Body)
	}
}

func TestReorderBlocks(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("reorderer")
	id := e.Publish(key, map[string]any{"blocks": []any{
		map[string]any{"id": "a", "type": "text", "data": map[string]any{}}, map[string]any{"id": "b", "type": "text", "data": map[string]any{}},
		map[string]any{"id": "c", "type": "text", "data": map[string]any{}}, map[string]any{"id": "d", "type": "text", "data": map[string]any{}},
	}})
	m := e.Must(200, "PUT", "/v1/pages/"+id+"/blocks/reorder", key, map[string]any{"block_order": []string{"c", "a"}})
	if fmt.Sprint(m["blockIds"]) != "[c a b d]" || m["totalBlocks"].(float64) != 4 || m["version"].(float64) != 2 {
		t.Fatalf("reorder: %v", m)
	}
	if got := blockIDs(t, e, key, id); fmt.Sprint(got) != "[c a b d]" {
		t.Fatalf("stored order %v", got)
	}
	r := e.Do("PUT", "/v1/pages/"+id+"/blocks/reorder", key, map[string]any{"block_order": []string{"a", "zz"}})
	if r.Status != 400 || r.ErrDetails(t)["field"] != "block_order[1]" {
		t.Fatalf("unknown id: %d %s", r.Status, r.Body)
	}
	if got := blockIDs(t, e, key, id); fmt.Sprint(got) != "[c a b d]" {
		t.Fatalf("a refused reorder changed the page: %v", got)
	}
}

func TestInsertBlock(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("inserter")
	id := e.Publish(key, map[string]any{"blocks": []any{
		map[string]any{"id": "a", "type": "text", "data": map[string]any{}}, map[string]any{"id": "b", "type": "text", "data": map[string]any{}},
	}})
	m := e.Must(200, "POST", "/v1/pages/"+id+"/blocks/insert", key, map[string]any{"position": 1, "block": map[string]any{"id": "x", "type": "text", "data": map[string]any{}}})
	if fmt.Sprint(m["blockIds"]) != "[a x b]" || m["blockId"] != "x" {
		t.Fatalf("insert at 1: %v", m)
	}
	m = e.Must(200, "POST", "/v1/pages/"+id+"/blocks/insert", key, map[string]any{"position": 99, "block": text("end")})
	ids := m["blockIds"].([]any)
	if len(ids) != 4 || ids[3] != m["blockId"] || !strings.HasPrefix(m["blockId"].(string), "b_3_") {
		t.Fatalf("a position past the end is clamped to the end: %v", m)
	}
	if r := e.Do("POST", "/v1/pages/"+id+"/blocks/insert", key, map[string]any{"position": -1, "block": text("x")}); r.Status != 400 || r.ErrDetails(t)["field"] != "position" {
		t.Fatalf("negative position: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pages/"+id+"/blocks/insert", key, map[string]any{"position": 0}); r.Status != 400 || r.ErrDetails(t)["field"] != "block" {
		t.Fatalf("missing block: %d %s", r.Status, r.Body)
	}
}

func TestPublishWarningsNamePaths(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("warned")
	m := e.Must(201, "POST", "/v1/publish", key, map[string]any{"title": "w", "blocks": []any{
		text("fine"),
		map[string]any{"type": "heatmap", "data": map[string]any{"rows": []string{"a", "b"}, "columns": []string{"x"}, "values": []any{[]any{1}}}},
		map[string]any{"type": "totally_new_type", "data": map[string]any{"anything": 1}},
	}})
	ws := fmt.Sprint(m["warnings"])
	if !strings.Contains(ws, "blocks[1].data.values") || strings.Contains(ws, "blocks[0]") || strings.Contains(ws, "blocks[2]") {
		t.Fatalf("warnings: %v", ws)
	}
}
