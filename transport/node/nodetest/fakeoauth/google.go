package fakeoauth

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// signingKeyID names the one key of a fake's JWKS; each Server has its own key.
const signingKeyID = "fakeoauth-rs256"

// googleDiscovery is the OpenID Connect discovery document of the issuer.
func (s *Server) googleDiscovery(w http.ResponseWriter, r *http.Request) {
	iss := s.GoogleIssuer()
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                iss,
		"authorization_endpoint":                iss + "/authorize",
		"token_endpoint":                        iss + "/token",
		"jwks_uri":                              iss + "/jwks",
		"userinfo_endpoint":                     iss + "/userinfo",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "client_secret_basic"},
		"code_challenge_methods_supported":      []string{"S256"},
		"claims_supported":                      []string{"aud", "email", "email_verified", "exp", "iat", "iss", "name", "sub"},
	})
}

// googleJWKS publishes the public half of the id_token signing key.
func (s *Server) googleJWKS(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
		Key:       &s.key.PublicKey,
		KeyID:     signingKeyID,
		Algorithm: string(jose.RS256),
		Use:       "sig",
	}}})
}

// idToken is the RS256-signed id_token for g, valid for an hour, addressed to
// ClientID and carrying the authorization's nonce when it had one.
func (s *Server) idToken(g *grant) (string, error) {
	now := time.Now()
	claims := map[string]any{
		"iss":            s.GoogleIssuer(),
		"aud":            ClientID,
		"azp":            ClientID,
		"sub":            g.user.Subject,
		"email":          g.user.Email,
		"email_verified": g.user.Verified,
		"name":           g.user.Name,
		"iat":            now.Unix(),
		"exp":            now.Add(time.Hour).Unix(),
	}
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: s.key, KeyID: signingKeyID}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// googleUserInfo is the OpenID Connect userinfo endpoint, for tokens the fake issued.
func (s *Server) googleUserInfo(w http.ResponseWriter, r *http.Request) {
	t, ok := s.bearer(r, google)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"sub":            t.user.Subject,
		"email":          t.user.Email,
		"email_verified": t.user.Verified,
		"name":           t.user.Name,
	})
}
