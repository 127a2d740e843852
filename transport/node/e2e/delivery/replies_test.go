package delivery_test

import (
	"strings"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

const instructions = `{"ok":true,"instructions":{"update_page":{"add_blocks":[{"type":"callout","data":{"content":"Deployment started","style":"info"}}]}}}`

func blockCount(t testing.TB, e *nodetest.Env, key, id string) int {
	t.Helper()
	return len(e.Must(200, "GET", "/v1/pages/"+id, key, nil)["blocks"].([]any))
}

func TestReplyInstructionsAppliedOncePerEvent(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("replies")
	rv := newReceiver(t, func(int, hit) (int, map[string]string, string) {
		return 200, map[string]string{"Content-Type": "application/json"}, instructions
	})
	id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": rv.URL()}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	rv.waitEvents("action.executed", 1, 5*time.Second)
	eventually(t, 3*time.Second, "the reply's block appended", func() bool { return blockCount(t, e, key, id) == 2 })
	pg := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	if pg["version"] != 2.0 || pg["status"] != "completed" || !strings.Contains(string(mustJSON(pg["blocks"])), "Deployment started") {
		t.Errorf("page after the reply: version %v, status %v, blocks %v", pg["version"], pg["status"], pg["blocks"])
	}
	d := deliveryFor(t, e, key, id, "action.executed")
	eventually(t, 2*time.Second, "reply recorded", func() bool {
		d = deliveryFor(t, e, key, id, "action.executed")
		r, _ := d["reply"].(map[string]any)
		return r != nil && r["status"] == "applied"
	})

	// The same reply comes again on a redelivery: nothing more is appended.
	e.Must(202, "POST", "/v1/deliveries/"+d["id"].(string)+"/retry", key, nil)
	rv.waitEvents("action.executed", 2, 5*time.Second)
	eventually(t, 3*time.Second, "the second reply recorded as a duplicate", func() bool {
		r, _ := e.Must(200, "GET", "/v1/deliveries/"+d["id"].(string), key, nil)["reply"].(map[string]any)
		return r != nil && r["status"] == "duplicate"
	})
	if n := blockCount(t, e, key, id); n != 2 {
		t.Fatalf("the page has %d blocks after the reply came twice, want 2", n)
	}
	appended := 0
	for _, it := range e.Must(200, "GET", "/v1/pages/"+id+"/audit", key, nil)["items"].([]any) {
		if it.(map[string]any)["event_type"] == "blocks.appended" {
			appended++
		}
	}
	if appended != 1 {
		t.Errorf("blocks.appended audited %d times, want 1", appended)
	}
}

func TestReplyInstructionsIgnoredOnFailureAndWhenTooLarge(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("ignored")
	failing := newReceiver(t, func(int, hit) (int, map[string]string, string) { return 500, nil, instructions })
	id := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": failing.URL()}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	failing.waitEvents("action.executed", 1, 5*time.Second)

	huge := `{"ok":true,"pad":"` + strings.Repeat("x", 300<<10) + `","instructions":{"update_page":{"add_blocks":[{"type":"text","data":{"content":"no"}}]}}}`
	big := newReceiver(t, func(int, hit) (int, map[string]string, string) { return 200, nil, huge })
	id2 := publish(e, key, map[string]any{"on_action": map[string]any{"default_url": big.URL()}})["pageId"].(string)
	e.Must(200, "POST", "/v1/pages/"+id2+"/actions/approve", key, nil)
	big.waitEvents("action.executed", 1, 5*time.Second)
	var d map[string]any
	eventually(t, 2*time.Second, "the oversized reply recorded", func() bool {
		d = deliveryFor(t, e, key, id2, "action.executed")
		return d["status"] == "succeeded"
	})
	if !strings.Contains(d["note"].(string), "larger than") {
		t.Errorf("note = %v", d["note"])
	}
	time.Sleep(100 * time.Millisecond)
	if n, n2 := blockCount(t, e, key, id), blockCount(t, e, key, id2); n != 1 || n2 != 1 {
		t.Errorf("blocks appended from ignored replies: %d, %d", n, n2)
	}
}
