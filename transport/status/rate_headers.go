package status

import (
	"net/http"
	"strconv"

	"folio/actors/model/ratelimit"
)

// SetRateHeaders writes the RateLimit and RateLimit-Policy fields
// (draft-ietf-httpapi-ratelimit-headers: q = quota per window w seconds, r =
// remaining, t = seconds until the quota is fully restored) and, when refused,
// Retry-After in whole seconds (rounded up). A decision of no limit writes nothing.
func SetRateHeaders(h http.Header, policy string, d ratelimit.Decision) {
	if d.Limit <= 0 {
		return
	}
	window := 60
	if d.Window > 0 {
		window = ratelimit.CeilSeconds(d.Window)
	}
	h.Set("RateLimit-Policy", strconv.Quote(policy)+";q="+strconv.Itoa(d.Limit)+";w="+strconv.Itoa(window))
	h.Set("RateLimit", strconv.Quote(policy)+";r="+strconv.Itoa(d.Remaining)+";t="+strconv.Itoa(ratelimit.CeilSeconds(d.Reset)))
	if !d.Allowed {
		h.Set("Retry-After", strconv.Itoa(ratelimit.CeilSeconds(d.RetryAfter)))
	}
}

// SetRate writes a rule's answer as headers, the same on both faces (sign-in and
// claims, the anonymous write budgets): its Rate's limit (SetRateHeaders), and for
// a refusal that waits on no limit's decision (the global claim budget) the
// Retry-After its fault says (SetRetryAfter).
func SetRate(h http.Header, r ratelimit.Rate, err error) {
	if r.Policy != "" {
		SetRateHeaders(h, r.Policy, r.Decision)
	}
	SetRetryAfter(h, err)
}
