package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/people"
	"folio/transport/status"
)

// linkSent answers every well-formed link request alike (Sent is always true), so
// the answer never tells whether the address has an account.
type linkSent struct {
	Sent bool `json:"sent"`
}

// sendLink is POST /v1/auth/magic-link/send {email, pageId, redirectUrl}.
func (si *signinArea) sendLink(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	var req struct {
		Email       string `json:"email"`
		PageID      string `json:"pageId"`
		RedirectURL string `json:"redirectUrl"`
	}
	if err := si.decode(w, r, &req, false); err != nil {
		return err
	}
	rate, err := si.d.Rules.RequestLink(si.ClientAddress(r), req.Email, req.PageID, req.RedirectURL)
	status.SetRate(w.Header(), rate, err)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, linkSent{Sent: true})
	return nil
}

// verifyLinkGet is GET /v1/auth/magic-link/verify: it never spends a token (mail
// scanners and previews open links). A link of the older form (?token=) is sent
// on to the landing page with the token moved after #, where the person's browser
// posts it; the links mailed now lead to the landing page directly (signInLink).
func (si *signinArea) verifyLinkGet(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
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
func (si *signinArea) verifyLink(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := sameSitePost(r); err != nil {
		return err
	}
	token, err := si.linkTokenOf(w, r)
	if err != nil {
		return err
	}
	u, to, err := si.d.Rules.UseLink(r.Context(), token)
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
	if _, err := si.startSession(w, r, u, page.AuthMagicLink); err != nil {
		return err
	}
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// linkTokenOf reads the token of a verify post: the form field or the JSON member
// "token". A whole pasted link is taken for its token (the part after #).
func (si *signinArea) linkTokenOf(w http.ResponseWriter, r *http.Request) (string, error) {
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
