package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// GoogleConfig configures sign-in with Google (OpenID Connect).
type GoogleConfig struct {
	ClientID, ClientSecret, RedirectURL string
	Issuer                              string       // default https://accounts.google.com
	HTTPClient                          *http.Client // nil: a client with a 10 s timeout
}

type google struct {
	clientID, clientSecret, redirectURL, issuer string
	client                                      *http.Client

	// discovered is set once, by the first discovery that succeeds, and never changes.
	discovered atomic.Pointer[discovered]
	// discovering (capacity 1) is held by the one caller fetching the discovery
	// document, so a burst of sign-ins makes one request, not one each.
	discovering chan struct{}
}

// discovered is what the issuer's discovery document configures.
type discovered struct {
	config   *oauth2.Config
	verifier *oidc.IDTokenVerifier
}

var _ Provider = (*google)(nil)

// NewGoogle returns the Google provider. It does no network I/O: the issuer's discovery
// document is fetched on first use, and again on a later use while fetching fails.
func NewGoogle(c GoogleConfig) Provider {
	issuer := c.Issuer
	if issuer == "" {
		issuer = "https://accounts.google.com"
	}
	return &google{
		clientID:     c.ClientID,
		clientSecret: c.ClientSecret,
		redirectURL:  c.RedirectURL,
		issuer:       issuer,
		client:       clientOrDefault(c.HTTPClient),
		discovering:  make(chan struct{}, 1),
	}
}

func (g *google) Name() string { return "google" }

// AuthURL asks for openid, email and profile, with the PKCE challenge and a nonce
// derived from verifier. It is "" while the discovery document cannot be fetched.
func (g *google) AuthURL(state, verifier string) string {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	d, err := g.discover(ctx)
	if err != nil {
		return ""
	}
	return d.config.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oidc.Nonce(nonceFor(verifier)))
}

// Identity is the subject of the id_token the token endpoint returns, once its
// signature, issuer, audience, expiry and nonce are verified.
func (g *google) Identity(ctx context.Context, code, verifier string) (Identity, error) {
	d, err := g.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	tok, err := exchange(ctx, d.config, g.client, code, verifier)
	if err != nil {
		return Identity{}, fmt.Errorf("google: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, errors.New("google: the token response has no id_token")
	}
	idToken, err := d.verifier.Verify(oidc.ClientContext(ctx, g.client), raw)
	if err != nil {
		return Identity{}, fmt.Errorf("google: id_token: %w", err)
	}
	if idToken.Nonce != nonceFor(verifier) {
		return Identity{}, errors.New("google: id_token: the nonce is not this sign-in's")
	}
	if idToken.Subject == "" {
		return Identity{}, errors.New("google: id_token: no sub")
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
		Name          string `json:"name"`
	}
	if err := idToken.Claims(&claims); err != nil {
		return Identity{}, fmt.Errorf("google: id_token claims: %w", err)
	}
	if claims.Email == "" || !claims.EmailVerified {
		return Identity{}, fmt.Errorf("google: account %s: %w", idToken.Subject, ErrNoVerifiedEmail)
	}
	return Identity{
		Provider: "google",
		Subject:  idToken.Subject,
		Email:    strings.ToLower(claims.Email),
		Name:     claims.Name,
	}, nil
}

// discover returns the issuer's configuration, fetching the discovery document if no
// fetch has succeeded yet. A caller waiting for another's fetch gives up with its ctx.
func (g *google) discover(ctx context.Context) (*discovered, error) {
	if d := g.discovered.Load(); d != nil {
		return d, nil
	}
	select {
	case g.discovering <- struct{}{}:
		defer func() { <-g.discovering }()
	case <-ctx.Done():
		return nil, fmt.Errorf("google: discovery: %w", ctx.Err())
	}
	if d := g.discovered.Load(); d != nil {
		return d, nil
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, g.client), g.issuer)
	if err != nil {
		return nil, fmt.Errorf("google: discovery of %s: %w", g.issuer, err)
	}
	endpoint := p.Endpoint()
	endpoint.AuthStyle = oauth2.AuthStyleInParams
	d := &discovered{
		config: &oauth2.Config{
			ClientID:     g.clientID,
			ClientSecret: g.clientSecret,
			RedirectURL:  g.redirectURL,
			Endpoint:     endpoint,
			Scopes:       []string{oidc.ScopeOpenID, "email", "profile"},
		},
		// The key set fetches the JWKS with the client NewProvider was given.
		verifier: p.Verifier(&oidc.Config{ClientID: g.clientID}),
	}
	g.discovered.Store(d)
	return d, nil
}

// nonceFor is the OpenID Connect nonce of the sign-in whose PKCE verifier is verifier:
// a hash of the verifier under its own label. It binds the id_token to the sign-in
// without a second value for the caller to keep, and reveals nothing of the verifier.
func nonceFor(verifier string) string {
	sum := sha256.Sum256([]byte("folio oauth nonce\x00" + verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
