package callback

import (
	"folio/actors/model/webhook"
)

// retrySpec builds a webhook.Retry for table tests.
type retrySpec struct {
	max     *int
	backoff string
	initial *float64
}

func (r *retrySpec) page() *webhook.Retry {
	if r == nil {
		return nil
	}
	return &webhook.Retry{MaxAttempts: r.max, Backoff: r.backoff, InitialDelaySeconds: r.initial}
}
