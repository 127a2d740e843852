package httpapi

import (
	"net/http"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/audit"
	"folio/actors/model/fault"
	"folio/actors/model/ids"
	"folio/actors/page"
	"folio/actors/tenant"
)

// askPage sends a command to the page actor and returns its Result.
func (s *Server) askPage(id string, msg any) (*page.Result, error) {
	if id == "" || len(id) > 64 {
		return nil, fault.Missing("page", id)
	}
	return ask[*page.Result](s, s.pages, id, msg)
}

func (s *Server) publish(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) {
	s.create(w, r, who, true)
}

func (s *Server) createDraft(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) {
	s.create(w, r, who, false)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, who tenant.Principal, publish bool) {
	var req page.Request
	if err := s.decode(w, r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.createFrom(w, r, who, &req, publish)
}

// createFrom creates a page from an already decoded request (also used by the
// template and protocol routes).
func (s *Server) createFrom(w http.ResponseWriter, r *http.Request, who tenant.Principal, req *page.Request, publish bool) {
	s.createWith(w, r, who, req, publish, nil)
}

// createWith is createFrom with advisory warnings of the caller's (a translator's,
// a template's) listed before the page's own.
func (s *Server) createWith(w http.ResponseWriter, r *http.Request, who tenant.Principal, req *page.Request, publish bool, warnings []string) {
	// The page is validated and built before room is reserved in the monthly quota:
	// an invalid request must never hold the month's last page while a valid one is
	// refused with 429 (and then give it back to nobody).
	id, caller := ids.New("pg"), callerOf(who)
	prepared, err := page.Prepare(s.pageDeps, id, caller, req, publish)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	quota, ok := s.reserveQuota(w, r, who, 1) // the monthly quota (tenancy.go)
	if !ok {
		return
	}
	res, err := s.askPage(id, &page.Create{Caller: caller, Prepared: prepared})
	quota.settle(err)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p := res.Page
	out := map[string]any{"pageId": p.ID, "status": p.Status, "createdAt": p.CreatedAt, "warnings": warningsOrEmpty(append(warnings, res.Warnings...))}
	if publish {
		out["pageUrl"] = s.pageURL(p.ID)
		out["shortUrl"] = s.shortURL(p.ShortCode)
		out["expiresAt"] = p.ExpiresAt
		out["publishedAt"] = p.PublishedAt
	}
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) getPage(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	res, err := s.askPage(ps.ByName("id"), &page.Get{Caller: callerOf(who)})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.view(res.Page))
}

func (s *Server) listPages(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) {
	q := r.URL.Query()
	limit, err := intParam(q.Get("limit"), "limit", 50, 1, 200)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	offset, err := intParam(q.Get("offset"), "offset", 0, 0, 1<<31-1)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	status := q.Get("status")
	switch status {
	case "", page.Draft, page.Active, page.Completed, page.Revoked, page.Expired:
	default:
		s.writeError(w, r, fault.Field("status", "enum", "status must be draft, active, completed, revoked or expired"))
		return
	}
	pages, total, err := page.List(s.store, who.TenantID, page.Filter{Status: status, PageType: q.Get("page_type"), Limit: limit, Offset: offset}, s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]pageView, len(pages))
	for i, p := range pages {
		out[i] = s.view(p)
	}
	writeJSON(w, http.StatusOK, map[string]any{"pages": out, "total": total, "limit": limit, "offset": offset})
}

func intParam(raw, name string, def, lo, hi int) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, fault.Field(name, "integer", "%s must be a whole number", name)
	}
	if n < lo || n > hi {
		e := fault.Field(name, "range", "%s must be between %d and %d", name, lo, hi)
		e.Details["minimum"], e.Details["maximum"] = lo, hi
		return 0, e
	}
	return n, nil
}

func (s *Server) updatePage(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	var req page.Request
	if err := s.decode(w, r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.askPage(ps.ByName("id"), &page.Update{Caller: callerOf(who), Req: &req})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	v := s.view(res.Page)
	writeJSON(w, http.StatusOK, struct {
		pageView
		Warnings []string `json:"warnings"`
	}{v, warningsOrEmpty(res.Warnings)})
}

func (s *Server) publishDraft(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	var req page.Request
	if err := s.decode(w, r, &req, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.askPage(ps.ByName("id"), &page.PublishDraft{Caller: callerOf(who), Req: &req})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p := res.Page
	writeJSON(w, http.StatusOK, map[string]any{"pageId": p.ID, "pageUrl": s.pageURL(p.ID), "shortUrl": s.shortURL(p.ShortCode),
		"status": p.Status, "publishedAt": p.PublishedAt, "expiresAt": p.ExpiresAt, "warnings": warningsOrEmpty(res.Warnings)})
}

func (s *Server) revoke(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	var req struct {
		Reason string `json:"reason"`
	}
	if err := s.decode(w, r, &req, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.askPage(ps.ByName("id"), &page.Revoke{Caller: callerOf(who), Reason: req.Reason})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"pageId": res.Page.ID, "status": res.Page.Status, "revokedAt": res.Page.RevokedAt})
}

func (s *Server) renew(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	var req struct {
		ExpiresAt *string `json:"expires_at"`
	}
	if err := s.decode(w, r, &req, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.askPage(ps.ByName("id"), &page.Renew{Caller: callerOf(who), ExpiresAt: req.ExpiresAt})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"pageId": res.Page.ID, "status": res.Page.Status, "expiresAt": res.Page.ExpiresAt})
}

// execute is POST /v1/pages/:id/actions/:actionId. With an API key it acts for
// the page's tenant (another tenant's page is 404) and actor.identity names whom the
// key acts for; without one, a person holding a public page's link acts under the
// identity they give (auth_method "link").
func (s *Server) execute(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	v, err := s.viewerOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req page.ActionRequest
	if err := s.decode(w, r, &req, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	var msg any = &page.Act{Viewer: v, ActionID: ps.ByName("actionId"), Req: &req}
	if v.TenantID != "" {
		msg = &page.Execute{Caller: page.Caller{TenantID: v.TenantID, Agent: v.Agent}, ActionID: ps.ByName("actionId"), Req: &req}
	}
	res, err := s.askPage(ps.ByName("id"), msg)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"action_id":  res.Execution.ActionID,
		"status":     "executed",
		"page_state": map[string]string{"previous": res.Previous, "current": res.Page.Status},
		"executedAt": res.Execution.ExecutedAt,
	})
}

func (s *Server) pageAudit(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	q := r.URL.Query()
	pg, err := intParam(q.Get("page"), "page", 1, 1, 1<<31-1)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	per, err := intParam(q.Get("per_page"), "per_page", 50, 1, 200)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.askPage(ps.ByName("id"), &page.Get{Caller: callerOf(who)})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	recs, total, err := s.store.AuditGroup(who.TenantID, res.Page.ID, (pg-1)*per, per)
	items := make([]audit.Entry, 0, len(recs))
	for _, r := range recs {
		if e, ok := audit.Decode(r.Entry, r.Hash); ok {
			items = append(items, e)
		}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items, "total": total, "page": pg, "per_page": per})
}
