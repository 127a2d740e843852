package tenant

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"folio/actors/model/fault"
	"folio/persistence"
)

// Member is a person who belongs to a tenant: they see its dashboard and act for it.
type Member struct {
	UserID   string    `json:"user_id"`
	Email    string    `json:"email"`
	Role     string    `json:"role"` // "owner" (claimed or created it); invited people are "member"
	JoinedAt time.Time `json:"joined_at"`
}

// Buckets of memberships, written by the tenant actor in the commit that adds the
// member, and read by anyone.
const (
	bucketMembers     = "tenant_members" // tenantId 0x00 userId -> Member
	bucketUserTenants = "user_tenants"   // userId 0x00 tenantId -> joined (8)
	// userId -> the workspace last made at the person's sign-in: the row every
	// such making locks first (register), so of two at once one makes it.
	bucketSignInWorkspace = "user_signin_workspace"
)

// putMember records m as a member of tenantID in both directions.
func putMember(tx *persistence.Tx, tenantID string, m Member) error {
	if err := putJSON(tx, bucketMembers, persistence.Key([]byte(tenantID), []byte(m.UserID)), m); err != nil {
		return err
	}
	return tx.Put(bucketUserTenants, persistence.Key([]byte(m.UserID), []byte(tenantID)), persistence.U64(uint64(m.JoinedAt.UnixNano())))
}

// hasMembership tells whether a person belongs to any tenant.
func hasMembership(tx *persistence.Tx, userID string) bool {
	found := false
	tx.Scan(bucketUserTenants, append([]byte(userID), 0), false, func(_, _ []byte) bool {
		found = true
		return false
	})
	return found
}

// TenantsOf lists the tenants a person belongs to, the earliest joined first. err
// is a failed store read (persistence.ErrUnavailable), never "belongs to none".
func TenantsOf(store *persistence.Store, userID string) ([]string, error) {
	type joined struct {
		id string
		at uint64
	}
	var all []joined
	if err := store.View(func(tx *persistence.Tx) error {
		prefix := append([]byte(userID), 0)
		tx.Scan(bucketUserTenants, prefix, false, func(k, v []byte) bool {
			all = append(all, joined{string(k[len(prefix):]), persistence.ReadU64(v)})
			return true
		})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("tenant: tenants of %s: %w", userID, err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at < all[j].at || (all[i].at == all[j].at && all[i].id < all[j].id) })
	out := make([]string, len(all))
	for i, j := range all {
		out[i] = j.id
	}
	return out, nil
}

// claim answers Claim. A refusal names no tenant: a wrong code or token is the
// same 404 whichever of them is wrong, and a claimed tenant is 409 without its id.
func (a *Actor) claim(msg *Claim) any {
	var t Tenant
	err := a.deps.Store.Update(func(tx *persistence.Tx) error {
		var ok bool
		t, ok = decodeTenant(tx.Get(bucketTenants, []byte(a.id)))
		if !ok || ((msg.Code != "" || msg.Token != "") && !claimProofHolds(t, msg.Code, msg.Token)) {
			return noClaim()
		}
		if t.Claimed {
			return fault.New(fault.Conflict, "this agent's account has already been claimed: an account has one owner, so ask whoever claimed it", nil)
		}
		t.Claimed = true
		if err := putJSON(tx, bucketTenants, []byte(t.ID), t); err != nil {
			return err
		}
		m := msg.Person
		m.Role, m.JoinedAt = "owner", a.deps.Now().UTC()
		return putMember(tx, t.ID, m)
	})
	if err != nil {
		return err
	}
	return &Claimed{Tenant: t}
}

// noClaim is the one answer to a claim code and token that are not an account's,
// whichever part is wrong.
func noClaim() *fault.Error {
	return fault.New(fault.NotFound, "no agent account matches this claim code and claim link: open the claimUrl the agent gave you (it carries the claim token) and check the code", map[string]any{"field": "claimCode"})
}

// listMembers answers ListMembers.
func (a *Actor) listMembers() any {
	var out []Member
	if err := a.deps.Store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketMembers, append([]byte(a.id), 0), false, func(_, v []byte) bool {
			var m Member
			if json.Unmarshal(v, &m) == nil {
				out = append(out, m)
			}
			return true
		})
		return nil
	}); err != nil {
		return fmt.Errorf("tenant: members of %s: %w", a.id, err) // not "no members"
	}
	sort.Slice(out, func(i, j int) bool { return out[i].JoinedAt.Before(out[j].JoinedAt) })
	return out
}
