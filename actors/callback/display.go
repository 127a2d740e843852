package callback

import (
	"net/url"
	"strings"

	"folio/actors/slack"
)

// DisplayTarget is a delivery's target as the delivery log shows it, in the API and
// on the dashboard alike: without query strings, user info, fragments, or the path
// of a Slack incoming-webhook URL (which is the webhook's secret). An address and a
// Slack channel id are no secret and are shown whole.
func DisplayTarget(channel, target string) string {
	if channel == ChannelEmail || (channel == ChannelSlack && slack.IsChannelID(target)) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		return ""
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	if channel == ChannelSlack && u.Path != "" && u.Path != "/" {
		parts := strings.SplitN(strings.TrimPrefix(u.Path, "/"), "/", 2)
		u.Path, u.RawPath = "/"+parts[0]+"/...", ""
	}
	return u.String()
}
