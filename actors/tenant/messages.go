package tenant

import (
	"time"

	"folio/actors/page"
)

// Register creates the tenant (the actor's id) with its first live key. The actor
// checks the name and the owner e-mail (checkRegister) before anything is written.
type Register struct {
	Name       string
	OwnerEmail string
	Plan       string
	// Owner, when set, is the person the tenant is created for (a first sign-in):
	// the tenant starts claimed, with them as its first member.
	Owner *Member
}

// Registered answers Register. ClaimToken is the tenant's claim token, returned
// only here (it is stored as a hash): it goes into the claimUrl and the claim mail.
type Registered struct {
	Tenant     Tenant
	APIKey     string
	ClaimToken string
}

// CreateKey adds a key to the tenant.
type CreateKey struct {
	Name string
	Test bool
}

// CreatedKey answers CreateKey; Secret is the full key, shown only here.
type CreatedKey struct {
	Key    Key
	Secret string
}

// ListKeys asks for the tenant's keys.
type ListKeys struct{}

// KeyView is a key as listed.
type KeyView struct {
	Key
	LastUsedAt time.Time
}

// DeleteKey removes a key; the reply is nil or a *fault.Error.
type DeleteKey struct{ KeyID string }

// Get asks for the tenant and its usage this month.
type Get struct{}

// View answers Get.
type View struct {
	Tenant         Tenant
	PagesThisMonth int
	Stored         page.StoredBytes // files and agent event log, against the plan's storage quota
}

// KeyDeleted answers DeleteKey.
type KeyDeleted struct{}

// Claim makes a signed-in person a member of an unclaimed tenant. Code and Token
// are the claim code they confirmed and the claim token of the claim link: when
// either is given, both must be the tenant's (else 404, naming nothing), so a
// guessed code never claims. Both empty is a claim proven another way (the whole
// API key, or the claim link mailed to the owner). A tenant is claimed once: a
// second claim is 409, which names no tenant.
type Claim struct {
	Code   string
	Token  string
	Person Member
}

// Claimed answers Claim.
type Claimed struct{ Tenant Tenant }

// ListMembers asks for the tenant's members, earliest first.
type ListMembers struct{}
