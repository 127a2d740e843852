package fakeoauth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"folio/transport/node/nodetest/fakeoauth"
)

const redirectURI = "http://127.0.0.1:9/cb"

// verifier is a valid RFC 7636 code verifier (43 characters).
const verifier = "abcdefghijklmnopqrstuvwxyz0123456789-._~ABC"

func challenge(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

var browser = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// authorizeQuery is a complete, valid authorization request.
func authorizeQuery() url.Values {
	return url.Values{
		"client_id": {fakeoauth.ClientID}, "response_type": {"code"}, "redirect_uri": {redirectURI},
		"state": {"st"}, "code_challenge": {challenge(verifier)}, "code_challenge_method": {"S256"},
		"scope": {"openid email"},
	}
}

// authorize sends q to endpoint and returns the status and the code of the redirect.
func authorize(t *testing.T, endpoint string, q url.Values) (status int, code string) {
	t.Helper()
	res, err := browser.Get(endpoint + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	return res.StatusCode, loc.Query().Get("code")
}

// redeem posts form to the token endpoint and returns the status and the body.
func redeem(t *testing.T, endpoint string, form url.Values, basic bool, accept string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if basic {
		req.SetBasicAuth(fakeoauth.ClientID, fakeoauth.ClientSecret)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

func TestAuthorizeRefusesARequestMissingAnyRequiredParameter(t *testing.T) {
	f := fakeoauth.Start(t)
	for _, endpoint := range []string{f.GitHubAuthURL(), f.GoogleIssuer() + "/authorize"} {
		if status, code := authorize(t, endpoint, authorizeQuery()); status != http.StatusFound || code == "" {
			t.Fatalf("%s: a valid request got %d, code %q", endpoint, status, code)
		}
		for _, drop := range []string{"client_id", "response_type", "redirect_uri", "state", "code_challenge", "code_challenge_method"} {
			q := authorizeQuery()
			q.Del(drop)
			if status, _ := authorize(t, endpoint, q); status != http.StatusBadRequest {
				t.Errorf("%s without %s: %d, want 400", endpoint, drop, status)
			}
		}
		q := authorizeQuery()
		q.Set("code_challenge_method", "plain")
		if status, _ := authorize(t, endpoint, q); status != http.StatusBadRequest {
			t.Errorf("%s with the plain method: %d, want 400", endpoint, status)
		}
	}
	if got := f.LastAuthorize().Get("code_challenge_method"); got != "plain" {
		t.Errorf("LastAuthorize has method %q, want the last request's", got)
	}
}

func TestTokenEndpointTakesCredentialsInBasicAuthOrFormButNotBoth(t *testing.T) {
	f := fakeoauth.Start(t)
	grant := func() url.Values {
		_, code := authorize(t, f.GitHubAuthURL(), authorizeQuery())
		return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI}, "code_verifier": {verifier}}
	}
	if status, _, body := redeem(t, f.GitHubTokenURL(), grant(), true, "application/json"); status != http.StatusOK {
		t.Fatalf("Basic auth: %d %s", status, body)
	}
	form := grant()
	form.Set("client_id", fakeoauth.ClientID)
	form.Set("client_secret", fakeoauth.ClientSecret)
	if status, _, body := redeem(t, f.GitHubTokenURL(), form, false, "application/json"); status != http.StatusOK {
		t.Fatalf("form credentials: %d %s", status, body)
	}
	form = grant()
	form.Set("client_secret", fakeoauth.ClientSecret)
	if status, _, _ := redeem(t, f.GitHubTokenURL(), form, true, ""); status != http.StatusBadRequest {
		t.Fatalf("both: %d, want 400", status)
	}
	form = grant()
	form.Set("client_id", fakeoauth.ClientID)
	form.Set("client_secret", "wrong")
	if status, _, _ := redeem(t, f.GitHubTokenURL(), form, false, ""); status != http.StatusUnauthorized {
		t.Fatalf("wrong secret: %d, want 401", status)
	}
	if got := f.Exchanges(); got != 2 {
		t.Fatalf("%d exchanges, want 2", got)
	}
}

func TestGitHubTokenIsFormEncodedUnlessJSONIsAsked(t *testing.T) {
	f := fakeoauth.Start(t)
	_, code := authorize(t, f.GitHubAuthURL(), authorizeQuery())
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI}, "code_verifier": {verifier}}
	status, h, body := redeem(t, f.GitHubTokenURL(), form, true, "")
	if status != http.StatusOK || h.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Fatalf("%d %s: %s", status, h.Get("Content-Type"), body)
	}
	reply, _ := url.ParseQuery(body)
	if reply.Get("access_token") == "" || reply.Get("scope") != "openid,email" {
		t.Fatalf("reply %q", body)
	}
}

func TestGitHubAPIAnswersOnlyToTokensItIssued(t *testing.T) {
	f := fakeoauth.Start(t)
	_, code := authorize(t, f.GitHubAuthURL(), authorizeQuery())
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI}, "code_verifier": {verifier}}
	_, _, body := redeem(t, f.GitHubTokenURL(), form, true, "application/json")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(body), &tok); err != nil {
		t.Fatal(err)
	}
	get := func(path, authorization string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, f.GitHubAPIURL()+path, nil)
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, path := range []string{"/user", "/user/emails"} {
		for _, auth := range []string{"", "Bearer not-issued", "Basic " + tok.AccessToken} {
			if status, _ := get(path, auth); status != http.StatusUnauthorized {
				t.Errorf("GET %s with %q: %d, want 401", path, auth, status)
			}
		}
	}
	if status, body := get("/user", "Bearer "+tok.AccessToken); status != http.StatusOK || !strings.Contains(body, `"id":1001`) {
		t.Errorf("GET /user: %d %s", status, body)
	}
}
