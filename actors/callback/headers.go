package callback

import (
	"net/http"
	"strconv"
	"time"

	"folio/actors/model/webhook"
)

// setHeaders writes the headers of one attempt of d at time at.
func setHeaders(h http.Header, d *Delivery, at time.Time) {
	for k, v := range d.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Folio-Webhooks/1.0")
	if d.Channel == ChannelSlack {
		return // an incoming webhook wants the message, nothing else
	}
	ts := at.Unix()
	id := d.WebhookID
	h.Set("X-Service-Event-Id", d.EventID)
	h.Set("X-Service-Timestamp", strconv.FormatInt(ts, 10))
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	if d.Secret != "" {
		h.Set("X-Service-Signature", webhook.Signature(d.Secret, d.Body))
		h.Set("webhook-signature", webhook.StandardSignature(d.Secret, id, ts, d.Body))
	}
}

// attemptHeaders are the headers an attempt of d at time at sends (setHeaders, the
// one place that writes them): the attempt's time in Attempt.At rebuilds exactly
// what went out.
func attemptHeaders(d *Delivery, at time.Time) http.Header {
	h := http.Header{}
	setHeaders(h, d, at)
	return h
}

// Redacted is the value shown for a header that may carry a credential.
const Redacted = "[redacted]"

// ShownHeaders are attemptHeaders as a person may see them: the headers Folio sets
// with their values (event id, timestamps and signatures, which prove the secret
// without revealing it), and the agent's custom headers by name only, valued
// Redacted, since they may hold the receiver's credentials.
func ShownHeaders(d *Delivery, at time.Time) http.Header {
	h := attemptHeaders(d, at)
	if len(d.Headers) == 0 {
		return h
	}
	plain := *d
	plain.Headers = nil
	ours := attemptHeaders(&plain, at)
	for k := range h {
		if _, set := ours[k]; !set {
			h[k] = []string{Redacted}
		}
	}
	return h
}
