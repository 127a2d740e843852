package fakeoauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
)

// exchange is the token endpoint of p (RFC 6749 section 4.1.3 with RFC 7636 PKCE).
//
// Client credentials come either in Basic auth (each part form-escaped, section 2.3.1)
// or as client_id/client_secret in the form, never both. Wrong credentials are 401
// invalid_client; every fault of the code itself is 400 invalid_grant. A code is
// spent by its first presentation with valid credentials, even one that fails, so a
// verifier cannot be guessed by retrying.
func (s *Server) exchange(p provider) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request")
			return
		}
		form := r.PostForm
		id, secret, basic := r.BasicAuth()
		if basic {
			if form.Has("client_secret") {
				oauthError(w, http.StatusBadRequest, "invalid_request")
				return
			}
			id, _ = url.QueryUnescape(id)
			secret, _ = url.QueryUnescape(secret)
		} else {
			id, secret = form.Get("client_id"), form.Get("client_secret")
		}
		if id != ClientID || secret != ClientSecret {
			oauthError(w, http.StatusUnauthorized, "invalid_client")
			return
		}
		if form.Get("grant_type") != "authorization_code" {
			oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
			return
		}

		s.mu.Lock()
		g := s.codes[form.Get("code")]
		fresh := g != nil && !g.used && g.provider == p
		if fresh {
			g.used = true
		}
		s.mu.Unlock()
		verifier := form.Get("code_verifier")
		if !fresh || form.Get("redirect_uri") != g.redirectURI ||
			len(verifier) < 43 || len(verifier) > 128 || challengeS256(verifier) != g.challenge {
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}

		access := rand.Text()
		var contentType string
		var body []byte
		switch p {
		case github:
			contentType, body = githubTokenReply(r, access, g.scope)
		case google:
			idToken, err := s.idToken(g)
			if err != nil {
				oauthError(w, http.StatusInternalServerError, "server_error")
				return
			}
			contentType = "application/json"
			body, _ = json.Marshal(map[string]any{
				"access_token": access,
				"token_type":   "Bearer",
				"expires_in":   3599,
				"scope":        g.scope,
				"id_token":     idToken,
			})
		}
		s.mu.Lock()
		s.tokens[access] = token{provider: p, user: g.user}
		s.exchanges++
		s.mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(body)
	}
}

// challengeS256 is the RFC 7636 S256 code_challenge of verifier, computed here rather
// than by the client library under test.
func challengeS256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// oauthError answers with an RFC 6749 section 5.2 error body.
func oauthError(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, map[string]string{"error": code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// bearer is the access token the fake issued for p that r carries in
// "Authorization: Bearer"; ok is false for any other request.
func (s *Server) bearer(r *http.Request, p provider) (t token, ok bool) {
	const prefix = "Bearer "
	h := r.Header.Get("Authorization")
	if len(h) <= len(prefix) || h[:len(prefix)] != prefix {
		return token{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok = s.tokens[h[len(prefix):]]
	return t, ok && t.provider == p
}
