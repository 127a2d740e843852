package fakeoauth

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// githubTokenReply is GitHub's token response: JSON when the client asks for it with
// Accept: application/json, form-encoded otherwise (GitHub's default). Scopes are
// listed comma-separated, as GitHub does.
func githubTokenReply(r *http.Request, access, scope string) (contentType string, body []byte) {
	scopes := strings.Join(strings.Fields(scope), ",")
	for _, accept := range strings.Split(r.Header.Get("Accept"), ",") {
		if t, _, _ := mime.ParseMediaType(accept); t == "application/json" {
			body, _ := json.Marshal(map[string]string{"access_token": access, "token_type": "bearer", "scope": scopes})
			return "application/json", body
		}
	}
	form := url.Values{"access_token": {access}, "token_type": {"bearer"}, "scope": {scopes}}
	return "application/x-www-form-urlencoded", []byte(form.Encode())
}

// githubUser answers GET /user like GitHub. The public e-mail is shown only when it
// is verified (GitHub lets a user publish only a verified address).
func (s *Server) githubUser(w http.ResponseWriter, r *http.Request) {
	t, ok := s.bearer(r, github)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
		return
	}
	var email *string
	if t.user.Verified {
		email = &t.user.Email
	}
	var name *string
	if t.user.Name != "" {
		name = &t.user.Name
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id":    json.Number(t.user.Subject), // numeric: checked at authorize
		"login": login(t.user),
		"name":  name,
		"email": email,
		"type":  "User",
	})
}

// githubEmails answers GET /user/emails like GitHub: the user's one address, marked
// primary, with its verification state.
func (s *Server) githubEmails(w http.ResponseWriter, r *http.Request) {
	t, ok := s.bearer(r, github)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
		return
	}
	writeJSON(w, http.StatusOK, []map[string]any{{
		"email":      t.user.Email,
		"primary":    true,
		"verified":   t.user.Verified,
		"visibility": "private",
	}})
}

// login is the GitHub handle of u: the local part of its e-mail.
func login(u User) string {
	local, _, _ := strings.Cut(u.Email, "@")
	if local == "" {
		return "user" + u.Subject
	}
	return local
}
