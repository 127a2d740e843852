// Package feed serves a tenant's event stream (SSE, or WebSocket on upgrade) on
// either HTTP face: to an agent with its key (GET /v1/agent/events,
// transport/httpapi) and to a signed-in member with the session cookie (GET
// /events, transport/web). The live frames come from the tenant's mailbox actor,
// the replay after Last-Event-ID from its log (actors/mailbox); what a face keeps
// is who may open it, the place it holds (transport/admission) and what ends it.
package feed

import (
	"net/http"
	"strconv"
	"strings"

	"folio/actors/mailbox"
	"folio/actors/model/fault"
	"folio/actors/model/frame"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/persistence"
	"folio/transport/stream"
)

// Tenant serves tenants' event streams.
type Tenant struct {
	Hub       *stream.Hub
	Mailboxes *registry.Registry // one MailboxActor per tenant
	Store     *persistence.Store
}

// Serve serves tenantID's event stream with its sequence numbers as ids. release
// gives back the stream's place (admission.Rules.HoldStream) once the stream ends or
// is refused; watch registers what ends it early (the credential that opened it
// going away: a final reset naming endReason, then the close) and returns its
// cancel. With Last-Event-ID the missed events are replayed from the log before
// live ones resume: the mailbox registers the connection and answers with its
// snapshot S (events <= S are in the log, every later one will reach the
// connection live, queued until the replay is written), so nothing is missed and
// nothing repeats. Once the stream is served Serve returns nil: the response is
// the stream; an error is the face's to answer, nothing having been written.
func (t *Tenant) Serve(w http.ResponseWriter, r *http.Request, tenantID string, release func(), endReason string, watch func(end func()) func()) error {
	after, replaying, err := LastEventID(r)
	if err != nil {
		release()
		return err
	}
	c := t.Hub.NewConn()
	c.OnClose(release)
	sub, err := registry.Call[*mailbox.Subscribed](r.Context(), t.Mailboxes, tenantID, &mailbox.Subscribe{Sub: c})
	if err != nil {
		c.Close()
		return err
	}
	c.OnClose(func() { t.Mailboxes.Tell(tenantID, &mailbox.Unsubscribe{Sub: c}) })
	c.OnClose(watch(func() { c.End(page.AccessEnded(endReason)) }))
	connected := frame.Control("connected", map[string]any{"type": "connected", "tenantId": tenantID, "latestId": itoa(sub.Snapshot)})
	var replay stream.Replay
	if replaying {
		replay = func(emit func(*frame.Frame) error) error {
			return t.replay(tenantID, after, sub.Snapshot, emit)
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
func (t *Tenant) replay(tenantID string, after, snapshot uint64, emit func(*frame.Frame) error) error {
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
		chunk, err := mailbox.Read(t.Store, tenantID, next-1, snapshot, 256)
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

// LastEventID reads the replay position of any event stream: the Last-Event-ID
// header (SSE reconnects) or ?last_event_id= (WebSocket, or clients that cannot
// set headers); replaying is false when neither is given.
func LastEventID(r *http.Request) (after uint64, replaying bool, err error) {
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

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
