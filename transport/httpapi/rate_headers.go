package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"folio/actors/model/ratelimit"
)

// setRateHeaders writes the RateLimit and RateLimit-Policy fields
// (draft-ietf-httpapi-ratelimit-headers: q = quota per window w seconds, r =
// remaining, t = seconds until the quota is fully restored) and, when refused,
// Retry-After in whole seconds (rounded up).
func setRateHeaders(h http.Header, policy string, d ratelimit.Decision) {
	if d.Limit <= 0 {
		return
	}
	window := 60
	if d.Window > 0 {
		window = ceilSeconds(d.Window)
	}
	h.Set("RateLimit-Policy", strconv.Quote(policy)+";q="+strconv.Itoa(d.Limit)+";w="+strconv.Itoa(window))
	h.Set("RateLimit", strconv.Quote(policy)+";r="+strconv.Itoa(d.Remaining)+";t="+strconv.Itoa(ceilSeconds(d.Reset)))
	if !d.Allowed {
		h.Set("Retry-After", strconv.Itoa(ceilSeconds(d.RetryAfter)))
	}
}

func ceilSeconds(d time.Duration) int { return ratelimit.CeilSeconds(d) }
