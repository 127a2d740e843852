package slack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"folio/actors/model/fault"
)

// Slack signs every request it sends to the app (Slack's "Verifying requests from
// Slack"): X-Slack-Request-Timestamp is the Unix time it was sent, and
// X-Slack-Signature is "v0=" + hex(HMAC-SHA256(signing secret, "v0:" + timestamp +
// ":" + the raw body)).

// maxSkew is how far a request's timestamp may be from our clock: an older request
// is a replay and is refused whatever its signature.
const maxSkew = 5 * time.Minute

// Sign is the X-Slack-Signature of body sent at ts (tests sign as Slack does).
func Sign(secret string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + strconv.FormatInt(ts, 10) + ":"))
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// checkTimestamp refuses a missing, malformed, old or future timestamp. It runs
// before the body is looked at.
func checkTimestamp(header string, now time.Time) error {
	ts, err := strconv.ParseInt(header, 10, 64)
	if err != nil {
		return refused("X-Slack-Request-Timestamp is missing or not a Unix time", "timestamp")
	}
	skew := now.Sub(time.Unix(ts, 0))
	if skew > maxSkew || skew < -maxSkew {
		return refused("the request is older than 5 minutes (or from the future): a replay is refused; Slack sends a fresh request on every click", "timestamp")
	}
	return nil
}

// verify checks body's signature with secret, in constant time.
func verify(secret, tsHeader, sigHeader string, body []byte) error {
	want := Sign(secret, mustInt(tsHeader), body)
	if !hmac.Equal([]byte(want), []byte(sigHeader)) {
		return refused("X-Slack-Signature does not match: check the signing secret set with PUT /v1/integrations/slack", "signature")
	}
	return nil
}

func mustInt(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64) // checked by checkTimestamp first
	return n
}

// refused is the 401 of a request that is not proven to come from Slack.
func refused(msg, reason string) error {
	return fault.New(fault.Unauthorized, msg, map[string]any{"reason": reason})
}
