package delivery_test

import (
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

func act(e *nodetest.Env, key, page, action, who string) nodetest.Response {
	return e.Do("POST", "/v1/pages/"+page+"/actions/"+action, key, map[string]any{"actor": map[string]any{"identity": who}})
}

func TestSequentialTwoStepChain(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("chain")
	rv := newReceiver(t, nil)
	pub := publish(e, key, map[string]any{
		"on_action": map[string]any{"default_url": rv.URL(), "hmac_secret": "chain-secret"},
		"approval_chain": map[string]any{"mode": "sequential", "steps": []any{
			map[string]any{"step_id": "lead", "name": "Team lead", "assignees": []any{"alice@example.com"}},
			map[string]any{"name": "Security", "assignees": []any{"bob@example.com", "carol@example.com"}, "min_approvals": 2},
		}},
	})
	id := pub["pageId"].(string)
	ap := e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)
	if ap["chain_status"] != "in_progress" || ap["mode"] != "sequential" || ap["current_step"] != "lead" {
		t.Fatalf("approval = %v", ap)
	}
	steps := ap["steps"].([]any)
	if s1 := steps[1].(map[string]any); s1["step_id"] != "step_2" || s1["status"] != "pending" || len(s1["assignees"].([]any)) != 2 || len(s1["decisions"].([]any)) != 0 {
		t.Errorf("second step = %v", s1)
	}

	// Someone not assigned to the current step may not decide: bob is on step 2.
	for _, who := range []string{"mallory@example.com", "bob@example.com"} {
		r := act(e, key, id, "approve", who)
		if r.Status != 403 || r.ErrCode(t) != "FORBIDDEN" {
			t.Fatalf("%s approving step 1: %d %s", who, r.Status, r.Body)
		}
	}
	r := act(e, key, id, "approve", "alice@example.com")
	if r.Status != 200 {
		t.Fatalf("alice: %d %s", r.Status, r.Body)
	}
	if ps := r.JSON(t)["page_state"].(map[string]any); ps["previous"] != "active" || ps["current"] != "active" {
		t.Errorf("after step 1 page_state = %v", ps)
	}
	if r := act(e, key, id, "approve", "alice@example.com"); r.Status != 403 {
		t.Errorf("alice again (not on step 2): %d", r.Status)
	}
	step1 := rv.waitEvents("approval.step_completed", 1, 5*time.Second)[0]
	verifyBoth(t, "chain-secret", step1)
	sc := step1.json(t)
	data := sc["data"].(map[string]any)
	want := map[string]any{"step_id": "lead", "step_name": "Team lead", "decision": "approved", "decided_by": "alice@example.com", "next_step": "step_2"}
	for k, v := range want {
		if data[k] != v {
			t.Errorf("step_completed data.%s = %v, want %v", k, data[k], v)
		}
	}
	if len(data) != len(want) || sc["page_id"] != id || sc["event_id"] == "" || sc["timestamp"] == "" {
		t.Errorf("step_completed body = %s", step1.Body)
	}
	ex := rv.waitEvents("action.executed", 1, 5*time.Second)[0].json(t)
	if ex["actor"].(map[string]any)["identity"] != "alice@example.com" || ex["page_state"].(map[string]any)["current"] != "active" {
		t.Errorf("action.executed = %v", ex)
	}

	// Step 2 needs both bob and carol.
	if r := act(e, key, id, "approve", "bob@example.com"); r.Status != 200 {
		t.Fatalf("bob: %d %s", r.Status, r.Body)
	}
	if r := act(e, key, id, "approve", "BOB@example.com"); r.Status != 409 || r.ErrCode(t) != "CONFLICT" {
		t.Errorf("bob deciding twice: %d %s", r.Status, r.Body)
	}
	ap = e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)
	s1 := ap["steps"].([]any)[1].(map[string]any)
	if ap["current_step"] != "step_2" || s1["status"] != "pending" || len(s1["decisions"].([]any)) != 1 {
		t.Errorf("after bob: %v", ap)
	}
	r = act(e, key, id, "approve", "carol@example.com")
	if ps := r.JSON(t)["page_state"].(map[string]any); r.Status != 200 || ps["current"] != "completed" {
		t.Fatalf("carol: %d %s", r.Status, r.Body)
	}
	done := rv.waitEvents("approval.chain_completed", 1, 5*time.Second)[0]
	verifyBoth(t, "chain-secret", done)
	cd := done.json(t)["data"].(map[string]any)
	sum := cd["steps_summary"].([]any)
	if cd["final_decision"] != "approved" || len(sum) != 2 || sum[1].(map[string]any)["step_id"] != "step_2" || sum[1].(map[string]any)["decision"] != "approved" {
		t.Errorf("chain_completed data = %v", cd)
	}
	last := rv.waitEvents("approval.step_completed", 2, 5*time.Second)[1].json(t)["data"].(map[string]any)
	if last["next_step"] != nil || last["decided_by"] != "carol@example.com" {
		t.Errorf("last step_completed = %v", last)
	}
	ap = e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)
	if ap["chain_status"] != "approved" || ap["current_step"] != nil {
		t.Errorf("finished chain = %v", ap)
	}
	fin := ap["steps"].([]any)[0].(map[string]any)
	if fin["status"] != "completed" || fin["decision"] != "approved" || fin["decided_by"] != "alice@example.com" || fin["decided_at"] == nil {
		t.Errorf("finished step = %v", fin)
	}
	pg := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	if pg["status"] != "completed" || pg["approval_chain"].(map[string]any)["chain_status"] != "approved" {
		t.Errorf("page = %v / %v", pg["status"], pg["approval_chain"])
	}
	if r := act(e, key, id, "approve", "carol@example.com"); r.Status != 409 {
		t.Errorf("acting on the completed page: %d", r.Status)
	}
}

func TestRejectionEndsTheChainAndParallelSteps(t *testing.T) {
	e := nodetest.New(t, allowPrivate)
	key, _ := e.Register("parallel")
	rv := newReceiver(t, nil)
	id := publish(e, key, map[string]any{
		"on_action": map[string]any{"default_url": rv.URL()},
		"actions": []any{
			map[string]any{"action_id": "approve"},
			map[string]any{"action_id": "veto", "label": "Veto", "decision": "rejected"},
			map[string]any{"action_id": "ask", "label": "Ask a question"},
		},
		"approval_chain": map[string]any{"mode": "parallel", "steps": []any{
			map[string]any{"name": "Legal", "assignees": []any{"lee@example.com"}},
			map[string]any{"name": "Finance", "assignees": []any{"fay@example.com", "lee@example.com"}},
			map[string]any{"name": "Ops", "assignees": []any{"oz@example.com"}},
		}},
	})["pageId"].(string)
	// A neutral action is recorded and leaves the chain and the page alone.
	r := act(e, key, id, "ask", "anyone@example.com")
	if ps := r.JSON(t)["page_state"].(map[string]any); r.Status != 200 || ps["current"] != "active" {
		t.Fatalf("neutral action: %d %s", r.Status, r.Body)
	}
	if r := act(e, key, id, "ask", "anyone@example.com"); r.Status != 409 {
		t.Errorf("the same neutral action twice by one person: %d", r.Status)
	}
	// In parallel mode lee's approval counts for both steps lee is on.
	if r := act(e, key, id, "approve", "lee@example.com"); r.Status != 200 {
		t.Fatalf("lee: %d %s", r.Status, r.Body)
	}
	rv.waitEvents("approval.step_completed", 2, 5*time.Second)
	r = act(e, key, id, "veto", "oz@example.com")
	if ps := r.JSON(t)["page_state"].(map[string]any); r.Status != 200 || ps["current"] != "completed" {
		t.Fatalf("veto: %d %s", r.Status, r.Body)
	}
	cd := rv.waitEvents("approval.chain_completed", 1, 5*time.Second)[0].json(t)["data"].(map[string]any)
	if cd["final_decision"] != "rejected" {
		t.Errorf("chain_completed = %v", cd)
	}
	ap := e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)
	if ap["chain_status"] != "rejected" {
		t.Errorf("chain = %v", ap)
	}
	for i, want := range []string{"approved", "approved", "rejected"} {
		if got := ap["steps"].([]any)[i].(map[string]any)["decision"]; got != want {
			t.Errorf("step %d decision %v, want %v", i, got, want)
		}
	}

	// A sequential rejection skips the steps never reached.
	id2 := publish(e, key, map[string]any{"approval_chain": map[string]any{"steps": []any{
		map[string]any{"assignees": []any{"a@example.com"}},
		map[string]any{"assignees": []any{"b@example.com"}},
	}}})["pageId"].(string)
	if r := act(e, key, id2, "reject", "a@example.com"); r.Status != 200 || r.JSON(t)["page_state"].(map[string]any)["current"] != "completed" {
		t.Fatalf("reject: %d %s", r.Status, r.Body)
	}
	ap = e.Must(200, "GET", "/v1/pages/"+id2+"/approval", key, nil)
	if ap["chain_status"] != "rejected" || ap["steps"].([]any)[1].(map[string]any)["status"] != "skipped" {
		t.Errorf("rejected chain = %v", ap)
	}
}

func TestApprovalChainValidation(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("chain-rules")
	bad := []struct {
		chain any
		field string
		code  int
	}{
		{map[string]any{"mode": "round_robin", "steps": []any{map[string]any{"assignees": []any{"a"}}}}, "approval_chain.mode", 400},
		{map[string]any{"steps": []any{}}, "approval_chain.steps", 400},
		{map[string]any{"steps": []any{map[string]any{"name": "x"}}}, "approval_chain.steps[0].assignees", 400},
		{map[string]any{"steps": []any{map[string]any{"assignees": []any{"a"}, "min_approvals": 2}}}, "approval_chain.steps[0].min_approvals", 400},
		{map[string]any{"steps": []any{map[string]any{"step_id": "s", "assignees": []any{"a"}}, map[string]any{"step_id": "s", "assignees": []any{"b"}}}}, "approval_chain.steps[1].step_id", 400},
		{map[string]any{"steps": []any{map[string]any{"assignees": []any{"a", "A"}}}}, "approval_chain.steps[0].assignees[1]", 400},
		{map[string]any{"steps": "one"}, "approval_chain.steps", 400},
	}
	for _, c := range bad {
		r := e.Do("POST", "/v1/publish", key, map[string]any{"title": "t", "approval_chain": c.chain})
		if r.Status != c.code || r.ErrDetails(t)["field"] != c.field {
			t.Errorf("chain %v: %d %s, want %d naming %s", c.chain, r.Status, r.Body, c.code, c.field)
		}
	}
	if r := e.Do("GET", "/v1/pages/"+publish(e, key, nil)["pageId"].(string)+"/approval", key, nil); r.Status != 404 {
		t.Errorf("approval of a page without a chain: %d", r.Status)
	}
	// No deciding action draws a warning.
	m := e.Must(201, "POST", "/v1/publish", key, map[string]any{"title": "t", "actions": []any{map[string]any{"action_id": "ack"}},
		"approval_chain": map[string]any{"steps": []any{map[string]any{"assignees": []any{"a"}}}}})
	if len(warnings(m)) != 1 {
		t.Errorf("warnings = %v", warnings(m))
	}
	// A decided chain cannot be replaced.
	id := publish(e, key, map[string]any{"approval_chain": map[string]any{"steps": []any{
		map[string]any{"assignees": []any{"a"}}, map[string]any{"assignees": []any{"b"}}}}})["pageId"].(string)
	if r := act(e, key, id, "approve", "a"); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if r := e.Do("PATCH", "/v1/pages/"+id, key, map[string]any{"approval_chain": nil}); r.Status != 409 {
		t.Errorf("replacing a decided chain: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/publish", key, map[string]any{"title": "t", "actions": []any{map[string]any{"action_id": "x", "decision": "maybe"}}}); r.Status != 400 || r.ErrDetails(t)["field"] != "actions[0].decision" {
		t.Errorf("bad decision: %d %s", r.Status, r.Body)
	}
}
