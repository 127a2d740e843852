// Package content_test holds the end-to-end tests of the Content area: the block
// schema, A2UI / AG-UI and template publishing, workflows and associations. Every
// exchange goes through a whole node behind a real HTTP server (servertest), and
// every response is checked against the OpenAPI document.
package content_test

import (
	"strings"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// getPage reads a page as its owner.
func getPage(t *testing.T, e *nodetest.Env, key, id string) map[string]any {
	t.Helper()
	return e.Must(200, "GET", "/v1/pages/"+id, key, nil)
}

// blockTypes lists the types of a page's top-level blocks.
func blockTypes(p map[string]any) []string {
	var out []string
	for _, b := range p["blocks"].([]any) {
		out = append(out, b.(map[string]any)["type"].(string))
	}
	return out
}

// blockData is the data of a page's i-th block.
func blockData(p map[string]any, i int) map[string]any {
	return p["blocks"].([]any)[i].(map[string]any)["data"].(map[string]any)
}

// actionIDs lists a page's action ids.
func actionIDs(p map[string]any) []string {
	var out []string
	for _, a := range p["actions"].([]any) {
		out = append(out, a.(map[string]any)["action_id"].(string))
	}
	return out
}

// wantPublished checks the publish-shaped 201 answer and returns the page id.
func wantPublished(t *testing.T, m map[string]any) string {
	t.Helper()
	id, _ := m["pageId"].(string)
	if id == "" || m["status"] != "active" || !strings.Contains(m["pageUrl"].(string), "/p/"+id) ||
		m["shortUrl"] == nil || m["expiresAt"] == nil || m["warnings"] == nil {
		t.Fatalf("not a publish answer: %v", m)
	}
	return id
}

// warnings is the answer's warnings as strings.
func warnings(m map[string]any) []string {
	var out []string
	for _, w := range m["warnings"].([]any) {
		out = append(out, w.(string))
	}
	return out
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func equal(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }
