package node_test

import (
	"sync"
	"testing"

	"folio/transport/node/nodetest"
)

func TestExactlyOneOf64ParallelExecutionsWins(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("racer")
	id := e.Publish(key, nil)
	const n = 64
	statuses := make([]int, n)
	codes := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			action := []string{"approve", "reject"}[i%2]
			r := e.Do("POST", "/v1/pages/"+id+"/actions/"+action, key, map[string]any{"actor": map[string]any{"identity": "p@example.com"}})
			statuses[i] = r.Status
			if r.Status != 200 {
				codes[i] = r.ErrCode(t)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	wins, conflicts := 0, 0
	for i := range statuses {
		switch {
		case statuses[i] == 200:
			wins++
		case statuses[i] == 409 && codes[i] == "CONFLICT":
			conflicts++
		default:
			t.Errorf("request %d: status %d %s", i, statuses[i], codes[i])
		}
	}
	if wins != 1 || conflicts != n-1 {
		t.Fatalf("%d winners and %d conflicts, want 1 and %d", wins, conflicts, n-1)
	}
	p := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	if p["status"] != "completed" || p["stats"].(map[string]any)["action_count"].(float64) != 1 {
		t.Fatalf("page after the race: status %v stats %v", p["status"], p["stats"])
	}
	items := e.Must(200, "GET", "/v1/pages/"+id+"/audit", key, nil)["items"].([]any)
	executed := 0
	for _, it := range items {
		if it.(map[string]any)["event_type"] == "action.executed" {
			executed++
		}
	}
	if executed != 1 {
		t.Fatalf("%d action.executed audit entries, want 1", executed)
	}
}

func TestExecuteActionResponseAndErrors(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("actor")
	id := e.Publish(key, nil)
	if r := e.Do("POST", "/v1/pages/"+id+"/actions/launch", key, nil); r.Status != 404 || r.ErrCode(t) != "NOT_FOUND" {
		t.Fatalf("unknown action: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"form_data": "yes"}); r.Status != 400 || r.ErrDetails(t)["field"] != "form_data" {
		t.Fatalf("form_data as a string: %d %s", r.Status, r.Body)
	}
	m := e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{
		"actor": map[string]any{"identity": "alice@example.com"}, "comment": "LGTM", "form_data": nil,
	})
	ps := m["page_state"].(map[string]any)
	if m["action_id"] != "approve" || ps["previous"] != "active" || ps["current"] != "completed" || m["executedAt"] == nil {
		t.Fatalf("execute response: %v", m)
	}
	r := e.Do("POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	if r.Status != 409 || r.ErrDetails(t)["status"] != "completed" {
		t.Fatalf("second execution: %d %s", r.Status, r.Body)
	}
	items := e.Must(200, "GET", "/v1/pages/"+id+"/audit", key, nil)["items"].([]any)
	var exec map[string]any
	for _, it := range items {
		if it.(map[string]any)["event_type"] == "action.executed" {
			exec = it.(map[string]any)
		}
	}
	if exec == nil || exec["actor"] != "user:alice@example.com" || exec["details"].(map[string]any)["comment"] != "LGTM" {
		t.Fatalf("audit of the execution: %v", exec)
	}
}
