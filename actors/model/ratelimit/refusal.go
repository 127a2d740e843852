package ratelimit

import (
	"fmt"
	"strconv"
	"time"

	"folio/actors/model/fault"
)

// Refusal is the fault a refused Decision is answered with, nil when d allowed the
// request: RATE_LIMITED naming the limit, its policy and scope (tenant, person,
// address), and when to retry, in whole seconds rounded up, the number a
// Retry-After header carries. A limit over a window longer than a minute is an
// abuse limit (sign-in links, claims) and says so.
func Refusal(policy, scope string, d Decision) error {
	if d.Allowed {
		return nil
	}
	retry := CeilSeconds(d.RetryAfter)
	if d.Window > time.Minute {
		return fault.New(fault.RateLimited, fmt.Sprintf("too many attempts: %d per %d minutes allowed; retry in %d s", d.Limit, int(d.Window.Minutes()), retry),
			map[string]any{"limit": policy, "per_window": d.Limit, "window_seconds": CeilSeconds(d.Window), "scope": scope, "policy": policy, "retry_after": retry})
	}
	return fault.New(fault.RateLimited, "too many requests: "+strconv.Itoa(d.Limit)+" per minute allowed; retry in "+strconv.Itoa(retry)+" s",
		map[string]any{"limit": "requests_per_minute", "requests_per_minute": d.Limit, "scope": scope, "policy": policy, "retry_after": retry})
}

// CeilSeconds is d in whole seconds, rounded up (0 for none): a client told to
// retry in that many seconds is never early.
func CeilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}
