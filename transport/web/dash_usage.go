package web

import (
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"folio/actors/inbox"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// The usage screen: the month's pages against the plan, the plan's request rate,
// the dashboard metrics of GET /v1/tenant/dashboard for a period, and the quality
// score of GET /v1/quality-score with its parts. Every number is read from the same
// functions the API answers with.

// mountUsage registers the dashboard's usage screen.
func (s *Site) mountUsage(r Router) {
	r.Handle("GET", "/usage", s.serve(s.usageScreen))
}

var usagePeriods = []struct{ value, label string }{{"7d", "Last 7 days"}, {"30d", "Last 30 days"}, {"all", "All time"}}

// usageView is the usage screen.
type usageView struct {
	dashShell
	Month          string // the UTC month pages are counted in ("March 2026")
	PagesThisMonth int
	PagesLimit     int // 0: unlimited
	Percent        int // of the limit used, 0–100
	Low, High      int // where the meter turns to a warning, and to a problem
	Near           bool
	PlanName       string
	RequestsLimit  int    // per minute; 0: unlimited
	Storage        string // stored bytes against the plan's storage quota, in words
	StorageParts   string // what the stored bytes are: files and the agent event log
	Enforced       bool
	Period         string
	PeriodLinks    []filterLink
	Metrics        inbox.Metrics
	Resolution     string // the average resolution time, in words
	ApprovalRate   string
	Quality        inbox.Score
	QualityScore   string
	Acceptance     string
	Speed          string
	DecisionTime   string
	Decided        bool // some page in the score's window was decided (speed means something)
	QualityWindow  int  // how many recent pages the score looks at
}

// usageScreen is GET /usage?period=7d|30d|all (30d by default; anything else too).
func (s *Site) usageScreen(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	period := r.URL.Query().Get("period")
	if _, ok := inbox.Periods[period]; !ok {
		period = "30d"
	}
	t, err := registry.Call[*tenant.View](r.Context(), s.c.Tenants, d.ws.ID, &tenant.Get{})
	if err != nil {
		return err
	}
	now := s.c.Now()
	m, err := inbox.Dashboard(s.c.Store, d.ws.ID, period, now)
	if err != nil {
		return err
	}
	q, err := inbox.Quality(s.c.Store, d.ws.ID)
	if err != nil {
		return err
	}
	plan := s.c.Plans.PlanOf(t.Tenant)
	v := usageView{dashShell: s.dashShell(d, "usage", "Usage"), Month: now.UTC().Format("January 2006"),
		PagesThisMonth: t.PagesThisMonth, PagesLimit: max(plan.PagesPerMonth, 0), PlanName: t.Tenant.Plan,
		RequestsLimit: max(plan.RequestsPerMinute, 0), Enforced: s.c.EnforceLimits, Period: period,
		Metrics: m, Resolution: hoursText(m.AvgResolutionTimeHours, m.CompletedPages > 0), ApprovalRate: percentText(m.ApprovalRate * 100),
		Quality: q, QualityScore: number(q.Score), Acceptance: percentText(q.AcceptanceRate), Speed: number(q.DecisionSpeed),
		QualityWindow: inbox.WindowSize}
	// Speed and decision time average over the decided (completed) pages only:
	// with none, the score reports both as 0, which is not "decided at once".
	v.Decided = q.DecisionSpeed > 0 || q.AvgDecisionTimeMinutes > 0
	v.DecisionTime = hoursText(q.AvgDecisionTimeMinutes/60, v.Decided)
	v.Storage = page.HumanBytes(t.Stored.Total()) + " stored"
	if plan.StorageBytes > 0 {
		v.Storage += " of " + page.HumanBytes(plan.StorageBytes)
	}
	v.StorageParts = "files " + page.HumanBytes(t.Stored.Files) + ", event log " + page.HumanBytes(t.Stored.Events)
	if v.PlanName == "" {
		v.PlanName = plan.Name
	}
	if v.PagesLimit > 0 {
		v.Percent = min(100, int(math.Round(float64(v.PagesThisMonth)*100/float64(v.PagesLimit))))
		v.Near = v.Percent >= 80
		v.Low, v.High = v.PagesLimit*8/10, v.PagesLimit*95/100
	}
	for _, p := range usagePeriods {
		v.PeriodLinks = append(v.PeriodLinks, filterLink{Label: p.label, Href: d.link("/usage", url.Values{"period": {p.value}}), Current: p.value == period})
	}
	s.render(w, r, http.StatusOK, "dash-usage", v)
	return nil
}

// number shows a figure with at most one decimal ("72.5", "100").
func number(f float64) string {
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}

// percentText shows a percentage ("66.7%").
func percentText(p float64) string { return number(p) + "%" }

// hoursText shows a duration given in hours the way people read it; "—" when
// nothing it averages over has happened.
func hoursText(h float64, happened bool) string {
	switch {
	case !happened:
		return "—"
	case h*60 < 1:
		return "< 1 min"
	case h < 1:
		return strconv.Itoa(int(math.Round(h*60))) + " min"
	case h < 48:
		return number(h) + " h"
	}
	return number(h/24) + " days"
}
