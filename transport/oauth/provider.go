// Package oauth signs people in through OAuth 2.0 providers: GitHub, and Google by
// OpenID Connect. A sign-in is two calls on a Provider: AuthURL before the browser
// leaves, Identity when it comes back with a code.
//
// Between the two calls the caller keeps the state and the PKCE verifier, bound to
// the browser that started the sign-in. The verifier is a secret: only its S256
// challenge travels through the browser, and only the code's owner can redeem it.
//
// Errors returned here are safe to log: they never carry an access token, the client
// secret, a verifier or a code.
package oauth

import (
	"context"
	"errors"
	"net/http"
	"time"

	"golang.org/x/oauth2"
)

// Identity is who the provider vouches for.
type Identity struct {
	Provider string // "github" or "google"
	Subject  string // the provider's stable user id (GitHub numeric id as decimal string; Google `sub`)
	Email    string // a verified e-mail address, lower-cased
	Name     string // display name, may be empty
}

// Provider is one configured sign-in provider.
type Provider interface {
	Name() string // "github" or "google"
	// AuthURL is where to send the browser: it carries state and the PKCE S256 challenge of verifier.
	// It is "" when the provider cannot be reached to learn its endpoints (Google, whose
	// discovery document is fetched on first use); the caller answers 503 and a later
	// call tries again.
	AuthURL(state, verifier string) string
	// Identity exchanges the code (sending the PKCE verifier) and returns the verified identity.
	// An account without a verified e-mail is an error (ErrNoVerifiedEmail).
	Identity(ctx context.Context, code, verifier string) (Identity, error)
}

// ErrNoVerifiedEmail is returned by Identity for an account the provider does not
// vouch a verified e-mail address for.
var ErrNoVerifiedEmail = errors.New("oauth: the account has no verified e-mail address")

// NewVerifier returns a fresh PKCE code verifier (32 random bytes, base64url).
func NewVerifier() string { return oauth2.GenerateVerifier() }

// requestTimeout bounds every call to a provider made with the default client, and
// the discovery made on behalf of AuthURL.
const requestTimeout = 10 * time.Second

// clientOrDefault is c, or a client with requestTimeout when c is nil.
func clientOrDefault(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Timeout: requestTimeout}
}
