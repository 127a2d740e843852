// Package tenant holds tenants and their API keys: the TenantActor serialises every
// change to one tenant (registration, keys), and the Keyring authenticates bearer
// keys from a cache that the actor invalidates before it acknowledges a deletion.
package tenant

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
	"time"
)

// Buckets owned by this package.
const (
	bucketTenants    = "tenants"     // tenantId -> Tenant
	bucketClaimCodes = "claim_codes" // code -> tenantId
	bucketKeys       = "keys"        // lookup id (first 20 chars of the key) -> Key
	bucketTenantKeys = "tenant_keys" // tenantId 0x00 keyId -> lookup id
	bucketLastUsed   = "key_last_used"
	// BucketUsage is written by the Usage outlet in the commit that creates a page.
	BucketUsage = "usage" // tenantId 0x00 "YYYY-MM" -> count(8)
)

const schemaV1 = 1

// Tenant is one account.
type Tenant struct {
	V          int       `json:"v"`
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Plan       string    `json:"plan"`
	OwnerEmail string    `json:"owner_email,omitempty"`
	ClaimCode  string    `json:"claim_code"`
	Claimed    bool      `json:"claimed"`
	CreatedAt  time.Time `json:"created_at"`
	// Limits an operator set for this tenant (folio admin set-plan); nil means the
	// plan's own. 0 means unlimited.
	RequestsPerMinute *int `json:"requests_per_minute,omitempty"`
	PagesPerMonth     *int `json:"pages_per_month,omitempty"`
}

// Key is a stored API key: only its hash identifies it.
type Key struct {
	V         int       `json:"v"`
	ID        string    `json:"id"`
	TenantID  string    `json:"tenant_id"`
	Name      string    `json:"name"`
	Prefix    string    `json:"prefix"`
	Lookup    string    `json:"lookup"` // first lookupLen characters: finds the record, not secret
	Hash      []byte    `json:"hash"`   // sha256 of the whole key; the key itself is never stored
	Test      bool      `json:"test"`
	CreatedAt time.Time `json:"created_at"`
}

// Principal is who an authenticated request speaks for.
type Principal struct {
	TenantID  string
	KeyID     string
	KeyName   string
	KeyPrefix string // what the dashboard lists of the key; not a secret
	Test      bool
}

// Agent is the audit and created_by form of the principal.
func (p Principal) Agent() string { return "agent:" + p.KeyName }

// Plan limits; 0 means unlimited.
type Plan struct {
	Name              string
	RequestsPerMinute int
	PagesPerMonth     int
}

// Plans by name.
var Plans = map[string]Plan{
	"free":       {"free", 60, 100},
	"pro":        {"pro", 600, 10000},
	"enterprise": {"enterprise", 0, 0},
}

// HashKey is the at-rest form of an API key.
func HashKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// lookupLen is how much of a key finds its record: "sk_live_" and 12 random
// characters. It is not secret; the remaining 32 characters are, and they are only
// ever compared as a hash, in constant time.
const lookupLen = 8 + 12

// lookupID is the non-secret part of a key that finds its record.
func lookupID(key string) []byte {
	if len(key) < lookupLen {
		return nil
	}
	return []byte(key[:lookupLen])
}

// IsAPIKey tells whether s looks like one of our keys.
func IsAPIKey(s string) bool {
	return strings.HasPrefix(s, "sk_live_") || strings.HasPrefix(s, "sk_test_")
}

func decodeTenant(b []byte) (Tenant, bool) {
	var t Tenant
	if b == nil || json.Unmarshal(b, &t) != nil {
		return t, false
	}
	return t, true
}

func decodeKey(b []byte) (Key, bool) {
	var k Key
	if b == nil || json.Unmarshal(b, &k) != nil {
		return k, false
	}
	return k, true
}

// MonthKey is the usage bucket key of a tenant's month.
func MonthKey(tenantID string, at time.Time) []byte {
	return append(append([]byte(tenantID), 0), at.UTC().Format("2006-01")...)
}
