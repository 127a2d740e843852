package tenancy_test

import (
	"testing"
	"time"

	"folio/transport/node/nodetest"
)

// craftHistory builds, with exact times, a tenant's history ending at T:
//
//	T-35d  P1 published, approved 10 h later
//	T-20d  P2, P3, P4 published; P3 revoked 1 h later, P2 rejected 2 h later, P4 stays active
//	T-3d   P5, P6 published, P7 drafted; P5 approved 4 h later, P6 stays active
func craftHistory(t *testing.T, e *nodetest.Env, clk *nodetest.Clock, key string) {
	t.Helper()
	keep := map[string]any{"expires_at": farFuture(clk)}
	p1 := e.Publish(key, nil)
	clk.Advance(10 * time.Hour)
	e.Must(200, "POST", "/v1/pages/"+p1+"/actions/approve", key, nil)

	clk.Advance(15*24*time.Hour - 10*time.Hour) // T-20d
	p2 := e.Publish(key, nil)
	p3 := e.Publish(key, nil)
	e.Publish(key, keep)
	clk.Advance(time.Hour)
	e.Must(200, "POST", "/v1/pages/"+p3+"/revoke", key, map[string]any{"reason": "wrong target"})
	clk.Advance(time.Hour)
	e.Must(200, "POST", "/v1/pages/"+p2+"/actions/reject", key, nil) // completes the page, rejected

	clk.Advance(17*24*time.Hour - 2*time.Hour) // T-3d
	p5 := e.Publish(key, nil)
	e.Publish(key, keep)
	e.Must(201, "POST", "/v1/pages", key, map[string]any{"title": "draft"})
	clk.Advance(4 * time.Hour)
	e.Must(200, "POST", "/v1/pages/"+p5+"/actions/approve", key, nil)

	clk.Advance(3*24*time.Hour - 4*time.Hour) // T
}

// TestDashboardArithmeticOnACraftedHistory checks every metric of every period.
func TestDashboardArithmeticOnACraftedHistory(t *testing.T) {
	T := time.Date(2025, 7, 11, 0, 0, 0, 0, time.UTC)
	e, clk := start(t, T.Add(-35*24*time.Hour))
	key, _ := e.Register("dash")
	craftHistory(t, e, clk, key)
	if !clk.Now().Equal(T) {
		t.Fatalf("clock at %v, want %v", clk.Now(), T)
	}
	for _, c := range []struct {
		query, period string
		metrics       map[string]float64
	}{
		{"?period=7d", "7d", map[string]float64{"total_pages": 3, "active_pages": 1, "completed_pages": 1, "avg_resolution_time_hours": 4, "approval_rate": 1}},
		{"?period=30d", "30d", map[string]float64{"total_pages": 6, "active_pages": 2, "completed_pages": 2, "avg_resolution_time_hours": 3, "approval_rate": 0.3333}},
		{"", "30d", map[string]float64{"total_pages": 6, "active_pages": 2, "completed_pages": 2, "avg_resolution_time_hours": 3, "approval_rate": 0.3333}},
		{"?period=all", "all", map[string]float64{"total_pages": 7, "active_pages": 2, "completed_pages": 3, "avg_resolution_time_hours": 5.33, "approval_rate": 0.5}},
	} {
		m := e.Must(200, "GET", "/v1/tenant/dashboard"+c.query, key, nil)
		if m["period"] != c.period {
			t.Errorf("dashboard%s: period %v, want %s", c.query, m["period"], c.period)
		}
		got := m["metrics"].(map[string]any)
		for k, want := range c.metrics {
			if got[k] != want {
				t.Errorf("dashboard%s: %s = %v, want %v", c.query, k, got[k], want)
			}
		}
	}
	if r := e.Do("GET", "/v1/tenant/dashboard?period=90d", key, nil); r.Status != 400 || r.ErrDetails(t)["field"] != "period" {
		t.Fatalf("period=90d: %d %s", r.Status, r.Body)
	}
	// A tenant with no pages has zeros, not errors.
	empty, _ := e.Register("empty")
	got := e.Must(200, "GET", "/v1/tenant/dashboard", empty, nil)["metrics"].(map[string]any)
	if got["total_pages"] != 0.0 || got["approval_rate"] != 0.0 || got["avg_resolution_time_hours"] != 0.0 {
		t.Fatalf("empty dashboard: %v", got)
	}
	// The counters survive a restart (they are stored, not rebuilt).
	e = e.Reopen()
	if got := e.Must(200, "GET", "/v1/tenant/dashboard?period=all", key, nil)["metrics"].(map[string]any); got["total_pages"] != 7.0 {
		t.Fatalf("after restart: %v", got)
	}
}

// TestQualityScoreArithmeticOnACraftedHistory: 3 completed (10 h, 2 h, 4 h from
// publish; the 2 h one rejected), 1 revoked, 2 active, 1 draft. A rejection is not
// an acceptance:
//
//	acceptanceRate = 2 approved / 4 decided × 100 = 50
//	avg decision   = 16 h / 3 = 320 min; speed = 100 × (1 − 5.333/24) = 77.78
//	score          = 0.7 × 50 + 0.3 × 77.78 = 58.33
func TestQualityScoreArithmeticOnACraftedHistory(t *testing.T) {
	T := time.Date(2025, 7, 11, 0, 0, 0, 0, time.UTC)
	e, clk := start(t, T.Add(-35*24*time.Hour))
	key, tenantID := e.Register("quality")
	craftHistory(t, e, clk, key)
	got := e.Must(200, "GET", "/v1/quality-score", key, nil)
	want := map[string]any{"tenantId": tenantID, "totalPages": 7.0, "totalDecisions": 4.0, "acceptanceRate": 50.0,
		"avgDecisionTimeMinutes": 320.0, "score": 58.33, "period": "last_100_pages"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("quality %s = %v, want %v", k, got[k], v)
		}
	}
}

// TestQualityScoreGivesNoSpeedCreditPast24Hours: decisions averaging 30 h earn
// no speed; acceptance alone is 70% of the score. No pages: all zeros.
func TestQualityScoreGivesNoSpeedCreditPast24Hours(t *testing.T) {
	e, clk := start(t, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	key, _ := e.Register("slow")
	if got := e.Must(200, "GET", "/v1/quality-score", key, nil); got["score"] != 0.0 || got["totalPages"] != 0.0 || got["acceptanceRate"] != 0.0 {
		t.Fatalf("no pages: %v", got)
	}
	a, b := e.Publish(key, nil), e.Publish(key, nil)
	clk.Advance(20 * time.Hour)
	e.Must(200, "POST", "/v1/pages/"+a+"/actions/approve", key, nil)
	clk.Advance(20 * time.Hour)
	e.Must(200, "POST", "/v1/pages/"+b+"/actions/approve", key, nil)
	got := e.Must(200, "GET", "/v1/quality-score", key, nil)
	if got["acceptanceRate"] != 100.0 || got["avgDecisionTimeMinutes"] != 1800.0 || got["score"] != 70.0 {
		t.Fatalf("30 h average: %v", got)
	}
}
