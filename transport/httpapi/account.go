package httpapi

import (
	"context"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/model/ids"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// ask sends msg to an entity and turns error replies into Go errors (the helpers
// go away in the next step: handlers call registry.Call with the request's context).
func ask[T any](_ *Server, reg *registry.Registry, id string, msg any) (T, error) {
	return registry.Call[T](context.Background(), reg, id, msg)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	var req struct {
		Name       string `json:"name"`
		OwnerEmail string `json:"owner_email"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	req.Name = strings.TrimSpace(req.Name)
	if req.Name == "" {
		s.writeError(w, r, fault.Field("name", "required", "name is required"))
		return
	}
	if utf8.RuneCountInString(req.Name) > 100 {
		s.writeError(w, r, fault.Field("name", "max_length", "name has at most 100 characters"))
		return
	}
	if req.OwnerEmail != "" {
		if a, err := mail.ParseAddress(req.OwnerEmail); err != nil || a.Address != req.OwnerEmail || len(req.OwnerEmail) > 320 {
			s.writeError(w, r, fault.Field("owner_email", "email", "owner_email must be a plain e-mail address"))
			return
		}
	}
	id := ids.New("ten")
	res, err := ask[*tenant.Registered](s, s.tenants, id, &tenant.Register{Name: req.Name, OwnerEmail: req.OwnerEmail, Plan: s.defaultPlan})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	claimURL := s.urls.App + "/claim?code=" + url.QueryEscape(res.Tenant.ClaimCode)
	writeJSON(w, http.StatusCreated, map[string]any{
		"apiKey":    res.APIKey,
		"tenantId":  res.Tenant.ID,
		"claimCode": res.Tenant.ClaimCode,
		"claimUrl":  claimURL,
		"message":   "Agent registered. Store the API key now: it is shown only once. A person can claim this agent at " + claimURL,
	})
}

type keyView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Mode       string     `json:"mode"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) {
	keys, err := ask[[]tenant.KeyView](s, s.tenants, who.TenantID, &tenant.ListKeys{})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]keyView, len(keys))
	for i, k := range keys {
		out[i] = keyView{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Mode: mode(k.Test), CreatedAt: k.CreatedAt}
		if !k.LastUsedAt.IsZero() {
			t := k.LastUsedAt
			out[i].LastUsedAt = &t
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": out})
}

func mode(test bool) string {
	if test {
		return "test"
	}
	return "live"
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) {
	var req struct {
		Name string `json:"name"`
		Mode string `json:"mode"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	req.Name = strings.TrimSpace(req.Name)
	if req.Name == "" {
		s.writeError(w, r, fault.Field("name", "required", "name is required"))
		return
	}
	if utf8.RuneCountInString(req.Name) > 100 {
		s.writeError(w, r, fault.Field("name", "max_length", "name has at most 100 characters"))
		return
	}
	if req.Mode != "" && req.Mode != "live" && req.Mode != "test" {
		s.writeError(w, r, fault.Field("mode", "enum", "mode must be live or test"))
		return
	}
	res, err := ask[*tenant.CreatedKey](s, s.tenants, who.TenantID, &tenant.CreateKey{Name: req.Name, Test: req.Mode == "test"})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"id": res.Key.ID, "name": res.Key.Name, "key": res.Secret, "prefix": res.Key.Prefix,
		"mode": mode(res.Key.Test), "createdAt": res.Key.CreatedAt,
	})
}

func (s *Server) deleteKey(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) {
	res, err := s.tenants.Ask(context.Background(), who.TenantID, &tenant.DeleteKey{KeyID: ps.ByName("id")})
	if err == nil {
		err, _ = res.(error)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getTenant(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) {
	v, err := ask[*tenant.View](s, s.tenants, who.TenantID, &tenant.Get{})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// pages_this_month counts live pages only (the page actor counts them in the
	// creation commit); pages_limit is the effective limit, null when unlimited.
	plan := s.planLimits(v.Tenant)
	writeJSON(w, http.StatusOK, map[string]any{
		"tenant_id": v.Tenant.ID, "name": v.Tenant.Name, "plan": v.Tenant.Plan,
		"usage": map[string]any{"pages_this_month": v.PagesThisMonth, "pages_limit": unlimitedAsNull(plan.PagesPerMonth)},
	})
}

func (s *Server) verifyAudit(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) {
	v, err := s.store.VerifyAudit(who.TenantID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := map[string]any{
		"status": "valid", "chain_length": v.Length, "first_hash": nullable(v.FirstHash),
		"last_hash": nullable(v.LastHash), "verified_at": v.VerifiedAt,
	}
	if !v.Valid {
		out["status"] = "invalid"
		out["first_invalid_sequence"] = v.FirstBadSeq
		out["reason"] = v.Reason
	}
	writeJSON(w, http.StatusOK, out)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
