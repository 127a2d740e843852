package web

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/registry"
	"folio/actors/tenant"
)

// The members screen: who belongs to the workspace, and how one comes to belong.
// Inviting by e-mail is not built: today the person who claims the agent becomes
// its one member (owner), and an agent is claimed once.

// mountMembers registers the dashboard's members screen.
func (s *Site) mountMembers(r Router) {
	r.Handle("GET", "/members", s.serve(s.membersScreen))
}

// membersView is the members screen.
type membersView struct {
	dashShell
	Members []memberRow
}

type memberRow struct {
	Email, Role string
	JoinedAt    time.Time
	You         bool // the signed-in person
}

// membersScreen is GET /members: the workspace's members, earliest first.
func (s *Site) membersScreen(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	d, ok := s.desk(w, r)
	if !ok {
		return nil
	}
	list, err := registry.Call[[]tenant.Member](r.Context(), s.c.Tenants, d.ws.ID, &tenant.ListMembers{})
	if err != nil {
		return err
	}
	v := membersView{dashShell: s.dashShell(d, "members", "Members")}
	for _, m := range list {
		// The address the account has now, not the one it joined with.
		if email, ok := s.c.People.EmailOf(m.UserID); ok {
			m.Email = email
		}
		v.Members = append(v.Members, memberRow{Email: m.Email, Role: m.Role, JoinedAt: m.JoinedAt,
			You: d.cred.Session != nil && m.UserID == d.cred.Session.UserID})
	}
	s.render(w, r, http.StatusOK, "dash-members", v)
	return nil
}
