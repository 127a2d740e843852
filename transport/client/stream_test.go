package client_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"folio/transport/client"
	"folio/transport/node/nodetest"
)

var errCut = errors.New("test: connection cut")

// cutter is an HTTP transport that breaks each agent-stream connection after a
// budget of bytes, wherever that falls (inside an event, too), and records the
// Last-Event-ID each connection asked for along with the id of the last event the
// reader had been given at that moment.
type cutter struct {
	base    http.RoundTripper
	mu      sync.Mutex
	budgets []int // bytes each successive connection may read; past the list: unlimited
	asked   []string
	given   []string
	last    string // the id of the last event the test received
}

func (c *cutter) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := c.base.RoundTrip(req)
	if err != nil || req.URL.Path != "/v1/agent/events" {
		return res, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.asked)
	c.asked = append(c.asked, req.Header.Get("Last-Event-ID"))
	c.given = append(c.given, c.last)
	if n < len(c.budgets) {
		res.Body = &cutBody{ReadCloser: res.Body, left: c.budgets[n]}
	}
	return res, nil
}

func (c *cutter) received(id string) {
	c.mu.Lock()
	c.last = id
	c.mu.Unlock()
}

func (c *cutter) connections() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.asked)
}

type cutBody struct {
	io.ReadCloser
	left int
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errCut
	}
	if len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= n
	return n, err
}

// TestEventsResumeExactlyOnceAcrossCutConnections: while a writer publishes a page
// and comments on it, the agent reads its stream through a transport that cuts
// each of 40 connections after a random number of bytes (mostly in the middle of an
// event). Every reconnection asks for the events after the last one the reader got,
// and the reader gets every event of the tenant exactly once, in order: the same
// list as the agent inbox.
func TestEventsResumeExactlyOnceAcrossCutConnections(t *testing.T) {
	e, c := agent(t, "resumer")
	cx := ctx(t)
	rng := rand.New(rand.NewPCG(3, 5))
	cut := &cutter{base: http.DefaultTransport}
	for range 40 {
		cut.budgets = append(cut.budgets, 150+rng.IntN(2500))
	}
	reader := client.New(e.Srv.URL, keyOf(c), client.WithHTTPClient(&http.Client{Transport: cut}))

	s, err := reader.Events(cx, "0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const comments = 300
	writerDone := make(chan error, 1)
	go func() {
		id, err := c.Publish(cx, approvalPage("Chatty"))
		for i := 1; err == nil && i <= comments; i++ {
			_, err = c.AddComment(cx, id.PageID, client.CommentRequest{Content: fmt.Sprintf("c%03d", i), AuthorName: "writer"})
		}
		writerDone <- err
	}()

	var got []client.Event
	for {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("Next after %d events: %v", len(got), err)
		}
		if ev.Type == client.EventReset {
			t.Fatalf("unexpected reset: %s", ev.Data)
		}
		got = append(got, *ev)
		cut.received(ev.ID)
		var d struct {
			Content string `json:"content"`
		}
		_ = json.Unmarshal(ev.Data, &d)
		if ev.Type == "comment.added" && d.Content == fmt.Sprintf("c%03d", comments) {
			break
		}
	}
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
	if s.LastEventID() != got[len(got)-1].ID {
		t.Errorf("LastEventID %q, last event %q", s.LastEventID(), got[len(got)-1].ID)
	}

	// Exactly the agent inbox, in order.
	inbox := must(c.AgentInbox(cx, client.ListOptions{Limit: 500}))(t)
	if inbox.Total != len(got) {
		t.Fatalf("received %d events, the inbox holds %d", len(got), inbox.Total)
	}
	for i, ev := range got {
		want := inbox.Events[i]
		if ev.ID != want.ID || ev.EventID != want.EventID || ev.Type != want.Type || ev.PageID != want.PageID || ev.Timestamp.IsZero() {
			t.Fatalf("event %d = %s %s %s, inbox has %s %s %s", i, ev.ID, ev.Type, ev.EventID, want.ID, want.Type, want.EventID)
		}
		if n, _ := strconv.Atoi(ev.ID); i > 0 && strconv.Itoa(n) == got[i-1].ID {
			t.Fatalf("event %d repeats id %s", i, ev.ID)
		}
	}

	// Every reconnection resumed after the last event the reader had been given.
	cut.mu.Lock()
	asked, given := slices.Clone(cut.asked), slices.Clone(cut.given)
	cut.mu.Unlock()
	t.Logf("%d connections, %d events", len(asked), len(got))
	if len(asked) < 20 {
		t.Fatalf("only %d connections: the cuts did not happen", len(asked))
	}
	for i := 1; i < len(asked); i++ {
		if want := cmpOr(given[i], "0"); asked[i] != want {
			t.Errorf("connection %d asked Last-Event-ID %q; the reader's last event was %q", i, asked[i], want)
		}
	}

	// Acknowledging by stream id and by event id empties the inbox one by one.
	if err := c.Ack(cx, got[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := c.Ack(cx, got[1].EventID); err != nil {
		t.Fatal(err)
	}
	if after := must(c.AgentInbox(cx, client.ListOptions{Limit: 1}))(t); after.Total != len(got)-2 || after.Events[0].ID != got[2].ID || after.Events[0].Acknowledged {
		t.Errorf("inbox after two acks: total %d, first %+v", after.Total, after.Events)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// newKey makes another key of c's tenant, named name.
func newKey(t *testing.T, e *nodetest.Env, c *client.Client, name string) string {
	t.Helper()
	return e.Must(201, "POST", "/v1/account/api-keys", keyOf(c), map[string]any{"name": name})["key"].(string)
}

// TestEventsStartLiveAndResetOnAnUnknownID: from "" the stream holds the events
// after Events returns, and a reconnection goes on from the connected event's
// position, even before any event arrived; an id
// the server never issued gives a reset (unknown_id) first, then the live events
// after its latest id.
func TestEventsStartLiveAndResetOnAnUnknownID(t *testing.T) {
	e, c := agent(t, "live")
	cx := ctx(t)
	first := must(c.Publish(cx, approvalPage("Before")))(t)

	// The first connection breaks before its connected event, the second after it
	// (inside the first event): Events returns once a connection has said where live
	// events begin, and the third connection asks for the events after that point.
	cut := &cutter{base: http.DefaultTransport, budgets: []int{0, 150}}
	live := client.New(e.Srv.URL, keyOf(c), client.WithHTTPClient(&http.Client{Transport: cut}))
	s := must(live.Events(cx, ""))(t)
	defer s.Close()
	second := must(c.Publish(cx, approvalPage("After")))(t)
	ev := must(s.Next())(t)
	if ev.Type != "page.created" || ev.PageID != second.PageID {
		t.Fatalf("first live event = %+v (the page before the stream was %s)", ev, first.PageID)
	}
	if n, _ := strconv.Atoi(ev.ID); cut.connections() != 3 || cut.asked[1] != "" || cut.asked[2] != strconv.Itoa(n-1) {
		t.Errorf("connections %d asking Last-Event-ID %q; the first live event is %s", cut.connections(), cut.asked, ev.ID)
	}

	r := must(c.Events(cx, "999999"))(t)
	defer r.Close()
	reset := must(r.Next())(t)
	var rd client.ResetData
	if err := json.Unmarshal(reset.Data, &rd); err != nil || reset.Type != client.EventReset || reset.ID != "" || rd.Reason != "unknown_id" || rd.LatestID == "" {
		t.Fatalf("reset = %+v (%+v, %v)", reset, rd, err)
	}
	if r.LastEventID() != rd.LatestID {
		t.Errorf("after the reset LastEventID = %q, want the latest id %q", r.LastEventID(), rd.LatestID)
	}
	third := must(c.Publish(cx, approvalPage("Later")))(t)
	next := must(r.Next())(t)
	latest, _ := strconv.Atoi(rd.LatestID)
	if next.PageID != third.PageID || next.ID != strconv.Itoa(latest+1) {
		t.Errorf("after the reset: %+v, want page %s with id %d", next, third.PageID, latest+1)
	}
}

// TestEventsEndWhenTheKeyIsDeleted: deleting the key that opened a stream ends it
// with a reset (credential_revoked); the reconnection is refused (401) and Next
// returns that refusal, again and again, instead of retrying forever.
func TestEventsEndWhenTheKeyIsDeleted(t *testing.T) {
	e, c := agent(t, "revoked")
	cx := ctx(t)
	s := must(client.New(e.Srv.URL, newKey(t, e, c, "doomed")).Events(cx, ""))(t)
	defer s.Close()
	var keys struct {
		Keys []struct{ ID, Name string } `json:"keys"`
	}
	r := e.Do("GET", "/v1/account/api-keys", keyOf(c), nil)
	if err := json.Unmarshal(r.Body, &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys.Keys {
		if k.Name == "doomed" {
			e.Must(204, "DELETE", "/v1/account/api-keys/"+k.ID, keyOf(c), nil)
		}
	}
	ev := must(s.Next())(t)
	if ev.Type != client.EventReset || !json.Valid(ev.Data) {
		t.Fatalf("first event after the deletion = %+v", ev)
	}
	var rd client.ResetData
	_ = json.Unmarshal(ev.Data, &rd)
	if rd.Reason != "credential_revoked" {
		t.Errorf("reset reason %q", rd.Reason)
	}
	for range 2 {
		if _, err := s.Next(); !client.IsUnauthorized(err) {
			t.Fatalf("Next after the key's deletion: %v", err)
		}
	}
}

// TestASilentConnectionIsReconnected: with an idle limit far below the server's
// keepalive, the client gives up on a connection that says nothing, reconnects
// from its position, and still gets the next event exactly once.
func TestASilentConnectionIsReconnected(t *testing.T) {
	e, c := agent(t, "silent")
	cx := ctx(t)
	cut := &cutter{base: http.DefaultTransport}
	quiet := client.New(e.Srv.URL, keyOf(c), client.WithHTTPClient(&http.Client{Transport: cut}), client.WithStreamIdle(150*time.Millisecond))
	s := must(quiet.Events(cx, ""))(t)
	defer s.Close()
	next := make(chan *client.Event, 2)
	go func() {
		for {
			ev, err := s.Next()
			if err != nil {
				close(next)
				return
			}
			next <- ev
		}
	}()
	eventually(t, 5*time.Second, "reconnections of the silent stream", func() bool { return cut.connections() >= 3 })
	pub := must(c.Publish(cx, approvalPage("Wake up")))(t)
	if ev := <-next; ev == nil || ev.Type != "page.created" || ev.PageID != pub.PageID {
		t.Fatalf("after silent reconnections: %+v", ev)
	}
	if ev := <-next; ev == nil || ev.Type != "page.published" {
		t.Fatalf("then: %+v", ev)
	}
	s.Close()
	for ev := range next {
		if ev.Type == "page.created" || ev.Type == "page.published" {
			t.Errorf("an event came twice: %+v", ev)
		}
	}
}
