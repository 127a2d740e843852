package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"folio/actors/model/fault"
	"folio/actors/model/ratelimit"
	"folio/actors/page"
	"folio/transport/status"
)

// Writes to pages without a credential are bounded per client address (with
// limits enforced), because anyone holding a public page's link may make them:
// comments by count and uploads by bytes presigned, each per hour and across every
// page and tenant of the node. Requests with an API key or a session are not
// counted here (they have their own request buckets, and a page keeps room for its
// own people: page.DefaultOpenComments). A refusal is 429 RATE_LIMITED with
// Retry-After, naming the limit, and says that signing in lifts it.

// anonWindow is the window of the per-address write budgets.
const anonWindow = time.Hour

// anonWrites is the realtime area's per-address budgets.
type anonWrites struct {
	comments *ratelimit.Limiter // comments by client address
	uploads  *ratelimit.Limiter // bytes presigned by client address
}

func newAnonWrites(now func() time.Time, maxKeys int) anonWrites {
	return anonWrites{comments: ratelimit.New(now, maxKeys), uploads: ratelimit.New(now, maxKeys)}
}

func (a anonWrites) sweep() {
	a.comments.Sweep()
	a.uploads.Sweep()
}

// anonymous tells whether v carries no credential at all.
func anonymous(v page.Viewer) bool { return v.TenantID == "" && v.Person == "" }

// admitAnonComment spends one of the address's anonymous comments.
func (rt *realtime) admitAnonComment(w http.ResponseWriter, r *http.Request, v page.Viewer) error {
	if !rt.d.Enforce || !anonymous(v) {
		return nil
	}
	n := rt.d.AnonCommentsPerHour
	d := rt.anon.comments.TakeOf(rt.ClientAddress(r), n, anonWindow)
	status.SetRateHeaders(w.Header(), "anonymous_comments", d)
	if d.Allowed {
		return nil
	}
	retry := ratelimit.CeilSeconds(d.RetryAfter)
	return fault.New(fault.RateLimited,
		fmt.Sprintf("too many comments from your address without signing in: %d per hour allowed; retry in %d s, or sign in to comment", n, retry),
		map[string]any{"limit": "anonymous_comments", "per_window": n, "window_seconds": ratelimit.CeilSeconds(anonWindow), "scope": "address", "retry_after": retry})
}

// admitAnonUpload spends size bytes of the address's anonymous upload budget.
func (rt *realtime) admitAnonUpload(w http.ResponseWriter, r *http.Request, v page.Viewer, size int64) error {
	if !rt.d.Enforce || !anonymous(v) || size <= 0 {
		return nil
	}
	n := rt.d.AnonUploadBytesPerHour
	d := rt.anon.uploads.TakeCost(rt.ClientAddress(r), size, n, anonWindow)
	status.SetRateHeaders(w.Header(), "anonymous_upload_bytes", d)
	if d.Allowed {
		return nil
	}
	retry := ratelimit.CeilSeconds(d.RetryAfter)
	return fault.New(fault.RateLimited,
		fmt.Sprintf("too many bytes uploaded from your address without signing in: %d bytes per hour allowed; retry in %d s, or sign in to upload", n, retry),
		map[string]any{"limit": "anonymous_upload_bytes", "per_window": n, "window_seconds": ratelimit.CeilSeconds(anonWindow), "scope": "address", "retry_after": retry})
}

// AdmitAnonComment spends one comment of the address's anonymous budget for a
// comment posted by another transport (the review page's form without
// JavaScript), as POST /v1/pages/:id/comments does; nil before MountRealtime.
func (s *Server) AdmitAnonComment(w http.ResponseWriter, r *http.Request, v page.Viewer) error {
	if s.rt == nil {
		return nil
	}
	return s.rt.admitAnonComment(w, r, v)
}
