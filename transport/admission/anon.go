package admission

import (
	"fmt"
	"time"

	"folio/actors/model/fault"
	"folio/actors/model/ratelimit"
)

// Writes to pages without a credential are bounded per client address (with
// limits enforced), because anyone holding a public page's link may make them:
// comments by count and uploads by bytes presigned, each per hour and across every
// page and tenant of the node. Requests with an API key or a session are not
// counted here (they have their own request buckets, and a page keeps room for its
// own people: page.DefaultOpenComments). A refusal is 429 RATE_LIMITED naming the
// limit, with retry_after, and says that signing in lifts it.

// anonWindow is the window of the per-address write budgets.
const anonWindow = time.Hour

// anonWrites are the per-address budgets.
type anonWrites struct {
	comments *ratelimit.Limiter // comments by client address
	uploads  *ratelimit.Limiter // bytes presigned by client address
}

// AnonComment spends one of addr's anonymous comments for a comment posted with
// the credential cred (CredentialKey; "" for none). rate is the limit to write as
// headers, zero when nothing was counted (a credential, or limits not enforced).
func (ru *Rules) AnonComment(addr, cred string) (rate ratelimit.Rate, err error) {
	if !ru.lim.Enforce || cred != "" {
		return ratelimit.Rate{}, nil
	}
	n := ru.lim.AnonCommentsPerHour
	return anonAnswer("anonymous_comments", ru.anon.comments.TakeOf(addr, n, anonWindow), int64(n), "comments", "", "comment")
}

// AnonUpload spends size bytes of addr's anonymous upload budget for an upload
// presigned with the credential cred ("" for none); as AnonComment.
func (ru *Rules) AnonUpload(addr, cred string, size int64) (rate ratelimit.Rate, err error) {
	if !ru.lim.Enforce || cred != "" || size <= 0 {
		return ratelimit.Rate{}, nil
	}
	n := ru.lim.AnonUploadBytesPerHour
	return anonAnswer("anonymous_upload_bytes", ru.anon.uploads.TakeCost(addr, size, n, anonWindow), n, "bytes uploaded", " bytes", "upload")
}

// anonAnswer is an anonymous budget's answer to d: the Rate to write, and past the
// budget of n (what, in unit, per hour) the 429 naming policy, with retry_after,
// saying that signing in (to verb) lifts it.
func anonAnswer(policy string, d ratelimit.Decision, n int64, what, unit, verb string) (ratelimit.Rate, error) {
	rate := ratelimit.Rate{Policy: policy, Decision: d}
	if d.Allowed {
		return rate, nil
	}
	retry := ratelimit.CeilSeconds(d.RetryAfter)
	return rate, fault.New(fault.RateLimited,
		fmt.Sprintf("too many %s from your address without signing in: %d%s per hour allowed; retry in %d s, or sign in to %s", what, n, unit, retry, verb),
		map[string]any{"limit": policy, "per_window": n, "window_seconds": ratelimit.CeilSeconds(anonWindow), "scope": "address", "retry_after": retry})
}
