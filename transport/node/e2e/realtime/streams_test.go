package realtime_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestPageStreamOpensWithConnectedAndKeepsAlive: the page stream answers with the
// headers of specification §6.1 plus X-Accel-Buffering, sends `connected` before
// anything else, and a `: keepalive` comment every (shortened) interval; the comment
// stream sends `: heartbeat` at once.
func TestPageStreamOpensWithConnectedAndKeepsAlive(t *testing.T) {
	e := nodetest.New(t, keepaliveFast)
	key, _ := e.Register("streamer")
	id := e.Publish(key, nil)

	c := openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	for h, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "Connection": "keep-alive", "X-Accel-Buffering": "no"} {
		if got := c.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	first := c.next(5 * time.Second)
	if first.Type != "connected" || first.Payload["pageId"] != id || first.ID != "" {
		t.Fatalf("first message: %s (id %q)", first.Raw, first.ID)
	}
	// Six keepalives: five intervals of 150 ms after the first, 750 ms. A loaded
	// reader may take a line late and the next ones at once, so the lower bound
	// leaves that slack (at least two intervals): a server that did not wait
	// between keepalives would send all six in a moment.
	var firstAt time.Time
	for i := 0; i < 6; i++ {
		select {
		case line := <-c.comments:
			if line != ": keepalive" {
				t.Fatalf("comment line %q", line)
			}
			if i == 0 {
				firstAt = time.Now()
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("no keepalive %d", i+1)
		}
	}
	if d := time.Since(firstAt); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("six keepalives at 150ms came within %v of the first", d)
	}

	// WebSocket clients are pinged at the same interval; one that answers stays.
	w := openWS(t, e, "/v1/pages/"+id+"/events", "")
	w.expect("connected")
	time.Sleep(600 * time.Millisecond)
	comment(t, e, key, id, "after pings")
	if m, _ := w.expect("comment.added"); m.data()["content"] != "after pings" {
		t.Fatalf("after pings: %s", m.Raw)
	}

	cs := openSSE(t, e, "/v1/pages/"+id+"/comments/stream", "", "")
	select {
	case line := <-cs.comments:
		if line != ": heartbeat" {
			t.Fatalf("comment stream opened with %q", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no heartbeat on the comment stream")
	}
}

// allTypes drives one page through every event it can emit; returns the types in order.
func driveEveryEvent(t *testing.T, e *nodetest.Env, key, id string) {
	t.Helper()
	p := "/v1/pages/" + id
	e.Must(200, "PATCH", p, key, map[string]any{"title": "Deploy v3?"})
	app := e.Must(200, "PATCH", p+"/blocks", key, map[string]any{"blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "more"}}}})
	bid := app["appendedBlockIds"].([]any)[0].(string)
	e.Must(200, "PATCH", p+"/blocks/"+bid, key, map[string]any{"data": map[string]any{"content": "fixed"}})
	e.Must(200, "PUT", p+"/blocks/reorder", key, map[string]any{"block_order": []string{bid}})
	e.Must(200, "POST", p+"/blocks/insert", key, map[string]any{"position": 0, "block": map[string]any{"type": "divider", "data": map[string]any{}}})
	cid := comment(t, e, key, id, "looks good")
	e.Must(200, "PATCH", p+"/comments/"+cid, key, map[string]any{"content": "looks great"})
	e.Must(204, "DELETE", p+"/comments/"+cid, key, nil)
	fid := upload(t, e, key, id, "notes.txt", []byte("hello file"))
	e.Must(204, "DELETE", p+"/files/"+fid, key, nil)
	e.Must(200, "POST", "/internal/pages/"+id+"/view", "", nil)
	e.Must(200, "POST", p+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "alice@example.com"}})
}

// driven are the events driveEveryEvent causes, in order.
var driven = []string{"page.updated", "blocks.appended", "block.updated", "blocks.reordered", "block.inserted",
	"comment.added", "comment.updated", "comment.deleted", "file.uploaded", "file.deleted", "page.viewed",
	"action.executed", "page.completed"}

// TestEveryEventTypeArrivesOverSSEAndWebSocket: one page is driven through every
// event while six streams listen: page, comment and agent stream, each over SSE and
// over WebSocket. Each carries exactly its events, in commit order, every event with
// the tenant's sequence number as id; the WebSocket messages are byte for byte the
// SSE data lines. A draft published, revoked, expired and renewed emits the status
// events too.
func TestEveryEventTypeArrivesOverSSEAndWebSocket(t *testing.T) {
	clk := nodetest.NewClock(time.Now())
	e := nodetest.Open(t, t.TempDir(), clk)
	key, _ := e.Register("streamer")
	id := e.Publish(key, nil)
	streams := map[string]*client{
		"page/sse":     openSSE(t, e, "/v1/pages/"+id+"/events", "", ""),
		"page/ws":      openWS(t, e, "/v1/pages/"+id+"/events", ""),
		"comments/sse": openSSE(t, e, "/v1/pages/"+id+"/comments/stream", "", ""),
		"comments/ws":  openWS(t, e, "/v1/pages/"+id+"/comments/stream", ""),
		"agent/sse":    openSSE(t, e, "/v1/agent/events", key, ""),
		"agent/ws":     openWS(t, e, "/v1/agent/events", key),
	}
	for name, c := range streams {
		if strings.HasPrefix(name, "comments/sse") {
			continue // the SSE comment stream opens with `: heartbeat`, no event
		}
		if m := c.next(5 * time.Second); m.Type != "connected" {
			t.Fatalf("%s opened with %s", name, m.Raw)
		}
	}
	driveEveryEvent(t, e, key, id)

	want := map[string][]string{}
	for _, typ := range driven {
		want["agent"] = append(want["agent"], typ)
		if typ != "page.viewed" {
			want["page"] = append(want["page"], typ)
		}
		if strings.HasPrefix(typ, "comment.") {
			want["comments"] = append(want["comments"], typ)
		}
	}
	got := map[string][]msg{}
	for name, c := range streams {
		kind := strings.Split(name, "/")[0]
		n := len(want[kind])
		got[name] = c.collect(10*time.Second, func(ms []msg) bool { return len(ms) >= n })
		if g := types(got[name]); strings.Join(g, ",") != strings.Join(want[kind], ",") {
			t.Errorf("%s: got %v\nwant %v", name, g, want[kind])
		}
		c.quiet(100 * time.Millisecond)
	}
	// ids: the tenant's sequence, strictly increasing; the same event has the same id
	// on every stream, and the same bytes over SSE and WebSocket; the page streams
	// carry the agent's bytes too, except action.executed, whose reviewer comment and
	// form data only the agent sees.
	bytesByID := map[string][]byte{}
	for name, ms := range got {
		kind := strings.Split(name, "/")[0]
		if kind == "comments" {
			kind = "page"
		}
		prev := uint64(0)
		for _, m := range ms {
			n, err := strconv.ParseUint(m.ID, 10, 64)
			if err != nil || n <= prev {
				t.Fatalf("%s: id %q after %d", name, m.ID, prev)
			}
			prev = n
			if m.Payload["id"] != m.ID || m.Payload["pageId"] != id || m.Payload["timestamp"] == nil || m.Payload["eventId"] == nil {
				t.Fatalf("%s: payload %s", name, m.Raw)
			}
			if b, ok := bytesByID[kind+m.ID]; ok && !bytes.Equal(b, m.Raw) {
				t.Fatalf("event %s differs between transports:\n%s\n%s", m.ID, b, m.Raw)
			}
			bytesByID[kind+m.ID] = m.Raw
		}
	}
	for id, b := range bytesByID {
		if strings.HasPrefix(id, "page") {
			agentBytes := bytesByID["agent"+strings.TrimPrefix(id, "page")]
			if executed := bytes.Contains(b, []byte(`"action.executed"`)); executed == bytes.Equal(b, agentBytes) {
				t.Errorf("page and agent bytes of %s:\n%s\n%s", id, b, agentBytes)
			}
			if bytes.Contains(b, []byte(`"form_data"`)) || bytes.Contains(b, []byte(`"comment":`)) {
				t.Errorf("private fields on the page stream: %s", b)
			}
		}
	}
	// Payloads of specification §6.1.
	byType := map[string]msg{}
	for _, m := range got["agent/sse"] {
		byType[m.Type] = m
	}
	// The content version: 1 at publishing, 2 after the title's change, 3 after the append.
	if d := byType["blocks.appended"].data(); d["version"] != 3.0 || len(d["newBlocks"].([]any)) != 1 {
		t.Errorf("blocks.appended data: %v", d)
	}
	if d := byType["action.executed"].data(); d["actionId"] != "approve" || d["actor"] != "alice@example.com" {
		t.Errorf("action.executed data: %v", d)
	}
	if d := byType["comment.added"].data(); d["commentId"] == nil || d["content"] != "looks good" {
		t.Errorf("comment.added data: %v", d)
	}
	if d := byType["file.uploaded"].data(); d["fileId"] == nil || d["filename"] != "notes.txt" {
		t.Errorf("file.uploaded data: %v", d)
	}
	if d := byType["page.viewed"].data(); d["view_count"] != 1.0 || d["user_agent"] == nil {
		t.Errorf("page.viewed data: %v", d)
	}
	if a, _ := byType["page.viewed"].Payload["actor"].(map[string]any); a["identity"] == nil || a["auth_method"] == nil {
		t.Errorf("page.viewed actor: %s", byType["page.viewed"].Raw)
	}

	// Status events: a draft (its owner may watch it) is published, revoked; another
	// page expires and is renewed.
	draft := e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "Draft"})["pageId"].(string)
	ds := openSSE(t, e, "/v1/pages/"+draft+"/events", key, "")
	dw := openWS(t, e, "/v1/pages/"+draft+"/events", key)
	e.Must(200, "POST", "/v1/pages/"+draft+"/publish", key, nil)
	e.Must(200, "POST", "/v1/pages/"+draft+"/revoke", key, map[string]any{"reason": "wrong"})
	for _, c := range []*client{ds, dw} {
		ms := c.collect(5*time.Second, func(ms []msg) bool { return len(ms) >= 3 })
		if g := strings.Join(types(ms), ","); g != "connected,page.published,page.revoked" {
			t.Errorf("draft stream: %s", g)
		}
	}
	soon := e.Publish(key, map[string]any{"expires_at": clk.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	ss := openSSE(t, e, "/v1/pages/"+soon+"/events", "", "")
	sw := openWS(t, e, "/v1/pages/"+soon+"/events", "")
	clk.Advance(2 * time.Hour)
	for _, c := range []*client{ss, sw} {
		c.expect("page.expired")
	}
	e.Must(200, "POST", "/v1/pages/"+soon+"/renew", key, nil)
	for _, c := range []*client{ss, sw} {
		c.expect("page.renewed")
	}
}

// TestApprovalEventsArriveOnEveryStream: a page with a two-step approval chain
// emits approval.step_completed and approval.chain_completed, on the page stream and
// the agent stream, over both transports.
func TestApprovalEventsArriveOnEveryStream(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("approver")
	id := e.Publish(key, map[string]any{"approval_chain": map[string]any{"steps": []any{
		map[string]any{"name": "Lead", "assignees": []string{"lead@example.com"}},
		map[string]any{"name": "CTO", "assignees": []string{"cto@example.com"}},
	}}})
	cs := []*client{openSSE(t, e, "/v1/pages/"+id+"/events", "", ""), openWS(t, e, "/v1/pages/"+id+"/events", ""),
		openSSE(t, e, "/v1/agent/events", key, ""), openWS(t, e, "/v1/agent/events", key)}
	for _, who := range []string{"lead@example.com", "cto@example.com"} {
		e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": who}})
	}
	for _, c := range cs {
		c.expect("approval.step_completed")
		c.expect("approval.step_completed")
		c.expect("approval.chain_completed")
	}
}

// TestStreamAccessFollowsThePagePolicy: public pages stream without a credential;
// an authenticated page needs its tenant's key (401 without, 404 with another
// tenant's); drafts and revoked pages are the owner's alone; unknown pages and bad
// keys are refused before any stream opens (JSON errors, not streams).
func TestStreamAccessFollowsThePagePolicy(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("owner")
	other, _ := e.Register("other")
	private := e.Publish(key, map[string]any{"access": map[string]any{"mode": "authenticated", "allowed_identities": []any{map[string]any{"type": "email", "value": "a@example.com"}}}})
	draft := e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "Draft"})["pageId"].(string)
	revoked := e.Publish(key, nil)
	e.Must(200, "POST", "/v1/pages/"+revoked+"/revoke", key, nil)

	for _, path := range []string{"/events", "/comments/stream", "/comments", "/files"} {
		for _, tc := range []struct {
			page, key, code string
			status          int
		}{
			{private, "", "UNAUTHORIZED", 401},
			{private, other, "NOT_FOUND", 404},
			{private, "sk_live_notakey", "UNAUTHORIZED", 401},
			{draft, "", "NOT_FOUND", 404},
			{revoked, "", "NOT_FOUND", 404},
			{"pg_missing", "", "NOT_FOUND", 404},
		} {
			r := e.Do("GET", "/v1/pages/"+tc.page+path, tc.key, nil)
			if r.Status != tc.status || r.ErrCode(t) != tc.code {
				t.Errorf("GET %s%s with key %q: %d %s", tc.page, path, tc.key, r.Status, r.Body)
			}
		}
	}
	for _, pg := range []string{private, draft, revoked} {
		c := openSSE(t, e, "/v1/pages/"+pg+"/events", key, "")
		if m := c.next(5 * time.Second); m.Type != "connected" {
			t.Fatalf("owner stream of %s: %s", pg, m.Raw)
		}
		c.Close()
	}
	if r := e.Do("GET", "/v1/agent/events", "", nil); r.Status != 401 {
		t.Fatalf("agent stream without key: %d", r.Status)
	}
	if r := e.Do("GET", "/v1/agent/events", "sk_live_notakey", nil); r.Status != 401 {
		t.Fatalf("agent stream with a bad key: %d", r.Status)
	}
	if r := e.Do("GET", "/v1/agent/events?last_event_id=abc", key, nil); r.Status != 400 || r.ErrDetails(t)["field"] != "last_event_id" {
		t.Fatalf("agent stream with a bad id: %d %s", r.Status, r.Body)
	}
}

// TestLivePagesStayInMemory: a page with a live subscriber is not passivated (its
// events keep arriving long after the idle time); once the subscriber leaves it is.
func TestLivePagesStayInMemory(t *testing.T) {
	e := nodetest.New(t, func(c *node.Config) { c.IdleAfter = 50 * time.Millisecond })
	key, _ := e.Register("idle")
	id := e.Publish(key, nil)
	c := openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	c.expect("connected")
	time.Sleep(400 * time.Millisecond) // several idle periods
	comment(t, e, key, id, "still there?")
	if m, _ := c.expect("comment.added"); m.data()["content"] != "still there?" {
		t.Fatalf("event: %s", m.Raw)
	}
	w := openWS(t, e, "/v1/pages/"+id+"/events", "")
	w.expect("connected")
	time.Sleep(300 * time.Millisecond)
	comment(t, e, key, id, "and now?")
	w.expect("comment.added")
	c.expect("comment.added")
}

// TestClosingTheNodeEndsStreams: closing the node ends every open stream (clients
// see the end of the response, not a hang).
func TestClosingTheNodeEndsStreams(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("closer")
	id := e.Publish(key, nil)
	s := openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	a := openSSE(t, e, "/v1/agent/events", key, "")
	w := openWS(t, e, "/v1/pages/"+id+"/events", "")
	for _, c := range []*client{s, a, w} {
		c.expect("connected")
	}
	done := make(chan struct{})
	go func() { e.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("closing the node hung on open streams")
	}
	for i, c := range []*client{s, a, w} {
		if !c.ended(5 * time.Second) {
			t.Fatalf("stream %d still open after the node closed", i)
		}
	}
}

// TestStreamsOfManyClientsInParallel: many SSE and WebSocket clients connect and
// disconnect concurrently while events are published; every client that stays sees
// every event exactly once, in order.
func TestStreamsOfManyClientsInParallel(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("crowd")
	id := e.Publish(key, nil)
	const stayers, churners, events = 40, 40, 50
	var cs []*client
	for i := 0; i < stayers; i++ {
		var c *client
		if i%2 == 0 {
			c = openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
		} else {
			c = openWS(t, e, "/v1/pages/"+id+"/events", "")
		}
		c.expect("connected")
		cs = append(cs, c)
	}
	stop := make(chan struct{})
	churned := make(chan int)
	go func() {
		n := 0
		defer func() { churned <- n }()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			c, err := dialSSE(e, "/v1/pages/"+id+"/events", "", "")
			if err != nil {
				continue
			}
			c.t = t
			time.Sleep(time.Duration(i%5) * time.Millisecond)
			c.Close()
			n++
		}
	}()
	for i := 0; i < events; i++ {
		comment(t, e, key, id, fmt.Sprintf("event %03d", i))
	}
	close(stop)
	if n := <-churned; n < churners/4 {
		t.Logf("only %d churning connections", n)
	}
	for i, c := range cs {
		ms := c.collect(10*time.Second, func(ms []msg) bool { return len(ms) >= events })
		var contents []string
		for _, m := range ms {
			contents = append(contents, m.data()["content"].(string))
		}
		if !sort.StringsAreSorted(contents) || len(contents) != events {
			t.Fatalf("client %d: %v", i, contents)
		}
		c.quiet(50 * time.Millisecond)
	}
	// Every churned connection is gone from the page again.
	eventually(t, 5*time.Second, "churned subscribers to leave", func() bool {
		return subscribers(t, e) == stayers
	})
	if sse, ws := subscribersBy(t, e); sse != stayers/2 || ws != stayers/2 {
		t.Errorf("open connections by transport: sse %d, ws %d; want %d each", sse, ws, stayers/2)
	}
}

// subscribers reads folio_stream_subscribers from /metrics (both transports).
func subscribers(t *testing.T, e *nodetest.Env) int {
	sse, ws := subscribersBy(t, e)
	return sse + ws
}

// subscribersBy reads folio_stream_subscribers{transport="sse"|"ws"} from /metrics.
func subscribersBy(t *testing.T, e *nodetest.Env) (sse, ws int) {
	t.Helper()
	res, err := http.Get(e.Srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		for prefix, dst := range map[string]*int{`folio_stream_subscribers{transport="sse"} `: &sse, `folio_stream_subscribers{transport="ws"} `: &ws} {
			if v, ok := strings.CutPrefix(line, prefix); ok {
				n, _ := strconv.ParseFloat(v, 64)
				*dst = int(n)
				found++
			}
		}
	}
	if found != 2 {
		t.Fatalf("folio_stream_subscribers by transport: found %d of 2 series", found)
	}
	return sse, ws
}

// TestViewerInputStaysOffPublicStreams: form.submitted (a viewer's form data) and
// page.viewed reach the owning agent's stream, never the page's public stream.
func TestViewerInputStaysOffPublicStreams(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("forms")
	id := e.Publish(key, map[string]any{"blocks": []any{map[string]any{"type": "form", "data": map[string]any{
		"fields": []any{map[string]any{"field_id": "reason", "type": "text", "label": "Reason"}}}}}})
	public := openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	public.expect("connected")
	agent := openWS(t, e, "/v1/agent/events", key)
	agent.expect("connected")
	e.Must(200, "POST", "/internal/pages/"+id+"/view", "", nil)
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"form_data": map[string]any{"reason": "secret"}})
	got := agent.collect(5*time.Second, func(ms []msg) bool { return len(ms) >= 4 })
	if g := strings.Join(types(got), ","); g != "page.viewed,action.executed,form.submitted,page.completed" {
		t.Fatalf("agent: %s", g)
	}
	pub := public.collect(5*time.Second, func(ms []msg) bool { return len(ms) >= 2 })
	if g := strings.Join(types(pub), ","); g != "action.executed,page.completed" {
		t.Fatalf("public: %s", g)
	}
	public.quiet(100 * time.Millisecond)
}
