package page

// fanout hands committed events to the page's live subscribers (SSE, WebSocket).
// Issue "Real-time" fills this in.
func (a *Actor) fanout(events []Event) {}
