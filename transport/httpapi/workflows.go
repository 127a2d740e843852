package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/tenant"
	"folio/actors/workflow"
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
	release, err := s.reservePages(w, r, who, len(reqs))
	if err != nil {
		return err
	}
	defer release()
	res, err := c.d.Workflows.Create(callerOf(who), workflow.CreateRequest{Name: body.Name, Flow: body.Flow, Pages: reqs})
	if err != nil {
		return err
	}
	ids := make([]string, len(res.Pages))
	for i, p := range res.Pages {
		ids[i] = p.ID
	}
	wf := res.Workflow
	writeJSON(w, http.StatusCreated, map[string]any{
		"group_id":   wf.ID,
		"name":       wf.Name,
		"flow":       wf.Flow,
		"status":     wf.Status,
		"pages":      ids,
		"created_at": wf.CreatedAt,
		"warnings":   warningsOrEmpty(res.Warnings),
	})
	return nil
}

type workflowPage struct {
	PageID  string `json:"pageId"`
	Status  string `json:"status"`
	PageURL string `json:"pageUrl"`
}

func (c *content) getWorkflow(w http.ResponseWriter, _ *http.Request, ps httprouter.Params, who tenant.Principal) error {
	s := c.s
	v, err := c.d.Workflows.Get(who.TenantID, ps.ByName("groupId"))
	if err != nil {
		return err
	}
	pages := make([]workflowPage, len(v.Steps))
	for i, st := range v.Steps {
		pages[i] = workflowPage{PageID: st.PageID, Status: v.Statuses[i], PageURL: s.pageURL(st.PageID)}
	}
	writeJSON(w, http.StatusOK, struct {
		GroupID     string         `json:"group_id"`
		Name        string         `json:"name"`
		Flow        string         `json:"flow"`
		Status      string         `json:"status"`
		Pages       []workflowPage `json:"pages"`
		CreatedAt   time.Time      `json:"created_at"`
		UpdatedAt   time.Time      `json:"updated_at"`
		CompletedAt *time.Time     `json:"completed_at,omitempty"`
		CancelledAt *time.Time     `json:"cancelled_at,omitempty"`
	}{v.ID, v.Name, v.Flow, v.Status, pages, v.CreatedAt, v.UpdatedAt, v.CompletedAt, v.CancelledAt})
	return nil
}
