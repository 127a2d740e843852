package callback_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"folio/actors/model/webhook"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// verifyServiceSignature checks X-Service-Signature: "sha256=" + hex HMAC-SHA256 of
// the exact body bytes, keyed with the page's on_action.hmac_secret.
func verifyServiceSignature(secret string, body []byte, header string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(want), []byte(header))
}

// verifyStandardWebhook checks the Standard Webhooks headers: webhook-signature holds
// "v1,<base64 HMAC-SHA256 of id.timestamp.body>" (space-separated when several);
// the key is the secret's bytes (for a whsec_<base64> secret, the decoded bytes), and
// the timestamp must be recent so a captured request cannot be replayed later.
func verifyStandardWebhook(secret string, h http.Header, body []byte, now time.Time) bool {
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	key := []byte(secret)
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if key, err = base64.StdEncoding.DecodeString(rest); err != nil {
			return false
		}
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// Example_verifyCallback is a receiver that verifies both signatures of a Folio
// callback. A receiver using a Standard Webhooks library instead passes it the
// secret "whsec_" + base64(hmac_secret).
func Example_verifyCallback() {
	const secret = "my-hmac-secret" // on_action.hmac_secret of the page
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if !verifyServiceSignature(secret, body, r.Header.Get("X-Service-Signature")) ||
			!verifyStandardWebhook(secret, r.Header, body, time.Now()) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		// Acting on an event more than once is harmless when receivers de-duplicate by
		// event id: every retry of one event carries the same X-Service-Event-Id.
		fmt.Println("verified", r.Header.Get("X-Service-Event-Id"))
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	// What Folio sends (see sign.go): the same body bytes on every attempt.
	body := []byte(`{"event":"action.executed","event_id":"evt_123","page_id":"pg_1","timestamp":"2026-01-01T00:00:00Z","data":{"action_id":"approve","action_label":"Approve","comment":null,"form_data":null},"actor":{"auth_method":"api_key","identity":"alice@example.com"},"page_state":{"current":"completed","previous":"active"}}`)
	ts := time.Now().Unix()
	req, _ := http.NewRequest("POST", receiver.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Event-Id", "evt_123")
	req.Header.Set("X-Service-Signature", webhook.Signature(secret, body))
	req.Header.Set("webhook-id", "evt_123")
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", webhook.StandardSignature(secret, "evt_123", ts, body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	res.Body.Close()
	fmt.Println(res.StatusCode)

	// A tampered body fails.
	req, _ = http.NewRequest("POST", receiver.URL, bytes.NewReader(bytes.Replace(body, []byte("approve"), []byte("reject"), 1)))
	req.Header = res.Request.Header.Clone()
	res, _ = http.DefaultClient.Do(req)
	res.Body.Close()
	fmt.Println(res.StatusCode)
	// Output:
	// verified evt_123
	// 204
	// 401
}
