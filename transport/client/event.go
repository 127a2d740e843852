package client

import (
	"context"
	"encoding/json"
	"time"

	"folio/transport/apitypes"
)

// EventReset is the Type of the control event the agent stream sends when it cannot
// replay what was asked (Data is a ResetData), or just before it ends a stream whose
// credential went away.
const EventReset = "reset"

// Event is one event of the agent's stream (GET /v1/agent/events) or inbox.
type Event struct {
	// ID is the tenant's sequence number of the event, the stream id to resume
	// after; empty on a reset.
	ID        string          `json:"id"`
	Type      string          `json:"type"` // page.created, action.executed, comment.added, …, or reset
	PageID    string          `json:"pageId"`
	Timestamp time.Time       `json:"timestamp"`
	EventID   string          `json:"eventId"` // the event's own id, as in callbacks' event_id
	Data      json.RawMessage `json:"data"`
	Actor     *Actor          `json:"actor,omitempty"`
}

// Actor is who caused an event or decided a page, and how that was verified:
// auth_method api_key, link, magic_link or oauth.
type Actor struct {
	Identity   string `json:"identity"`
	AuthMethod string `json:"auth_method"`
	// Key is the API key that named Identity (auth_method api_key), if one did.
	Key *KeyRef `json:"key,omitempty"`
}

// ResetData is the Data of a reset event. Reason "expired" or "unknown_id": some of
// the events after LastEventID are no longer retained (or the id was never
// issued); the stream goes on from OldestID (retained events follow) or, without
// it, from LatestID, and the agent resynchronises with AgentInbox. Other reasons
// (credential_revoked) end the stream.
type ResetData struct {
	Reason      string `json:"reason"`
	LastEventID string `json:"lastEventId"`
	LatestID    string `json:"latestId"`
	OldestID    string `json:"oldestId"`
}

// InboxEvent is an event of the agent inbox: not yet acknowledged.
type InboxEvent struct {
	Event
	Acknowledged bool `json:"acknowledged"`
}

// EventList is one window of agent events, oldest first: the unacknowledged ones
// (AgentInbox; Total counts every one) or one page's (PageAgentEvents).
type EventList = apitypes.EventList[InboxEvent]

// AgentInbox lists the tenant's unacknowledged events (GET /v1/agent/inbox): what
// to read after a reset.
func (c *Client) AgentInbox(ctx context.Context, o ListOptions) (*EventList, error) {
	return call[EventList](ctx, c, "GET", withQuery("/v1/agent/inbox", o.values()), nil)
}

// PageAgentEvents lists one page's retained agent events, acknowledged or not,
// oldest first (GET /v1/pages/:id/agent-events).
func (c *Client) PageAgentEvents(ctx context.Context, pageID string, o ListOptions) (*EventList, error) {
	return call[EventList](ctx, c, "GET", withQuery("/v1/pages/"+esc(pageID)+"/agent-events", o.values()), nil)
}

// Ack removes an event from the agent inbox (POST /v1/events/:id/ack); id is the
// stream id or the EventID. Acknowledging twice is fine.
func (c *Client) Ack(ctx context.Context, id string) error {
	return c.do(ctx, "POST", "/v1/events/"+esc(id)+"/ack", nil, nil)
}
