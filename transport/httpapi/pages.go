package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/audit"
	"folio/actors/model/fault"
	"folio/actors/model/ids"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/apitypes"
)

func (s *Server) publish(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	return s.create(w, r, who, true)
}

func (s *Server) createDraft(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	return s.create(w, r, who, false)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, who tenant.Principal, publish bool) error {
	var req page.Request
	raw, err := s.decodeRaw(w, r, &req, false)
	if err != nil {
		return err
	}
	return s.createWith(w, r, who, &req, publish, page.UnknownFieldWarnings(raw))
}

// createWith creates a page from an already decoded request (also used by the
// template and protocol routes), with advisory warnings of the caller's (a
// translator's, a template's) listed before the page's own.
func (s *Server) createWith(w http.ResponseWriter, r *http.Request, who tenant.Principal, req *page.Request, publish bool, warnings []string) error {
	// The page is validated and built before room is reserved in the monthly quota:
	// an invalid request must never hold the month's last page while a valid one is
	// refused with 429 (and then give it back to nobody).
	id, caller := ids.New("pg"), callerOf(who)
	prepared, err := page.Prepare(s.pageDeps, id, caller, req, publish)
	if err != nil {
		return err
	}
	quota, err := s.quotas.Reserve(r.Context(), who, 1) // the monthly quota (tenant.Quotas)
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.Create{Caller: caller, Prepared: prepared})
	quota.Settle(err)
	if err != nil {
		return err
	}
	p := res.Page
	warnings = warningsOrEmpty(append(warnings, res.Warnings...))
	if !publish {
		writeJSON(w, http.StatusCreated, apitypes.DraftCreated{PageID: p.ID, Status: p.Status, CreatedAt: p.CreatedAt, Warnings: warnings})
		return nil
	}
	writeJSON(w, http.StatusCreated, apitypes.PublishResult{PageID: p.ID, Link: s.link(p.ID), ShortURL: s.shortURL(p.ShortCode), Status: p.Status,
		CreatedAt: p.CreatedAt, PublishedAt: apitypes.TimeOf(p.PublishedAt), ExpiresAt: apitypes.TimeOf(p.ExpiresAt), Warnings: warnings})
	return nil
}

func (s *Server) getPage(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.Get{Caller: callerOf(who)})
	if err != nil {
		return err
	}
	v := s.view(res.Page)
	v.ContentHash = page.ContentHash(res.Page)
	w.Header().Set("ETag", pageETag(res.Page.Version))
	writeJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) listPages(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	limit, offset, err := limitOffset(r, 50, 200)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	status := q.Get("status")
	switch status {
	case "", page.Draft, page.Active, page.Completed, page.Revoked, page.Expired:
	default:
		return fault.Field("status", "enum", "status must be draft, active, completed, revoked or expired")
	}
	pages, total, err := page.List(s.store, who.TenantID, page.Filter{Status: status, PageType: q.Get("page_type"), Limit: limit, Offset: offset}, s.now())
	if err != nil {
		return err
	}
	out := make([]pageView, len(pages))
	for i, p := range pages {
		out[i] = s.view(p)
	}
	writeJSON(w, http.StatusOK, apitypes.PageList[pageView]{Pages: out, Total: total, Limit: limit, Offset: offset})
	return nil
}

func (s *Server) updatePage(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	var req page.Request
	raw, err := s.decodeRaw(w, r, &req, false)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.Update{Caller: callerOf(who), Req: &req})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, updatedPage{s.view(res.Page), warningsOrEmpty(append(page.UnknownFieldWarnings(raw), res.Warnings...))})
	return nil
}

func (s *Server) publishDraft(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	var req page.Request
	raw, err := s.decodeRaw(w, r, &req, true)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.PublishDraft{Caller: callerOf(who), Req: &req})
	if err != nil {
		return err
	}
	p := res.Page
	writeJSON(w, http.StatusOK, apitypes.DraftPublished{PageID: p.ID, Link: s.link(p.ID), ShortURL: s.shortURL(p.ShortCode), Status: p.Status,
		PublishedAt: apitypes.TimeOf(p.PublishedAt), ExpiresAt: apitypes.TimeOf(p.ExpiresAt), Warnings: warningsOrEmpty(append(page.UnknownFieldWarnings(raw), res.Warnings...))})
	return nil
}

func (s *Server) revoke(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	var req struct {
		Reason string `json:"reason"`
	}
	if err := s.decode(w, r, &req, true); err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.Revoke{Caller: callerOf(who), Reason: req.Reason})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, apitypes.Revoked{PageID: res.Page.ID, Status: res.Page.Status, RevokedAt: apitypes.TimeOf(res.Page.RevokedAt)})
	return nil
}

func (s *Server) renew(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	var req struct {
		ExpiresAt *string `json:"expires_at"`
	}
	if err := s.decode(w, r, &req, true); err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.Renew{Caller: callerOf(who), ExpiresAt: req.ExpiresAt})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, apitypes.Renewed{PageID: res.Page.ID, Status: res.Page.Status, ExpiresAt: apitypes.TimeOf(res.Page.ExpiresAt)})
	return nil
}

// execute is POST /v1/pages/:id/actions/:actionId. With an API key it acts for
// the page's tenant (another tenant's page is 404) and actor.identity names whom the
// key acts for; without one, a person holding a public page's link acts under the
// identity they give (auth_method "link").
func (s *Server) execute(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	v, err := s.viewerOf(r)
	if err != nil {
		return err
	}
	var req page.ActionRequest
	if err := s.decode(w, r, &req, true); err != nil {
		return err
	}
	if err := versionFromIfMatch(r, &req); err != nil {
		return err
	}
	// actor.auth_token is a person's session token: the action is theirs, verified,
	// whoever sends the request (an agent relaying a person's decision).
	if req.Actor != nil && req.Actor.AuthToken != "" {
		sess, _, ok, err := s.people.Session(req.Actor.AuthToken)
		if err != nil {
			return err
		}
		if !ok {
			return fault.New(fault.Unauthorized, "actor.auth_token is not a live session token", map[string]any{"field": "actor.auth_token"})
		}
		tenants, err := tenant.TenantsOf(s.store, sess.UserID)
		if err != nil {
			return err
		}
		v = Credential{Session: &sess, Tenants: tenants}.Viewer()
	}
	var msg any = &page.Act{Viewer: v, ActionID: ps.ByName("actionId"), Req: &req}
	if v.TenantID != "" {
		msg = &page.Execute{Caller: page.Caller{TenantID: v.TenantID, Agent: v.Agent, Key: v.Key}, ActionID: ps.ByName("actionId"), Req: &req}
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, msg)
	if err != nil {
		return err
	}
	x := res.Execution
	writeJSON(w, http.StatusOK, apitypes.ActionExecuted{ActionID: x.ActionID, Status: "executed",
		PageState: apitypes.PageState{Previous: res.Previous, Current: res.Page.Status}, ExecutedAt: x.ExecutedAt,
		// the content the decision was made on (actors/page/version.go), and the
		// reviewer's corrections (actors/page/edits.go)
		Verdict: apitypes.Verdict{Outcome: x.OutcomeOf(), Final: !x.Step, PageVersion: x.PageVersion, ContentHash: x.ContentHash, Edits: editsOf(x.Edits)}})
	return nil
}

func (s *Server) pageAudit(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	q := r.URL.Query()
	pg, err := intParam(q.Get("page"), "page", 1, 1, maxQueryInt)
	if err != nil {
		return err
	}
	per, err := intParam(q.Get("per_page"), "per_page", 50, 1, 200)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.Result](r.Context(), s.pages, id, &page.Get{Caller: callerOf(who)})
	if err != nil {
		return err
	}
	recs, total, err := s.store.AuditGroup(who.TenantID, res.Page.ID, (pg-1)*per, per)
	if err != nil {
		return err
	}
	items := make([]audit.Entry, 0, len(recs))
	for _, r := range recs {
		if e, ok := audit.Decode(r.Entry, r.Hash); ok {
			items = append(items, e)
		}
	}
	writeJSON(w, http.StatusOK, apitypes.AuditList[audit.Entry]{Items: items, Total: total, Page: pg, PerPage: per})
	return nil
}
