package page

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"folio/actors/model/frame"
	"folio/persistence"
)

// fakeSub records frames; refuse makes Send fail (a subscriber that fell behind).
type fakeSub struct {
	got    []string
	refuse bool
}

func (f *fakeSub) Close()           {}
func (f *fakeSub) End(*frame.Frame) {}

func (f *fakeSub) Send(fr *frame.Frame) bool {
	if f.refuse {
		return false
	}
	f.got = append(f.got, fr.Type)
	return true
}

// TestFrameIsOneEncodingForEveryStream: the SSE event is "id: <seq>" plus the JSON
// payload as its data line; the payload carries id, type, pageId, timestamp,
// eventId, data (and actor when a person acted) and never a raw newline.
func TestFrameIsOneEncodingForEveryStream(t *testing.T) {
	e := Event{ID: "evt_1", Seq: 42, Type: "comment.added", PageID: "pg_1", TenantID: "t", At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Data: commentAdded{Content: "line1\nline2 <b>"}, Actor: &Person{Identity: "a@b"}}
	f := FrameOf(&e)
	if string(f.SSE) != "id: 42\ndata: "+string(f.JSON)+"\n\n" || !f.Comment || f.Seq != 42 {
		t.Fatalf("frame %q", f.SSE)
	}
	if strings.Contains(string(f.JSON), "\n") {
		t.Fatalf("payload has a newline: %s", f.JSON)
	}
	var p map[string]any
	if err := json.Unmarshal(f.JSON, &p); err != nil {
		t.Fatal(err)
	}
	if p["id"] != "42" || p["type"] != "comment.added" || p["pageId"] != "pg_1" || p["eventId"] != "evt_1" ||
		p["timestamp"] != "2026-01-02T03:04:05Z" || p["data"].(map[string]any)["content"] != "line1\nline2 <b>" || p["actor"] == nil {
		t.Fatalf("payload %s", f.JSON)
	}
	if string(EncodeEvent(&e)) != string(f.JSON) {
		t.Fatal("encoding is not deterministic")
	}
	c := frame.Control("connected", map[string]any{"type": "connected", "pageId": "pg_1"})
	if strings.HasPrefix(string(c.SSE), "id:") || c.Seq != 0 {
		t.Fatalf("control frame %q", c.SSE)
	}
}

// TestSealedEventKeepsItsPayloadWhenTheLogNumbersIt: commits seal events before the
// transaction and the agent log assigns Seq inside it; the payload on every stream is
// still exactly what encoding the numbered event gives, with the new id.
func TestSealedEventKeepsItsPayloadWhenTheLogNumbersIt(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	fresh := func() Event {
		comment := "ok \"quoted\" <&>"
		return Event{ID: "evt_0AbC", Type: "action.executed", PageID: "pg_1", TenantID: "t", At: at,
			Data: ActionExecuted{ActionID: "approve", Comment: &comment}, Actor: &Person{Identity: "a@b"}}
	}
	sealed := fresh()
	sealed.Seal()
	sealed.Seq = 7
	e := fresh() // the payload encoded directly, as a reader would expect it
	var want strings.Builder
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Payload{ID: "7", Type: e.Type, PageID: e.PageID, Timestamp: "2026-01-02T03:04:05.000000006Z", EventID: e.ID, Data: e.AgentData(), Actor: e.Actor}); err != nil {
		t.Fatal(err)
	}
	if got := string(EncodeEvent(&sealed)); got != strings.TrimSuffix(want.String(), "\n") {
		t.Fatalf("sealed %s\ndirect %s", got, want.String())
	}
	var p Payload
	if err := json.Unmarshal(EncodeEvent(&sealed), &p); err != nil || p.ID != "7" || p.EventID != "evt_0AbC" || p.Data.(map[string]any)["comment"] != "ok \"quoted\" <&>" {
		t.Fatalf("payload %+v (%v)", p, err)
	}
	if pub := publicFrameOf(&sealed); strings.Contains(string(pub.JSON), "comment") || !strings.Contains(string(pub.JSON), `"id":"7"`) {
		t.Fatalf("public frame of a sealed event: %s", pub.JSON) // the seal holds the private fields
	}
	unnumbered := fresh() // no agent log: the stream id is the event id
	unnumbered.Seal()
	if err := json.Unmarshal(EncodeEvent(&unnumbered), &p); err != nil || p.ID != "evt_0AbC" {
		t.Fatalf("payload %+v (%v)", p, err)
	}
}

// TestFanoutFiltersAndDropsRefusingSubscribers: comment subscribers get comment
// events only; page.viewed reaches nobody; a subscriber that refuses a frame is
// forgotten at once while the others continue.
func TestFanoutFiltersAndDropsRefusingSubscribers(t *testing.T) {
	a := &Actor{id: "pg_1", page: &Page{ID: "pg_1", TenantID: "t"}}
	all, comments, slow := &fakeSub{}, &fakeSub{}, &fakeSub{refuse: true}
	a.subs.add(subscription{sub: all})
	a.subs.add(subscription{sub: comments, comments: true})
	a.subs.add(subscription{sub: slow})
	now := time.Now()
	a.fanout([]Event{
		{Type: "comment.added", PageID: "pg_1", At: now},
		{Type: "page.viewed", PageID: "pg_1", At: now},
		{Type: "blocks.appended", PageID: "pg_1", At: now},
	})
	if strings.Join(all.got, ",") != "comment.added,blocks.appended" || strings.Join(comments.got, ",") != "comment.added" {
		t.Fatalf("all %v comments %v", all.got, comments.got)
	}
	if len(a.subs.list) != 2 {
		t.Fatalf("the refusing subscriber is still there: %d", len(a.subs.list))
	}
	a.subs.remove(all)
	a.subs.remove(all)
	a.subs.remove(comments)
	if a.subs.live() || len(a.subs.at) != 0 {
		t.Fatal("subscribers left")
	}
}

// TestReplayedFramesMatchLiveOnes: an event re-framed from its stored agent payload
// is byte for byte the frame the public stream sent live (numbers, actor and all,
// private fields left out); events the public streams never carry are refused.
func TestReplayedFramesMatchLiveOnes(t *testing.T) {
	comment := "private"
	e := Event{ID: "evt_1", Seq: 9007199254740993, Type: "action.executed", PageID: "pg_1", TenantID: "t",
		At: time.Date(2026, 11, 22, 1, 2, 3, 456789000, time.UTC),
		Data: ActionExecuted{ActionID: "approve", Comment: &comment, FormData: json.RawMessage(`{"x":1}`),
			Receipt: NewReceipt(persistence.AuditRecord{Seq: 3, Hash: "sha256:ab", Entry: []byte(`{"comment":"private"}`)}, Verdict{})},
		Actor: &Person{Identity: "r@example.com"}}
	// The numbers of a payload's data come back as they were written.
	numbered := Event{ID: "evt_3", Seq: 11, Type: "page.updated", PageID: "pg_1", TenantID: "t", At: e.At,
		Data: PageUpdated{Fields: []string{"title"}, Version: 9007199254740993}}
	for _, e := range []Event{e, numbered} {
		live := publicFrameOf(&e)
		replayed, ok := PublicFrameOfPayload(e.Seq, EncodeEvent(&e))
		if !ok {
			t.Fatal("a public event was refused")
		}
		if string(replayed.SSE) != string(live.SSE) || string(replayed.JSON) != string(live.JSON) {
			t.Fatalf("replayed\n%s\nlive\n%s", replayed.SSE, live.SSE)
		}
		if strings.Contains(string(replayed.JSON), "private") || strings.Contains(string(replayed.JSON), "receipt") {
			t.Fatalf("private data replayed: %s", replayed.JSON)
		}
	}
	viewed := Event{ID: "evt_2", Seq: 10, Type: "page.viewed", PageID: "pg_1", At: e.At, Data: PageViewed{}}
	if _, ok := PublicFrameOfPayload(viewed.Seq, EncodeEvent(&viewed)); ok {
		t.Fatal("page.viewed was framed for a public stream")
	}
}
