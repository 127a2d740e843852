// Package maillink keeps the one-time decision links that notification and
// reminder mails carry (one per action for each recipient). A link is bound to
// the recipient's address, the page, the content version the mail showed and the
// action; it works once and until the page's expiry or deadline, whichever comes
// first. Only the SHA-256 of its token is stored: the token exists in the mail
// alone (the delivery row keeps placeholders, minted into tokens at each send).
package maillink

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"time"

	"folio/persistence"
)

// Prefix starts every decision-link token.
const Prefix = "fdl_"

const bucket = "decision_links" // sha256(token) -> Link

// Errors of Peek and Use: a token that matches no link, a link already used, and
// one past its expiry.
var (
	ErrUnknown = errors.New("maillink: unknown link")
	ErrUsed    = errors.New("maillink: link already used")
	ErrExpired = errors.New("maillink: link expired")
)

// Link is one stored decision link.
type Link struct {
	Hash        []byte     `json:"hash"` // sha256 of the token (also the key)
	PageID      string     `json:"page_id"`
	TenantID    string     `json:"tenant_id"`
	Email       string     `json:"email"` // the recipient, lower-case
	ActionID    string     `json:"action_id"`
	PageVersion int        `json:"page_version"`
	DeliveryID  string     `json:"delivery_id"`
	CreatedAt   time.Time  `json:"created_at"`
	ExpiresAt   time.Time  `json:"expires_at"`
	UsedAt      *time.Time `json:"used_at,omitempty"`
}

func hashOf(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// Valid reports whether s has the shape of a token (cheap, before any lookup).
func Valid(s string) bool {
	if len(s) != len(Prefix)+26 || s[:len(Prefix)] != Prefix {
		return false
	}
	for _, c := range s[len(Prefix):] {
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// Mint stores l under a new token (130 random bits) and returns the token.
func Mint(tx *persistence.Tx, l Link) (string, error) {
	token := Prefix + rand.Text()
	l.Hash = hashOf(token)
	b, err := json.Marshal(l)
	if err != nil {
		return "", err
	}
	if err := tx.Put(dueBucket, forgetKey(l), []byte{1}); err != nil {
		return "", err
	}
	return token, tx.Put(bucket, l.Hash, b)
}

// lookup reads the link of token; the stored hash is compared with the token's in
// constant time.
func lookup(tx *persistence.Tx, token string) (Link, []byte, error) {
	if !Valid(token) {
		return Link{}, nil, ErrUnknown
	}
	h := hashOf(token)
	raw := tx.Get(bucket, h)
	var l Link
	if raw == nil || json.Unmarshal(raw, &l) != nil || subtle.ConstantTimeCompare(l.Hash, h) != 1 {
		return Link{}, nil, ErrUnknown
	}
	return l, h, nil
}

// Peek reads a link without spending it (what a GET of the link shows). The link
// is returned with ErrUsed and ErrExpired too, so the page can name what it was for.
func Peek(store *persistence.Store, token string, now time.Time) (Link, error) {
	var l Link
	var err error
	if verr := store.View(func(tx *persistence.Tx) error {
		l, _, err = lookup(tx, token)
		return nil
	}); verr != nil {
		return Link{}, verr
	}
	if err != nil {
		return Link{}, err
	}
	return l, state(l, now)
}

func state(l Link, now time.Time) error {
	switch {
	case l.UsedAt != nil:
		return ErrUsed
	case !now.Before(l.ExpiresAt):
		return ErrExpired
	}
	return nil
}

// Use spends a link: it is marked used in one transaction, so of any number of
// concurrent uses exactly one returns it without error. A used or expired link is
// returned with ErrUsed or ErrExpired (and left as it was).
func Use(store *persistence.Store, token string, now time.Time) (Link, error) {
	var l Link
	var lerr error
	err := store.Update(func(tx *persistence.Tx) error {
		var h []byte
		if l, h, lerr = lookup(tx, token); lerr != nil {
			return nil
		}
		if lerr = state(l, now); lerr != nil {
			return nil
		}
		at := now.UTC()
		l.UsedAt = &at
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		return tx.Put(bucket, h, b)
	})
	if err != nil {
		return Link{}, err
	}
	return l, lerr
}
