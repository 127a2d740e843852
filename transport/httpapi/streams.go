package httpapi

import (
	"net/http"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"folio/actors/mailbox"
	"folio/actors/model/fault"
	"folio/actors/model/frame"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/feed"
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
	after, replaying, err := feed.LastEventID(r)
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
	release, err := rt.holdStream(r, v.KeyID, v.SessionID)
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

// agentEvents is GET /v1/agent/events: every event of the tenant's pages with its
// sequence number as id, replayed after Last-Event-ID (transport/feed, which also
// serves a signed-in member's stream on the pages).
func (rt *realtime) agentEvents(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	// Deleting the key ends the stream it opened: a final reset, then the close.
	release, err := rt.holdStream(r, who.KeyID, "")
	if err != nil {
		return err
	}
	return rt.feed.Serve(w, r, who.TenantID, release, "credential_revoked", func(end func()) func() { return rt.keys.OnRevoke(who.KeyID, end) })
}
