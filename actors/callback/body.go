package callback

import (
	"encoding/json"
	"time"

	"folio/actors/page"
)

// envelope is a callback body (specification 6.2); the field order is fixed.
type envelope struct {
	Event     string `json:"event"`
	EventID   string `json:"event_id"`
	PageID    string `json:"page_id"`
	Timestamp string `json:"timestamp"`
	Data      any    `json:"data"`
	Actor     any    `json:"actor,omitempty"`
	PageState any    `json:"page_state,omitempty"`
}

// shape is what the specification's event table shows for one event type: the
// keys of data, and whether actor and page_state are present.
type shape struct {
	data      []string
	actor     bool
	pageState bool
}

var shapes = map[string]shape{
	"action.executed":          {[]string{"action_id", "action_label", "decision", "comment", "form_data"}, true, true},
	"approval.step_completed":  {[]string{"step_id", "step_name", "decision", "decided_by", "next_step"}, false, false},
	"approval.chain_completed": {[]string{"final_decision", "steps_summary"}, false, false},
	"page.expired":             {[]string{"reason", "expired_at"}, false, false},
	"page.viewed":              {[]string{"view_count", "user_agent"}, true, false},
	"form.submitted":           {[]string{"form_data"}, true, false},
}

// callbackBody builds the exact bytes of ev's callback: for the specification's
// events exactly the table's fields (absent ones null); for other events their data
// as emitted.
func callbackBody(ev page.Event) ([]byte, error) {
	env := envelope{Event: ev.Type, EventID: ev.ID, PageID: ev.PageID, Timestamp: stamp(ev.At)}
	sh, known := shapes[ev.Type]
	if !known {
		env.Data = orEmpty(ev.Data)
		if len(ev.Actor) > 0 {
			env.Actor = ev.Actor
		}
		return json.Marshal(env)
	}
	data := make(map[string]any, len(sh.data))
	for _, k := range sh.data {
		data[k] = ev.Data[k] // missing -> null
	}
	env.Data = data
	if sh.actor {
		if len(ev.Actor) > 0 {
			env.Actor = ev.Actor
		} else {
			env.Actor = map[string]any{"identity": nil, "auth_method": nil}
		}
	}
	if sh.pageState {
		env.PageState = ev.Data["page_state"]
	}
	return json.Marshal(env)
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
