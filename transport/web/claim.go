package web

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/transport/status"
)

// claimView is the claim page: sign in first, then confirm the agent's claim code
// (the claim token comes from the claimUrl's fragment, put in the form by the
// page's script, or pasted), or paste its whole API key; after a claim, what the
// person now owns.
type claimView struct {
	Shell
	SignIn  signinBox
	Code    string
	Token   string // the claim token, when the form comes back with a problem
	Problem string
	Claimed *tenant.Tenant // the tenant the person just claimed
}

// claimPage is GET /claim (?code= prefilled; ?tenant= after a claim link).
func (s *Site) claimPage(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	me, c := s.me(w, r)
	q := r.URL.Query()
	code := q.Get("code")
	if len(code) > 64 {
		code = ""
	}
	v := claimView{Shell: s.shell("Claim an agent"), Code: code}
	v.Me = me
	next := "/claim"
	if code != "" {
		next += "?code=" + url.QueryEscape(code)
	}
	v.SignIn = s.signinBox("", next)
	if id := q.Get("tenant"); id != "" && me != nil && member(c.Tenants, id) {
		if t, err := registry.Call[*tenant.View](r.Context(), s.c.Tenants, id, &tenant.Get{}); err == nil {
			v.Claimed = &t.Tenant
		}
	}
	if q.Get("problem") == "claimed" {
		v.Problem = "This agent's account was already claimed. An agent's account has one owner: if it should be yours, ask whoever claimed it."
	}
	s.render(w, r, http.StatusOK, "claim", v)
}

// claim is POST /claim: the code (or the key) from the form, for the signed-in
// person; success leads to the page that says what they now own.
func (s *Site) claim(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if !s.readForm(w, r) {
		return nil
	}
	me, c := s.me(w, r)
	if me == nil {
		http.Redirect(w, r, "/claim?code="+url.QueryEscape(r.PostFormValue("code")), http.StatusSeeOther)
		return nil
	}
	if !s.csrfOK(w, r, c) {
		return nil
	}
	t, rate, err := s.c.SignIn.Claim(r.Context(), s.c.ClientAddress(r), tenant.Member{UserID: c.Session.UserID, Email: c.Session.Email},
		tenant.ClaimProof{Code: r.PostFormValue("code"), Token: r.PostFormValue("token"), Key: r.PostFormValue("key")})
	status.SetRate(w.Header(), rate, err)
	var fe *fault.Error
	switch {
	case err == nil:
		http.Redirect(w, r, "/claim?tenant="+url.QueryEscape(t.ID), http.StatusSeeOther)
	case errors.As(err, &fe):
		v := claimView{Shell: s.shell("Claim an agent"), Code: r.PostFormValue("code"), Token: r.PostFormValue("token"), Problem: fe.Message}
		v.Me = me
		s.render(w, r, status.Code(fe), "claim", v)
	default:
		return err
	}
	return nil
}

func member(tenants []string, id string) bool {
	for _, t := range tenants {
		if t == id {
			return true
		}
	}
	return false
}

// welcomeView shows a first sign-in's new workspace and its API key, once.
type welcomeView struct {
	Shell
	Key      string
	TenantID string
}

// welcome is GET /welcome: the key of the workspace made at the first sign-in, shown
// on this one visit only (it is never stored; reloading shows where to make another).
func (s *Site) welcome(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	me, c := s.me(w, r)
	if me == nil {
		http.Redirect(w, r, "/login?next=/", http.StatusSeeOther)
		return
	}
	v := welcomeView{Shell: s.shell("Welcome to Folio")}
	v.Me = me
	v.Key, v.TenantID, _ = s.c.SignIn.TakeWelcome(c.Session.ID)
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, "welcome", v)
}

// homeView is the start page of a signed-in person in no workspace yet.
type homeView struct {
	Shell
	Workspaces []tenant.Tenant
}
