package signin

import (
	"time"

	"folio/actors/model/ratelimit"
)

// Rate is the limit an attempt was last counted against, what a transport writes
// as its RateLimit and RateLimit-Policy headers (and Retry-After when Decision
// refused it; a refusal no Decision carries, the global claim budget, says its
// seconds in its fault's retry_after). A zero Rate (no Policy) counted nothing:
// the request was refused for its shape first.
type Rate struct {
	Policy   string
	Decision ratelimit.Decision
}

// take counts one attempt against key's budget of n per window: the Rate to write
// either way, and the RATE_LIMITED fault (naming policy and scope) past it.
func take(l *ratelimit.Limiter, policy, scope, key string, n int, window time.Duration) (Rate, error) {
	d := l.TakeOf(key, n, window)
	return Rate{Policy: policy, Decision: d}, ratelimit.Refusal(policy, scope, d)
}
