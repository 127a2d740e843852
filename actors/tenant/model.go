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
	bucketClaimCodes = "claim_codes" // code -> tenantId (keeps codes unique; never a way in)
	// bucketClaimTokens finds an unclaimed tenant by its claim token: sha256(token)
	// -> tenantId. The token itself is never stored.
	bucketClaimTokens = "claim_tokens"
	bucketKeys        = "keys"        // lookup id (first 20 chars of the key) -> Key
	bucketTenantKeys  = "tenant_keys" // tenantId 0x00 keyId -> lookup id
	bucketLastUsed    = "key_last_used"
	// BucketUsage is written by the Usage outlet in the commit that creates a page.
	BucketUsage = "usage" // tenantId 0x00 "YYYY-MM" -> count(8)
)

const schemaV1 = 1

// Tenant is one account.
type Tenant struct {
	V          int    `json:"v"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	Plan       string `json:"plan"`
	OwnerEmail string `json:"owner_email,omitempty"`
	ClaimCode  string `json:"claim_code"`
	// ClaimTokenHash is the sha256 of the claim token (claimtoken.go); empty for a
	// tenant made claimed, or registered before claim tokens existed.
	ClaimTokenHash []byte    `json:"claim_token_hash,omitempty"`
	Claimed        bool      `json:"claimed"`
	CreatedAt      time.Time `json:"created_at"`
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
	// StorageBytes bounds what the tenant stores: its files and its agent event
	// log (actors/page/storage.go).
	StorageBytes int64
}

// Plans by name.
var Plans = map[string]Plan{
	"free":       {"free", 60, 100, 1 << 30},
	"pro":        {"pro", 600, 10000, 50 << 30},
	"enterprise": {"enterprise", 0, 0, 0},
}

// hashKey is the at-rest form of an API key.
func hashKey(key string) []byte {
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

// isWholeKey tells whether s has the length of a whole key ("sk_live_" or
// "sk_test_" and 44 characters, newKey), not only of its listed prefix.
func isWholeKey(s string) bool { return IsAPIKey(s) && len(s) == 8+44 }

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

// monthKey is the usage bucket key of a tenant's month.
func monthKey(tenantID string, at time.Time) []byte {
	return append(append([]byte(tenantID), 0), at.UTC().Format("2006-01")...)
}
