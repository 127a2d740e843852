package web_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/actors/model/blocks"
	"folio/transport/node/nodetest"
)

// allBlocks is the render package's page of every block type (and the second form
// of the types that have two), without the one block whose data is not an object
// (the API refuses it).
func allBlocks(t testing.TB) []any {
	t.Helper()
	raw, err := os.ReadFile("render/testdata/all-blocks.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var p struct {
		Blocks []map[string]any `json:"blocks"`
	}
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, b := range p.Blocks {
		d, ok := b["data"]
		if !ok {
			b["data"] = map[string]any{} // a block without data reads as {}, but publishing wants an object
		} else if _, isObj := d.(map[string]any); !isObj {
			continue
		}
		out = append(out, b)
	}
	return out
}

// approvalPage is a page with approve/reject and the given extras.
func approvalPage(extra map[string]any) map[string]any {
	body := map[string]any{
		"title": "Deploy v2.4.1 to production?", "summary": "All checks passed. Review the rollout and decide.",
		"page_type": "approval", "priority": "high", "tags": []any{"deploy", "payments"},
		"blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "Ready to **ship**."}}},
		"actions": []any{
			map[string]any{"action_id": "approve", "label": "Approve", "style": "primary"},
			map[string]any{"action_id": "reject", "label": "Reject", "style": "danger"},
		},
	}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

func publish(t testing.TB, e *nodetest.Env, key string, body map[string]any) string {
	t.Helper()
	return e.Must(201, "POST", "/v1/publish", key, body)["pageId"].(string)
}

// TestEveryBlockTypeRendersInTheBrowser: a page holding every catalog block type
// (nested layout, group and tab included) shows each one with its own view, none
// as the generic fallback; in light, in dark and at 360 px; with nothing wider than
// the screen at 360 px.
func TestEveryBlockTypeRendersInTheBrowser(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("every-block")
	id := publish(t, e, key, approvalPage(map[string]any{"blocks": allBlocks(t)}))
	tb := newTab(t)
	tb.do(chromedp.Navigate(e.Srv.URL + "/p/" + id))
	tb.until("the page script", `document.querySelector("#live") && !document.querySelector("#live").hidden`)
	for _, typ := range blocks.Types() {
		found := eval[struct{ Own, Fallback bool }](tb, `(function(t){var all=document.querySelectorAll('.blk[data-type="'+t+'"]'),own=false,fb=false;
			all.forEach(function(e){if(e.classList.contains("blk-fallback"))fb=true;else own=true});return {Own:own,Fallback:fb}})(`+jsonString(typ)+`)`)
		if !found.Own || found.Fallback {
			t.Errorf("%s: drawn with its own view %v, as the generic fallback %v", typ, found.Own, found.Fallback)
		}
	}
	text := eval[string](tb, `document.querySelector("#blocks").innerText`)
	if !containsAll(text, "Uptime", "99.9%", "Hosts", "12.5", "Deploy at 5pm", "print(1)", "Release", "Write spec", "README.md", "a=2", "I agree") {
		t.Errorf("the blocks' text as a person reads it lacks expected parts:\n%s", text)
	}
	tb.shot("review-all-blocks-light")
	tb.dark(true)
	tb.shot("review-all-blocks-dark")
	tb.dark(false)
	tb.width(360)
	tb.noSidewaysScroll("the all-blocks page at 360 px")
	tb.shot("review-all-blocks-360")
}
