package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/tenant"
	"folio/actors/workflow"
	"folio/transport/apitypes"
)

// createWorkflow is POST /v1/workflows {name, pages: [page request body], flow}.
// Every page body is decoded and validated before anything is written; the pages
// and the workflow are then written in one transaction (workflow.Service.Create).
func (c *content) createWorkflow(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	s := c.s
	var body struct {
		Name  string            `json:"name"`
		Flow  string            `json:"flow"`
		Pages []json.RawMessage `json:"pages"`
	}
	if err := s.decode(w, r, &body, false); err != nil {
		return err
	}
	if len(body.Pages) > workflow.MaxPages {
		e := fault.Field("pages", "max_items", "a workflow has at most %d pages", workflow.MaxPages)
		e.Details["limit"] = workflow.MaxPages
		return e
	}
	reqs := make([]*page.Request, len(body.Pages))
	for i, raw := range body.Pages {
		at := fmt.Sprintf("pages[%d]", i)
		if len(raw) == 0 || raw[0] != '{' {
			return fault.Field(at, "type", "%s must be a page request body (an object)", at)
		}
		reqs[i] = &page.Request{}
		if err := decodeBytes(raw, reqs[i]); err != nil {
			return workflow.Within(at, err)
		}
	}
	hold, err := s.quotas.Reserve(r.Context(), who, len(reqs))
	if err != nil {
		return err
	}
	defer hold.SettleUnknown()
	res, err := c.d.Workflows.Create(callerOf(who), workflow.CreateRequest{Name: body.Name, Flow: body.Flow, Pages: reqs})
	if err != nil {
		return err
	}
	ids := make([]string, len(res.Pages))
	for i, p := range res.Pages {
		ids[i] = p.ID
	}
	wf := res.Workflow
	writeJSON(w, http.StatusCreated, apitypes.WorkflowCreated{GroupID: wf.ID, Name: wf.Name, Flow: wf.Flow, Status: wf.Status,
		Pages: ids, CreatedAt: wf.CreatedAt, Warnings: warningsOrEmpty(res.Warnings)})
	return nil
}

func (c *content) getWorkflow(w http.ResponseWriter, _ *http.Request, ps httprouter.Params, who tenant.Principal) error {
	s := c.s
	v, err := c.d.Workflows.Get(who.TenantID, ps.ByName("groupId"))
	if err != nil {
		return err
	}
	pages := make([]apitypes.WorkflowPage, len(v.Steps))
	for i, st := range v.Steps {
		pages[i] = apitypes.WorkflowPage{PageID: st.PageID, Status: v.Statuses[i], Link: s.link(st.PageID)}
	}
	wf := apitypes.Workflow{GroupID: v.ID, Name: v.Name, Flow: v.Flow, Status: v.Status, Pages: pages, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
	if v.CompletedAt != nil {
		wf.CompletedAt = *v.CompletedAt
	}
	if v.CancelledAt != nil {
		wf.CancelledAt = *v.CancelledAt
	}
	writeJSON(w, http.StatusOK, wf)
	return nil
}
