package foliomcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	foliomcp "folio/transport/mcp"
	"folio/transport/node/nodetest"
)

// These tests hold the waiting design: no call waits longer than the bound
// (DecisionWait, below the 60 s request timeout of default-configured clients); a
// call that reaches it answers pending, and wait_for_decision, called again, gets
// the decision however long the person took, even one taken while nothing waited.

// progressed is one progress notification as the client got it.
type progressed struct {
	token           any
	progress, total float64
	message         string
}

// waitSession connects a client to a server with a short bound and heartbeat;
// every progress notification is recorded.
func waitSession(t *testing.T, o foliomcp.Options) (*mcp.ClientSession, func() []progressed) {
	t.Helper()
	var mu sync.Mutex
	var got []progressed
	c := mcp.NewClient(&mcp.Implementation{Name: "waiting-agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, progressed{req.Params.ProgressToken, req.Params.Progress, req.Params.Total, req.Params.Message})
			mu.Unlock()
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := foliomcp.NewServer(o).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs, func() []progressed {
		mu.Lock()
		defer mu.Unlock()
		return append([]progressed(nil), got...)
	}
}

// timed calls a tool and says how long it took.
func timed(t *testing.T, cs *mcp.ClientSession, name string, args any) (map[string]any, time.Duration) {
	t.Helper()
	start := time.Now()
	out := call(t, cs, name, args)
	return out, time.Since(start)
}

// TestRequestApprovalAnswersPendingAndWaitForDecisionGetsTheLaterDecision: with a
// 2 s bound, request_approval answers pending within it (the page's id, address and
// what to call next); a wait_for_decision that reaches the bound answers pending
// again; the person decides while no call waits; the next wait_for_decision
// answers the decision at once, and again when repeated.
func TestRequestApprovalAnswersPendingAndWaitForDecisionGetsTheLaterDecision(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-pending")
	const bound = 2 * time.Second
	cs, _ := waitSession(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key, DecisionWait: bound})

	first, took := timed(t, cs, "request_approval", map[string]any{"title": "Rotate the database password?"})
	id, _ := first["pageId"].(string)
	next, _ := first["next"].(string)
	if first["status"] != "pending" || first["timed_out"] != true || id == "" || first["pageUrl"] != e.Srv.URL+"/p/"+id ||
		!strings.Contains(next, "wait_for_decision") || !strings.Contains(next, id) {
		t.Fatalf("request_approval with nobody deciding answered %v", first)
	}
	if took < bound || took > bound+5*time.Second {
		t.Errorf("request_approval answered pending after %v, want the bound (%v)", took, bound)
	}
	// A larger timeout is waited as the bound: no call outlives it.
	again, took := timed(t, cs, "wait_for_decision", map[string]any{"page_id": id, "timeout_seconds": 600})
	if again["status"] != "pending" || took > bound+5*time.Second {
		t.Errorf("wait_for_decision with timeout_seconds 600: %v after %v, want pending within the bound", again, took)
	}

	// The person decides while nothing waits.
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/reject", "", map[string]any{"actor": map[string]any{"identity": "dba@example.com"}, "comment": "Not during the freeze"})
	for range 2 { // idempotent: the same answer each time
		got, took := timed(t, cs, "wait_for_decision", map[string]any{"page_id": id})
		if got["status"] != "completed" || got["decision"] != "rejected" || got["action_id"] != "reject" || got["decided_by"] != "dba@example.com" ||
			got["comment"] != "Not during the freeze" || got["timed_out"] != false || got["next"] != nil {
			t.Fatalf("wait_for_decision after the decision: %v", got)
		}
		if took >= bound {
			t.Errorf("wait_for_decision on a decided page took %v; it answers at once", took)
		}
	}
}

// TestWaitForDecisionReturnsADecisionTakenWhileItWaits: a call in flight answers
// as soon as the person decides.
func TestWaitForDecisionReturnsADecisionTakenWhileItWaits(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-inflight")
	cs, _ := waitSession(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key, DecisionWait: 30 * time.Second})
	id := call(t, cs, "publish_page", page)["pageId"].(string)
	done := make(chan map[string]any, 1)
	go func() { done <- call(t, cs, "wait_for_decision", map[string]any{"page_id": id}) }()
	time.Sleep(200 * time.Millisecond) // let the wait begin; a decision before it is answered at once, just as right
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", "", map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	select {
	case got := <-done:
		if got["status"] != "completed" || got["decision"] != "approved" {
			t.Fatalf("wait_for_decision: %v", got)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("wait_for_decision did not answer the decision")
	}
}

// TestWaitingCallsSendHeartbeats: a client that sent a progress token hears, every
// heartbeat, how long the call has waited out of its bound (progress strictly
// increasing, total the call's wait), with the page's address; none after the
// answer, and a client without a token gets none.
func TestWaitingCallsSendHeartbeats(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-heartbeat")
	cs, progress := waitSession(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key, DecisionWait: 2 * time.Second, Heartbeat: 300 * time.Millisecond})
	id := call(t, cs, "publish_page", page)["pageId"].(string)
	call(t, cs, "wait_for_decision", map[string]any{"page_id": id, "timeout_seconds": 1})
	if n := len(progress()); n != 0 {
		t.Fatalf("a call without a progress token got %d progress notifications", n)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait_for_decision",
		Arguments: map[string]any{"page_id": id}, Meta: mcp.Meta{"progressToken": "hb"}})
	if err != nil || res.IsError {
		t.Fatalf("wait_for_decision: %v %s", err, text(res))
	}
	got := progress()
	if len(got) < 3 {
		t.Fatalf("a 2 s wait with a 300 ms heartbeat sent %d progress notifications: %v", len(got), got)
	}
	last := -1.0
	for _, p := range got {
		if p.token != "hb" || p.total != 2 || p.progress <= last || p.progress > p.total+0.01 || !strings.Contains(p.message, "/p/"+id) {
			t.Errorf("heartbeat %+v (previous progress %v): want token hb, total 2, increasing progress, the page's address", p, last)
		}
		last = p.progress
	}
	time.Sleep(700 * time.Millisecond) // two heartbeats' time: none may follow the answer
	if n := len(progress()); n != len(got) {
		t.Errorf("%d progress notifications arrived after the answer", n-len(got))
	}
}

// TestATimeoutOfZeroIsRefused: timeout_seconds 0 or negative is an error naming
// it, not a silent default.
func TestATimeoutOfZeroIsRefused(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-zero")
	cs, _ := waitSession(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key, DecisionWait: time.Second})
	id := call(t, cs, "publish_page", page)["pageId"].(string)
	for _, v := range []int{0, -5} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait_for_decision", Arguments: map[string]any{"page_id": id, "timeout_seconds": v}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(text(res), "timeout_seconds") {
			t.Errorf("timeout_seconds %d: %s (error %v), want a refusal naming timeout_seconds", v, text(res), res.IsError)
		}
	}
}

// TestAPagePublishedWithoutActionsCanBeDecided: publish_page and create_draft
// without actions give the page Approve and Reject, so a person can decide it.
func TestAPagePublishedWithoutActionsCanBeDecided(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-defaults")
	cs, _ := waitSession(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key, DecisionWait: 5 * time.Second})
	draft := call(t, cs, "create_draft", map[string]any{"title": "A draft"})["pageId"].(string)
	call(t, cs, "publish_draft", map[string]any{"page_id": draft})
	for _, id := range []string{call(t, cs, "publish_page", map[string]any{"title": "No buttons given"})["pageId"].(string), draft} {
		got := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
		var ids []string
		for _, a := range got["actions"].([]any) {
			ids = append(ids, a.(map[string]any)["action_id"].(string))
		}
		if strings.Join(ids, ",") != "approve,reject" {
			t.Fatalf("a page published without actions has the actions %v", ids)
		}
		e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", "", map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
		if d := call(t, cs, "wait_for_decision", map[string]any{"page_id": id}); d["decision"] != "approved" {
			t.Errorf("the decision: %v", d)
		}
	}
}

// TestAnswersCarryNoZeroTimes: no answer shows 0001-01-01T00:00:00Z; an active
// page has no completed_at.
func TestAnswersCarryNoZeroTimes(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("mcp-times")
	cs, _ := waitSession(t, foliomcp.Options{BaseURL: e.Srv.URL, Key: key})
	id := call(t, cs, "publish_page", page)["pageId"].(string)
	call(t, cs, "add_comment", map[string]any{"page_id": id, "content": "A question?"})
	draft := call(t, cs, "create_draft", page)
	answers := map[string]map[string]any{
		"get_page":      call(t, cs, "get_page", map[string]any{"page_id": id}),
		"get_draft":     call(t, cs, "get_page", map[string]any{"page_id": draft["pageId"]}),
		"create_draft":  draft,
		"list_inbox":    call(t, cs, "list_inbox", map[string]any{}),
		"get_comments":  call(t, cs, "get_comments", map[string]any{"page_id": id}),
		"agent_events":  call(t, cs, "agent_events", map[string]any{}),
		"publish_draft": call(t, cs, "publish_draft", map[string]any{"page_id": draft["pageId"]}),
		"renew_page":    call(t, cs, "renew_page", map[string]any{"page_id": id}),
	}
	if _, ok := answers["get_page"]["completed_at"]; ok {
		t.Errorf("get_page on an active page has completed_at: %v", answers["get_page"]["completed_at"])
	}
	for name, a := range answers {
		b, _ := json.Marshal(a)
		if strings.Contains(string(b), "0001-01-01") {
			t.Errorf("%s answers a zero time: %s", name, b)
		}
	}
}
