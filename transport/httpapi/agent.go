package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/mailbox"
	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/apitypes"
)

// eventsJSON is each stored event as the mailbox kept it, with its acknowledged
// flag: the bytes are written as stored (client.Event is the one definition of
// their shape), so no re-encoding can change an event the agent already read.
func eventsJSON(list []mailbox.Stored) []json.RawMessage {
	out := make([]json.RawMessage, len(list))
	for i, s := range list {
		out[i] = s.WithAck()
	}
	return out
}

// agentInbox is GET /v1/agent/inbox: unacknowledged events, oldest first.
func (rt *realtime) agentInbox(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	limit, offset, err := limitOffset(r, 50, 500)
	if err != nil {
		return err
	}
	list, total, err := mailbox.Inbox(rt.store, who.TenantID, limit, offset)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, apitypes.EventList[json.RawMessage]{Events: eventsJSON(list), Total: total, Limit: limit, Offset: offset})
	return nil
}

// pendingCount is how many agent events wait unacknowledged (GET /v1/agent/inbox/count).
type pendingCount struct {
	Count int `json:"count"`
}

// agentInboxCount is GET /v1/agent/inbox/count.
func (rt *realtime) agentInboxCount(w http.ResponseWriter, _ *http.Request, _ httprouter.Params, who tenant.Principal) error {
	n, err := mailbox.Pending(rt.store, who.TenantID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pendingCount{Count: n})
	return nil
}

// ack is POST /v1/events/:id/ack: the id is the stream id or the eventId.
func (rt *realtime) ack(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	id := ps.ByName("id")
	_, err := registry.Call[*mailbox.Acked](r.Context(), rt.d.Mailboxes, who.TenantID, &mailbox.Ack{Ref: id})
	if errors.Is(err, mailbox.ErrNotFound) {
		err = fault.Missing("event", id)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// pageAgentEvents is GET /v1/pages/:id/agent-events: the page's retained agent
// events (acknowledged or not), oldest first.
func (rt *realtime) pageAgentEvents(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	limit, offset, err := limitOffset(r, 100, 1000)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), rt.pages, id, &page.Get{Caller: callerOf(who)})
	if err != nil {
		return err
	}
	list, total, err := mailbox.ByPage(rt.store, who.TenantID, res.Page.ID, limit, offset)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, apitypes.EventList[json.RawMessage]{Events: eventsJSON(list), Total: total, Limit: limit, Offset: offset})
	return nil
}
