package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/templates"
	"folio/actors/page"
	"folio/actors/tenant"
)

func (c *content) listTemplates(w http.ResponseWriter, _ *http.Request, _ httprouter.Params, _ tenant.Principal) {
	writeJSON(w, http.StatusOK, map[string]any{"templates": templates.All()})
}

// publishTemplate is POST /v1/publish/template/:name {variables, ...page extras}:
// an active page, answered as POST /v1/publish answers.
func (c *content) publishTemplate(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	s := c.s
	t, ok := templates.Lookup(ps.ByName("name"))
	if !ok {
		s.writeError(w, r, templates.NotFound(ps.ByName("name")))
		return
	}
	var body struct {
		Variables json.RawMessage `json:"variables"`
		pageExtras
	}
	if err := s.decode(w, r, &body, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	tp, warnings, err := t.Render(body.Variables)
	if err != nil {
		s.writeError(w, r, err)
		return
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
	s.createWith(w, r, who, &req, true, warnings)
}
