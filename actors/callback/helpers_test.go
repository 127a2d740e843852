package callback

import "folio/actors/page"

// retrySpec builds a page.Retry for table tests.
type retrySpec struct {
	max     *int
	backoff string
	initial *float64
}

func (r *retrySpec) page() *page.Retry {
	if r == nil {
		return nil
	}
	return &page.Retry{MaxAttempts: r.max, Backoff: r.backoff, InitialDelaySeconds: r.initial}
}
