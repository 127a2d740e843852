package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/apitypes"
)

// Operator endpoints (routes.go, adminRoutes), mounted only when the node has an
// admin token (--admin-token). `folio admin --server URL --admin-token T …` drives
// them; the same commands work on a stopped server's data directory without them.

// requireAdmin checks the bearer admin token (compared as hashes, in constant time).
func (s *Server) requireAdmin(h handler) handler {
	want := sha256.Sum256([]byte(s.tenancy.AdminToken))
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
		token, _ := bearer(r)
		got := sha256.Sum256([]byte(token))
		if token == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			return fault.New(fault.Unauthorized, "the admin token is missing or wrong", nil)
		}
		return h(w, r, ps)
	}
}

// adminTenant is how operators see a tenant (HTTP and `folio admin`). Limits are
// the effective ones, null when unlimited; CustomLimits holds only the limits an
// operator set for this tenant ({} when none).
type adminTenant struct {
	TenantID     string       `json:"tenant_id"`
	Name         string       `json:"name"`
	Plan         string       `json:"plan"`
	OwnerEmail   string       `json:"owner_email"`
	Claimed      bool         `json:"claimed"`
	CreatedAt    time.Time    `json:"created_at"`
	Limits       adminLimits  `json:"limits"`
	CustomLimits customLimits `json:"custom_limits"`
	Usage        adminUsage   `json:"usage"`
	APIKeys      int          `json:"api_keys"`
}

// adminLimits are a tenant's effective limits, null when unlimited.
type adminLimits struct {
	RequestsPerMinute apitypes.Limit `json:"requests_per_minute"`
	PagesPerMonth     apitypes.Limit `json:"pages_per_month"`
}

// customLimits are the limits an operator set for one tenant: a member is present
// only when set (0 there is unlimited).
type customLimits struct {
	RequestsPerMinute *int `json:"requests_per_minute,omitempty"`
	PagesPerMonth     *int `json:"pages_per_month,omitempty"`
}

// adminUsage counts this month's live pages against the effective limit.
type adminUsage struct {
	PagesThisMonth int            `json:"pages_this_month"`
	PagesLimit     apitypes.Limit `json:"pages_limit"`
}

// adminTenantList is one window of tenants in id order (GET /v1/admin/tenants).
type adminTenantList struct {
	Tenants []adminTenant `json:"tenants"`
	Total   int           `json:"total"`
	Limit   int           `json:"limit"`
	Offset  int           `json:"offset"`
}

// AdminTenantView is how operators see a tenant (HTTP and `folio admin`).
func AdminTenantView(sum *tenant.Summary) adminTenant {
	t := sum.Tenant
	return adminTenant{
		TenantID: t.ID, Name: t.Name, Plan: t.Plan, OwnerEmail: t.OwnerEmail, Claimed: t.Claimed, CreatedAt: t.CreatedAt,
		Limits:       adminLimits{RequestsPerMinute: apitypes.Limit(sum.Limits.RequestsPerMinute), PagesPerMonth: apitypes.Limit(sum.Limits.PagesPerMonth)},
		CustomLimits: customLimits{RequestsPerMinute: t.RequestsPerMinute, PagesPerMonth: t.PagesPerMonth},
		Usage:        adminUsage{PagesThisMonth: sum.PagesThisMonth, PagesLimit: apitypes.Limit(sum.Limits.PagesPerMonth)},
		APIKeys:      sum.Keys,
	}
}

func (s *Server) adminListTenants(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	limit, offset, err := limitOffset(r, 100, 1000)
	if err != nil {
		return err
	}
	list, total, err := tenant.ListTenants(s.store, offset, limit)
	if err != nil {
		return err
	}
	out := make([]adminTenant, 0, len(list))
	for _, t := range list {
		sum, err := tenant.Summarize(s.store, s.tenancy.Book.Plans(), t.ID, s.now())
		if err != nil {
			continue
		}
		out = append(out, AdminTenantView(sum))
	}
	writeJSON(w, http.StatusOK, adminTenantList{Tenants: out, Total: total, Limit: limit, Offset: offset})
	return nil
}

func (s *Server) adminShowTenant(w http.ResponseWriter, _ *http.Request, ps httprouter.Params) error {
	return s.writeAdminTenant(w, ps.ByName("id"))
}

// writeAdminTenant answers 200 with the tenant as operators see it.
func (s *Server) writeAdminTenant(w http.ResponseWriter, id string) error {
	sum, err := tenant.Summarize(s.store, s.tenancy.Book.Plans(), id, s.now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, AdminTenantView(sum))
	return nil
}

// adminSetPlan sets the plan and, optionally, the tenant's own limits (absent:
// the plan's; 0: unlimited). The tenant's actor commits it; the plan book then
// forgets the tenant so its next request runs at the new rate.
func (s *Server) adminSetPlan(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var req struct {
		Plan              string `json:"plan"`
		RequestsPerMinute *int   `json:"requests_per_minute"`
		PagesPerMonth     *int   `json:"pages_per_month"`
	}
	if err := s.decode(w, r, &req, false); err != nil {
		return err
	}
	id := ps.ByName("id")
	m := &tenant.SetPlan{Plan: req.Plan, RequestsPerMinute: req.RequestsPerMinute, PagesPerMonth: req.PagesPerMonth}
	if err := m.Validate(s.tenancy.Book.Plans()); err != nil {
		return err
	}
	if !validTenantID(id) {
		return fault.Missing("tenant", id)
	}
	if _, err := registry.Call[*tenant.Tenant](r.Context(), s.tenants, id, m); err != nil {
		return err
	}
	s.tenancy.Book.Forget(id)
	return s.writeAdminTenant(w, id)
}

func (s *Server) adminCreateKey(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var req struct {
		Name string `json:"name"`
		Mode string `json:"mode"`
	}
	if err := s.decode(w, r, &req, true); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	if req.Name == "" {
		req.Name = "admin"
	}
	if utf8.RuneCountInString(req.Name) > 100 {
		return fault.Field("name", "max_length", "name has at most 100 characters")
	}
	if req.Mode != "" && req.Mode != "live" && req.Mode != "test" {
		return fault.Field("mode", "enum", "mode must be live or test")
	}
	id := ps.ByName("id")
	if !validTenantID(id) {
		return fault.Missing("tenant", id)
	}
	res, err := registry.Call[*tenant.CreatedKey](r.Context(), s.tenants, id, &tenant.CreateKey{Name: req.Name, Test: req.Mode == "test"})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, AdminKeyView(res.Key, res.Secret))
	return nil
}

// adminKey is a key created by an operator; Key is the full secret, shown once.
// CreatedAt is written in UTC.
type adminKey struct {
	ID        string `json:"id"`
	TenantID  string `json:"tenant_id"`
	Name      string `json:"name"`
	Key       string `json:"key"`
	Prefix    string `json:"prefix"`
	Mode      string `json:"mode"`
	CreatedAt string `json:"createdAt"` // RFC 3339, UTC
}

// AdminKeyView is a key created by an operator with its secret.
func AdminKeyView(k tenant.Key, secret string) adminKey {
	return adminKey{ID: k.ID, TenantID: k.TenantID, Name: k.Name, Key: secret, Prefix: k.Prefix,
		Mode: mode(k.Test), CreatedAt: k.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

// adminExportAudit streams the tenant's audit chain as JSON lines.
// Once the 200 is sent, a failure midway can only be logged.
func (s *Server) adminExportAudit(w http.ResponseWriter, _ *http.Request, ps httprouter.Params) error {
	id := ps.ByName("id")
	if !validTenantID(id) {
		return fault.Missing("tenant", id)
	}
	if ok, err := tenant.Exists(s.store, id); err != nil || !ok {
		if err != nil {
			return err // the store did not answer: 503, not 404
		}
		return fault.Missing("tenant", id)
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	if _, err := tenant.ExportAudit(s.store, id, w); err != nil {
		s.log.Error("audit export failed midway", "tenant", id, "err", err)
	}
	return nil
}

// validTenantID keeps operator input from spawning actors for nonsense ids.
func validTenantID(id string) bool { return id != "" && len(id) <= 64 }
