package fakeoauth

import (
	"crypto/rand"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// authorize is the authorization endpoint of p. The signed-in user consents at once:
// a valid request is answered with a 302 to redirect_uri carrying a fresh code and
// the state unchanged. An invalid one is answered 400 and issues nothing.
func (s *Server) authorize(p provider) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		s.mu.Lock()
		s.lastAuthorize = q
		user := s.user
		s.mu.Unlock()

		redirect, err := url.Parse(q.Get("redirect_uri"))
		switch {
		case q.Get("client_id") != ClientID:
			http.Error(w, "unknown client_id", http.StatusBadRequest)
			return
		case q.Get("response_type") != "code":
			http.Error(w, "response_type must be code", http.StatusBadRequest)
			return
		case err != nil || !redirect.IsAbs() || redirect.Host == "":
			http.Error(w, "redirect_uri must be an absolute URL", http.StatusBadRequest)
			return
		case q.Get("state") == "":
			http.Error(w, "state is required", http.StatusBadRequest)
			return
		case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
			http.Error(w, "a PKCE code_challenge with code_challenge_method=S256 is required", http.StatusBadRequest)
			return
		case p == google && !strings.Contains(" "+q.Get("scope")+" ", " openid "):
			http.Error(w, "scope must include openid", http.StatusBadRequest)
			return
		}
		if p == github {
			if _, err := strconv.ParseUint(user.Subject, 10, 63); err != nil {
				s.t.Errorf("fakeoauth: a GitHub user's Subject is its numeric id; SignInAs gave %q", user.Subject)
				http.Error(w, "user has no numeric id", http.StatusBadRequest)
				return
			}
		}

		code := rand.Text()
		s.mu.Lock()
		s.codes[code] = &grant{
			provider:    p,
			challenge:   q.Get("code_challenge"),
			redirectURI: q.Get("redirect_uri"),
			scope:       q.Get("scope"),
			nonce:       q.Get("nonce"),
			user:        user,
		}
		s.mu.Unlock()

		back := redirect.Query()
		back.Set("code", code)
		back.Set("state", q.Get("state"))
		redirect.RawQuery = back.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusFound)
	}
}
