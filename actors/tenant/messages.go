package tenant

import "time"

// Register creates the tenant (the actor's id) with its first live key. The actor
// checks the name and the owner e-mail (checkRegister) before anything is written.
type Register struct {
	Name       string
	OwnerEmail string
	Plan       string
}

// Registered answers Register.
type Registered struct {
	Tenant Tenant
	APIKey string
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
}

// KeyDeleted answers DeleteKey.
type KeyDeleted struct{}
