package callback

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"folio/actors/page"
	"folio/actors/slack"
)

// A slack notify channel whose target is a channel id (C…, G…, D…, or a user id for
// a direct message) is posted through Slack's Web API: chat.postMessage with the
// page tenant's bot token, a Block Kit message with one button per action
// (actors/slack). The body is fixed at commit like every delivery's; the token is
// read at each attempt, so a token set or replaced after a failure is used by the
// retry. Slack answers errors as HTTP 200 {"ok":false,"error":…}: an attempt
// succeeds only on ok:true. A target that is an https URL stays an incoming webhook
// (notify.go slackBody).

// laneSlackAPI is the lane of every Web API post: one endpoint, slack.com.
const laneSlackAPI = "slack-api"

// sendSlackAPI makes one chat.postMessage attempt of rec.
func (d *Dispatcher) sendSlackAPI(ctx context.Context, rec *Delivery, ms func() float64) outcome {
	if d.cfg.Slack == nil {
		return outcome{permanent: true, err: "the Slack Web API is not configured on this node"}
	}
	status, at, err := d.cfg.Slack.PostAs(ctx, rec.TenantID, rec.Body)
	out := outcome{status: status, latencyMS: ms()}
	if err == nil {
		out.ok = true
		if at.TS != "" {
			if at.Channel == "" {
				at.Channel = rec.Target
			}
			out.posted = &at
		}
		return out
	}
	return slackFailure(ctx, d, out, err)
}

// slackFailure is the outcome of a Web API call that failed with err.
func slackFailure(ctx context.Context, d *Dispatcher, out outcome, err error) outcome {
	var ae *slack.APIError
	if errors.As(err, &ae) {
		out.err = ae.Error()
		if ae.Code == "not_configured" {
			out.err = "no Slack bot token is set for this tenant: set it with PUT /v1/integrations/slack, then retry this delivery"
		}
		out.permanent = ae.Permanent()
		if ae.RetryAfter > 0 {
			wait := ae.RetryAfter
			out.retryAfter = &wait
		}
		return out
	}
	out.err = d.describe(ctx, err)
	return out
}

// A decision taken anywhere (the review page, a mail link, the API, a Slack button,
// a deadline's default outcome) is an action.executed event; for each slack channel
// of the page whose target is a channel id, its commit stages one more delivery: a
// chat.update of every message the channel posted about the page, saying every
// decision so far ("Approved by … at …"), with the buttons only while the page
// still waits (a chain's next step). Deliveries of one page to one target run in
// order (chainBehind), so the update starts once the post before it has succeeded
// (its ts recorded, below) or given up; it is durable and retried like any other.

// slackUpdateBody is the chat.update body (without ts) of a decision of p in channel.
func slackUpdateBody(p *page.Page, channel, pageURL string) ([]byte, error) {
	var lines []string
	for _, e := range p.Executions {
		lines = append(lines, slack.DecidedLine(e))
	}
	return slack.UpdateMessage(channel, "", slack.PostOf(p, pageURL, ""), lines, p.Status == page.Active)
}

// sendSlackUpdate makes one attempt of an update delivery: chat.update of every
// message posted about the page in its channel. A message Slack no longer has is
// passed over; any other failure fails the attempt (a retry rewrites them all, which
// changes nothing on those already rewritten).
func (d *Dispatcher) sendSlackUpdate(ctx context.Context, rec *Delivery, ms func() float64) outcome {
	if d.cfg.Slack == nil {
		return outcome{permanent: true, err: "the Slack Web API is not configured on this node"}
	}
	all, err := slack.PostedMessages(d.cfg.Store, rec.PageID, rec.Target)
	if err != nil {
		return outcome{latencyMS: ms(), err: "the posted messages could not be read: " + err.Error()}
	}
	if len(all) == 0 {
		return outcome{ok: true, latencyMS: ms(), note: "no message was posted to this channel about the page, so there is none to update"}
	}
	var body map[string]any
	if err := json.Unmarshal(rec.Body, &body); err != nil {
		return outcome{permanent: true, latencyMS: ms(), err: "the update's body is not JSON"}
	}
	out := outcome{latencyMS: ms()}
	var gone []string
	for _, ts := range all {
		body["ts"] = ts
		b, err := json.Marshal(body)
		if err != nil {
			return outcome{permanent: true, latencyMS: ms(), err: err.Error()}
		}
		status, err := d.cfg.Slack.UpdateAs(ctx, rec.TenantID, b)
		out.status = status
		var ae *slack.APIError
		if errors.As(err, &ae) && (ae.Code == "message_not_found" || ae.Code == "cant_update_message") {
			gone = append(gone, ts)
			continue
		}
		if err != nil {
			out.latencyMS = ms()
			return slackFailure(ctx, d, out, err)
		}
	}
	out.ok, out.latencyMS = true, ms()
	if len(gone) > 0 {
		out.note = "Slack no longer has message " + strings.Join(gone, ", ") + ": not updated"
	}
	return out
}
