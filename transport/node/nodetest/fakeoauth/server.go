// Package fakeoauth is a local stand-in for the GitHub and Google sign-in providers, so
// a test can run the real OAuth 2.0 flow (transport/oauth) without network.
//
// The fake is strict where the real providers are: an authorization needs client_id,
// response_type=code, redirect_uri, state and an S256 PKCE challenge; a code is good
// for one exchange, by the same client, with the same redirect_uri and the verifier
// of its challenge; the GitHub API answers only to tokens it issued. A client that
// skips a step fails against the fake as it would against the provider.
package fakeoauth

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// The only client registered at the fake.
const (
	ClientID     = "fake-client"
	ClientSecret = "fake-secret"
)

// User is an account at the fake provider. For GitHub sign-ins Subject must be a
// decimal number (GitHub's numeric user id).
type User struct {
	Subject, Email, Name string
	Verified             bool
}

// defaultUser is who signs in until SignInAs says otherwise.
var defaultUser = User{Subject: "1001", Email: "octo@example.com", Name: "Octo Cat", Verified: true}

// provider names which fake a code or token belongs to; a code issued by one is
// unknown to the other.
type provider string

const (
	github provider = "github"
	google provider = "google"
)

// grant is an issued authorization code: what the token endpoint checks and what it
// vouches for.
type grant struct {
	provider    provider
	challenge   string // S256 code_challenge sent to authorize
	redirectURI string
	scope       string
	nonce       string // Google only; "" when the client sent none
	user        User   // who was signed in when the code was issued
	used        bool   // a code is spent by its first exchange attempt
}

// Server is a running fake of both providers.
type Server struct {
	URL string // base URL, http://127.0.0.1:port

	t   testing.TB
	key *rsa.PrivateKey // signs Google id_tokens; published at the JWKS endpoint

	mu            sync.Mutex // guards the fields below
	user          User
	codes         map[string]*grant
	tokens        map[string]token // access tokens issued, by value
	exchanges     int              // successful token exchanges
	lastAuthorize url.Values
}

// token is an access token the fake issued.
type token struct {
	provider provider
	user     User
}

// Start runs a fake on 127.0.0.1; it is closed when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{
		t:      t,
		key:    key,
		user:   defaultUser,
		codes:  map[string]*grant{},
		tokens: map[string]token{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /github/login/oauth/authorize", s.authorize(github))
	mux.HandleFunc("POST /github/login/oauth/access_token", s.exchange(github))
	mux.HandleFunc("GET /github/api/user", s.githubUser)
	mux.HandleFunc("GET /github/api/user/emails", s.githubEmails)
	mux.HandleFunc("GET /google/.well-known/openid-configuration", s.googleDiscovery)
	mux.HandleFunc("GET /google/jwks", s.googleJWKS)
	mux.HandleFunc("GET /google/authorize", s.authorize(google))
	mux.HandleFunc("POST /google/token", s.exchange(google))
	mux.HandleFunc("GET /google/userinfo", s.googleUserInfo)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// SignInAs sets who the next authorizations sign in as: the person at the provider
// who clicks Allow. Codes already issued keep the user they were issued for.
func (s *Server) SignInAs(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user = u
}

// GitHubAuthURL is the GitHub authorization endpoint.
func (s *Server) GitHubAuthURL() string { return s.URL + "/github/login/oauth/authorize" }

// GitHubTokenURL is the GitHub token endpoint.
func (s *Server) GitHubTokenURL() string { return s.URL + "/github/login/oauth/access_token" }

// GitHubAPIURL is the base of the GitHub REST API (/user, /user/emails).
func (s *Server) GitHubAPIURL() string { return s.URL + "/github/api" }

// GoogleIssuer is the OpenID Connect issuer; discovery is at
// GoogleIssuer()+"/.well-known/openid-configuration".
func (s *Server) GoogleIssuer() string { return s.URL + "/google" }

// Exchanges is how many token exchanges succeeded, both providers together.
func (s *Server) Exchanges() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exchanges
}

// LastAuthorize is the query of the last authorization request, valid or not; nil
// before the first.
func (s *Server) LastAuthorize() url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastAuthorize == nil {
		return nil
	}
	q := make(url.Values, len(s.lastAuthorize))
	for k, v := range s.lastAuthorize {
		q[k] = append([]string(nil), v...)
	}
	return q
}
