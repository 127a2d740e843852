package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
)

// Signing. Every attempt of a delivery sends the same body bytes, so
// X-Service-Signature is the same on every attempt:
//
//	X-Service-Signature: sha256=<hex HMAC-SHA256(hmac_secret, body)>
//
// and, so that existing Standard Webhooks verifiers work unchanged,
//
//	webhook-id:        the event id (the same on every attempt)
//	webhook-timestamp: unix seconds of this attempt
//	webhook-signature: v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>
//
// where key is the bytes of hmac_secret, or, for a secret written in the Standard
// Webhooks form whsec_<base64>, the decoded bytes. A receiver using a Standard
// Webhooks library therefore passes "whsec_" + base64(hmac_secret) as its secret.
// X-Service-Event-Id and X-Service-Timestamp repeat webhook-id and webhook-timestamp.

// Signature is the X-Service-Signature value for body.
func Signature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// standardKey is the Standard Webhooks signing key of a secret.
func standardKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if k, err := base64.StdEncoding.DecodeString(rest); err == nil {
			return k
		}
	}
	return []byte(secret)
}

// StandardSignature is the webhook-signature value for one attempt.
func StandardSignature(secret, id string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, standardKey(secret))
	m.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}
