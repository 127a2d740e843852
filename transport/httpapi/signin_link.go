package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// sendLink is POST /v1/auth/magic-link/send {email, pageId, redirectUrl}.
func (si *signin) sendLink(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	var req struct {
		Email       string `json:"email"`
		PageID      string `json:"pageId"`
		RedirectURL string `json:"redirectUrl"`
	}
	if err := si.decode(w, r, &req, false); err != nil {
		return err
	}
	if err := si.SendSignInLink(w, r, req.Email, req.PageID, req.RedirectURL); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"sent": true})
	return nil
}

// SendSignInLink checks a request for a sign-in link (people.CheckLinkRequest)
// and queues it. What it checks is the shape of the request and the abuse limits,
// the same for every address; whether a mail actually goes out (the page admits
// the address) is decided later, in the background (deliverLink), so neither the
// answer nor its timing says whether an address is allowed. Without a page, any
// address may sign in (the sign-in page, claiming an agent).
func (s *Server) SendSignInLink(w http.ResponseWriter, r *http.Request, email, pageID, redirect string) error {
	si := s.signin
	req, err := people.CheckLinkRequest(email, pageID, redirect, s.origins()...)
	if err != nil {
		return err
	}
	if err := admit(w, "sign_in_links", "email", si.links.TakeOf("email:"+req.Email, si.d.LinksPerEmail, si.d.Window)); err != nil {
		return err
	}
	if err := admit(w, "sign_in_links", "address", si.links.TakeOf("addr:"+si.ClientAddress(r), si.d.LinksPerClient, si.d.Window)); err != nil {
		return err
	}
	si.enqueue(mailJob{kind: people.PurposeSignIn, email: req.Email, pageID: req.PageID, redirect: req.Redirect})
	return nil
}

// origins are this service's own addresses, where a sign-in may lead
// (people.SafeRedirect).
func (s *Server) origins() []string { return []string{s.urls.Base, s.urls.PageBase, s.urls.App} }

// deliverLink decides, away from the request, whether the address gets a link: a
// page given must admit it (an authenticated page's allowed_identities, or its
// tenant's members; any address on a public page).
func (si *signin) deliverLink(ctx context.Context, j mailJob) {
	title := ""
	if j.pageID != "" {
		v := page.Viewer{Person: j.email, Method: page.AuthMagicLink}
		u, ok, err := si.people.UserByEmail(j.email)
		if err != nil { // not "no account": send nothing rather than decide on a failed read
			si.log.Warn("no sign-in link sent: the store did not answer", "page", j.pageID, "err", err.Error())
			return
		}
		if ok {
			tenants, err := tenant.TenantsOf(si.store, u.ID)
			if err != nil { // not "belongs to none": send nothing rather than decide on a failed read
				si.log.Warn("no sign-in link sent: the store did not answer", "page", j.pageID, "err", err.Error())
				return
			}
			v.Tenants = tenants
		}
		res, err := registry.Call[*page.Admitted](ctx, si.pages, j.pageID, &page.Admits{Viewer: v})
		if err != nil {
			si.log.Info("no sign-in link sent: the page does not admit the address", "page", j.pageID, "reason", err.Error())
			return
		}
		title = res.Title
	}
	token, err := si.people.IssueLink(people.Link{Email: j.email, PageID: j.pageID, Redirect: j.redirect, Purpose: people.PurposeSignIn})
	if err != nil {
		si.log.Error("sign-in link not stored", "err", err)
		return
	}
	si.send(ctx, signInMail(si.urls.App, j.email, title, token, si.people.Lifetimes().Link))
}

// verifyLinkGet is GET /v1/auth/magic-link/verify: it never spends a token (mail
// scanners and previews open links). A link of the older form (?token=) is sent
// on to the landing page with the token moved after #, where the person's browser
// posts it; the links mailed now lead to the landing page directly (signInLink).
func (si *signin) verifyLinkGet(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	to := "/login/link"
	if t := r.URL.Query().Get("token"); people.IsLinkToken(t) {
		to += "#" + t
	}
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// verifyLink is POST /v1/auth/magic-link/verify (a form's or JSON's token, sent by
// the landing page): the link's first use signs the person in (a new session in
// the cookie) and leads to where the link was asked for; a claim link also claims
// the agent's account. A used, expired or unknown link leads to the sign-in page,
// which says so and offers a new one. A post from another site is refused, so no
// one can sign a visitor in to an account of theirs (login CSRF).
func (si *signin) verifyLink(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := sameSitePost(r); err != nil {
		return err
	}
	token, err := si.linkTokenOf(w, r)
	if err != nil {
		return err
	}
	l, err := si.people.UseLink(token)
	switch {
	case errors.Is(err, people.ErrExpired):
		http.Redirect(w, r, "/login?problem=link_expired", http.StatusSeeOther)
		return nil
	case errors.Is(err, people.ErrUnknown):
		http.Redirect(w, r, "/login?problem=link_used", http.StatusSeeOther)
		return nil
	case err != nil:
		return err
	}
	u, _, err := si.people.SignIn(people.Proof{Email: l.Email})
	if err != nil {
		return err
	}
	to := l.Redirect
	if l.Purpose == people.PurposeClaim {
		to = "/claim?tenant=" + url.QueryEscape(l.TenantID)
		if _, err := registry.Call[*tenant.Claimed](r.Context(), si.tenants, l.TenantID,
			&tenant.Claim{Person: tenant.Member{UserID: u.ID, Email: u.Email}}); err != nil {
			var fe *fault.Error
			if !errors.As(err, &fe) {
				return err
			}
			to = "/claim?problem=claimed" // names no workspace
		}
	}
	if _, err := si.startSession(w, r, u, page.AuthMagicLink); err != nil {
		return err
	}
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// linkTokenOf reads the token of a verify post: the form field or the JSON member
// "token". A whole pasted link is taken for its token (the part after #).
func (si *signin) linkTokenOf(w http.ResponseWriter, r *http.Request) (string, error) {
	var token string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var req struct {
			Token string `json:"token"`
		}
		if err := si.decode(w, r, &req, false); err != nil {
			return "", err
		}
		token = req.Token
	} else {
		r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
		if err := r.ParseForm(); err != nil {
			return "", fault.Field("token", "form", "send the token as a form field or as JSON {\"token\": …}")
		}
		token = r.PostForm.Get("token")
	}
	token = strings.TrimSpace(token)
	if i := strings.LastIndexByte(token, '#'); i >= 0 {
		token = token[i+1:]
	} else if i := strings.Index(token, "token="); i >= 0 { // a link of the older form
		token = token[i+len("token="):]
	}
	if token == "" {
		return "", fault.Field("token", "required", "token is required: paste the sign-in link from your e-mail")
	}
	return token, nil
}

// sameSitePost refuses a post another site made a browser send: an Origin naming
// another host, or Sec-Fetch-Site saying it came from elsewhere. (The pages send
// Referrer-Policy: no-referrer, so a browser's own form posts may carry Origin:
// null; Sec-Fetch-Site still tells.)
func sameSitePost(r *http.Request) error {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		if u, err := url.Parse(o); err != nil || !strings.EqualFold(u.Host, r.Host) {
			return fault.New(fault.Forbidden, "this request was sent from another site", map[string]any{"reason": "csrf"})
		}
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return fault.New(fault.Forbidden, "this request was sent from another site", map[string]any{"reason": "csrf"})
	}
	return nil
}
