package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/inbox"
	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/apitypes"
)

var inboxStatuses = map[string]bool{inbox.Unread: true, inbox.Read: true, inbox.Archived: true}
var inboxPriorities = map[string]bool{"low": true, "normal": true, "high": true, "urgent": true}

func (s *Server) listInbox(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	limit, offset, err := limitOffset(r, 50, 200)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := inbox.Filter{Status: q.Get("status"), Priority: q.Get("priority"), PageType: q.Get("pageType"), Limit: limit, Offset: offset}
	if f.PageType == "" {
		f.PageType = q.Get("page_type")
	}
	switch {
	case f.Status != "" && !inboxStatuses[f.Status]:
		return fault.Field("status", "enum", "status must be unread, read or archived")
	case f.Priority != "" && !inboxPriorities[f.Priority]:
		return fault.Field("priority", "enum", "priority must be one of low, normal, high, urgent")
	case len(f.PageType) > 64:
		return fault.Field("pageType", "max_length", "pageType is longer than 64 characters")
	}
	entries, total, err := inbox.List(s.store, who.TenantID, f)
	if err != nil {
		return err
	}
	now := s.now()
	out := make([]apitypes.InboxEntry, len(entries))
	for i, e := range entries {
		out[i] = apitypes.InboxEntry{ID: e.ID, PageID: e.PageID, Title: e.Title, PageType: e.PageType, Status: e.Status,
			Starred: e.Starred, Priority: e.Priority, CreatedAt: e.CreatedAt, PageStatus: e.EffectivePageStatus(now), Decision: apitypes.NullString(e.Decision),
			ActionID: apitypes.NullString(e.ActionID), ActionLabel: apitypes.NullString(e.ActionLabel), Outcome: apitypes.NullString(e.Outcome)}
	}
	writeJSON(w, http.StatusOK, apitypes.InboxList{Entries: out, Total: total, Limit: limit, Offset: offset})
	return nil
}

func (s *Server) readInbox(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	return s.changeInbox(w, r, who, ps.ByName("id"), &inbox.MarkRead{EntryID: ps.ByName("id")})
}

func (s *Server) starInbox(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	var req struct {
		Starred *bool `json:"starred"`
	}
	if err := s.decode(w, r, &req, true); err != nil {
		return err
	}
	starred := req.Starred == nil || *req.Starred // omitted means true
	return s.changeInbox(w, r, who, ps.ByName("id"), &inbox.Star{EntryID: ps.ByName("id"), Starred: starred})
}

func (s *Server) archiveInbox(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	return s.changeInbox(w, r, who, ps.ByName("id"), &inbox.Archive{EntryID: ps.ByName("id")})
}

// changeInbox sends a reading-state command about entry id to the tenant's
// InboxActor: 204, or 404 for an entry that is unknown or another tenant's.
func (s *Server) changeInbox(w http.ResponseWriter, r *http.Request, who tenant.Principal, id string, msg any) error {
	if err := inbox.Change(r.Context(), s.inboxes(), who.TenantID, id, msg); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// inboxes is the InboxActors' registry; nil until MountTenancy.
func (s *Server) inboxes() *registry.Registry {
	if s.tenancy == nil {
		return nil
	}
	return s.tenancy.Inbox
}
