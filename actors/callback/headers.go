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
