package tenant

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strings"

	"folio/actors/model/ids"
	"folio/persistence"
)

// A claim token is the secret that claiming by code needs: "ct_" and 43 random
// characters of [0-9A-Za-z] (about 256 bits), minted at registration, handed out
// once (in the claimUrl and the claim mail) and stored only as its sha256. The
// short claim code (<PREFIX>-XXXX, about 20 bits) is for a person to read and
// confirm; it is never looked up on its own.
const claimTokenPrefix = "ct_"

func newClaimToken() string { return claimTokenPrefix + ids.Random(43) }

func claimTokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// isClaimToken tells whether s has the shape of a claim token.
func isClaimToken(s string) bool {
	return len(s) == len(claimTokenPrefix)+43 && strings.HasPrefix(s, claimTokenPrefix)
}

// tenantOfClaimToken finds the tenant whose claim token is token: ok false when
// none has it, err when the store did not answer (never "no such token").
func tenantOfClaimToken(store *persistence.Store, token string) (string, bool, error) {
	if !isClaimToken(token) {
		return "", false, nil
	}
	var id []byte
	if err := store.View(func(tx *persistence.Tx) error {
		id = tx.Get(bucketClaimTokens, claimTokenHash(token))
		return nil
	}); err != nil {
		return "", false, fmt.Errorf("tenant: claim token: %w", err)
	}
	return string(id), id != nil, nil
}

// claimProofHolds tells whether code and token are t's, comparing in constant time
// (the code case-insensitively). A tenant without a claim token holds no proof.
func claimProofHolds(t Tenant, code, token string) bool {
	if len(t.ClaimTokenHash) == 0 || !isClaimToken(token) {
		return false
	}
	codeOK := subtle.ConstantTimeCompare([]byte(strings.ToUpper(strings.TrimSpace(code))), []byte(t.ClaimCode)) == 1
	tokenOK := subtle.ConstantTimeCompare(claimTokenHash(token), t.ClaimTokenHash) == 1
	return codeOK && tokenOK
}
