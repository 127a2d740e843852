package page

import (
	"strconv"
	"time"

	"folio/actors/model/ids"
)

// Event is what a committed change tells its outlets (agent mailbox, callback
// outbox, inbox, workflows) and the page's live subscribers. ID is unique and stable
// (assigned before the commit); Seq is set by the agent mailbox outlet inside the
// commit transaction (the tenant's event sequence number).
type Event struct {
	ID       string
	Seq      uint64
	Type     string
	PageID   string
	TenantID string
	At       time.Time
	// Data is the event's payload, one struct per event type (event_data.go); Type is
	// always Data.EventType() for events the page emits. nil is an empty payload.
	Data eventData
	// Actor is who acted, where a person did (or an agent's key for a person, or a
	// viewer): action.executed, form.submitted and page.viewed carry one.
	Actor *Person

	body []byte // the sealed payload without its stream id (Seal)
}

// eventData is the payload of one event type. Its Go fields say what happened;
// how an audience spells them is written once per audience: the streams and the
// agent log in payload_data.go (stream), callbacks in actors/callback/body.go, the
// audit log beside each command's audit entry.
type eventData interface {
	// EventType is the type of the events this is the payload of ("action.executed").
	EventType() string
	// stream is the payload's `data` object on the streams: the owning agent's full
	// view (payload_data.go). by is the event's Actor.
	stream(by *Person) any
}

// Person is the actor of an event: the identity given or proven and how it was
// established (auth_method: AuthAPIKey, AuthLink, "none" for an anonymous viewer).
// Its fields are in key order, as the actor object has always been written.
type Person struct {
	AuthMethod string `json:"auth_method"`
	Identity   string `json:"identity"`
	// Key is the API key that vouched for Identity when a key acted for a person
	// it named (auth_method api_key); nil otherwise.
	Key *KeyRef `json:"key,omitempty"`
}

// KeyRef names an API key without revealing it: its id, its name and the prefix
// the dashboard lists.
type KeyRef struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
}

// Label is how a person reads the key: its name and prefix.
func (k *KeyRef) Label() string {
	if k == nil {
		return ""
	}
	if k.Prefix == "" {
		return k.Name
	}
	return k.Name + " (" + k.Prefix + "…)"
}

// newEvent is an event of page pageID with a fresh id; its type is the payload's.
func newEvent(pageID, tenantID string, at time.Time, d eventData) Event {
	return Event{ID: ids.New("evt"), Type: d.EventType(), PageID: pageID, TenantID: tenantID, At: at, Data: d}
}

// event is an event of the actor's page.
func (a *Actor) event(at time.Time, d eventData) Event {
	return newEvent(a.id, a.page.TenantID, at, d)
}

// StreamID is the id an event carries on the streams: its sequence number, or its
// event id when it has none (no mailbox outlet).
func (e *Event) StreamID() string {
	if e.Seq > 0 {
		return strconv.FormatUint(e.Seq, 10)
	}
	return e.ID
}

// AgentData is the `data` object of the event's agent payload: the owning agent's
// full view of Data (an empty object when there is none). Callbacks of events
// outside the specification's table carry it as is.
func (e *Event) AgentData() any {
	if e.Data == nil {
		return struct{}{}
	}
	return e.Data.stream(e.Actor)
}
