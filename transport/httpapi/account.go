package httpapi

import (
	"net/http"
	"net/url"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/ids"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/apitypes"
)

// register is POST /v1/auth/agent/register: a new tenant with its first live key.
// The tenant actor checks the name and owner_email (tenant.Register).
func (s *Server) register(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	var req struct {
		Name       string `json:"name"`
		OwnerEmail string `json:"owner_email"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		return err
	}
	res, err := registry.Call[*tenant.Registered](r.Context(), s.tenants, ids.New("ten"),
		&tenant.Register{Name: req.Name, OwnerEmail: req.OwnerEmail, Plan: s.defaultPlan})
	if err != nil {
		return err
	}
	claimURL := ClaimURL(s.urls.App, res.Tenant.ClaimCode, res.ClaimToken)
	message := "Agent registered. Store the API key now: it is shown only once. A person claims this agent by opening " + claimURL + " and confirming the claim code " + res.Tenant.ClaimCode + "."
	if req.OwnerEmail != "" && !s.queueClaimMail(r, res, claimURL) {
		message += " No claim mail was sent to owner_email (too many mails to it, or from this address, recently): give the person the claimUrl."
	}
	writeJSON(w, http.StatusCreated, apitypes.Registration{APIKey: res.APIKey, TenantID: res.Tenant.ID,
		ClaimCode: res.Tenant.ClaimCode, ClaimURL: claimURL, Message: message})
	return nil
}

// ClaimURL is the address where a person claims an agent: the claim page with the
// code filled in and the claim token after #, which a browser never sends to a
// server (so it never sits in an access log); the page's script hands it to the
// claim form.
func ClaimURL(app, code, token string) string {
	return app + "/claim?code=" + url.QueryEscape(code) + "#" + token
}

type keyView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Mode       string     `json:"mode"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// keyList is the tenant's keys (GET /v1/account/api-keys), secrets never included.
type keyList struct {
	Keys []keyView `json:"keys"`
}

// keyCreated is a new key (POST /v1/account/api-keys); Key is the whole secret,
// shown only here.
type keyCreated struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Key       string    `json:"key"`
	Prefix    string    `json:"prefix"`
	Mode      string    `json:"mode"`
	CreatedAt time.Time `json:"createdAt"`
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	keys, err := registry.Call[[]tenant.KeyView](r.Context(), s.tenants, who.TenantID, &tenant.ListKeys{})
	if err != nil {
		return err
	}
	out := make([]keyView, len(keys))
	for i, k := range keys {
		out[i] = keyView{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Mode: mode(k.Test), CreatedAt: k.CreatedAt}
		if !k.LastUsedAt.IsZero() {
			t := k.LastUsedAt
			out[i].LastUsedAt = &t
		}
	}
	writeJSON(w, http.StatusOK, keyList{Keys: out})
	return nil
}

func mode(test bool) string {
	if test {
		return "test"
	}
	return "live"
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	var req struct {
		Name string `json:"name"`
		Mode string `json:"mode"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		return err
	}
	name, test, err := tenant.CheckNewKey(req.Name, req.Mode)
	if err != nil {
		return err
	}
	res, err := registry.Call[*tenant.CreatedKey](r.Context(), s.tenants, who.TenantID, &tenant.CreateKey{Name: name, Test: test})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, keyCreated{ID: res.Key.ID, Name: res.Key.Name, Key: res.Secret, Prefix: res.Key.Prefix,
		Mode: mode(res.Key.Test), CreatedAt: res.Key.CreatedAt})
	return nil
}

// deleteKey is DELETE /v1/account/api-keys/:id.
func (s *Server) deleteKey(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	if _, err := registry.Call[*tenant.KeyDeleted](r.Context(), s.tenants, who.TenantID, &tenant.DeleteKey{KeyID: ps.ByName("id")}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) getTenant(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	v, err := registry.Call[*tenant.View](r.Context(), s.tenants, who.TenantID, &tenant.Get{})
	if err != nil {
		return err
	}
	// pages_this_month counts live pages only (the page actor counts them in the
	// creation commit); pages_limit is the effective limit, null when unlimited.
	// stored_bytes (files and the agent event log, each counted in the commit that
	// changes it) is measured against storage_limit_bytes, null when unlimited.
	plan := s.planLimits(v.Tenant)
	writeJSON(w, http.StatusOK, apitypes.Tenant{TenantID: v.Tenant.ID, Name: v.Tenant.Name, Plan: v.Tenant.Plan,
		Usage: apitypes.TenantUsage{PagesThisMonth: v.PagesThisMonth, PagesLimit: apitypes.Limit(plan.PagesPerMonth),
			StoredBytes: v.Stored.Total(), StoredFileBytes: v.Stored.Files, StoredEventBytes: v.Stored.Events,
			StorageLimitBytes: apitypes.Limit(plan.StorageBytes)}})
	return nil
}

// auditVerification is the tenant's audit chain checked from its first record
// (GET /v1/audit/verify). FirstInvalidSequence and Reason are present only when
// the chain is invalid; the hashes are null for an empty chain.
type auditVerification struct {
	Status               string              `json:"status"` // valid or invalid
	ChainLength          uint64              `json:"chain_length"`
	FirstHash            apitypes.NullString `json:"first_hash"`
	LastHash             apitypes.NullString `json:"last_hash"`
	VerifiedAt           time.Time           `json:"verified_at"`
	FirstInvalidSequence *uint64             `json:"first_invalid_sequence,omitempty"`
	Reason               *string             `json:"reason,omitempty"`
}

func (s *Server) verifyAudit(w http.ResponseWriter, _ *http.Request, _ httprouter.Params, who tenant.Principal) error {
	v, err := s.store.VerifyAudit(who.TenantID)
	if err != nil {
		return err
	}
	out := auditVerification{Status: "valid", ChainLength: v.Length, FirstHash: apitypes.NullString(v.FirstHash),
		LastHash: apitypes.NullString(v.LastHash), VerifiedAt: v.VerifiedAt}
	if !v.Valid {
		out.Status = "invalid"
		out.FirstInvalidSequence = &v.FirstBadSeq
		out.Reason = &v.Reason
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
