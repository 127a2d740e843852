package signin

import (
	"context"
	"errors"
	"net/url"

	"folio/actors/model/fault"
	"folio/actors/people"
	"folio/actors/registry"
	"folio/actors/tenant"
)

// Claim makes person the owner of the unclaimed agent account the proof names
// (the rule: tenant.ClaimProof.Checked, tenant.ClaimBy), for a request from
// clientAddr. A proof of the wrong shape is refused before anything is counted
// (a zero Rate). Every other attempt spends one of the client address's and the
// person's claim attempts, and every attempt that proves nothing one of the
// global failure budget (budget.go): a guessed code claims nothing, and past the
// budget nobody's guess is even tried. rate is the limit to write as headers.
func (ru *Rules) Claim(ctx context.Context, clientAddr string, person tenant.Member, p tenant.ClaimProof) (t tenant.Tenant, rate Rate, err error) {
	p, err = p.Checked()
	if err != nil {
		return tenant.Tenant{}, Rate{}, err
	}
	lim := ru.d.Limits
	if rate, err = take(ru.claims, "claims", "address", "addr:"+clientAddr, lim.ClaimsPerClient, lim.Window); err != nil {
		return tenant.Tenant{}, rate, err
	}
	if rate, err = take(ru.claims, "claims", "person", "user:"+person.UserID, lim.ClaimsPerPerson, lim.Window); err != nil {
		return tenant.Tenant{}, rate, err
	}
	if err = ru.budget.admit(); err != nil {
		return tenant.Tenant{}, rate, err
	}
	t, err = tenant.ClaimBy(ctx, ru.d.Store, ru.d.Keys, ru.d.Tenants, person, p)
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Code == fault.NotFound { // the proof named no account
		ru.budget.fail(p.Kind())
	}
	return t, rate, err
}

// ClaimByLink claims tenantID for u, who signed in with a claim link (mailed to
// the owner's address at registration, so it is proof enough and not subject to
// the budget): where to lead them, the claim page naming the workspace, or, when
// the account is no longer claimable, the claim page saying so without naming it.
// err is a failure that is not the account's answer (an actor that did not
// answer).
func (ru *Rules) ClaimByLink(ctx context.Context, u people.User, tenantID string) (to string, err error) {
	_, err = registry.Call[*tenant.Claimed](ctx, ru.d.Tenants, tenantID, &tenant.Claim{Person: tenant.Member{UserID: u.ID, Email: u.Email}})
	var fe *fault.Error
	switch {
	case err == nil:
		return "/claim?tenant=" + url.QueryEscape(tenantID), nil
	case errors.As(err, &fe):
		return "/claim?problem=claimed", nil // names no workspace
	}
	return "", err
}

// ClaimMail queues the claim mail of an agent registered from clientAddr that
// named its owner (t.OwnerEmail), and tells whether it will go. Registration is
// anonymous, so each registration that names an owner spends one of its client
// address's registration mails (RegisterMailsPerClient, whether or not the mail
// then goes), and each mail one of the recipient's registration mails
// (RegisterMailsPerRecipient) and sign-in mails (LinksPerEmail): registering
// agents cannot flood an address, nor one client mail many. Past a limit the
// registration still succeeds and its claimUrl still works, only the mail is not
// sent.
func (ru *Rules) ClaimMail(clientAddr string, t tenant.Tenant, claimURL string) bool {
	if t.OwnerEmail == "" {
		return false
	}
	lim := ru.d.Limits
	email := people.NormalEmail(t.OwnerEmail)
	switch {
	case !ru.regMails.TakeOf("from:"+clientAddr, lim.RegisterMailsPerClient, lim.RegisterMailWindow).Allowed:
		ru.d.Log.Info("claim mail not sent: the registering address had its registration mails for now", "tenant", t.ID)
		return false
	case !ru.regMails.TakeOf("to:"+email, lim.RegisterMailsPerRecipient, lim.RegisterMailWindow).Allowed,
		!ru.links.TakeOf("email:"+email, lim.LinksPerEmail, lim.Window).Allowed:
		ru.d.Log.Info("claim mail not sent: the address had its mails for now", "tenant", t.ID)
		return false
	}
	ru.enqueue(mailJob{kind: people.PurposeClaim, email: email, tenantID: t.ID, name: t.Name, code: t.ClaimCode, claimURL: claimURL})
	return true
}

// deliverClaim mails the claim link (signing in with it claims the account) and
// the claimUrl (its claim token with the code).
func (ru *Rules) deliverClaim(ctx context.Context, j mailJob) {
	token, err := ru.d.People.IssueLink(people.Link{Email: j.email, Purpose: people.PurposeClaim, TenantID: j.tenantID, Redirect: "/claim"})
	if err != nil {
		ru.d.Log.Error("claim link not stored", "err", err)
		return
	}
	ru.send(ctx, claimMail(ru.d.AppURL, j.email, j.name, j.code, j.claimURL, token, ru.d.People.Lifetimes().ClaimLink))
}
