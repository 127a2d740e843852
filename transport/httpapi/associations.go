package httpapi

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/tenant"
)

// associationView is the association object of spec 2.5 (plus createdBy and, in
// listings, the direction as seen from the page in the path).
type associationView struct {
	ID           string    `json:"id"`
	SourcePageID string    `json:"sourcePageId"`
	TargetPageID string    `json:"targetPageId"`
	RelationType string    `json:"relationType"`
	TenantID     string    `json:"tenantId"`
	CreatedAt    time.Time `json:"createdAt"`
	CreatedBy    string    `json:"createdBy"`
	Direction    string    `json:"direction,omitempty"` // outgoing (this page is the source) or incoming
}

func viewAssociation(a *page.Association) associationView {
	return associationView{ID: a.ID, SourcePageID: a.SourcePageID, TargetPageID: a.TargetPageID,
		RelationType: a.RelationType, TenantID: a.TenantID, CreatedAt: a.CreatedAt, CreatedBy: a.CreatedBy}
}

func (c *content) associate(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	s := c.s
	var body struct {
		TargetPageID string `json:"targetPageId"`
		RelationType string `json:"relationType"`
	}
	if err := s.decode(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.TargetPageID == "" {
		s.writeError(w, r, fault.Field("targetPageId", "required", "targetPageId is required"))
		return
	}
	if body.RelationType == "" {
		e := fault.Field("relationType", "required", "relationType is required: one of follow_up, duplicate, related, blocks, supersedes")
		e.Details["allowed"] = page.RelationTypes
		s.writeError(w, r, e)
		return
	}
	id := ps.ByName("id")
	if len(id) > 64 {
		s.writeError(w, r, fault.Missing("page", id))
		return
	}
	a, err := ask[*page.Association](s, s.pages, id, &page.Associate{Caller: callerOf(who), TargetID: body.TargetPageID, RelationType: body.RelationType})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, viewAssociation(a))
}

func (c *content) listAssociations(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	s := c.s
	id := ps.ByName("id")
	if len(id) > 64 {
		s.writeError(w, r, fault.Missing("page", id))
		return
	}
	res, err := ask[*page.Associations](s, s.pages, id, &page.ListAssociations{Caller: callerOf(who)})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]associationView, len(res.List))
	for i, a := range res.List {
		out[i] = viewAssociation(a)
		out[i].Direction = "outgoing"
		if a.SourcePageID != id {
			out[i].Direction = "incoming"
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"associations": out})
}
