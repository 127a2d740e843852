package protocols

import (
	"strings"
)

// Interrupts (human in the loop). AG-UI ends a paused run with
//
//	RUN_FINISHED {outcome: {type: "interrupt", interrupts: [{id, reason, message?, toolCallId?, ...}]}}
//
// The earlier draft shape {outcome: "interrupt", interrupt: {id, reason, payload}},
// an interrupt without outcome, a result carrying {message, reason}, and the
// LangGraph CUSTOM "on_interrupt" event are accepted too. Each interrupt
// becomes a warning callout; the page gets approve and reject actions.

var approvalActions = []Action{
	{ActionID: "approve", Label: "Approve", Style: "primary"},
	{ActionID: "reject", Label: "Reject", Style: "danger"},
}

func (a *aguiRun) runFinished(i int, ev map[string]any) {
	if list, ok := interruptsOf(ev); ok {
		for _, it := range list {
			a.interrupt(i, it)
		}
		return
	}
	if res, ok := ev["result"]; ok && res != nil {
		a.fixed(i, "callout", map[string]any{"style": "success", "title": "Run result", "content": textOrJSON(res)})
	}
}

// interruptsOf reports whether the run paused and lists its interrupts
// (possibly empty items, rendered with a generic message).
func interruptsOf(ev map[string]any) ([]any, bool) {
	var list []any
	isInt := false
	switch o := ev["outcome"].(type) {
	case string:
		isInt = strings.EqualFold(o, "interrupt")
	case map[string]any:
		isInt = strings.EqualFold(str(o, "type"), "interrupt")
		list = append(append(list, items(o["interrupts"])...), items(o["interrupt"])...)
	}
	own := append(items(ev["interrupts"]), items(ev["interrupt"])...)
	if ev["outcome"] == nil && len(own) > 0 {
		isInt = true
	}
	if !isInt {
		return nil, false
	}
	list = append(list, own...)
	if len(list) == 0 {
		list = append(list, ev["result"])
	}
	return list, true
}

func items(v any) []any {
	switch t := v.(type) {
	case nil:
		return nil
	case []any:
		return t
	}
	return []any{v}
}

// customInterrupt reads a CUSTOM on_interrupt value: a message, or an object
// (possibly JSON-encoded in a string).
func customInterrupt(v any) any {
	if s, ok := v.(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
		if d, err := decodeOne([]byte(s)); err == nil {
			return d
		}
	}
	return v
}

// interrupt renders one interrupt as a warning callout with the approval actions.
func (a *aguiRun) interrupt(i int, it any) {
	var msg, reason, toolID string
	var call map[string]any
	switch t := it.(type) {
	case string:
		msg = t
	case map[string]any:
		msg = firstString(t, "message", "prompt", "question", "description")
		reason = str(t, "reason")
		toolID = firstString(t, "toolCallId", "tool_call_id")
		call = pendingCall(t)
		payload := firstPresent(t, "payload", "value")
		if ps, ok := payload.(string); ok && msg == "" {
			msg = ps
		}
		if pm, ok := asMap(payload); ok {
			if msg == "" {
				msg = firstString(pm, "message", "prompt", "question", "description")
			}
			if toolID == "" {
				toolID = firstString(pm, "toolCallId", "tool_call_id")
			}
			if call == nil {
				call = pendingCall(pm)
			}
		}
		if md, ok := asMap(t["metadata"]); ok && toolID == "" {
			toolID = firstString(md, "toolCallId", "tool_call_id")
		}
	}
	content := strings.TrimSpace(msg)
	if content == "" {
		content = "The agent paused and is waiting for your approval."
		if reason != "" {
			content = "The agent paused (" + strings.ReplaceAll(reason, "_", " ") + ") and is waiting for your decision."
		}
	}
	switch s, known := a.tools[toolID]; {
	case known && toolID != "":
		name := s.name
		if name == "" {
			name = toolID
		}
		content += "\n\nPending tool call: `" + name + "` (arguments shown above)."
	case call != nil:
		name := firstString(call, "name", "toolCallName", "tool")
		if fn, ok := asMap(call["function"]); ok && name == "" {
			name = str(fn, "name")
		}
		if name == "" {
			name = "tool"
		}
		content += "\n\nPending tool call: `" + name + "`"
		if args := argsOf(call); args != nil {
			content += "\n\n" + textOrJSON(args)
		}
	case toolID != "":
		content += "\n\nPending tool call: `" + toolID + "`."
	}
	s := a.fixed(i, "callout", map[string]any{"style": "warning", "title": "Approval required", "content": content})
	s.acts = approvalActions
}

// pendingCall finds a tool call described inline in an interrupt or its payload.
func pendingCall(m map[string]any) map[string]any {
	for _, k := range [...]string{"toolCall", "tool_call", "pendingToolCall", "action"} {
		if c, ok := asMap(m[k]); ok {
			return c
		}
	}
	return nil
}

func argsOf(call map[string]any) any {
	if v := firstPresent(call, "args", "arguments", "input"); v != nil {
		return v
	}
	if fn, ok := asMap(call["function"]); ok {
		return fn["arguments"]
	}
	return nil
}
