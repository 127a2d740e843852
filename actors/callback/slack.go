package callback

import (
	"context"
	"errors"

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
	status, err := d.cfg.Slack.PostAs(ctx, rec.TenantID, rec.Body)
	out := outcome{status: status, latencyMS: ms()}
	if err == nil {
		out.ok = true
		return out
	}
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
