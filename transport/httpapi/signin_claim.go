package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/people"
	"folio/actors/tenant"
	"folio/transport/credential"
)

// claim is POST /v1/auth/claim {claimCode, claimToken}: a signed-in person claims
// an agent's account with the code the agent received at registration and the
// claim token of its claimUrl (the part after #). The code alone claims nothing.
func (si *signin) claim(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
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
	t, err := si.ClaimTenant(w, r, c, ClaimProof{Code: req.ClaimCode, Token: req.ClaimToken})
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
	t, err := si.ClaimTenant(w, r, c, ClaimProof{Key: req.Key})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenantId": t.ID, "claimed": true})
	return nil
}

// ClaimProof is what a claimer shows (tenant.ClaimProof).
type ClaimProof = tenant.ClaimProof

// ClaimTenant makes the signed-in person of c the owner of an unclaimed tenant
// (the rule: tenant.ClaimProof.Checked, tenant.ClaimBy). Every attempt spends one
// of the client address's and the person's claim attempts, and every attempt that
// proves nothing one of the global failure budget (claim_budget.go): those
// throttles, and their rate headers on w, are this transport's.
func (s *Server) ClaimTenant(w http.ResponseWriter, r *http.Request, c Credential, p ClaimProof) (tenant.Tenant, error) {
	si := s.signin
	p, err := p.Checked()
	if err != nil {
		return tenant.Tenant{}, err
	}
	if err := admit(w, "claims", "address", si.claims.TakeOf("addr:"+si.ClientAddress(r), si.d.ClaimsPerClient, si.d.Window)); err != nil {
		return tenant.Tenant{}, err
	}
	if err := admit(w, "claims", "person", si.claims.TakeOf("user:"+c.Session.UserID, si.d.ClaimsPerPerson, si.d.Window)); err != nil {
		return tenant.Tenant{}, err
	}
	if err := si.budget.admit(w); err != nil {
		return tenant.Tenant{}, err
	}
	t, err := tenant.ClaimBy(r.Context(), si.store, si.keys, si.tenants, tenant.Member{UserID: c.Session.UserID, Email: c.Session.Email}, p)
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Code == fault.NotFound { // the proof named no account
		si.budget.fail(p.Kind())
	}
	return t, err
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
	if err := credential.CheckCSRF(r, c, r.Header.Get(CSRFHeader)); err != nil {
		return Credential{}, err
	}
	return c, nil
}

// queueClaimMail sends the owner an agent named at registration its claim mail,
// and tells whether it will. Registration is anonymous, so each registration that
// names an owner spends one of its client address's registration mails
// (RegisterMailsPerClient, whether or not the mail then goes), and each mail one
// of the recipient's registration mails (RegisterMailsPerRecipient) and sign-in
// mails (LinksPerEmail): registering agents cannot flood an address, nor one
// client mail many. Past a limit the registration still succeeds and its claimUrl still
// works, only the mail is not sent.
func (s *Server) queueClaimMail(r *http.Request, reg *tenant.Registered, claimURL string) bool {
	t := reg.Tenant
	if s.signin == nil || t.OwnerEmail == "" {
		return false
	}
	si := s.signin
	email := people.NormalEmail(t.OwnerEmail)
	switch {
	case !si.regMails.TakeOf("from:"+s.ClientAddress(r), si.d.RegisterMailsPerClient, si.d.RegisterMailWindow).Allowed:
		s.log.Info("claim mail not sent: the registering address had its registration mails for now", "tenant", t.ID)
		return false
	case !si.regMails.TakeOf("to:"+email, si.d.RegisterMailsPerRecipient, si.d.RegisterMailWindow).Allowed,
		!si.links.TakeOf("email:"+email, si.d.LinksPerEmail, si.d.Window).Allowed:
		s.log.Info("claim mail not sent: the address had its mails for now", "tenant", t.ID)
		return false
	}
	si.enqueue(mailJob{kind: people.PurposeClaim, email: email, tenantID: t.ID, name: t.Name, code: t.ClaimCode, claimURL: claimURL})
	return true
}

// deliverClaim mails the claim link (signing in with it claims the account) and
// the claimUrl (its claim token with the code).
func (si *signin) deliverClaim(ctx context.Context, j mailJob) {
	token, err := si.people.IssueLink(people.Link{Email: j.email, Purpose: people.PurposeClaim, TenantID: j.tenantID, Redirect: "/claim"})
	if err != nil {
		si.log.Error("claim link not stored", "err", err)
		return
	}
	si.send(ctx, claimMail(si.urls.App, j.email, j.name, j.code, j.claimURL, token, si.people.Lifetimes().ClaimLink))
}
