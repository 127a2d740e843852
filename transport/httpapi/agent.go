package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/mailbox"
	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/tenant"
)

func eventsJSON(list []mailbox.Stored) []json.RawMessage {
	out := make([]json.RawMessage, len(list))
	for i, s := range list {
		out[i] = s.WithAck()
	}
	return out
}

// agentInbox is GET /v1/agent/inbox: unacknowledged events, oldest first.
func (rt *realtime) agentInbox(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) {
	limit, offset, err := pageParams(r, 50, 500)
	if err != nil {
		rt.writeError(w, r, err)
		return
	}
	list, total, err := mailbox.Inbox(rt.store, who.TenantID, limit, offset)
	if err != nil {
		rt.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": eventsJSON(list), "total": total, "limit": limit, "offset": offset})
}

// agentInboxCount is GET /v1/agent/inbox/count.
func (rt *realtime) agentInboxCount(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) {
	n, err := mailbox.Pending(rt.store, who.TenantID)
	if err != nil {
		rt.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"count": n})
}

// ack is POST /v1/events/:id/ack: the id is the stream id or the eventId.
func (rt *realtime) ack(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	id := ps.ByName("id")
	_, err := ask[*mailbox.Acked](rt.Server, rt.d.Mailboxes, who.TenantID, &mailbox.Ack{Ref: id})
	if errors.Is(err, mailbox.ErrNotFound) {
		err = fault.Missing("event", id)
	}
	if err != nil {
		rt.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// pageAgentEvents is GET /v1/pages/:id/agent-events: the page's retained agent
// events (acknowledged or not), oldest first.
func (rt *realtime) pageAgentEvents(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	limit, offset, err := pageParams(r, 100, 1000)
	if err != nil {
		rt.writeError(w, r, err)
		return
	}
	res, err := rt.askPage(ps.ByName("id"), &page.Get{Caller: callerOf(who)})
	if err != nil {
		rt.writeError(w, r, err)
		return
	}
	list, total, err := mailbox.ByPage(rt.store, who.TenantID, res.Page.ID, limit, offset)
	if err != nil {
		rt.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": eventsJSON(list), "total": total, "limit": limit, "offset": offset})
}
