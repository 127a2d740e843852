package client

import (
	"context"
	"net/url"

	"folio/transport/apitypes"
)

// Tenant is the account the key belongs to (GET /v1/tenant).
type Tenant = apitypes.Tenant

// TenantUsage counts this month's pages against the plan; a limit of 0 is
// unlimited (null on the wire).
type TenantUsage = apitypes.TenantUsage

// Dashboard is the tenant's page counts and rates over a period.
type Dashboard = apitypes.Dashboard[DashboardMetrics]

// DashboardMetrics are the counts and rates of the pages created in the period.
type DashboardMetrics struct {
	TotalPages             int     `json:"total_pages"`
	ActivePages            int     `json:"active_pages"`
	CompletedPages         int     `json:"completed_pages"`
	AvgResolutionTimeHours float64 `json:"avg_resolution_time_hours"`
	ApprovalRate           float64 `json:"approval_rate"` // 0..1
}

// QualityScore is the agent's score over its most recent 100 pages.
type QualityScore struct {
	TenantID               string  `json:"tenantId"`
	TotalPages             int     `json:"totalPages"`
	TotalDecisions         int     `json:"totalDecisions"`
	AcceptanceRate         float64 `json:"acceptanceRate"` // 0..100
	DecisionSpeed          float64 `json:"decisionSpeed"`  // 0..100
	AvgDecisionTimeMinutes float64 `json:"avgDecisionTimeMinutes"`
	Score                  float64 `json:"score"` // 0..100
	Period                 string  `json:"period"`
}

// Tenant reads the key's tenant (GET /v1/tenant).
func (c *Client) Tenant(ctx context.Context) (*Tenant, error) {
	return call[Tenant](ctx, c, "GET", "/v1/tenant", nil)
}

// Dashboard reads the tenant's metrics (GET /v1/tenant/dashboard); period is "7d",
// "30d" or "all", empty for the server's default (30d).
func (c *Client) Dashboard(ctx context.Context, period string) (*Dashboard, error) {
	q := url.Values{}
	setString(q, "period", period)
	return call[Dashboard](ctx, c, "GET", withQuery("/v1/tenant/dashboard", q), nil)
}

// QualityScore reads the agent's quality score (GET /v1/quality-score).
func (c *Client) QualityScore(ctx context.Context) (*QualityScore, error) {
	return call[QualityScore](ctx, c, "GET", "/v1/quality-score", nil)
}
