package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// claim is POST /v1/auth/claim {claimCode}: a signed-in person claims an agent's
// account with the code the agent received at registration.
func (si *signin) claim(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	c, err := si.personOf(r)
	if err != nil {
		return err
	}
	var req struct {
		ClaimCode string `json:"claimCode"`
	}
	if err := si.decode(w, r, &req, false); err != nil {
		return err
	}
	t, err := si.ClaimTenant(w, r, c, req.ClaimCode, "")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenantId": t.ID, "claimed": true})
	return nil
}

// claimByKey is POST /v1/auth/claim/key {key}: a signed-in person claims the
// account of an agent whose API key they hold. The key's prefix alone (what the
// dashboard lists) proves nothing, so the whole key is the proof; it is checked
// like any key and never stored or echoed.
func (si *signin) claimByKey(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
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
	t, err := si.ClaimTenant(w, r, c, "", req.Key)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenantId": t.ID, "claimed": true})
	return nil
}

// ClaimTenant makes the signed-in person of c the owner of an unclaimed tenant,
// proven by its claim code or by one of its API keys (exactly one of them). Every
// attempt spends one of the client address's claim attempts, so codes cannot be
// guessed: a wrong code or key is 404 and says nothing more; a tenant already
// claimed is 409.
func (s *Server) ClaimTenant(w http.ResponseWriter, r *http.Request, c Credential, code, key string) (tenant.Tenant, error) {
	si := s.signin
	code, key = strings.TrimSpace(code), strings.TrimSpace(key)
	switch {
	case code == "" && key == "":
		return tenant.Tenant{}, fault.Field("claimCode", "required", "claimCode is required")
	case len(code) > 64:
		return tenant.Tenant{}, fault.Field("claimCode", "max_length", "claimCode has at most 64 characters")
	}
	if err := admit(w, "claims", "address", si.claims.TakeOf("addr:"+si.ClientAddress(r), si.d.ClaimsPerClient, si.d.Window)); err != nil {
		return tenant.Tenant{}, err
	}
	if err := admit(w, "claims", "person", si.claims.TakeOf("user:"+c.Session.UserID, si.d.ClaimsPerPerson, si.d.Window)); err != nil {
		return tenant.Tenant{}, err
	}
	var tenantID string
	if key != "" {
		who, ok := si.keys.Authenticate(key)
		if !ok {
			return tenant.Tenant{}, fault.New(fault.NotFound, "no agent account has this key", map[string]any{"field": "key"})
		}
		tenantID = who.TenantID
	} else {
		id, ok := tenant.TenantOfCode(si.store, strings.ToUpper(code))
		if !ok {
			return tenant.Tenant{}, fault.New(fault.NotFound, "no agent account has this claim code", map[string]any{"field": "claimCode"})
		}
		tenantID, code = id, strings.ToUpper(code)
	}
	res, err := registry.Call[*tenant.Claimed](r.Context(), si.tenants, tenantID,
		&tenant.Claim{Code: code, Person: tenant.Member{UserID: c.Session.UserID, Email: c.Session.Email}})
	if err != nil {
		return tenant.Tenant{}, err
	}
	return res.Tenant, nil
}

// personOf is the signed-in person a sign-in route needs: a session (a write by
// cookie with its CSRF token); an API key is 403, nothing is 401.
func (si *signin) personOf(r *http.Request) (Credential, error) {
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
	if err := checkCSRF(r, c, r.Header.Get(CSRFHeader)); err != nil {
		return Credential{}, err
	}
	return c, nil
}

// queueClaimMail sends the owner an agent named at registration its claim link.
// It spends one of the address's sign-in mails (LinksPerEmail), so registering
// agents cannot flood an address; past the limit the registration still succeeds
// and its claim code still works, only the mail is not sent.
func (s *Server) queueClaimMail(t tenant.Tenant) {
	if s.signin == nil || t.OwnerEmail == "" {
		return
	}
	email := people.NormalEmail(t.OwnerEmail)
	if !s.signin.links.TakeOf("email:"+email, s.signin.d.LinksPerEmail, s.signin.d.Window).Allowed {
		s.log.Info("claim mail not sent: the address had its sign-in mails for now", "tenant", t.ID)
		return
	}
	s.signin.enqueue(mailJob{kind: people.PurposeClaim, email: people.NormalEmail(t.OwnerEmail), tenantID: t.ID, name: t.Name, code: t.ClaimCode})
}

// deliverClaim mails the claim link: signing in with it claims the account.
func (si *signin) deliverClaim(ctx context.Context, j mailJob) {
	token, err := si.people.IssueLink(people.Link{Email: j.email, Purpose: people.PurposeClaim, TenantID: j.tenantID, Redirect: "/claim"})
	if err != nil {
		si.log.Error("claim link not stored", "err", err)
		return
	}
	si.send(ctx, claimMail(si.urls.Base, j.email, j.name, j.code, token, si.people.Lifetimes().ClaimLink))
}
