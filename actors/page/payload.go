package page

import (
	"bytes"
	"encoding/json"
	"time"

	"folio/actors/model/frame"
)

// Payload is the wire form of an event on every stream and in the agent inbox:
// {id, type, pageId, timestamp, eventId, data, actor?}. id is the decimal tenant
// sequence number (the SSE id and Last-Event-ID); eventId is the event's stable id
// (also used by callbacks); data is the stream's view of the event's Data
// (payload_data.go).
type Payload struct {
	ID        string  `json:"id"`
	Type      string  `json:"type"`
	PageID    string  `json:"pageId"`
	Timestamp string  `json:"timestamp"`
	EventID   string  `json:"eventId"`
	Data      any     `json:"data"`
	Actor     *Person `json:"actor,omitempty"`
}

// EncodeEvent is the one encoding of an event's payload for its owning agent (the
// agent's view of Data), shared by the live streams and the agent event log. It is
// the sealed body (see Seal) with the stream id put in front.
func EncodeEvent(e *Event) []byte {
	body := e.body
	if body == nil {
		body = encodeBody(e, e.AgentData())
	}
	return withStreamID(e.StreamID(), body)
}

// Seal encodes the event's payload except its stream id, which the agent log assigns
// inside the commit. Commits seal their events before entering the store's single
// commit loop, so the loop only splices the id in; the payload must not change after.
func (e *Event) Seal() {
	if e.body == nil {
		e.body = encodeBody(e, e.AgentData())
	}
}

// withStreamID is the payload: `{"id":<id>` and the body.
func withStreamID(id string, body []byte) []byte {
	out := make([]byte, 0, len(body)+len(id)+8)
	out = append(out, `{"id":`...)
	out = appendJSONString(out, id)
	return append(out, body...)
}

// encodeBody is the payload of e with data as its `data`, after `{"id":<id>`:
// `,"type":…}`. HTML characters are not escaped.
func encodeBody(e *Event, data any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Payload{Type: e.Type, PageID: e.PageID,
		Timestamp: e.At.UTC().Format(time.RFC3339Nano), EventID: e.ID, Data: data, Actor: e.Actor}); err != nil {
		// Data holds only JSON-safe values built by the actors; keep the stream alive.
		b, _ := json.Marshal(Payload{Type: e.Type, PageID: e.PageID, EventID: e.ID, Data: struct{}{}})
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

// publicEvent tells whether an event type goes to the page's own streams. Events that
// carry a viewer's private input or identity (page.viewed, form.submitted) go only to
// the owning agent (agent stream, inbox, callbacks).
func publicEvent(typ string) bool {
	return typ != "page.viewed" && typ != "form.submitted"
}

// withPrivate is a payload holding fields only the owning agent sees (a reviewer's
// form input and the comment given with an action): publicStream is its `data` on
// the page's public streams, without them.
type withPrivate interface {
	publicStream(by *Person) any
}

// privateKeys are the stream's keys of the private fields (see withPrivate), for
// payloads read back from the agent log.
var privateKeys = []string{"form_data", "comment", "receipt"}

// publicFrameOf encodes e for the page's public streams: the agent's frame unless its
// data holds private fields, which are left out.
func publicFrameOf(e *Event) *frame.Frame {
	p, ok := e.Data.(withPrivate)
	if !ok {
		return FrameOf(e)
	}
	id := e.StreamID()
	return frame.New(e.Seq, e.Type, id, withStreamID(id, encodeBody(e, p.publicStream(e.Actor))))
}

// storedPayload is a payload read back from the agent log, written by any release:
// its data is free-form JSON, numbers kept as they were written.
type storedPayload struct {
	Type      string         `json:"type"`
	PageID    string         `json:"pageId"`
	Timestamp string         `json:"timestamp"`
	EventID   string         `json:"eventId"`
	Data      map[string]any `json:"data"`
	Actor     *Person        `json:"actor"`
}

// PublicFrameOfPayload re-frames an event stored as its agent payload (the agent
// log) for the page's public streams: the stored data without its private keys,
// encoded again as every payload is (object keys in sorted order). ok is false for
// events the public streams never carry.
func PublicFrameOfPayload(seq uint64, payload []byte) (f *frame.Frame, ok bool) {
	var p storedPayload
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber() // numbers come back exactly as they were encoded
	if err := dec.Decode(&p); err != nil || !publicEvent(p.Type) {
		return nil, false
	}
	at, err := time.Parse(time.RFC3339Nano, p.Timestamp)
	if err != nil {
		return nil, false
	}
	var data any = struct{}{}
	if p.Data != nil {
		for _, k := range privateKeys {
			delete(p.Data, k)
		}
		data = p.Data
	}
	e := Event{ID: p.EventID, Seq: seq, Type: p.Type, PageID: p.PageID, At: at, Actor: p.Actor}
	id := e.StreamID()
	return frame.New(seq, e.Type, id, withStreamID(id, encodeBody(&e, data))), true
}
