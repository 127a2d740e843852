package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/inbox"
	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/transport/status"
)

// inboxPageSize is how many entries one screen of the inbox lists.
const inboxPageSize = 25

// inboxView is the inbox screen: the filters of GET /v1/inbox as links (a filtered
// view is an address to share), one screen of entries, and paging.
type inboxView struct {
	dashShell
	Status, Priority, PageType string
	StatusLinks                []filterLink
	PriorityLinks              []filterLink
	List                       inboxList
}

// inboxList is the part of the inbox the page script redraws when the workspace's
// stream says something changed (GET /inbox/list with the same query).
type inboxList struct {
	Entries     []inboxItem
	Total       int
	Unread      int
	First, Last int // 1-based positions shown
	Newer       string
	Older       string
	Back        string // this view's address: where a form sent from it returns
	CSRF        string
	Self        string // the list's own address
	W           string // "?w=<workspace>" when not the person's first: forms post to the workspace shown
	Filtered    bool
}

type filterLink struct {
	Label, Href string
	Current     bool
}

type inboxItem struct {
	ID, PageID, Title, PageType, Priority, Status, PageStatus, Decision string
	Starred                                                             bool
	CreatedAt                                                           time.Time
	// Action and Outcome: the page's last executed action (its label) and what it
	// decided (approved, rejected, none), shown when it did not end the page or
	// decided nothing (a neutral completion has no Decision).
	Action, Outcome string
	// DueAt and ExpiresAt while the page is active; Overdue once DueAt passed.
	DueAt, ExpiresAt *time.Time
	Overdue          bool
}

var inboxStatuses = []struct{ value, label string }{{"", "All"}, {inbox.Unread, "Unread"}, {inbox.Read, "Read"}, {inbox.Archived, "Archived"}}
var inboxPriorities = []struct{ value, label string }{{"", "Any priority"}, {"urgent", "Urgent"}, {"high", "High"}, {"normal", "Normal"}, {"low", "Low"}}

// inboxFilter reads the filters and the offset from the query; a value the API
// would refuse is dropped (the screen shows everything rather than an error).
func inboxFilter(q url.Values) inbox.Filter {
	f := inbox.Filter{Limit: inboxPageSize}
	for _, s := range inboxStatuses {
		if q.Get("status") == s.value {
			f.Status = s.value
		}
	}
	for _, p := range inboxPriorities {
		if q.Get("priority") == p.value {
			f.Priority = p.value
		}
	}
	if t := q.Get("pageType"); len(t) <= 64 {
		f.PageType = t
	}
	if n, err := strconv.Atoi(q.Get("offset")); err == nil && n > 0 && n < 1_000_000_000 {
		f.Offset = n
	}
	return f
}

// query is the address query of a filter (empty values left out).
func (d *desk) inboxQuery(f inbox.Filter, offset int) url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"status": f.Status, "priority": f.Priority, "pageType": f.PageType} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	return q
}

// inboxScreen is GET / (the dashboard opens on the inbox).
func (s *Site) inboxScreen(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	f := inboxFilter(r.URL.Query())
	list, err := s.inboxList(d, f)
	if err != nil {
		return err
	}
	v := inboxView{dashShell: s.dashShell(d, "inbox", "Inbox"), Status: f.Status, Priority: f.Priority, PageType: f.PageType, List: list}
	for _, st := range inboxStatuses {
		g := f
		g.Status = st.value
		v.StatusLinks = append(v.StatusLinks, filterLink{Label: st.label, Href: d.link("/", d.inboxQuery(g, 0)), Current: st.value == f.Status})
	}
	for _, p := range inboxPriorities {
		g := f
		g.Priority = p.value
		v.PriorityLinks = append(v.PriorityLinks, filterLink{Label: p.label, Href: d.link("/", d.inboxQuery(g, 0)), Current: p.value == f.Priority})
	}
	s.render(w, r, http.StatusOK, "inbox", v)
	return nil
}

// inboxListPart is GET /inbox/list: the list alone, for the page script.
func (s *Site) inboxListPart(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	list, err := s.inboxList(d, inboxFilter(r.URL.Query()))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "inbox-list", list)
	return nil
}

// inboxList reads one screen of the inbox: one counter read and at most
// offset+limit index keys (inbox.List), so it costs the same for ten pages or
// a hundred thousand.
func (s *Site) inboxList(d *desk, f inbox.Filter) (inboxList, error) {
	entries, total, err := inbox.List(s.c.Store, d.ws.ID, f)
	if err != nil {
		return inboxList{}, err
	}
	l := inboxList{Total: total, CSRF: d.me.CSRF, Filtered: f.Status != "" || f.Priority != "" || f.PageType != ""}
	if _, n, err := inbox.List(s.c.Store, d.ws.ID, inbox.Filter{Status: inbox.Unread}); err == nil {
		l.Unread = n
	}
	now := s.c.Now()
	for _, e := range entries {
		it := inboxItem{ID: e.ID, PageID: e.PageID, Title: e.Title, PageType: e.PageType, Priority: e.Priority,
			Status: e.Status, PageStatus: e.EffectivePageStatus(now), Decision: e.Decision, Starred: e.Starred, CreatedAt: e.CreatedAt}
		if it.PageStatus == page.Active {
			it.DueAt, it.ExpiresAt, it.Overdue = e.DueAt, e.ExpiresAt, e.Overdue(now)
		}
		if e.Outcome == page.OutcomeNone || (e.Outcome != "" && e.PageStatus == page.Active) {
			it.Action, it.Outcome = e.ActionLabel, e.Outcome
		}
		l.Entries = append(l.Entries, it)
	}
	l.Back = d.link("/", d.inboxQuery(f, f.Offset))
	if !d.first {
		l.W = "?w=" + url.QueryEscape(d.ws.ID)
	}
	l.Self = d.link("/inbox/list", d.inboxQuery(f, f.Offset))
	if len(entries) > 0 {
		l.First, l.Last = f.Offset+1, f.Offset+len(entries)
	}
	if f.Offset > 0 {
		l.Newer = d.link("/", d.inboxQuery(f, max(0, f.Offset-inboxPageSize)))
	}
	if f.Offset+len(entries) < total {
		l.Older = d.link("/", d.inboxQuery(f, f.Offset+inboxPageSize))
	}
	return l, nil
}

// inboxOps are the reading-state changes a form may ask for.
var inboxOps = map[string]func(id string) any{
	"read":    func(id string) any { return &inbox.MarkRead{EntryID: id} },
	"star":    func(id string) any { return &inbox.Star{EntryID: id, Starred: true} },
	"unstar":  func(id string) any { return &inbox.Star{EntryID: id, Starred: false} },
	"archive": func(id string) any { return &inbox.Archive{EntryID: id} },
}

// inboxChange is POST /inbox/:entry/:op (star, unstar, read, archive): the same
// change as the API's inbox routes, through the workspace's InboxActor. Without
// JavaScript it returns to the view it came from; the page script sends it in
// place and redraws the list.
func (s *Site) inboxChange(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	if !s.readForm(w, r) {
		return nil
	}
	d, ok := s.desk(w, r)
	if !ok || !s.csrfOK(w, r, d.cred) {
		return nil
	}
	op, ok := inboxOps[ps.ByName("op")]
	if !ok {
		s.notFound(w, r)
		return nil
	}
	id := ps.ByName("entry")
	err := inbox.Change(r.Context(), s.c.Inboxes, d.ws.ID, id, op(id))
	var fe *fault.Error
	switch {
	case err == nil:
		http.Redirect(w, r, s.safeNext(r.PostFormValue("back")), http.StatusSeeOther)
	case errors.As(err, &fe):
		s.notice(w, r, status.Code(fe), "That did not work", fe.Message)
	default:
		return err
	}
	return nil
}
