package signin

import (
	"time"

	"folio/actors/model/ratelimit"
)

// Rate is the limit an attempt was last counted against (ratelimit.Rate): what a
// transport writes as headers.
type Rate = ratelimit.Rate

// take counts one attempt against key's budget of n per window: the Rate to write
// either way, and the RATE_LIMITED fault (naming policy and scope) past it.
func take(l *ratelimit.Limiter, policy, scope, key string, n int, window time.Duration) (Rate, error) {
	d := l.TakeOf(key, n, window)
	return Rate{Policy: policy, Decision: d}, ratelimit.Refusal(policy, scope, d)
}
