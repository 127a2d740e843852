package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"folio/actors/callback"
	"folio/actors/inbox"
	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/admission"
	"folio/transport/credential"
)

// The dashboard: what a signed-in member of a workspace (tenant) sees of it. Every
// screen is server-rendered like the review page, under the same CSP, and works
// without JavaScript (forms post and come back); the page script only makes the
// same forms answer in place and follows the workspace's event stream. Anyone not
// signed in is sent to /login and comes back; a person in no workspace sees how to
// claim one.

// desk is what every dashboard screen knows: the signed-in member, the workspace
// shown, and the others they may switch to.
type desk struct {
	ctx   context.Context // the request's
	me    *meView
	cred  credential.Credential
	ws    tenant.Tenant
	all   []tenant.Tenant
	first bool // ws is the person's first workspace (links need no ?w=)
}

// desk admits a signed-in member to a dashboard screen. It has answered (a
// redirect to sign in, or the page of someone in no workspace) when ok is false.
// The workspace is ?w= when the person belongs to it, else their first.
func (s *Site) desk(w http.ResponseWriter, r *http.Request) (d *desk, ok bool) {
	me, c := s.me(w, r)
	if me == nil {
		http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return nil, false
	}
	d = &desk{ctx: r.Context(), me: me, cred: c}
	want := r.URL.Query().Get("w")
	for i, id := range c.Tenants {
		v, err := registry.Call[*tenant.View](r.Context(), s.c.Tenants, id, &tenant.Get{})
		if err != nil {
			continue
		}
		d.all = append(d.all, v.Tenant)
		if id == want || (want == "" && i == 0) {
			d.ws, d.first = v.Tenant, i == 0
		}
	}
	if d.ws.ID == "" && len(d.all) > 0 && want != "" {
		s.notFound(w, r) // a workspace they do not belong to does not exist for them
		return nil, false
	}
	if d.ws.ID == "" {
		v := homeView{Shell: s.shell("Your workspaces")}
		v.Me = me
		s.render(w, r, http.StatusOK, "home", v)
		return nil, false
	}
	return d, true
}

// link is a dashboard address in the desk's workspace: path with its query, plus
// w= when the workspace is not the person's first.
func (d *desk) link(path string, q url.Values) string {
	if !d.first {
		if q == nil {
			q = url.Values{}
		}
		q.Set("w", d.ws.ID)
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// actor is how the audit log names a member acting from the dashboard.
func (d *desk) actor() string { return "user:" + d.me.Email }

// dashShell is what every dashboard screen has around its content: the bar with
// the person, the sections, the workspace switcher, and the unread count that
// leads the title ("(3) Inbox · Folio").
type dashShell struct {
	Shell
	Section    string // inbox, pages, keys, usage, deliveries, members
	Workspace  tenant.Tenant
	Workspaces []workspaceLink
	Nav        []navLink
	Unread     int
	Decide     int    // pages waiting on the person, across their workspaces
	Failed     int    // the workspace's failed deliveries
	Events     string // the workspace's event stream (the page script follows it)
}

// navLink is a section in the navigation; Count (0: none) is drawn beside its
// label, CountLabel saying what it counts, Alert when it asks for attention.
type navLink struct {
	ID, Label, Href string
	Current         bool
	Count           int
	CountLabel      string
	Alert           bool
}

type workspaceLink struct {
	Name, Href string
	Current    bool
}

var sections = []struct{ id, label, path string }{
	{"decide", "Needs my decision", "/decide"},
	{"inbox", "Inbox", "/"},
	{"pages", "Pages", "/pages"},
	{"keys", "API keys", "/keys"},
	{"usage", "Usage", "/usage"},
	{"deliveries", "Deliveries", "/deliveries"},
	{"members", "Members", "/members"},
	{"audit", "Audit log", "/audit"},
}

// shell is the dashShell of a screen; title is the screen's name.
func (s *Site) dashShell(d *desk, section, title string) dashShell {
	unread := 0
	if _, n, err := inbox.List(s.c.Store, d.ws.ID, inbox.Filter{Status: inbox.Unread}); err == nil {
		unread = n
	}
	if unread > 0 {
		title = "(" + strconv.Itoa(unread) + ") " + title
	}
	sh := dashShell{Shell: s.shell(title), Section: section, Workspace: d.ws, Unread: unread, Events: d.link("/events", nil),
		Decide: s.needsCount(d)}
	if d.ws.ID == "" {
		// A reviewer who belongs to no workspace: their list is all there is.
		sh.Events, sh.Me, sh.Workspace.Name = "", d.me, "Shared with you"
		sh.Nav = []navLink{{ID: "decide", Label: "Needs my decision", Href: "/decide", Current: section == "decide",
			Count: sh.Decide, CountLabel: plural(sh.Decide, "page needs", "pages need") + " your decision"}}
		return sh
	}
	if n, _, err := callback.FailedCounts(s.c.Store, d.ws.ID, ""); err == nil {
		sh.Failed = n
	}
	sh.Me = d.me
	for _, sec := range sections {
		l := navLink{ID: sec.id, Label: sec.label, Href: d.link(sec.path, nil), Current: sec.id == section}
		switch sec.id {
		case "decide":
			l.Href = "/decide" // across workspaces: no ?w=
			l.Count, l.CountLabel = sh.Decide, plural(sh.Decide, "page needs", "pages need")+" your decision"
		case "inbox":
			l.Count, l.CountLabel = unread, strconv.Itoa(unread)+" unread"
		case "deliveries":
			l.Count, l.CountLabel, l.Alert = sh.Failed, plural(sh.Failed, "failed delivery", "failed deliveries"), true
		}
		sh.Nav = append(sh.Nav, l)
	}
	if len(d.all) > 1 {
		for i, t := range d.all {
			href := "/"
			if i > 0 {
				href = "/?w=" + url.QueryEscape(t.ID)
			}
			sh.Workspaces = append(sh.Workspaces, workspaceLink{Name: t.Name, Href: href, Current: t.ID == d.ws.ID})
		}
	}
	return sh
}

// events is GET /events: the workspace's event stream for the dashboard (the agent
// stream's frames, with the session cookie), ended when the person signs out.
func (s *Site) events(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	me, c := s.me(w, r)
	if me == nil {
		http.Error(w, "Sign in first.", http.StatusUnauthorized)
		return nil
	}
	id := r.URL.Query().Get("w")
	if id == "" && len(c.Tenants) > 0 {
		id = c.Tenants[0]
	}
	if !member(c.Tenants, id) {
		http.Error(w, "No such workspace.", http.StatusNotFound)
		return nil
	}
	if s.c.Feed == nil {
		return fault.New(fault.NotFound, "streams are not served by this node", nil)
	}
	release, err := s.c.Admit.HoldStream(s.c.ClientAddress(r), admission.CredentialKey("", c.Session.ID))
	if err != nil {
		return err
	}
	return s.c.Feed.Serve(w, r, id, release, "signed_out", func(end func()) func() { return s.c.People.OnEnd(c.Session.ID, end) })
}
