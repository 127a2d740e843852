package httpapi

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/tenant"
	"folio/transport/credential"
	"folio/transport/status"
)

// claim is POST /v1/auth/claim {claimCode, claimToken}: a signed-in person claims
// an agent's account with the code the agent received at registration and the
// claim token of its claimUrl (the part after #). The code alone claims nothing.
func (si *signinArea) claim(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	c, err := si.personOf(r)
	if err != nil {
		return err
	}
	var req struct {
		ClaimCode  string `json:"claimCode"`
		ClaimToken string `json:"claimToken"`
	}
	if err := si.decode(w, r, &req, false); err != nil {
		return err
	}
	t, err := si.claimTenant(w, r, c, ClaimProof{Code: req.ClaimCode, Token: req.ClaimToken})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, claimed{TenantID: t.ID, Claimed: true})
	return nil
}

// claimByKey is POST /v1/auth/claim/key {key}: a signed-in person claims the
// account of an agent whose API key they hold. The key's prefix alone (what the
// dashboard lists) proves nothing, so the whole key is the proof; it is checked
// like any key and never stored or echoed.
func (si *signinArea) claimByKey(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	c, err := si.personOf(r)
	if err != nil {
		return err
	}
	var req struct {
		Key string `json:"key"`
	}
	if err := si.decode(w, r, &req, false); err != nil {
		return err
	}
	t, err := si.claimTenant(w, r, c, ClaimProof{Key: req.Key})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, claimed{TenantID: t.ID, Claimed: true})
	return nil
}

// claimed is an agent's account now a workspace of the person who claimed it
// (POST /v1/auth/claim and /v1/auth/claim/key); Claimed is always true.
type claimed struct {
	TenantID string `json:"tenantId"`
	Claimed  bool   `json:"claimed"`
}

// ClaimProof is what a claimer shows (tenant.ClaimProof).
type ClaimProof = tenant.ClaimProof

// claimTenant is a claim for c's person, by the rule (signin.Rules.Claim); its
// rate headers go on w whether or not it succeeds.
func (si *signinArea) claimTenant(w http.ResponseWriter, r *http.Request, c Credential, p ClaimProof) (tenant.Tenant, error) {
	t, rate, err := si.d.Rules.Claim(r.Context(), si.ClientAddress(r), tenant.Member{UserID: c.Session.UserID, Email: c.Session.Email}, p)
	status.SetRate(w.Header(), rate, err)
	return t, err
}

// personOf is the signed-in person a sign-in route needs: a session (a write by
// cookie with its CSRF token); an API key is 403, nothing is 401.
func (si *signinArea) personOf(r *http.Request) (Credential, error) {
	c, err := si.CredentialOf(nil, r)
	if err != nil {
		return Credential{}, err
	}
	switch {
	case c.Key != nil:
		return Credential{}, fault.New(fault.Forbidden, "this needs a signed-in person (a session), not an API key", nil)
	case c.Session == nil:
		return Credential{}, fault.New(fault.Unauthorized, "sign in first: send a session token (Authorization: Bearer sess_…) or the session cookie", nil)
	}
	if err := credential.CheckCSRF(r, c, r.Header.Get(CSRFHeader)); err != nil {
		return Credential{}, err
	}
	return c, nil
}

// queueClaimMail sends the owner an agent named at registration its claim mail,
// and tells whether it will (the limits: signin.Rules.ClaimMail).
func (s *Server) queueClaimMail(r *http.Request, reg *tenant.Registered, claimURL string) bool {
	if s.signin == nil {
		return false
	}
	return s.signin.d.Rules.ClaimMail(s.ClientAddress(r), reg.Tenant, claimURL)
}
