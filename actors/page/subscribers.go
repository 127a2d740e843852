package page

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"folio/actors/model/fault"
	"folio/actors/model/frame"
	"folio/actors/registry"
)

// Live subscribers (SSE and WebSocket clients of the page and comment streams) are
// kept by the page actor itself: fanout hands every committed event to each of them
// on the actor's goroutine, in commit order. Each event is encoded ONCE into a Frame
// whose bytes every subscriber shares; Send never blocks (a subscriber that cannot
// keep up answers false and is dropped; its client reconnects).

// Subscriber is one live client at the boundary (implemented in transport/stream).
// Send must not block: it queues the frame or reports false when the subscriber is
// gone or too far behind, after which the page forgets it. Close ends the client's
// stream (idempotent, non-blocking): an actor that restarts or stops closes its
// subscribers, whose clients reconnect (agents replay), instead of leaving them
// attached to an incarnation that will never send again. End writes final (a
// `reset` saying why) and then closes: for a client whose access ended (the page
// turned private or was revoked, its key was deleted), which must not reconnect
// blindly and must receive nothing more.
type Subscriber interface {
	Send(f *frame.Frame) bool
	Close()
	End(final *frame.Frame)
}

// AccessEnded is the last frame of a stream whose access ended: reason is one of
// "page_revoked", "access_changed", "credential_revoked".
func AccessEnded(reason string) *frame.Frame {
	return frame.Control("reset", map[string]any{"type": "reset", "data": map[string]any{"reason": reason}})
}

// Payload is the wire form of an event on every stream and in the agent inbox:
// {id, type, pageId, timestamp, eventId, data, actor?}. id is the decimal tenant
// sequence number (the SSE id and Last-Event-ID); eventId is the event's stable id
// (also used by callbacks).
type Payload struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	PageID    string         `json:"pageId"`
	Timestamp string         `json:"timestamp"`
	EventID   string         `json:"eventId"`
	Data      map[string]any `json:"data"`
	Actor     map[string]any `json:"actor,omitempty"`
}

// StreamID is the id an event carries on the streams: its sequence number, or its
// event id when it has none (no mailbox outlet).
func (e *Event) StreamID() string {
	if e.Seq > 0 {
		return strconv.FormatUint(e.Seq, 10)
	}
	return e.ID
}

// EncodeEvent is the one encoding of an event's payload (deterministic: map keys are
// sorted), shared by the live streams and the agent event log. It is the sealed body
// (see Seal) with the stream id put in front.
func EncodeEvent(e *Event) []byte {
	body := e.body
	if body == nil {
		body = encodeBody(e)
	}
	id := e.StreamID()
	out := make([]byte, 0, len(body)+len(id)+8)
	out = append(out, `{"id":`...)
	out = appendJSONString(out, id)
	return append(out, body...)
}

// Seal encodes the event's payload except its stream id, which the agent log assigns
// inside the commit. Commits seal their events before entering the store's single
// commit loop, so the loop only splices the id in; the payload must not change after.
func (e *Event) Seal() {
	if e.body == nil {
		e.body = encodeBody(e)
	}
}

// encodeBody is the payload after `{"id":<id>`: `,"type":…}`.
func encodeBody(e *Event) []byte {
	data := e.Data
	if data == nil {
		data = map[string]any{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Payload{Type: e.Type, PageID: e.PageID,
		Timestamp: e.At.UTC().Format(time.RFC3339Nano), EventID: e.ID, Data: data, Actor: e.Actor}); err != nil {
		// Data holds only JSON-safe values built by the actors; keep the stream alive.
		b, _ := json.Marshal(Payload{Type: e.Type, PageID: e.PageID, EventID: e.ID, Data: map[string]any{}})
		buf.Reset()
		buf.Write(b)
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	return b[len(emptyID):]
}

// emptyID is how every encoded Payload with an empty ID starts.
const emptyID = `{"id":""`

// appendJSONString appends s as a JSON string. Stream ids are digits or event ids
// ([A-Za-z0-9_]); anything else goes through the JSON encoder.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// FrameOf encodes e into a frame.
func FrameOf(e *Event) *frame.Frame { return frame.New(e.Seq, e.Type, e.StreamID(), EncodeEvent(e)) }

// PublicEvent tells whether an event type goes to the page's own streams. Events that
// carry a viewer's private input or identity (page.viewed, form.submitted) go only to
// the owning agent (agent stream, inbox, callbacks).
func PublicEvent(typ string) bool {
	return typ != "page.viewed" && typ != "form.submitted"
}

// privateData are the fields of event data that only the owning agent sees: a
// reviewer's form input and the comment given with an action (action.executed
// carries them for callbacks). The page's public streams get the event without them.
var privateData = []string{"form_data", "comment"}

// PublicFrameOf encodes e for the page's public streams: the agent's frame unless its
// data holds private fields, which are left out.
func PublicFrameOf(e *Event) *frame.Frame {
	strip := false
	for _, k := range privateData {
		if _, ok := e.Data[k]; ok {
			strip = true
		}
	}
	if !strip {
		return FrameOf(e)
	}
	pub := *e
	pub.body = nil // the sealed payload holds the private fields
	pub.Data = make(map[string]any, len(e.Data))
	for k, v := range e.Data {
		pub.Data[k] = v
	}
	for _, k := range privateData {
		delete(pub.Data, k)
	}
	return FrameOf(&pub)
}

// PublicFrameOfPayload re-frames an event stored as its agent payload (the agent
// log) for the page's public streams, exactly as the live stream framed it: ok is
// false for events the public streams never carry.
func PublicFrameOfPayload(seq uint64, payload []byte) (f *frame.Frame, ok bool) {
	var p Payload
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber() // numbers come back exactly as they were encoded
	if err := dec.Decode(&p); err != nil || !PublicEvent(p.Type) {
		return nil, false
	}
	at, err := time.Parse(time.RFC3339Nano, p.Timestamp)
	if err != nil {
		return nil, false
	}
	e := Event{ID: p.EventID, Seq: seq, Type: p.Type, PageID: p.PageID, At: at, Data: p.Data, Actor: p.Actor}
	return PublicFrameOf(&e), true
}

// Viewer is whoever uses a route open to people holding the page link (streams,
// comment and file reads, uploads, views): TenantID/Agent of the API key presented,
// empty when none.
type Viewer struct {
	TenantID string
	Agent    string
	KeyID    string // the API key presented (its deletion ends what it opened)
}

// owns tells whether v holds an API key of the page's tenant.
func (a *Actor) owns(v Viewer) bool { return v.TenantID != "" && v.TenantID == a.page.TenantID }

// visible applies the page's access policy to a reader (docs/behaviour.md): the owner's
// key reads everything; otherwise drafts and revoked pages do not exist (404), and an
// `authenticated` page needs a credential (401 without one; another tenant's key is
// 404, never 403). Sessions do not exist yet, so that credential is the owner's key.
func (a *Actor) visible(v Viewer) error {
	if a.owns(v) {
		return nil
	}
	p := a.page
	if p.Status == Draft || p.Status == Revoked {
		return fault.Missing("page", a.id)
	}
	if p.Access.Mode == "authenticated" {
		if v.TenantID == "" {
			return fault.New(fault.Unauthorized, "this page requires a credential: send an API key of the page's tenant", nil)
		}
		return fault.Missing("page", a.id)
	}
	return nil
}

// Subscribe registers a live subscriber for the page's events (Comments: comment
// events only). It answers *Subscribed or an access error.
type Subscribe struct {
	Viewer
	Sub      Subscriber
	Comments bool
}

// Unsubscribe forgets a subscriber whose client went away (unknown ones are fine).
type Unsubscribe struct{ Sub Subscriber }

// Subscribed answers Subscribe: from now on every committed event reaches the
// subscriber, in commit order.
type Subscribed struct {
	PageID   string
	TenantID string
	Status   string
}

func (m *Subscribe) public()   {}
func (m *Unsubscribe) public() {}

func (m *Subscribe) run(a *Actor) any {
	if a.idle.Leaving() {
		// This incarnation has asked to be passivated and may stop after any message:
		// a subscription taken now would close with it. The registry asks again, and
		// the successor (or this actor, told to stay) takes it.
		return registry.ErrRetry
	}
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	if m.Sub == nil {
		return fault.New(fault.Invalid, "no subscriber", nil)
	}
	a.subs.add(m.Sub, m.Comments, m.Viewer)
	return &Subscribed{PageID: a.id, TenantID: a.page.TenantID, Status: a.page.Status}
}

func (m *Unsubscribe) run(a *Actor) any {
	a.subs.remove(m.Sub)
	return nil
}

// subscribers is the page actor's set of live subscribers (touched only by the
// actor's goroutine). Order does not matter; removal is O(1).
type subscribers struct {
	list []subscription
	at   map[Subscriber]int
}

type subscription struct {
	sub      Subscriber
	comments bool
	viewer   Viewer // who subscribed: access is checked again whenever it may have changed
}

func (s *subscribers) live() bool { return len(s.list) > 0 }

// closeAll ends every subscriber's stream and forgets them all.
func (s *subscribers) closeAll() {
	for _, x := range s.list {
		x.sub.Close()
	}
	s.list, s.at = nil, nil
}

func (s *subscribers) add(sub Subscriber, comments bool, v Viewer) {
	if s.at == nil {
		s.at = map[Subscriber]int{}
	}
	if i, ok := s.at[sub]; ok {
		s.list[i].comments, s.list[i].viewer = comments, v
		return
	}
	s.at[sub] = len(s.list)
	s.list = append(s.list, subscription{sub: sub, comments: comments, viewer: v})
}

func (s *subscribers) remove(sub Subscriber) {
	i, ok := s.at[sub]
	if !ok {
		return
	}
	last := len(s.list) - 1
	if i != last {
		s.list[i] = s.list[last]
		s.at[s.list[i].sub] = i
	}
	s.list[last] = subscription{}
	s.list = s.list[:last]
	delete(s.at, sub)
}

// recheck applies the page's access policy again to every live subscriber after a
// change of access mode or status (a page turned authenticated, a revoke): whoever
// may no longer read the page gets a final reset naming why and is dropped, before
// the change's own events go out. Access is checked when data is used, not only
// when the stream was opened.
func (a *Actor) recheck(reason string) {
	var ended []Subscriber
	for _, s := range a.subs.list {
		if a.visible(s.viewer) != nil {
			s.sub.End(AccessEnded(reason))
			ended = append(ended, s.sub)
		}
	}
	for _, s := range ended {
		a.subs.remove(s)
	}
}

// fanout hands committed events to the page's live subscribers: each event is
// encoded once, then offered to every subscriber without blocking; one that refuses
// is dropped at once, so a slow client never delays the page or anyone else.
func (a *Actor) fanout(events []Event) {
	if !a.subs.live() {
		return
	}
	var dropped []Subscriber
	for i := range events {
		e := &events[i]
		if !PublicEvent(e.Type) {
			continue
		}
		f := PublicFrameOf(e)
		for _, s := range a.subs.list {
			if s.comments && !f.Comment {
				continue
			}
			if !s.sub.Send(f) {
				dropped = append(dropped, s.sub)
			}
		}
		for _, d := range dropped {
			a.subs.remove(d)
		}
		dropped = dropped[:0]
	}
}
