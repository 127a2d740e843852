package web

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/maillink"
	"folio/actors/model/fault"
	"folio/actors/model/ids"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/transport/status"
)

// The decision links of notification and reminder mails (actors/maillink):
//   - GET and HEAD /a/:token show a one-screen confirmation (the page's title and
//     summary, the action, the version the mail showed, who decides) with one
//     button. They never decide and never spend the link: scanners and previews
//     open links.
//   - POST /a/:token spends the link, signs the person in (a session, as a magic
//     link does) and decides through the same page.Act as the review page, as the
//     link's address with auth_method email_link and the mail's page version: one
//     winner, the version check, the assignee checks, the audit, the callback.
//     Success leads to the page; a refusal says what happened and links to it.
// A used, expired, unknown link, or a page no longer open, gets a page that says so
// and what to do next. The form carries a token that must match a cookie set with
// the confirmation (and an Origin of this site): another site cannot make a
// browser confirm a link, or sign it in as someone else.

const linkCSRFCookie = "folio_link_csrf"

// linkView is the confirmation screen and each of its outcomes.
type linkView struct {
	Shell
	CSRF             string
	PageID, Title    string
	Summary          string
	Action           actionView
	Version, Current int
	Email            string
	// An outcome instead of the form: its heading and message, and whether to
	// offer the page.
	Heading, Message string
	OpenPage         bool
}

func (s *Site) decisionLink(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	token := ps.ByName("token")
	l, lerr := maillink.Peek(s.c.Store, token, s.c.Now())
	if lerr != nil && !errors.Is(lerr, maillink.ErrUsed) && !errors.Is(lerr, maillink.ErrExpired) && !errors.Is(lerr, maillink.ErrUnknown) {
		return lerr
	}
	v := s.linkViewOf(l)
	switch {
	case errors.Is(lerr, maillink.ErrUnknown):
		s.linkOutcome(w, r, http.StatusNotFound, v, "This link does not work",
			"It is not a decision link Folio sent, or part of it is missing. Open the page from the mail's “Open the page” link instead, or copy the whole link into your browser.", false)
		return nil
	case errors.Is(lerr, maillink.ErrUsed):
		s.linkOutcome(w, r, http.StatusGone, v, "This link was already used",
			"Each decision link works once. Open the page to see what was decided.", true)
		return nil
	case errors.Is(lerr, maillink.ErrExpired):
		s.linkOutcome(w, r, http.StatusGone, v, "This link has expired",
			"Decision links work until the page's deadline or expiry. Open the page to see where it stands.", true)
		return nil
	}
	p, err := s.linkPage(r, l)
	if err != nil {
		return err
	}
	if p == nil || p.Status == page.Revoked {
		s.linkOutcome(w, r, http.StatusGone, v, "This page was withdrawn",
			"The agent that shared it has revoked it. Nothing on it can be decided any more.", false)
		return nil
	}
	v.Title, v.Summary, v.Current = p.Title, p.Summary, p.Version
	if a, ok := actionOf(p, l.ActionID); ok {
		v.Action = actionView{ID: a.ActionID, Label: a.Label, Style: a.Style, Danger: a.Style == "danger"}
	}
	if st := page.EffectiveStatus(p, s.c.Now()); st != page.Active {
		s.linkOutcome(w, r, http.StatusOK, v, "This page was already decided",
			"It is "+st+" and takes no more decisions. Open the page to see the outcome.", true)
		return nil
	}
	if p.Version != l.PageVersion {
		s.linkChanged(w, r, v)
		return nil
	}
	v.CSRF = s.linkCSRF(w, r)
	v.Shell.Title = "Confirm: " + v.Action.Label
	s.renderLink(w, r, http.StatusOK, v)
	return nil
}

// confirmLink is POST /a/:token.
func (s *Site) confirmLink(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	if !sameOrigin(r) {
		http.Error(w, "This form was sent from another site.", http.StatusForbidden)
		return nil
	}
	if !s.readForm(w, r) {
		return nil
	}
	c, err := r.Cookie(linkCSRFCookie)
	if sent := r.PostForm.Get("csrf"); err != nil || sent == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(sent)) != 1 {
		s.notice(w, r, http.StatusForbidden, "This form was sent from another site",
			"Folio refused it: a decision must be confirmed on Folio's own page. Open the link from your e-mail again and confirm there.")
		return nil
	}
	token := ps.ByName("token")
	l, lerr := maillink.Use(s.c.Store, token, s.c.Now())
	if lerr != nil {
		// The GET says what happened to the link (used, expired, unknown).
		if errors.Is(lerr, maillink.ErrUsed) || errors.Is(lerr, maillink.ErrExpired) || errors.Is(lerr, maillink.ErrUnknown) {
			return s.decisionLink(w, r, ps)
		}
		return lerr
	}
	viewer, err := s.c.API.SignInByDecisionLink(w, r, l.Email)
	if err != nil {
		return err
	}
	version := l.PageVersion
	req := &page.ActionRequest{PageVersion: &version}
	_, err = registry.Call[*page.Result](r.Context(), s.c.Pages, l.PageID, &page.Act{Viewer: viewer, ActionID: l.ActionID, Req: req})
	if err == nil {
		http.Redirect(w, r, "/p/"+url.PathEscape(l.PageID)+"#state", http.StatusSeeOther)
		return nil
	}
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return err
	}
	v := s.linkViewOf(l)
	if p, perr := s.linkPage(r, l); perr == nil && p != nil {
		v.Title, v.Summary, v.Current = p.Title, p.Summary, p.Version
		if a, ok := actionOf(p, l.ActionID); ok {
			v.Action = actionView{ID: a.ActionID, Label: a.Label}
		}
	}
	v.Shell.Me = &meView{Email: viewer.Person}
	code := status.Code(fe)
	switch {
	case fe.Details["reason"] == "page_changed":
		s.linkChanged(w, r, v)
	case fe.Code == fault.Conflict:
		s.linkOutcome(w, r, code, v, "This page was already decided", sentence(fe.Message)+" Open the page to see the outcome.", true)
	default:
		s.linkOutcome(w, r, code, v, "Your decision was not recorded", sentence(fe.Message)+" Open the page to see where it stands.", true)
	}
	return nil
}

// linkViewOf is what every outcome shows of a link.
func (s *Site) linkViewOf(l maillink.Link) linkView {
	return linkView{Shell: s.shell("Decide from your e-mail"), PageID: l.PageID, Version: l.PageVersion, Email: l.Email}
}

// linkPage reads the link's page (nil when it is gone or of another workspace).
// The link is the proof its holder got the mail with the page's title and summary.
func (s *Site) linkPage(r *http.Request, l maillink.Link) (*page.Page, error) {
	res, err := registry.Call[*page.Result](r.Context(), s.c.Pages, l.PageID, &page.Read{})
	switch {
	case err == nil:
		if res.Page.TenantID != l.TenantID {
			return nil, nil
		}
		return res.Page, nil
	case errors.Is(err, registry.ErrTimeout) || r.Context().Err() != nil:
		return nil, err
	}
	var fe *fault.Error
	if errors.As(err, &fe) {
		return nil, nil
	}
	return nil, err
}

func (s *Site) linkChanged(w http.ResponseWriter, r *http.Request, v linkView) {
	s.linkOutcome(w, r, http.StatusConflict, v, "The page changed since your e-mail",
		"Your e-mail showed version "+strconv.Itoa(v.Version)+"; the page is now at version "+strconv.Itoa(v.Current)+". Nothing was decided: open the page, review what changed and decide there.", true)
}

func (s *Site) linkOutcome(w http.ResponseWriter, r *http.Request, code int, v linkView, heading, message string, open bool) {
	v.Heading, v.Message, v.OpenPage = heading, message, open && v.PageID != ""
	v.Shell.Title = heading
	s.renderLink(w, r, code, v)
}

func (s *Site) renderLink(w http.ResponseWriter, r *http.Request, code int, v linkView) {
	buf := getBuf()
	defer putBuf(buf)
	if err := s.execute(buf, "decision-link", v); err != nil {
		s.failed(w, r, err)
		return
	}
	// The token is in the address: it must not leave in a Referer, nor be kept.
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
	s.writeHTML(w, r, code, buf.Bytes())
}

// linkCSRF is the confirmation form's token: the browser's cookie's, set now when
// it has none.
func (s *Site) linkCSRF(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(linkCSRFCookie); err == nil && len(c.Value) == 32 {
		return c.Value
	}
	v := ids.Random(32)
	http.SetCookie(w, &http.Cookie{Name: linkCSRFCookie, Value: v, Path: "/a/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")})
	return v
}
