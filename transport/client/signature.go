package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// How Folio signs a callback (actors/model/webhook/sign.go, the headers in
// actors/callback/headers.go), for a page published with on_action.hmac_secret:
//
//	X-Service-Signature: sha256=<hex HMAC-SHA256(secret, body)>
//	X-Service-Timestamp: unix seconds of the attempt (not covered by that signature)
//	webhook-id:          the event id, the same on every attempt
//	webhook-timestamp:   unix seconds of the attempt
//	webhook-signature:   v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>
//
// where key is the secret's bytes or, for a secret written whsec_<base64>, the
// decoded bytes (Standard Webhooks).

// DefaultTolerance is how far a callback's timestamp may be from now for
// ParseCallback (Standard Webhooks' usual five minutes). Every attempt of a
// delivery is signed at its own time, so retries hours later still pass.
const DefaultTolerance = 5 * time.Minute

// Verification failures; VerifySignature's errors wrap one of them.
var (
	ErrUnsigned  = errors.New("client: the callback carries no signature")
	ErrSignature = errors.New("client: the callback's signature does not match")
	ErrTimestamp = errors.New("client: the callback's timestamp is outside the tolerance")
)

// VerifySignature checks that body and header are a callback signed with secret:
// the Standard Webhooks headers when present (they sign the event id and the
// timestamp too), otherwise X-Service-Signature. secret is the page's hmac_secret
// as given, or its Standard Webhooks form "whsec_" + base64(hmac_secret). With a
// tolerance above zero the attempt's timestamp must be that close to now: a genuine
// but stale delivery is ErrTimestamp, anything else that fails ErrSignature. A
// timestamp is no guard against a replay within the tolerance: receivers
// de-duplicate by event id.
func VerifySignature(body []byte, header http.Header, secret string, tolerance time.Duration) error {
	if secret == "" {
		return fmt.Errorf("%w: no secret to verify with", ErrSignature)
	}
	now := time.Now()
	if sigs := header.Get("webhook-signature"); sigs != "" {
		id, ts := header.Get("webhook-id"), header.Get("webhook-timestamp")
		if id == "" || ts == "" {
			return fmt.Errorf("%w: webhook-signature without webhook-id and webhook-timestamp", ErrSignature)
		}
		want := base64.StdEncoding.EncodeToString(mac(standardKey(secret), []byte(id+"."+ts+"."), body))
		if !anyStandard(sigs, want) {
			return fmt.Errorf("%w (webhook-signature)", ErrSignature)
		}
		return fresh(ts, tolerance, now)
	}
	if sig := header.Get("X-Service-Signature"); sig != "" {
		got, err := hex.DecodeString(strings.TrimPrefix(sig, "sha256="))
		if err != nil || !strings.HasPrefix(sig, "sha256=") {
			return fmt.Errorf("%w: X-Service-Signature is not sha256=<hex>", ErrSignature)
		}
		if !hmac.Equal(got, mac([]byte(secret), body)) && !hmac.Equal(got, mac(standardKey(secret), body)) {
			return fmt.Errorf("%w (X-Service-Signature)", ErrSignature)
		}
		return fresh(header.Get("X-Service-Timestamp"), tolerance, now)
	}
	return ErrUnsigned
}

// mac is HMAC-SHA256(key, parts…).
func mac(key []byte, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// standardKey is the Standard Webhooks key of a secret: the decoded bytes of
// whsec_<base64>, else the secret's own bytes (as the server derives it).
func standardKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if k, err := base64.StdEncoding.DecodeString(rest); err == nil {
			return k
		}
	}
	return []byte(secret)
}

// anyStandard reports whether one of the space-separated "v1,<base64>" signatures
// is want.
func anyStandard(sigs, want string) bool {
	ok := false
	for _, s := range strings.Fields(sigs) {
		if v, sig, found := strings.Cut(s, ","); found && v == "v1" && hmac.Equal([]byte(sig), []byte(want)) {
			ok = true
		}
	}
	return ok
}

// fresh checks a unix-seconds timestamp against the tolerance (none when <= 0).
func fresh(ts string, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		return nil
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q is not unix seconds", ErrTimestamp, ts)
	}
	if d := now.Sub(time.Unix(sec, 0)).Abs(); d > tolerance {
		return fmt.Errorf("%w: %s from now, tolerance %s", ErrTimestamp, d.Round(time.Second), tolerance)
	}
	return nil
}
