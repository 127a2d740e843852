package web

import (
	"net/http"

	"folio/transport/credential"
)

// meView is the signed-in person as every page shows them: their verified address
// in the bar (with a sign-out button) and the CSRF token their writes carry (a
// <meta> for the page script, a hidden field in forms).
type meView struct {
	Email string
	CSRF  string
}

// me is the signed-in person of the request, nil for anyone else (an API key is not
// a person). A session whose lifetime was extended gets its cookie refreshed on w.
func (s *Site) me(w http.ResponseWriter, r *http.Request) (*meView, credential.Credential) {
	c, err := s.c.Credentials.Of(w, r)
	if err != nil || c.Session == nil {
		return nil, c
	}
	return &meView{Email: c.Session.Email, CSRF: c.Session.CSRF}, c
}

// signinBox is the way in wherever a page asks a person to sign in: their address
// for a mailed link, and a button per configured provider. Next is where they land
// afterwards; PageID (may be empty) is the page the link is for.
type signinBox struct {
	PageID    string
	Next      string
	Email     string
	Providers []providerView
}

type providerView struct{ ID, Label string }

var providerLabels = map[string]string{"github": "GitHub", "google": "Google"}

func (s *Site) signinBox(pageID, next string) signinBox {
	b := signinBox{PageID: pageID, Next: next}
	for _, p := range s.c.API.Providers() {
		b.Providers = append(b.Providers, providerView{ID: p, Label: providerLabels[p]})
	}
	return b
}
