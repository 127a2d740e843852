package client_test

import (
	"testing"
	"time"

	"folio/transport/client"
)

// TestPageAgentEventsListsOnePagesEvents: a page's agent events are listed with
// the same window as the agent inbox, only that page's, oldest first, and an
// acknowledged event stays listed (marked) while it leaves the inbox.
func TestPageAgentEventsListsOnePagesEvents(t *testing.T) {
	_, c := agent(t, "pageevents")
	cx := ctx(t)
	first := must(c.Publish(cx, approvalPage("First")))(t).PageID
	other := must(c.Publish(cx, approvalPage("Other")))(t).PageID
	must(c.ExecuteAction(cx, first, "approve", client.ActionRequest{}))(t)

	var l *client.EventList
	eventually(t, 5*time.Second, "the decision among the page's agent events", func() bool {
		l = must(c.PageAgentEvents(cx, first, client.ListOptions{}))(t)
		for _, e := range l.Events {
			if e.Type == "action.executed" {
				return true
			}
		}
		return false
	})
	if l.Total != len(l.Events) || l.Limit != 100 || l.Offset != 0 {
		t.Fatalf("window = total %d, limit %d, offset %d for %d events", l.Total, l.Limit, l.Offset, len(l.Events))
	}
	for i, e := range l.Events {
		if e.PageID != first {
			t.Fatalf("event %d (%s) is of page %s, not %s (the other page is %s)", i, e.Type, e.PageID, first, other)
		}
		if i > 0 && e.Timestamp.Before(l.Events[i-1].Timestamp) {
			t.Fatalf("event %d (%s) is older than the one before it", i, e.Type)
		}
	}
	acked := l.Events[0]
	if err := c.Ack(cx, acked.EventID); err != nil {
		t.Fatal(err)
	}
	again := must(c.PageAgentEvents(cx, first, client.ListOptions{Limit: 50}))(t)
	if again.Total != l.Total || again.Limit != 50 || again.Events[0].EventID != acked.EventID || !again.Events[0].Acknowledged {
		t.Fatalf("after the ack, the page's first event is %+v (total %d), want %s acknowledged", again.Events[0], again.Total, acked.EventID)
	}
	for _, e := range must(c.AgentInbox(cx, client.ListOptions{Limit: 500}))(t).Events {
		if e.EventID == acked.EventID {
			t.Fatalf("the acknowledged event %s is still in the inbox", acked.EventID)
		}
	}
}
