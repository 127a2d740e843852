package protocols

import (
	"strconv"

	"folio/actors/model/blocks"
)

// ACTIVITY_SNAPSHOT {messageId, activityType, content, replace} carries A2UI
// when content is a list of A2UI messages, or an object holding one under
// a2ui_operations (the @ag-ui/a2ui-middleware convention), operations, a2ui
// or messages (possibly JSON-encoded), or an A2UI envelope itself.
// ACTIVITY_DELTA {messageId, patch} patches the content. The final content of
// each activity is translated once, at its first snapshot's place.

func (a *aguiRun) activitySnapshot(i int, ev map[string]any) {
	id := str(ev, "messageId")
	s, ok := a.activity[id]
	if ok && ev["replace"] == false {
		return // replace: false keeps the existing content
	}
	if !ok {
		s = a.open(i, kindActivity)
		a.activity[id] = s
	}
	s.value, s.title, s.at = ev["content"], str(ev, "activityType"), i
}

func (a *aguiRun) activityDelta(i int, ev map[string]any) {
	s, ok := a.activity[str(ev, "messageId")]
	if !ok {
		a.warnAt(i, "ACTIVITY_DELTA for unknown messageId %q; skipped", str(ev, "messageId"))
		return
	}
	s.value = a.patch(i, "ACTIVITY_DELTA", s.value, ev["patch"])
}

func (a *aguiRun) finishActivity(s *slot) ([]blocks.Block, []Action) {
	payload, ok := a2uiPayload(s.value, 0)
	if !ok {
		a.warnAt(s.at, "ACTIVITY_SNAPSHOT (activityType %q) carries no A2UI operations; skipped", s.title)
		return nil, nil
	}
	p, err := translateA2UI(payload, 1)
	if err != nil {
		a.warnAt(s.at, "A2UI activity: %s; skipped", err.Error())
		return nil, nil
	}
	a.w.addPrefixed("events["+strconv.Itoa(s.at)+"]: ", p.Warnings)
	return p.Blocks, p.Actions
}

// a2uiPayload extracts the A2UI value from activity content.
func a2uiPayload(v any, depth int) (any, bool) {
	if depth > maxA2UINesting {
		return nil, false
	}
	switch t := v.(type) {
	case []any:
		return t, len(t) > 0
	case string:
		vals, err := decodeValues([]byte(t))
		if err != nil {
			return nil, false
		}
		if len(vals) > 1 {
			return any(vals), true
		}
		if _, isStr := vals[0].(string); isStr {
			return nil, false
		}
		return a2uiPayload(vals[0], depth+1)
	case map[string]any:
		if _, ok := t["components"]; ok || hasMessageKey(t) {
			return t, true
		}
		for _, k := range [...]string{"a2ui_operations", "operations", "a2ui", "messages"} {
			if inner, ok := t[k]; ok {
				return a2uiPayload(inner, depth+1)
			}
		}
	}
	return nil, false
}
