// Package people holds the people who sign in: their accounts (found by verified
// e-mail address or by an identity provider's subject), their sessions, the
// single-use sign-in links mailed to them and the state of an OAuth sign-in in
// progress.
//
// Every secret handed out (a session token, a link token, an OAuth state) is random
// and stored only as its SHA-256 hash, so a copy of the store signs nobody in. Each
// write is one bbolt transaction, and bbolt runs one writer at a time, so "create
// the account unless it exists" and "use the link unless it was used" have exactly
// one winner without any further lock.
package people

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
	"time"

	"folio/actors/model/ids"
	"folio/persistence"
)

// Buckets owned by this package.
const (
	bucketUsers     = "users"       // userId -> User
	bucketEmails    = "user_emails" // lower-case e-mail -> userId
	bucketSubjects  = "user_idp"    // provider 0x00 subject -> userId
	bucketSessions  = "sessions"    // sha256(token) -> Session
	bucketLinks     = "sign_links"  // sha256(token) -> Link
	bucketOAuthFlow = "oauth_flows" // sha256(state) -> Flow
)

const schemaV1 = 1

// User is a person's account. Email is verified (a link reached it, or a provider
// vouched for it) and lower-case.
type User struct {
	V         int               `json:"v"`
	ID        string            `json:"id"`
	Email     string            `json:"email"`
	Name      string            `json:"name,omitempty"`
	Providers map[string]string `json:"providers,omitempty"` // provider -> subject
	CreatedAt time.Time         `json:"created_at"`
}

// Session is a signed-in browser or client. Only the hash of its token is stored;
// ID names it in logs and revocation watchers and is not a credential.
type Session struct {
	V         int       `json:"v"`
	ID        string    `json:"id"`
	UserID    string    `json:"user_id"`
	Email     string    `json:"email"`
	Method    string    `json:"method"` // how the person proved it: page.AuthMagicLink or page.AuthOAuth
	CSRF      string    `json:"csrf"`   // what a write authenticated by cookie must echo
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Purposes of a sign-in link.
const (
	PurposeSignIn = "sign_in"
	PurposeClaim  = "claim" // signs the owner in and claims TenantID in one step
)

// Link is a mailed, single-use sign-in link.
type Link struct {
	V         int       `json:"v"`
	Email     string    `json:"email"`
	PageID    string    `json:"page_id,omitempty"`
	Redirect  string    `json:"redirect"` // a same-origin path, checked when the link was made
	Purpose   string    `json:"purpose"`
	TenantID  string    `json:"tenant_id,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Flow is an OAuth sign-in between the redirect to the provider and its callback:
// the PKCE verifier and where to go afterwards. It is found by the hash of its
// state, which the browser also holds in a cookie.
type Flow struct {
	V         int       `json:"v"`
	Provider  string    `json:"provider"`
	Verifier  string    `json:"verifier"`
	Redirect  string    `json:"redirect"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Token prefixes.
const (
	SessionPrefix = "sess_"
	linkPrefix    = "ml_"
)

// IsLinkToken tells whether s looks like a sign-in link's token.
func IsLinkToken(s string) bool {
	if len(s) != len(linkPrefix)+43 || s[:len(linkPrefix)] != linkPrefix {
		return false
	}
	for _, c := range s[len(linkPrefix):] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// IsSessionToken tells whether s looks like a session token.
func IsSessionToken(s string) bool { return strings.HasPrefix(s, SessionPrefix) }

// newToken is prefix and 43 random characters (≈256 bits).
func newToken(prefix string) string { return prefix + ids.Random(43) }

// hashOf is the at-rest form of a token.
func hashOf(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// NormalEmail is the form an e-mail address is kept and compared in.
func NormalEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func putJSON(tx *persistence.Tx, bucket string, key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Put(bucket, key, b)
}

func getJSON[T any](tx *persistence.Tx, bucket string, key []byte) (T, bool) {
	return decode[T](tx.Get(bucket, key))
}

func decode[T any](b []byte) (T, bool) {
	var v T
	if b == nil || json.Unmarshal(b, &v) != nil {
		return v, false
	}
	return v, true
}
