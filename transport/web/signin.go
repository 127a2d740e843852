package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/transport/status"
)

// loginView is the sign-in page: the way in, and what happened last (a link that
// was used or expired, a provider that failed, a link just sent).
type loginView struct {
	Shell
	SignIn  signinBox
	Problem string
	Notice  string
	Sent    bool
}

// problems are the messages of ?problem= on the sign-in page (set by the API's
// sign-in routes when they send the browser back here).
var problems = map[string]string{
	"link_expired": "That sign-in link has expired. Enter your address and we will send a new one.",
	"link_used":    "That sign-in link was already used, or is not valid. Enter your address and we will send a new one.",
	"oauth_state":  "That sign-in could not be completed here: it was started in another browser or took too long. Please try again.",
	"oauth_denied": "The sign-in was cancelled at the provider.",
	"oauth_email":  "Your account at that provider has no verified e-mail address. Verify one there, or sign in with an e-mailed link.",
	"oauth_failed": "The provider did not confirm who you are. Please try again.",
	"oauth_address_taken": "Your account at that provider now vouches for an address that belongs to another Folio account, " +
		"so you were not signed in. Sign in to that address with an e-mailed link, or make your previous address the verified one at the provider again.",
	"oauth_other_account": "The address your account at that provider vouches for already belongs to a Folio account that signs in with a different account there, " +
		"so you were not signed in. Sign in with that other account, or with a link e-mailed to the address.",
}

// login is GET /login.
func (s *Site) login(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	me, _ := s.me(w, r)
	q := r.URL.Query()
	next := q.Get("next")
	if me != nil && next != "" && q.Get("problem") == "" {
		http.Redirect(w, r, s.safeNext(next), http.StatusSeeOther)
		return
	}
	v := loginView{Shell: s.shell("Sign in"), SignIn: s.signinBox(q.Get("page"), s.safeNext(next)), Problem: problems[q.Get("problem")]}
	v.Me = me
	if q.Get("problem") == "signed_out" {
		v.Problem, v.Notice = "", "You are signed out."
	}
	s.render(w, r, http.StatusOK, "login", v)
}

// linkLanding is GET /login/link, where a mailed sign-in link leads: the token is
// after # (never sent to the server), and the page's script posts it to
// POST /v1/auth/magic-link/verify; without JavaScript the person pastes the link
// into the form. Opening the page spends nothing.
func (s *Site) linkLanding(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	me, _ := s.me(w, r)
	v := loginView{Shell: s.shell("Sign in")}
	v.Me = me
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, "link", v)
}

// sendLink is POST /login: the form that mails a sign-in link. It answers the same
// "check your e-mail" page whether or not the address gets a mail (only the shape
// of the address and the abuse limits can refuse it).
func (s *Site) sendLink(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if !s.readForm(w, r) {
		return nil
	}
	email, pageID, next := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("page"), s.safeNext(r.PostFormValue("next"))
	v := loginView{Shell: s.shell("Check your e-mail"), SignIn: s.signinBox(pageID, next)}
	v.SignIn.Email = email
	rate, err := s.c.SignIn.RequestLink(s.c.ClientAddress(r), email, pageID, next)
	status.SetRate(w.Header(), rate, err)
	var fe *fault.Error
	switch {
	case err == nil:
		v.Sent = true
		s.render(w, r, http.StatusOK, "login", v)
	case errors.As(err, &fe):
		v.Shell.Title, v.Problem = "Sign in", fe.Message
		s.render(w, r, status.Code(fe), "login", v)
	default:
		return err
	}
	return nil
}

// oauth is POST /login/oauth/:provider: the provider's button, without JavaScript.
func (s *Site) oauth(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	if !s.readForm(w, r) {
		return nil
	}
	to, err := s.c.API.StartOAuth(w, r, ps.ByName("provider"), s.safeNext(r.PostFormValue("next")))
	var fe *fault.Error
	switch {
	case err == nil:
		http.Redirect(w, r, to, http.StatusSeeOther)
	case errors.As(err, &fe):
		v := loginView{Shell: s.shell("Sign in"), SignIn: s.signinBox("", "/"), Problem: fe.Message}
		s.render(w, r, status.Code(fe), "login", v)
	default:
		return err
	}
	return nil
}

// logout is POST /logout: the session ends at once, the cookie goes, and the
// sign-in page says so.
func (s *Site) logout(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !s.readForm(w, r) {
		return
	}
	c, err := s.c.Credentials.Of(nil, r)
	if err == nil && c.Session != nil {
		if !s.csrfOK(w, r, c) {
			return
		}
		s.c.API.Logout(w, r, c)
	}
	http.Redirect(w, r, "/login?problem=signed_out", http.StatusSeeOther)
}

// safeNext keeps a destination on this site (a path, not //host); anything else
// is the dashboard.
func (s *Site) safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	if u, err := url.Parse(next); err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return next
}
