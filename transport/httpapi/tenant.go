package httpapi

import (
	"folio/actors/auditlog"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/inbox"
	"folio/actors/model/fault"
	"folio/actors/tenant"
	"folio/transport/apitypes"
)

func (s *Server) dashboard(w http.ResponseWriter, r *http.Request, _ httprouter.Params, who tenant.Principal) error {
	period := r.URL.Query().Get("period")
	if period == "" {
		period = "30d"
	}
	if _, ok := inbox.Periods[period]; !ok {
		e := fault.Field("period", "enum", "period must be 7d, 30d or all")
		e.Details["allowed"] = []string{"7d", "30d", "all"}
		return e
	}
	m, err := inbox.Dashboard(s.store, who.TenantID, period, s.now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, apitypes.Dashboard[inbox.Metrics]{Period: period, Metrics: m})
	return nil
}

func (s *Server) qualityScore(w http.ResponseWriter, _ *http.Request, _ httprouter.Params, who tenant.Principal) error {
	q, err := inbox.Quality(s.store, who.TenantID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, q)
	return nil
}

// AuditLog signs the tenants' audit checkpoints (the dashboard's audit screen);
// nil on a node that keeps no audit trees.
func (s *Server) AuditLog() *auditlog.Log { return s.audit }

// planLimits is the tenant's effective plan: through the Book when the area is
// mounted (operator overrides included), else the built-in plan.
func (s *Server) planLimits(t tenant.Tenant) tenant.Plan {
	var b *tenant.Book
	if s.tenancy != nil {
		b = s.tenancy.Book
	}
	return b.PlanOf(t)
}
