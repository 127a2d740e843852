package tenant

import (
	"context"
	"strings"

	"folio/actors/model/fault"
	"folio/actors/registry"
	"folio/persistence"
)

// ClaimProof is what a claimer shows: the claim code and the claim token of the
// claim link together, or the agent's whole API key.
type ClaimProof struct {
	Code, Token, Key string
}

// Checked is p trimmed (a whole claimUrl pasted as the token leaves the part after
// #) or the refusal naming the field at fault: a key is whole, a code comes with
// its token, and neither is longer than any real one.
func (p ClaimProof) Checked() (ClaimProof, error) {
	p.Code, p.Token, p.Key = strings.TrimSpace(p.Code), strings.TrimSpace(p.Token), strings.TrimSpace(p.Key)
	if i := strings.LastIndexByte(p.Token, '#'); i >= 0 { // the whole claimUrl pasted
		p.Token = p.Token[i+1:]
	}
	switch {
	case p.Key != "" && !isWholeKey(p.Key):
		return p, fault.Field("key", "whole_key",
			"paste the agent's whole API key (sk_live_ and 44 more characters): the prefix the dashboard lists proves nothing")
	case p.Key != "":
	case p.Code == "":
		return p, fault.Field("claimCode", "required", "claimCode is required")
	case len(p.Code) > 64:
		return p, fault.Field("claimCode", "max_length", "claimCode has at most 64 characters")
	case p.Token == "":
		return p, fault.Field("claimToken", "required",
			"claimToken is required with the claim code: it is the part of the agent's claimUrl after #, and the claim page at that address sends it for you")
	case len(p.Token) > 128:
		return p, fault.Field("claimToken", "max_length", "claimToken has at most 128 characters")
	}
	return p, nil
}

// Kind is what the proof is, as the failure budget counts it: "key" or "code".
func (p ClaimProof) Kind() string {
	if p.Key != "" {
		return "key"
	}
	return "code"
}

// ClaimBy makes person the owner of the unclaimed tenant that the checked proof p
// names: one of its whole API keys, or its claim token with its claim code. A
// proof that names no tenant (or a code that is not the token's tenant's) is 404
// and identifies no workspace; a tenant already claimed is 409; a store that did
// not answer is that error, never "no such claim".
func ClaimBy(ctx context.Context, store *persistence.Store, keys *Keyring, tenants *registry.Registry, person Member, p ClaimProof) (Tenant, error) {
	msg := &Claim{Person: person}
	var tenantID string
	if p.Key != "" {
		who, ok, err := keys.Authenticate(p.Key)
		if err != nil {
			return Tenant{}, err
		}
		if !ok {
			return Tenant{}, fault.New(fault.NotFound, "no agent account has this key: check that you pasted the whole key", map[string]any{"field": "key"})
		}
		tenantID = who.TenantID
	} else {
		id, ok, err := tenantOfClaimToken(store, p.Token)
		if err != nil {
			return Tenant{}, err
		}
		if !ok {
			return Tenant{}, noClaim()
		}
		tenantID, msg.Code, msg.Token = id, p.Code, p.Token
	}
	res, err := registry.Call[*Claimed](ctx, tenants, tenantID, msg)
	if err != nil {
		return Tenant{}, err
	}
	return res.Tenant, nil
}
