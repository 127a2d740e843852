package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/inbox"
)

// "Needs my decision": the pages that wait on the signed-in person, across the
// workspaces they belong to (inbox.NeedsDecision decides which and in what order),
// nearest deadline first, overdue ones marked. The screen follows the event stream
// of each of the person's workspaces (at most needsStreams) and redraws its list
// from GET /decide/list; with the person's leave, the page script shows a browser
// notification for each page that newly needs them or newly became overdue.

// needsLimit is how many pages the list shows; needsStreams how many workspace
// streams the screen follows (a browser holds six connections to one origin).
const (
	needsLimit   = 50
	needsStreams = 4
)

func (s *Site) mountNeeds(r Router) {
	r.Handle("GET", "/decide", s.needsScreen)
	r.Handle("GET", "/decide/list", s.needsListPart)
}

type needsView struct {
	dashShell
	Streams []string // the workspace streams the page script follows
	List    needsList
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
func (s *Site) needsScreen(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	d, ok := s.desk(w, r)
	if !ok {
		return
	}
	l, err := s.needsList(d)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	v := needsView{dashShell: s.dashShell(d, "decide", "Needs my decision"), List: l}
	for i, t := range d.all {
		if i == needsStreams {
			break
		}
		v.Streams = append(v.Streams, "/events?w="+url.QueryEscape(t.ID))
	}
	s.render(w, r, http.StatusOK, "needs", v)
}

// needsListPart is GET /decide/list: the list alone, for the page script.
func (s *Site) needsListPart(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	d, ok := s.desk(w, r)
	if !ok {
		return
	}
	l, err := s.needsList(d)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "needs-list", l)
}

// needsList reads the person's list across every workspace they belong to.
func (s *Site) needsList(d *desk) (needsList, error) {
	now := s.c.Now()
	names := map[string]string{}
	var tenants []string
	for _, t := range d.all {
		names[t.ID] = t.Name
		tenants = append(tenants, t.ID)
	}
	rows, total, err := inbox.NeedsDecision(s.c.Store, tenants, d.me.Email, now, needsLimit)
	if err != nil {
		return needsList{}, err
	}
	l := needsList{Total: total, More: total > len(rows), Self: "/decide/list"}
	for _, a := range rows {
		row := needsRow{PageID: a.PageID, Href: "/p/" + url.PathEscape(a.PageID), Title: a.Title, PageType: a.PageType,
			Priority: a.Priority, Steps: a.Steps, DueAt: a.DueAt, ExpiresAt: a.ExpiresAt, Overdue: a.Overdue(now), CreatedAt: a.CreatedAt}
		if len(d.all) > 1 {
			row.Workspace = names[a.TenantID]
		}
		l.Rows = append(l.Rows, row)
	}
	return l, nil
}

// needsCount is how many pages wait on the person (the navigation's count).
func (s *Site) needsCount(d *desk) int {
	var tenants []string
	for _, t := range d.all {
		tenants = append(tenants, t.ID)
	}
	_, n, err := inbox.NeedsDecision(s.c.Store, tenants, d.me.Email, s.c.Now(), 1)
	if err != nil {
		return 0
	}
	return n
}
