package people

import (
	"net/url"
	"strings"

	"folio/actors/model/fault"
	"folio/actors/model/formats"
)

// linkRequest is a request for a sign-in link, checked (CheckLinkRequest): the
// address normalized, the page it is for (may be empty) and where the sign-in
// leads, a path on this service.
type linkRequest struct {
	Email, PageID, Redirect string
}

// CheckLinkRequest applies the rules of a sign-in link request, the same for
// every address, for the API and the sign-in page alike: a plain e-mail address,
// a page id no longer than any real one, and a redirect on one of origins (this
// service's own addresses; SafeRedirect). Whether a mail then goes out is decided
// later, away from the request, so the answer says nothing about the address.
func CheckLinkRequest(email, pageID, redirect string, origins ...string) (linkRequest, error) {
	email = NormalEmail(email)
	switch {
	case email == "":
		return linkRequest{}, fault.Field("email", "required", "email is required")
	case len(email) > 254 || !formats.Email(email):
		return linkRequest{}, fault.Field("email", "email", "email must be a plain e-mail address")
	case len(pageID) > 64:
		return linkRequest{}, fault.Field("pageId", "max_length", "pageId has at most 64 characters")
	}
	to, err := SafeRedirect(redirect, pageID, origins...)
	if err != nil {
		return linkRequest{}, err
	}
	return linkRequest{Email: email, PageID: pageID, Redirect: to}, nil
}

// SafeRedirect is where a sign-in may lead: a path on this service, or an absolute
// address on one of origins (kept as its path). Empty leads to the page, or to the
// dashboard. Anything else (another host, a scheme-relative //host, a backslash
// trick) is 400: there is no open redirect.
func SafeRedirect(raw, pageID string, origins ...string) (string, error) {
	if raw == "" {
		if pageID != "" {
			return "/p/" + url.PathEscape(pageID), nil
		}
		return "/", nil
	}
	refuse := func() (string, error) {
		return "", fault.Field("redirectUrl", "same_origin", "redirectUrl must be an address on this service")
	}
	if len(raw) > 2048 || strings.ContainsAny(raw, "\\\r\n\t") {
		return refuse()
	}
	u, err := url.Parse(raw)
	if err != nil {
		return refuse()
	}
	if u.Scheme != "" || u.Host != "" {
		ok := false
		for _, base := range origins {
			if b, err := url.Parse(base); err == nil && strings.EqualFold(b.Scheme, u.Scheme) && strings.EqualFold(b.Host, u.Host) && u.User == nil {
				ok = true
			}
		}
		if !ok {
			return refuse()
		}
	}
	path := u.EscapedPath()
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") {
		return refuse()
	}
	out := path
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		out += "#" + u.EscapedFragment()
	}
	return out, nil
}
