package client

import (
	"context"
	"time"

	"folio/transport/apitypes"
)

// Delivery is one callback or notification of a page and its attempts.
type Delivery struct {
	ID            string            `json:"id"`
	PageID        string            `json:"pageId"`
	EventID       string            `json:"eventId"`
	Event         string            `json:"event"`
	Channel       string            `json:"channel"` // callback, email, slack, webhook
	Target        string            `json:"target"`
	Status        string            `json:"status"` // pending, succeeded, failed, skipped
	Note          string            `json:"note"`
	AttemptCount  int               `json:"attemptCount"`
	MaxAttempts   int               `json:"maxAttempts"`
	NextAttemptAt time.Time         `json:"nextAttemptAt"`
	CreatedAt     time.Time         `json:"createdAt"`
	CompletedAt   time.Time         `json:"completedAt"`
	Attempts      []DeliveryAttempt `json:"attempts"`
	Reply         *DeliveryReply    `json:"reply"`
	WaitingFor    string            `json:"waitingFor"` // the delivery this one waits for, to keep event order
}

// DeliveryAttempt is one attempt of a delivery.
type DeliveryAttempt struct {
	Attempt       int       `json:"attempt"`
	At            time.Time `json:"at"`
	HTTPStatus    int       `json:"httpStatus"` // 0: no answer
	LatencyMs     float64   `json:"latencyMs"`
	Error         string    `json:"error"`
	Manual        bool      `json:"manual"` // made by RetryDelivery
	NextAttemptAt time.Time `json:"nextAttemptAt"`
}

// DeliveryReply is what became of the receiver's reply instructions.
type DeliveryReply struct {
	Status   string   `json:"status"` // pending, applied, duplicate, refused
	BlockIDs []string `json:"blockIds"`
	Error    string   `json:"error"`
}

// DeliveryList is one window of a page's deliveries, newest first.
type DeliveryList = apitypes.DeliveryList[Delivery]

// DeliveryQueued is a manual retry accepted: it runs in the background.
type DeliveryQueued = apitypes.DeliveryQueued

// ListDeliveries lists a page's callbacks and notifications (GET
// /v1/pages/:id/deliveries).
func (c *Client) ListDeliveries(ctx context.Context, pageID string, o ListOptions) (*DeliveryList, error) {
	return call[DeliveryList](ctx, c, "GET", withQuery("/v1/pages/"+esc(pageID)+"/deliveries", o.values()), nil)
}

// GetDelivery reads one delivery (GET /v1/deliveries/:id).
func (c *Client) GetDelivery(ctx context.Context, deliveryID string) (*Delivery, error) {
	return call[Delivery](ctx, c, "GET", "/v1/deliveries/"+esc(deliveryID), nil)
}

// RetryDelivery makes one more attempt at once, with the same event id and body
// (POST /v1/deliveries/:id/retry); 409 while an attempt is in flight. Follow it
// with GetDelivery.
func (c *Client) RetryDelivery(ctx context.Context, deliveryID string) (*DeliveryQueued, error) {
	return call[DeliveryQueued](ctx, c, "POST", "/v1/deliveries/"+esc(deliveryID)+"/retry", nil)
}
