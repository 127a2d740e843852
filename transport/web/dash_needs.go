package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/inbox"
)

// "Needs my decision": the pages that wait on the signed-in person, in the
// workspaces they belong to and, where a page's approval step names them and the
// page lets them in, in others (inbox.NeedsDecisionOf decides which and in what
// order), nearest deadline first, overdue ones marked. The screen follows the
// person's own stream (dash_stream.go, through assets/notify.js) and redraws its
// list from GET /decide/list when the stream says the list changed. A person who
// belongs to no workspace (a reviewer from outside) gets this screen alone.

// needsLimit is how many pages the list shows.
const needsLimit = 50

func (s *Site) mountNeeds(r Router) {
	r.Handle("GET", "/decide", s.serve(s.needsScreen))
	r.Handle("GET", "/decide/list", s.serve(s.needsListPart))
}

type needsView struct {
	dashShell
	List needsList
}

// needsList is the part the page script redraws.
type needsList struct {
	Rows  []needsRow
	Total int
	More  bool // Total is more than the rows shown
	Self  string
}

type needsRow struct {
	PageID, Href, Title, PageType, Priority, Workspace string
	Steps                                              []string
	DueAt, ExpiresAt                                   *time.Time
	Overdue                                            bool
	CreatedAt                                          time.Time
}

// needsScreen is GET /decide.
func (s *Site) needsScreen(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.reviewerDesk(w, r)
	if !ok {
		return nil
	}
	l, err := s.needsList(r, d)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "needs", needsView{dashShell: s.dashShell(d, "decide", "Needs my decision"), List: l})
	return nil
}

// reviewerDesk is desk for the screens a person sees whether or not they belong
// to a workspace: one who belongs to none gets a desk without one (ws empty).
func (s *Site) reviewerDesk(w http.ResponseWriter, r *http.Request) (*desk, bool) {
	if me, c := s.me(w, r); me != nil && len(c.Tenants) == 0 {
		return &desk{ctx: r.Context(), me: me, cred: c, first: true}, true
	}
	return s.desk(w, r)
}

// needsListPart is GET /decide/list: the list alone, for the page script.
func (s *Site) needsListPart(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.reviewerDesk(w, r)
	if !ok {
		return nil
	}
	l, err := s.needsList(r, d)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "needs-list", l)
	return nil
}

// needsList reads the person's list across every workspace they belong to, and
// the pages of others that name them and let them in.
func (s *Site) needsList(r *http.Request, d *desk) (needsList, error) {
	now := s.c.Now()
	names := map[string]string{}
	for _, t := range d.all {
		names[t.ID] = t.Name
	}
	rows, total, err := inbox.NeedsDecisionOf(s.c.Store, s.asked(r.Context(), d.cred), now, needsLimit)
	if err != nil {
		return needsList{}, err
	}
	l := needsList{Total: total, More: total > len(rows), Self: "/decide/list"}
	for _, a := range rows {
		row := needsRow{PageID: a.PageID, Href: "/p/" + url.PathEscape(a.PageID), Title: a.Title, PageType: a.PageType,
			Priority: a.Priority, Steps: a.Steps, DueAt: a.DueAt, ExpiresAt: a.ExpiresAt, Overdue: a.Overdue(now), CreatedAt: a.CreatedAt}
		if name, mine := names[a.TenantID]; !mine {
			row.Workspace = "Shared with you"
		} else if len(d.all) > 1 {
			row.Workspace = name
		}
		l.Rows = append(l.Rows, row)
	}
	return l, nil
}

// needsCount is how many pages wait on the person (the navigation's count).
func (s *Site) needsCount(d *desk) int {
	_, n, err := inbox.NeedsDecisionOf(s.c.Store, s.asked(d.ctx, d.cred), s.c.Now(), needsLimit)
	if err != nil {
		return 0
	}
	return n
}
