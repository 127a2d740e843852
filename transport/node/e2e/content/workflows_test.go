package content_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

func approvalBody(title string) map[string]any {
	return map[string]any{
		"title": title, "page_type": "approval",
		"blocks":  []any{map[string]any{"type": "text", "data": map[string]any{"content": "Please decide."}}},
		"actions": []any{map[string]any{"action_id": "approve", "label": "Approve", "style": "primary"}},
	}
}

// workflowState reads a workflow: its status and its pages' statuses.
func workflowState(t *testing.T, e *nodetest.Env, key, gid string) (string, []string) {
	t.Helper()
	m := e.Must(200, "GET", "/v1/workflows/"+gid, key, nil)
	var statuses []string
	for _, p := range m["pages"].([]any) {
		statuses = append(statuses, p.(map[string]any)["status"].(string))
	}
	return m["status"].(string), statuses
}

func waitState(t *testing.T, e *nodetest.Env, key, gid, status string, pages ...string) {
	t.Helper()
	var got string
	var gotPages []string
	eventually(t, fmt.Sprintf("workflow %s %v", status, pages), func() bool {
		got, gotPages = workflowState(t, e, key, gid)
		return got == status && equal(gotPages, pages)
	})
}

func createWorkflow(t *testing.T, e *nodetest.Env, key, flow string, n int) (string, []string) {
	t.Helper()
	var pages []any
	for i := range n {
		pages = append(pages, approvalBody(fmt.Sprintf("Step %d", i+1)))
	}
	m := e.Must(201, "POST", "/v1/workflows", key, map[string]any{"name": "Release 2.4", "flow": flow, "pages": pages})
	var ids []string
	for _, id := range m["pages"].([]any) {
		ids = append(ids, id.(string))
	}
	if m["group_id"] == "" || m["status"] != "active" || len(ids) != n {
		t.Fatalf("create workflow: %v", m)
	}
	return m["group_id"].(string), ids
}

func approve(t *testing.T, e *nodetest.Env, key, id string) {
	t.Helper()
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
}

func TestSequentialWorkflow(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("flow-agent")
	gid, ids := createWorkflow(t, e, key, "sequential", 3)
	m := e.Must(200, "GET", "/v1/workflows/"+gid, key, nil)
	if m["group_id"] != gid || m["name"] != "Release 2.4" || m["status"] != "active" {
		t.Fatalf("workflow = %v", m)
	}
	waitState(t, e, key, gid, "active", "active", "draft", "draft")
	if r := e.Do("POST", "/v1/pages/"+ids[1]+"/actions/approve", key, nil); r.Status != 409 {
		t.Errorf("a draft step cannot be acted on yet: %d", r.Status)
	}

	approve(t, e, key, ids[0])
	waitState(t, e, key, gid, "in_progress", "completed", "active", "draft")
	p := getPage(t, e, key, ids[1])
	if p["status"] != "active" || p["expires_at"] == nil || p["published_at"] == nil {
		t.Errorf("the next step is published: %v", p)
	}
	audit := e.Must(200, "GET", "/v1/pages/"+ids[1]+"/audit", key, nil)["items"].([]any)
	last := audit[len(audit)-1].(map[string]any)
	if last["event_type"] != "page.published" || last["actor"] != "system" {
		t.Errorf("the workflow publishes as system: %v", last)
	}

	approve(t, e, key, ids[1])
	waitState(t, e, key, gid, "in_progress", "completed", "completed", "active")
	approve(t, e, key, ids[2])
	waitState(t, e, key, gid, "completed", "completed", "completed", "completed")
	if m := e.Must(200, "GET", "/v1/workflows/"+gid, key, nil); m["completed_at"] == nil {
		t.Errorf("completed_at: %v", m)
	}
}

// Parallel: every page is active at once; real parallel reviewers complete them.
func TestParallelWorkflow(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("flow-agent")
	gid, ids := createWorkflow(t, e, key, "parallel", 6)
	waitState(t, e, key, gid, "active", "active", "active", "active", "active", "active", "active")
	approve(t, e, key, ids[0])
	waitState(t, e, key, gid, "in_progress", "completed", "active", "active", "active", "active", "active")
	var wg sync.WaitGroup
	for _, id := range ids[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := e.Do("POST", "/v1/pages/"+id+"/actions/approve", key, nil); r.Status != 200 {
				t.Errorf("approve %s: %d %s", id, r.Status, r.Body)
			}
		}()
	}
	wg.Wait()
	// Every completion was committed before its 200, and the workflow record is
	// written in the same commits: no waiting needed.
	status, pages := workflowState(t, e, key, gid)
	if status != "completed" || !equal(pages, []string{"completed", "completed", "completed", "completed", "completed", "completed"}) {
		t.Errorf("after parallel approvals: %s %v", status, pages)
	}
}

func TestWorkflowCancelled(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("flow-agent")

	// A revoked page cancels the workflow; the remaining drafts are never published.
	gid, ids := createWorkflow(t, e, key, "sequential", 3)
	e.Must(200, "POST", "/v1/pages/"+ids[0]+"/revoke", key, map[string]any{"reason": "wrong release"})
	waitState(t, e, key, gid, "cancelled", "revoked", "draft", "draft")

	// Cancelled is final, even when another page then completes.
	gid, ids = createWorkflow(t, e, key, "parallel", 2)
	approve(t, e, key, ids[0])
	e.Must(200, "POST", "/v1/pages/"+ids[1]+"/revoke", key, nil)
	waitState(t, e, key, gid, "cancelled", "completed", "revoked")

	// Revoking a draft step cancels too.
	gid, ids = createWorkflow(t, e, key, "sequential", 2)
	e.Must(200, "POST", "/v1/pages/"+ids[1]+"/revoke", key, nil)
	approve(t, e, key, ids[0])
	waitState(t, e, key, gid, "cancelled", "completed", "revoked")
	if p := getPage(t, e, key, ids[1]); p["status"] != "revoked" {
		t.Errorf("the revoked step stays revoked: %v", p["status"])
	}
}

func TestWorkflowCancelledOnExpiry(t *testing.T) {
	t.Parallel()
	clk := nodetest.NewClock(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC))
	e := nodetest.Open(t, t.TempDir(), clk)
	key, _ := e.Register("flow-agent")
	first := approvalBody("Expires soon")
	first["expires_at"] = "2030-01-01T13:00:00Z"
	m := e.Must(201, "POST", "/v1/workflows", key, map[string]any{"name": "Timed", "flow": "sequential",
		"pages": []any{first, approvalBody("Next")}})
	gid := m["group_id"].(string)
	ids := m["pages"].([]any)
	clk.Advance(2 * time.Hour)
	// Read at once: the overdue page reads expired and cancels the workflow, before
	// and after the expiry commit.
	status, pages := workflowState(t, e, key, gid)
	if status != "cancelled" || pages[0] != "expired" || pages[1] != "draft" {
		t.Errorf("right after the expiry time: %s %v", status, pages)
	}
	eventually(t, "the page expires", func() bool { return getPage(t, e, key, ids[0].(string))["status"] == "expired" })
	waitState(t, e, key, gid, "cancelled", "expired", "draft")
	// Renewing the page does not revive the workflow.
	e.Must(200, "POST", "/v1/pages/"+ids[0].(string)+"/renew", key, nil)
	waitState(t, e, key, gid, "cancelled", "active", "draft")
}

// Creating a workflow is all or nothing: one bad page body and no page exists.
func TestWorkflowCreationIsAtomic(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("flow-agent")
	bad := approvalBody("")
	for _, c := range []struct {
		body        map[string]any
		field, cons string
	}{
		{map[string]any{"name": "w", "pages": []any{approvalBody("a"), bad, approvalBody("c")}}, "pages[1].title", "required"},
		{map[string]any{"name": "w", "pages": []any{approvalBody("a"), map[string]any{"title": "b", "tags": "x"}}}, "pages[1].tags", "type"},
		{map[string]any{"name": "w", "pages": []any{approvalBody("a"), map[string]any{"title": "b", "priority": "asap"}}}, "pages[1].priority", "enum"},
		{map[string]any{"name": "w", "pages": []any{approvalBody("a"), map[string]any{"title": "b", "blocks": []any{map[string]any{"data": map[string]any{}}}}}}, "pages[1].blocks[0].type", "required"},
		{map[string]any{"name": "w", "pages": []any{approvalBody("a"), "page"}}, "pages[1]", "type"},
		{map[string]any{"name": "w", "flow": "circular", "pages": []any{approvalBody("a")}}, "flow", "enum"},
		{map[string]any{"name": "", "pages": []any{approvalBody("a")}}, "name", "required"},
		{map[string]any{"name": "w", "pages": []any{}}, "pages", "min_items"},
		{map[string]any{"name": "w"}, "pages", "min_items"},
	} {
		r := e.Do("POST", "/v1/workflows", key, c.body)
		d := r.ErrDetails(t)
		if r.Status != 400 || d["field"] != c.field || d["constraint"] != c.cons {
			t.Errorf("%v: %d %s, want 400 %s/%s", c.body, r.Status, r.Body, c.field, c.cons)
		}
	}
	many := make([]any, 21)
	for i := range many {
		many[i] = approvalBody("x")
	}
	if r := e.Do("POST", "/v1/workflows", key, map[string]any{"name": "w", "pages": many}); r.Status != 400 || r.ErrDetails(t)["constraint"] != "max_items" {
		t.Errorf("21 pages: %d %s", r.Status, r.Body)
	}
	if m := e.Must(200, "GET", "/v1/pages", key, nil); m["total"].(float64) != 0 {
		t.Errorf("refused workflows left %v pages", m["total"])
	}
	if u := e.Must(200, "GET", "/v1/tenant", key, nil)["usage"].(map[string]any); u["pages_this_month"].(float64) != 0 {
		t.Errorf("refused workflows counted usage: %v", u)
	}
	gid, _ := createWorkflow(t, e, key, "", 2) // flow defaults to sequential
	waitState(t, e, key, gid, "active", "active", "draft")
	if u := e.Must(200, "GET", "/v1/tenant", key, nil)["usage"].(map[string]any); u["pages_this_month"].(float64) != 2 {
		t.Errorf("a workflow's pages count as usage: %v", u)
	}
}

func TestWorkflowIsolationAndMissing(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("flow-agent")
	other, _ := e.Register("other-agent")
	gid, _ := createWorkflow(t, e, key, "parallel", 1)
	if r := e.Do("GET", "/v1/workflows/"+gid, other, nil); r.Status != 404 || r.ErrCode(t) != "NOT_FOUND" {
		t.Errorf("another tenant's workflow: %d", r.Status)
	}
	if r := e.Do("GET", "/v1/workflows/wf_nope", key, nil); r.Status != 404 {
		t.Errorf("missing workflow: %d", r.Status)
	}
	if r := e.Do("GET", "/v1/workflows/"+gid, "", nil); r.Status != 401 {
		t.Errorf("no key: %d", r.Status)
	}
}

// The workflow survives a restart, and steps keep being published after it.
func TestWorkflowAcrossRestart(t *testing.T) {
	t.Parallel()
	e := nodetest.New(t)
	key, _ := e.Register("flow-agent")
	gid, ids := createWorkflow(t, e, key, "sequential", 3)
	approve(t, e, key, ids[0])
	waitState(t, e, key, gid, "in_progress", "completed", "active", "draft")
	e = e.Reopen()
	waitState(t, e, key, gid, "in_progress", "completed", "active", "draft")
	approve(t, e, key, ids[1])
	waitState(t, e, key, gid, "in_progress", "completed", "completed", "active")
	e = e.Reopen()
	approve(t, e, key, ids[2])
	waitState(t, e, key, gid, "completed", "completed", "completed", "completed")
}
