package web

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/callback"
	"folio/actors/model/audit"
	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/transport/status"
	"folio/transport/web/chart"
)

// The pages screen: the workspace's pages as GET /v1/pages lists them, and one
// page as its owner sees it — state, who decided and how, the approval chain's
// progress, counts, view analytics — with revoke and renew. A change is confirmed
// first: without JavaScript on a page of its own, with it in a dialog; either way
// the same form is posted with confirm=yes.

// mountPages registers the dashboard's pages screen.
func (s *Site) mountPages(r Router) {
	r.Handle("GET", "/pages", s.serve(s.pagesScreen))
	r.Handle("GET", "/pages-list", s.serve(s.pagesListPart))
	r.Handle("GET", "/pages/:id", s.serve(s.pageScreen))
	r.Handle("POST", "/pages/:id/revoke", s.serve(func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
		return s.pageChange(w, r, ps.ByName("id"), pageOps["revoke"])
	}))
	r.Handle("POST", "/pages/:id/renew", s.serve(func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
		return s.pageChange(w, r, ps.ByName("id"), pageOps["renew"])
	}))
}

// pagesPageSize is how many pages one screen of the list shows.
const pagesPageSize = 25

// pageStatuses are the list's status filters, in the order of a page's life.
var pageStatuses = []struct{ value, label string }{{"", "All"}, {page.Draft, "Draft"}, {page.Active, "Active"},
	{page.Completed, "Completed"}, {page.Expired, "Expired"}, {page.Revoked, "Revoked"}}

// pagesView is the list: filters as links (a filtered view is an address to
// share), one screen of pages, and paging.
type pagesView struct {
	dashShell
	Status, PageType, Triage string
	StatusLinks              []filterLink
	TriageLinks              []filterLink
	List                     pagesList
}

// pagesList is the part of the list the page script redraws when the workspace's
// stream says something changed (GET /pages-list with the same query).
type pagesList struct {
	Rows         []pageRow
	Total        int
	First, Last  int // 1-based positions shown
	Newer, Older string
	Filtered     bool
	Self         string
}

type pageRow struct {
	ID, Href, Title, PageType, Status, Decision string
	Test                                        bool // published with a test key
	CreatedAt                                   time.Time
	Views                                       int
	// DueAt is the nearest running deadline, Overdue once it passed; ExpiresAt
	// while the page is active. Failed counts its failed deliveries (FailedHref
	// lists them).
	DueAt, ExpiresAt *time.Time
	Overdue          bool
	Failed           int
	FailedHref       string
}

// pageTriages are the list's decision filters (page.InTriage).
var pageTriages = []struct{ value, label string }{{"", "Any decision"}, {page.TriageWaiting, "Waiting"},
	{page.TriageOverdue, "Overdue"}, {page.TriageDecided, "Decided"}, {page.TriageRejected, "Rejected"}}

// pagesFilter reads the filters and the offset from the query; a value the API
// would refuse is dropped (the screen shows everything rather than an error).
func pagesFilter(q url.Values) page.Filter {
	f := page.Filter{Limit: pagesPageSize}
	for _, st := range pageStatuses {
		if q.Get("status") == st.value {
			f.Status = st.value
		}
	}
	if t := q.Get("page_type"); len(t) <= 64 {
		f.PageType = t
	}
	for _, tr := range pageTriages {
		if q.Get("triage") == tr.value {
			f.Triage = tr.value
		}
	}
	if n, err := strconv.Atoi(q.Get("offset")); err == nil && n > 0 && n < 1_000_000_000 {
		f.Offset = n
	}
	return f
}

// pagesQuery is the address query of a filter (empty values left out).
func pagesQuery(f page.Filter, offset int) url.Values {
	q := url.Values{}
	if f.Status != "" {
		q.Set("status", f.Status)
	}
	if f.PageType != "" {
		q.Set("page_type", f.PageType)
	}
	if f.Triage != "" {
		q.Set("triage", f.Triage)
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	return q
}

// pagesScreen is GET /pages.
func (s *Site) pagesScreen(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	f := pagesFilter(r.URL.Query())
	list, err := s.pagesList(d, f)
	if err != nil {
		return err
	}
	v := pagesView{dashShell: s.dashShell(d, "pages", "Pages"), Status: f.Status, PageType: f.PageType, Triage: f.Triage, List: list}
	for _, st := range pageStatuses {
		g := f
		g.Status = st.value
		v.StatusLinks = append(v.StatusLinks, filterLink{Label: st.label, Href: d.link("/pages", pagesQuery(g, 0)), Current: st.value == f.Status})
	}
	for _, tr := range pageTriages {
		g := f
		g.Triage = tr.value
		v.TriageLinks = append(v.TriageLinks, filterLink{Label: tr.label, Href: d.link("/pages", pagesQuery(g, 0)), Current: tr.value == f.Triage})
	}
	s.render(w, r, http.StatusOK, "dash-pages", v)
	return nil
}

// pagesListPart is GET /pages-list: the list alone, for the page script.
func (s *Site) pagesListPart(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	list, err := s.pagesList(d, pagesFilter(r.URL.Query()))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "dash-pages-list", list)
	return nil
}

// pagesList reads one screen of the list (page.List), with each page's failed
// deliveries (one counter read a row).
func (s *Site) pagesList(d *desk, f page.Filter) (pagesList, error) {
	now := s.c.Now()
	list, total, err := page.List(s.c.Store, d.ws.ID, f, now)
	if err != nil {
		return pagesList{}, err
	}
	v := pagesList{Total: total, Filtered: f.Status != "" || f.PageType != "" || f.Triage != "", Self: d.link("/pages-list", pagesQuery(f, f.Offset))}
	for _, p := range list {
		row := pageRow{ID: p.ID, Href: d.link("/pages/"+url.PathEscape(p.ID), nil), Title: p.Title, PageType: p.PageType,
			Status: p.Status, Decision: p.Decision, Test: !p.Livemode, CreatedAt: p.CreatedAt, Views: p.Stats.ViewCount}
		if p.Status == page.Active {
			row.DueAt, row.ExpiresAt, row.Overdue = p.DueAt(), p.ExpiresAt, p.Overdue(now)
		}
		if _, n, err := callback.FailedCounts(s.c.Store, d.ws.ID, p.ID); err == nil && n > 0 {
			row.Failed, row.FailedHref = n, d.link("/deliveries", url.Values{"page": {p.ID}, "state": {callback.StatusFailed}})
		}
		v.Rows = append(v.Rows, row)
	}
	if len(list) > 0 {
		v.First, v.Last = f.Offset+1, f.Offset+len(list)
	}
	if f.Offset > 0 {
		v.Newer = d.link("/pages", pagesQuery(f, max(0, f.Offset-pagesPageSize)))
	}
	if f.Offset+len(list) < total {
		v.Older = d.link("/pages", pagesQuery(f, f.Offset+pagesPageSize))
	}
	return v, nil
}

// pageView is one page as its owner sees it on the dashboard.
type pageView struct {
	dashShell
	ID, Heading, PageType, Priority, Status, CreatedBy string
	Tags                                               []string
	Test                                               bool
	CreatedAt                                          time.Time
	ExpiresAt, RevokedAt                               *time.Time
	RevokeReason                                       string
	State                                              stateView // the decision and the chain, as the review page reads them
	How                                                string    // how the decider was identified (from the audit log)
	Decisions                                          []decisionRow
	ChainDone                                          int // steps of the chain completed
	Comments, Files                                    int
	Views                                              viewsView
	Review                                             string // the review page's address
	List                                               string // back to the list
	CSRF                                               string
	Revoke, Renew                                      string // the forms' addresses; "" when the change does not apply
	RevokeWhat, RenewWhat                              string // what each change does, for its confirmation
	Problem                                            string // a refused change
	Done                                               string // the change just made (revoked, renewed)
	// DueAt is the nearest running deadline of an active page, Overdue once it
	// passed; Failed counts the page's failed deliveries (FailedHref lists them,
	// Deliveries lists all of the page's).
	DueAt                  *time.Time
	Overdue                bool
	Failed                 int
	FailedHref, Deliveries string
}

// decisionRow is one recorded action on the page: who, what, how they were
// identified, when.
type decisionRow struct {
	By, Action, Decision, How, Comment string
	At                                 time.Time
}

// viewsView is the page's analytics: totals and the daily views drawn by the
// review page's chart renderer, with the same numbers as a table.
type viewsView struct {
	Total, Unique int
	Wide, Narrow  template.HTML // the chart (package chart escapes everything it writes); "" without views to draw
	Summary       string        // the chart's accessible name: what it shows, in words
	Days          []dayViews
	Earlier       int // views on days before the chart's first day
}

type dayViews struct {
	Label, Date string
	Views       int
}

// caller is the desk's member as a page command's sender: the workspace's tenant,
// and the member in the audit log.
func (d *desk) caller() page.Caller { return page.Caller{TenantID: d.ws.ID, Agent: d.actor()} }

// pageScreen is GET /pages/:id.
func (s *Site) pageScreen(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	return s.showPage(w, r, d, ps.ByName("id"), http.StatusOK, "")
}

// showPage renders the page screen with status; problem (may be "") is a refused
// change. Another workspace's page is 404, as on the API.
func (s *Site) showPage(w http.ResponseWriter, r *http.Request, d *desk, id string, status int, problem string) error {
	if id == "" || len(id) > 64 {
		s.notFound(w, r)
		return nil
	}
	// Analytics answers the page too, after the same tenant check as page.Get.
	res, err := registry.Call[*page.AnalyticsResult](r.Context(), s.c.Pages, id, &page.Analytics{Caller: d.caller()})
	var fe *fault.Error
	switch {
	case errors.As(err, &fe) && fe.Code == fault.NotFound:
		s.notFound(w, r)
		return nil
	case err != nil:
		return err
	}
	p, now := res.Page, s.c.Now()
	st := page.EffectiveStatus(p, now)
	v := pageView{dashShell: s.dashShell(d, "pages", p.Title), ID: p.ID, Heading: p.Title, PageType: p.PageType, Priority: p.Priority,
		Status: st, CreatedBy: p.CreatedBy, Tags: p.Tags, Test: !p.Livemode, CreatedAt: p.CreatedAt, ExpiresAt: p.ExpiresAt,
		RevokedAt: p.RevokedAt, RevokeReason: p.RevokeReason, State: stateOf(p, st), Comments: p.CommentCount, Files: p.FileCount,
		Review: "/p/" + url.PathEscape(p.ID), List: d.link("/pages", nil), CSRF: d.me.CSRF, Problem: problem,
		Views: viewsOf(res, now)}
	if c := v.State.Chain; c != nil {
		for _, step := range c.Steps {
			if step.Status == page.StepCompleted {
				v.ChainDone++
			}
		}
	}
	if st == page.Active {
		v.DueAt, v.Overdue = p.DueAt(), p.Overdue(now)
	}
	if _, n, err := callback.FailedCounts(s.c.Store, d.ws.ID, p.ID); err == nil {
		v.Failed = n
	}
	v.Deliveries = d.link("/deliveries", url.Values{"page": {p.ID}})
	v.FailedHref = d.link("/deliveries", url.Values{"page": {p.ID}, "state": {callback.StatusFailed}})
	v.Decisions = s.decisionsOf(d, p)
	if n := len(v.Decisions); n > 0 && v.State.Decision != nil {
		v.How = v.Decisions[n-1].How
	}
	base := "/pages/" + url.PathEscape(p.ID)
	if op := pageOps["revoke"]; op.allowed[st] {
		v.Revoke, v.RevokeWhat = d.link(base+"/revoke", nil), op.what
	}
	if op := pageOps["renew"]; op.allowed[st] {
		v.Renew, v.RenewWhat = d.link(base+"/renew", nil), op.what
	}
	if done := r.URL.Query().Get("done"); done == "revoked" || done == "renewed" {
		v.Done = done
	}
	s.render(w, r, status, "dash-page", v)
	return nil
}

// maxDecisionsShown bounds the recorded actions the page screen lists (the newest).
const maxDecisionsShown = 50

// auditWindow is how many of a page's newest audit records are read to learn how
// each recent decider was identified; a decision older than that shows no "how".
const auditWindow = 500

// authLabels say how a decider was identified, from the action.executed audit
// entry's auth_method.
var authLabels = map[string]string{
	page.AuthAPIKey:    "The agent's API key vouched for this name",
	page.AuthLink:      "A name typed by whoever held the page's link (not verified)",
	page.AuthMagicLink: "Signed in with a link mailed to that address (verified)",
	page.AuthOAuth:     "Signed in through a sign-in provider (verified)",
	page.AuthEmailLink: "Confirmed a decision link mailed to that address (verified)",
}

// decisionsOf lists the page's recorded actions, oldest first, each with how its
// author was identified. Every execution commits exactly one action.executed
// audit entry, in the same order, so the newest entries pair with the newest
// executions.
func (s *Site) decisionsOf(d *desk, p *page.Page) []decisionRow {
	execs := p.Executions
	if len(execs) > maxDecisionsShown {
		execs = execs[len(execs)-maxDecisionsShown:]
	}
	if len(execs) == 0 {
		return nil
	}
	var how []string // auth methods of the action.executed entries read, oldest first
	if _, total, err := s.c.Store.AuditGroup(d.ws.ID, p.ID, 0, 0); err == nil {
		if recs, _, err := s.c.Store.AuditGroup(d.ws.ID, p.ID, max(0, total-auditWindow), auditWindow); err == nil {
			for _, rec := range recs {
				if e, ok := audit.Decode(rec.Entry, rec.Hash); ok && e.EventType == "action.executed" {
					m, _ := e.Details["auth_method"].(string)
					how = append(how, m)
				}
			}
		}
	}
	labels := map[string]string{}
	for _, a := range p.Actions {
		if a.Label != "" {
			labels[a.ActionID] = a.Label
		}
	}
	out := make([]decisionRow, len(execs))
	for i, e := range execs {
		row := decisionRow{By: e.Actor, Action: e.ActionID, Decision: e.Decision, At: e.ExecutedAt}
		if l, ok := labels[e.ActionID]; ok {
			row.Action = l
		}
		if e.Comment != nil {
			row.Comment = *e.Comment
		}
		if j := len(how) - (len(execs) - i); j >= 0 {
			row.How = authLabels[how[j]]
		}
		if e.Key != nil {
			row.How = "The agent's API key " + e.Key.Label() + " vouched for this name (not verified)"
		}
		out[i] = row
	}
	return out
}

// Days the views chart covers: at least a week, at most a month, back from today.
const (
	minChartDays = 7
	maxChartDays = 30
)

// viewsOf lays out the page's daily views (UTC days, as the page counts them)
// from the later of its creation day and a month ago to today, zeros included.
func viewsOf(res *page.AnalyticsResult, now time.Time) viewsView {
	v := viewsView{Total: res.TotalViews, Unique: res.UniqueViewers}
	today := now.UTC().Truncate(24 * time.Hour)
	created := res.Page.CreatedAt.UTC().Truncate(24 * time.Hour)
	n := int(today.Sub(created)/(24*time.Hour)) + 1
	n = min(max(n, minChartDays), maxChartDays)
	first := today.AddDate(0, 0, -(n - 1))
	labels := make([]string, n)
	values := make([]float64, n)
	shown, best := 0, -1
	for i := range n {
		day := first.AddDate(0, 0, i)
		c := res.Daily[day.Format("2006-01-02")]
		labels[i], values[i] = day.Format("2 Jan"), float64(c)
		v.Days = append(v.Days, dayViews{Label: day.Format("Mon 2 Jan 2006"), Date: day.Format("2006-01-02"), Views: c})
		shown += c
		if c > 0 && (best < 0 || c > v.Days[best].Views) {
			best = i
		}
	}
	v.Earlier = max(0, res.TotalViews-shown)
	v.Summary = "Views per day, " + first.Format("2 Jan") + " to " + today.Format("2 Jan 2006") + ": " + plural(shown, "view", "views")
	if best >= 0 {
		v.Summary += ", most on " + labels[best] + " (" + strconv.Itoa(v.Days[best].Views) + ")"
	}
	if shown == 0 {
		return v // nothing to draw: the screen says so in words
	}
	series := []chart.Series{{Label: "Views", Values: values}}
	v.Wide = chartSVG(chart.Bar(labels, series, chart.Options{ID: "views-w", Title: v.Summary, Width: 720, Height: 240}))
	v.Narrow = chartSVG(chart.Bar(labels, series, chart.Options{ID: "views-n", Title: v.Summary, Width: 320, Height: 240, FontSize: 13}))
	return v
}

// chartSVG marks a chart drawn by package chart as HTML: it escapes every piece
// of text it writes and writes only numbers it bounded (transport/web/chart/svg.go).
func chartSVG(svg string) template.HTML { return template.HTML(svg) } // #nosec: escaped by package chart

// pageOp is a change the page screen may ask for: the statuses it applies to, the
// command it sends, and the words of its confirmation.
type pageOp struct {
	name, verb, done string
	allowed          map[string]bool
	what             string // what happens, for the confirmation
	msg              func(d *desk, form url.Values) any
}

var pageOps = map[string]pageOp{
	"revoke": {name: "revoke", verb: "Revoke", done: "revoked", allowed: map[string]bool{page.Draft: true, page.Active: true},
		what: "Nobody can read or decide it any more, and whoever has it open sees it withdrawn. This cannot be undone.",
		msg: func(d *desk, form url.Values) any {
			return &page.Revoke{Caller: d.caller(), Reason: form.Get("reason")}
		}},
	"renew": {name: "renew", verb: "Renew", done: "renewed", allowed: map[string]bool{page.Active: true, page.Expired: true},
		what: "It stays open for review longer: the default lifetime is added to its current expiry, or to now if it has expired.",
		msg: func(d *desk, _ url.Values) any {
			return &page.Renew{Caller: d.caller()}
		}},
}

// pageConfirmView asks before a change, carrying the form's values.
type pageConfirmView struct {
	dashShell
	Heading, Verb, Yes, What, Action, Back, CSRF, Reason string
	Revoke                                               bool
}

// pageChange is POST /pages/:id/revoke and /renew. Without confirm=yes it answers
// the confirmation; with it the change goes to the page actor as the API's does
// (the member in the audit log), then 303 back to the page. A refusal (the page
// changed meanwhile: 409) shows the page as it stands with the reason.
func (s *Site) pageChange(w http.ResponseWriter, r *http.Request, id string, op pageOp) error {
	if !s.readForm(w, r) {
		return nil
	}
	d, ok := s.desk(w, r)
	if !ok || !s.csrfOK(w, r, d.cred) {
		return nil
	}
	if id == "" || len(id) > 64 {
		s.notFound(w, r)
		return nil
	}
	base := "/pages/" + url.PathEscape(id)
	if r.PostForm.Get("confirm") != "yes" {
		res, err := registry.Call[*page.Result](r.Context(), s.c.Pages, id, &page.Get{Caller: d.caller()})
		var fe *fault.Error
		switch {
		case errors.As(err, &fe) && fe.Code == fault.NotFound:
			s.notFound(w, r)
			return nil
		case err != nil:
			return err
		}
		if st := page.EffectiveStatus(res.Page, s.c.Now()); !op.allowed[st] {
			return s.showPage(w, r, d, id, http.StatusConflict, refusal(op, fault.State(op.name, st)))
		}
		v := pageConfirmView{dashShell: s.dashShell(d, "pages", op.verb+": "+res.Page.Title), Heading: res.Page.Title, Verb: op.verb, Yes: "Yes, " + op.name,
			What: op.what, Action: d.link(base+"/"+op.name, nil), Back: d.link(base, nil), CSRF: d.me.CSRF,
			Reason: r.PostForm.Get("reason"), Revoke: op.name == "revoke"}
		s.render(w, r, http.StatusOK, "dash-page-confirm", v)
		return nil
	}
	_, err := registry.Call[*page.Result](r.Context(), s.c.Pages, id, op.msg(d, r.PostForm))
	var fe *fault.Error
	switch {
	case err == nil:
		http.Redirect(w, r, d.link(base, url.Values{"done": {op.done}}), http.StatusSeeOther)
	case errors.As(err, &fe) && fe.Code == fault.NotFound:
		s.notFound(w, r)
	case errors.As(err, &fe):
		return s.showPage(w, r, d, id, status.Code(fe), refusal(op, fe))
	default:
		return err
	}
	return nil
}

// refusal is what the page screen says of a change the page refused.
func refusal(op pageOp, fe *fault.Error) string {
	if fe.Code == fault.Conflict {
		return "This page could not be " + op.done + ": " + fe.Message + ". Here it is as it stands now."
	}
	return fe.Message
}
