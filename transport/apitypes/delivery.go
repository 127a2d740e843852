package apitypes

import "time"

// DeliveryQueued is a manual retry accepted (POST /v1/deliveries/:id/retry): it
// runs in the background.
type DeliveryQueued struct {
	ID       string    `json:"id"`
	PageID   string    `json:"pageId"`
	EventID  string    `json:"eventId"`
	Status   string    `json:"status"` // "queued"
	QueuedAt time.Time `json:"queuedAt"`
}
