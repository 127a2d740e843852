package foliomcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	foliomcp "folio/transport/mcp"
	"folio/transport/node/nodetest"
)

// TestAnActionPublishedOverMCPCanAskToBeConfirmed: an action an agent marks
// confirm: true through publish_page and update_page is stored with confirm (as
// the HTTP API stores it), and the review page asks the person before it is sent;
// the tools' schemas list confirm as a boolean.
func TestAnActionPublishedOverMCPCanAskToBeConfirmed(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-confirm")
	cs, _ := session(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key})
	for _, name := range []string{"publish_page", "update_page", "request_approval", "create_draft"} {
		if got := at(listedTool(t, cs, name), "inputSchema.properties.actions.items.properties.confirm")["type"]; got != "boolean" {
			t.Errorf("%s: actions[].confirm has type %v, want boolean", name, got)
		}
	}
	id := call(t, cs, "publish_page", map[string]any{"title": "Rotate the signing key?", "actions": []any{
		map[string]any{"action_id": "rotate", "label": "Rotate now", "style": "primary", "confirm": true},
		map[string]any{"action_id": "later", "label": "Later"}}})["pageId"].(string)
	confirmOf := func() []any {
		acts := e.Must(200, "GET", "/v1/pages/"+id, key, nil)["actions"].([]any)
		out := make([]any, len(acts))
		for i, a := range acts {
			out[i] = a.(map[string]any)["confirm"]
		}
		return out
	}
	if got := confirmOf(); got[0] != true || got[1] != nil {
		t.Fatalf("after publish_page the actions' confirm are %v, want [true <nil>]", got)
	}
	res, err := http.Get(e.Srv.URL + "/p/" + id)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if !strings.Contains(string(html), `value="rotate" class="bt bt-primary" data-confirm-action`) || strings.Contains(string(html), `value="later" class="bt bt-secondary" data-confirm-action`) {
		t.Errorf("the review page does not ask before Rotate now (and only before it):\n%s", html)
	}
	call(t, cs, "update_page", map[string]any{"page_id": id, "actions": []any{
		map[string]any{"action_id": "rotate", "label": "Rotate now"},
		map[string]any{"action_id": "later", "label": "Later", "confirm": true}}})
	if got := confirmOf(); got[0] != nil || got[1] != true {
		t.Fatalf("after update_page the actions' confirm are %v, want [<nil> true]", got)
	}
}

// listedTool is the tool named name as a client lists it (its JSON on the wire).
func listedTool(t *testing.T, cs *mcp.ClientSession, name string) map[string]any {
	t.Helper()
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == name {
			var m map[string]any
			b, _ := json.Marshal(tool)
			_ = json.Unmarshal(b, &m)
			return m
		}
	}
	t.Fatalf("tool %s is not listed", name)
	return nil
}
