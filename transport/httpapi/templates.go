package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/templates"
	"folio/actors/page"
	"folio/actors/tenant"
	"folio/transport/apitypes"
)

func (c *content) listTemplates(w http.ResponseWriter, _ *http.Request, _ httprouter.Params, _ tenant.Principal) error {
	writeJSON(w, http.StatusOK, apitypes.TemplateList[*templates.Template]{Templates: templates.All()})
	return nil
}

// publishTemplate is POST /v1/publish/template/:name {variables, ...page extras}:
// an active page, answered as POST /v1/publish answers.
func (c *content) publishTemplate(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	s := c.s
	t, ok := templates.Lookup(ps.ByName("name"))
	if !ok {
		return templates.NotFound(ps.ByName("name"))
	}
	var body struct {
		Variables json.RawMessage `json:"variables"`
		pageExtras
	}
	if err := s.decode(w, r, &body, true); err != nil {
		return err
	}
	tp, warnings, err := t.Render(body.Variables)
	if err != nil {
		return err
	}
	actions := make([]page.Action, len(tp.Actions))
	for i, a := range tp.Actions {
		actions[i] = page.Action{ActionID: a.ActionID, Label: a.Label, Style: a.Style}
	}
	req := page.Request{Title: &tp.Title, PageType: &tp.PageType, Blocks: &tp.Blocks, Actions: &actions}
	if tp.Summary != "" {
		req.Summary = &tp.Summary
	}
	if tp.Priority != "" {
		req.Priority = &tp.Priority
	}
	body.onto(&req)
	return s.createWith(w, r, who, &req, true, warnings)
}
