package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/mailbox"
	"folio/actors/model/fault"
	"folio/actors/model/frame"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/stream"
)

// heartbeat is the comment line the comment stream sends at once on connect.
var heartbeat = []byte(": heartbeat\n\n")

// pageEvents is GET /v1/pages/:id/events (SSE, or WebSocket on upgrade).
func (rt *realtime) pageEvents(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	return rt.pageStream(w, r, ps.ByName("id"), false)
}

// commentStream is GET /v1/pages/:id/comments/stream: comment events only.
func (rt *realtime) commentStream(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	return rt.pageStream(w, r, ps.ByName("id"), true)
}

// pageStream subscribes a new connection with the page actor (which applies the
// page's access policy) before anything is written, so a refusal is an ordinary
// JSON error; then the stream opens with `connected` (page stream) or `: heartbeat`
// (comment stream) ahead of any event. Once the stream is served the handler
// returns nil: the response is the stream.
func (rt *realtime) pageStream(w http.ResponseWriter, r *http.Request, id string, comments bool) error {
	v, err := rt.viewerOf(r)
	if err != nil {
		return err
	}
	after, replaying, err := lastEventID(r)
	if err != nil {
		return err
	}
	if _, err := pageID(id); err != nil {
		return err
	}
	presence, err := wantsPresence(r, comments)
	if err != nil {
		return err
	}
	release, err := rt.holdStream(w, r, v.KeyID, v.SessionID)
	if err != nil {
		return err
	}
	c := rt.d.Hub.NewConn()
	c.OnClose(release) // the stream's place is held until it ends, however it ends
	sub, err := registry.Call[*page.Subscribed](r.Context(), rt.pages, id, &page.Subscribe{Viewer: v, Sub: c, Comments: comments,
		Watching: !comments, Presence: presence})
	if err != nil {
		c.Close()
		return err
	}
	c.OnClose(func() { rt.pages.Tell(id, &page.Unsubscribe{Sub: c}) })
	if v.KeyID != "" {
		c.OnClose(rt.keys.OnRevoke(v.KeyID, func() { c.End(page.AccessEnded("credential_revoked")) }))
	}
	if v.SessionID != "" { // signing out ends what the session opened
		c.OnClose(rt.people.OnEnd(v.SessionID, func() { c.End(page.AccessEnded("signed_out")) }))
	}
	hello := map[string]any{"type": "connected", "pageId": id}
	if comments {
		hello["stream"] = "comments"
	}
	connected := frame.Control("connected", hello)
	var replay stream.Replay
	if replaying {
		replay = func(emit func(*frame.Frame) error) error {
			return rt.replayPage(c, sub.TenantID, id, after, comments, emit)
		}
	}
	switch {
	case stream.IsWebSocket(r):
		c.ServeWS(w, r, connected, replay)
	case comments:
		c.ServeSSE(w, r, heartbeat, replay)
	default:
		c.ServeSSE(w, r, connected.SSE, replay)
	}
	return nil
}

// replayPage emits the page's retained public events after `after` (a browser's
// EventSource sends Last-Event-ID by itself when it reconnects), read from the agent
// log and framed exactly as the live stream framed them. The connection was
// subscribed first, so every later event is queued on it; those the replay already
// wrote are skipped when it goes live (SkipThrough): no gap, no duplicate.
//
// The comment stream replays at most the latest CommentReplay comment events: a
// Last-Event-ID older than that window gets the window, after an SSE comment line
// saying how many older ones were left out and where to read them (a page with
// thousands of comments must not cost thousands of events on every reconnect).
func (rt *realtime) replayPage(c *stream.Conn, tenantID, pageID string, after uint64, comments bool, emit func(*frame.Frame) error) error {
	if comments {
		seen, from := 0, after
		err := mailbox.PageNewest(rt.store, tenantID, pageID, after, func(s mailbox.Stored) bool {
			if f, ok := page.PublicFrameOfPayload(s.Seq, s.Payload); ok && f.Comment {
				seen++
				if seen > CommentReplay {
					from = s.Seq
					return false
				}
			}
			return true
		})
		if err != nil {
			return err
		}
		if from > after {
			if err := emit(replayCut(pageID)); err != nil {
				return err
			}
			after = from
		}
	}
	for {
		chunk, err := mailbox.PageAfter(rt.store, tenantID, pageID, after, 256)
		if err != nil {
			return err
		}
		for _, s := range chunk {
			after = s.Seq
			f, ok := page.PublicFrameOfPayload(s.Seq, s.Payload)
			if !ok || (comments && !f.Comment) {
				continue
			}
			if err := emit(f); err != nil {
				return err
			}
		}
		c.SkipThrough(after)
		if len(chunk) < 256 {
			return nil
		}
	}
}

// CommentReplay is the most comment events one comment-stream replay sends.
const CommentReplay = 50

// replayCut is the SSE comment line that opens a replay cut to its latest window
// (WebSocket clients get nothing for it: an SSE-only frame).
func replayCut(pageID string) *frame.Frame {
	line := ": replay cut: only the latest " + strconv.Itoa(CommentReplay) + " comment events follow; older ones: GET /v1/pages/" + pageID + "/comments\n\n"
	return frame.Raw(len(line), func(b []byte) []byte { return append(b, line...) })
}

// lastEventID reads the replay position: the Last-Event-ID header (SSE reconnects)
// or ?last_event_id= (WebSocket, or clients that cannot set headers).
// wantsPresence reads ?presence= of the page stream: true (or 1) asks for the
// page's `presence` frames (actors/page/presence.go); the comment stream has none.
func wantsPresence(r *http.Request, comments bool) (bool, error) {
	raw := r.URL.Query().Get("presence")
	if raw == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(raw)
	if err != nil {
		return false, fault.Field("presence", "boolean", "presence must be true or false (1 or 0)")
	}
	if on && comments {
		return false, fault.Field("presence", "page_stream_only", "presence is sent on the page's event stream (GET /v1/pages/{id}/events), not on its comment stream")
	}
	return on, nil
}

func lastEventID(r *http.Request) (uint64, bool, error) {
	raw := strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	if raw == "" {
		raw = strings.TrimSpace(r.URL.Query().Get("last_event_id"))
	}
	if raw == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return 0, false, fault.Field("last_event_id", "integer", "Last-Event-ID must be the decimal id of an event of this stream")
	}
	return n, true, nil
}

// agentEvents is GET /v1/agent/events: every event of the tenant's pages with its
// sequence number as id. With Last-Event-ID the missed events are replayed from the
// log before live ones resume: the mailbox registers the connection and answers
// with its snapshot S (events <= S are in the log, every later one will reach the
// connection live, queued until the replay is written), so nothing is missed and
// nothing repeats.
func (rt *realtime) agentEvents(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	// Deleting the key ends the stream it opened: a final reset, then the close.
	release, err := rt.holdStream(w, r, who.KeyID, "")
	if err != nil {
		return err
	}
	return rt.tenantEvents(w, r, who.TenantID, release, "credential_revoked", func(end func()) func() { return rt.keys.OnRevoke(who.KeyID, end) })
}

// MemberEvents is the tenant's event stream for a signed-in member (the dashboard
// follows it with the session cookie): the agent stream's frames, ended when the
// session ends.
func (s *Server) MemberEvents(w http.ResponseWriter, r *http.Request, tenantID, sessionID string) error {
	if s.rt == nil {
		return fault.New(fault.NotFound, "streams are not served by this node", nil)
	}
	release, err := s.holdStream(w, r, "", sessionID)
	if err != nil {
		return err
	}
	return s.rt.tenantEvents(w, r, tenantID, release, "signed_out", func(end func()) func() { return s.people.OnEnd(sessionID, end) })
}

// tenantEvents serves the tenant's event stream; release gives back its place
// (holdStream), once it ends or is refused; watch registers what ends it early
// (the credential that opened it going away: a final reset naming endReason) and
// returns its cancel.
func (rt *realtime) tenantEvents(w http.ResponseWriter, r *http.Request, tenantID string, release func(), endReason string, watch func(end func()) func()) error {
	after, replaying, err := lastEventID(r)
	if err != nil {
		release()
		return err
	}
	c := rt.d.Hub.NewConn()
	c.OnClose(release)
	sub, err := registry.Call[*mailbox.Subscribed](r.Context(), rt.d.Mailboxes, tenantID, &mailbox.Subscribe{Sub: c})
	if err != nil {
		c.Close()
		return err
	}
	c.OnClose(func() { rt.d.Mailboxes.Tell(tenantID, &mailbox.Unsubscribe{Sub: c}) })
	c.OnClose(watch(func() { c.End(page.AccessEnded(endReason)) }))
	connected := frame.Control("connected", map[string]any{"type": "connected", "tenantId": tenantID, "latestId": itoa(sub.Snapshot)})
	var replay stream.Replay
	if replaying {
		replay = func(emit func(*frame.Frame) error) error {
			return rt.replay(tenantID, after, sub.Snapshot, emit)
		}
	}
	if stream.IsWebSocket(r) {
		c.ServeWS(w, r, connected, replay)
	} else {
		c.ServeSSE(w, r, connected.SSE, replay)
	}
	return nil
}

// replay emits the tenant's events after `after` up to the snapshot, in order. When
// some of them are no longer retained (or the id is unknown), a `reset` event comes
// first: the client should resynchronise (GET /v1/agent/inbox); what is still
// retained follows.
func (rt *realtime) replay(tenantID string, after, snapshot uint64, emit func(*frame.Frame) error) error {
	reset := func(reason string, oldest uint64) error {
		data := map[string]any{"reason": reason, "lastEventId": itoa(after), "latestId": itoa(snapshot)}
		if oldest > 0 {
			data["oldestId"] = itoa(oldest)
		}
		return emit(frame.Control("reset", map[string]any{"type": "reset", "data": data}))
	}
	if after > snapshot {
		return reset("unknown_id", 0)
	}
	next, reported := after+1, false
	for next <= snapshot {
		chunk, err := mailbox.Read(rt.store, tenantID, next-1, snapshot, 256)
		if err != nil {
			return err
		}
		if len(chunk) == 0 { // the rest is no longer retained
			if !reported {
				return reset("expired", 0)
			}
			return nil
		}
		for _, s := range chunk {
			if s.Seq != next && !reported {
				if err := reset("expired", s.Seq); err != nil {
					return err
				}
				reported = true
			}
			if err := emit(s.Frame()); err != nil {
				return err
			}
			next = s.Seq + 1
		}
	}
	return nil
}
