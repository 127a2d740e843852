package httpapi

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
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

func (c *content) associate(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	s := c.s
	var body struct {
		TargetPageID string `json:"targetPageId"`
		RelationType string `json:"relationType"`
	}
	if err := s.decode(w, r, &body, false); err != nil {
		return err
	}
	if body.TargetPageID == "" {
		return fault.Field("targetPageId", "required", "targetPageId is required")
	}
	if body.RelationType == "" {
		e := fault.Field("relationType", "required", "relationType is required: one of follow_up, duplicate, related, blocks, supersedes")
		e.Details["allowed"] = page.RelationTypes
		return e
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	a, err := registry.Call[*page.Association](r.Context(), s.pages, id, &page.Associate{Caller: callerOf(who), TargetID: body.TargetPageID, RelationType: body.RelationType})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, viewAssociation(a))
	return nil
}

// associationList is a page's associations both ways (GET /v1/pages/:id/associations).
type associationList struct {
	Associations []associationView `json:"associations"`
}

func (c *content) listAssociations(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Associations](r.Context(), c.s.pages, id, &page.ListAssociations{Caller: callerOf(who)})
	if err != nil {
		return err
	}
	out := make([]associationView, len(res.List))
	for i, a := range res.List {
		out[i] = viewAssociation(a)
		out[i].Direction = "outgoing"
		if a.SourcePageID != id {
			out[i].Direction = "incoming"
		}
	}
	writeJSON(w, http.StatusOK, associationList{Associations: out})
	return nil
}
