package protocols

import (
	"strings"
	"unicode"
)

// FromAGUI translates an AG-UI run {title, events: [event]} into a page.
// Blocks appear in the order of the event that opened them (a message at its
// START or first chunk, the stepper at the first step event, ...); deltas are
// joined per messageId / toolCallId. See docs/behaviour.md for the full mapping.
func FromAGUI(body []byte) (Page, error) {
	v, err := decodeOne(body)
	if err != nil {
		return Page{}, err
	}
	m, ok := asMap(v)
	if !ok {
		return Page{}, newError("", "type", "expected an object {title, events}, got %s", kindOf(v))
	}
	run := newRun()
	title := "Agent run"
	if raw, ok := m["title"]; ok && raw != nil {
		if s, ok := raw.(string); ok && firstLine(s) != "" {
			title = firstLine(s)
		} else if !ok {
			run.w.add("title: not a string; ignored")
		}
	}
	raw, ok := m["events"]
	if !ok || raw == nil {
		return Page{}, newError("events", "required", "events is required")
	}
	list, ok := raw.([]any)
	if !ok {
		return Page{}, newError("events", "type", "events must be an array of AG-UI events")
	}
	if len(list) == 0 {
		return Page{}, newError("events", "min_items", "events must not be empty")
	}
	for i, e := range list {
		run.event(i, e)
	}
	return run.page(title), nil
}

const maxPatchOps = 10000 // JSON Patch operations applied per request

// aguiRun is the translation state. Every event is looked at once; slots hold
// the blocks in opening order until page() encodes them.
type aguiRun struct {
	w        warnings
	slots    []*slot
	texts    map[string]*slot // by messageId
	tools    map[string]*slot // by toolCallId
	reasons  map[string]*slot // by reasoning messageId
	activity map[string]*slot // by activity messageId
	results  map[string]bool  // toolCallIds whose result is shown

	lastText, lastTool, lastReason string // latest ids; *_CHUNK events without id continue them

	thinking   *slot  // open THINKING_TEXT_MESSAGE
	thinkTitle string // title of the open THINKING_START span
	steps      *slot
	state      *slot
	stepSeq    int

	copyBudget  int
	patchOps    int
	patchWarned bool
}

func newRun() *aguiRun {
	return &aguiRun{
		texts: map[string]*slot{}, tools: map[string]*slot{}, reasons: map[string]*slot{},
		activity: map[string]*slot{}, results: map[string]bool{}, copyBudget: maxCopyNodes,
	}
}

func (a *aguiRun) event(i int, raw any) {
	ev, ok := asMap(raw)
	if !ok {
		a.w.add("events[%d]: not an object; skipped", i)
		return
	}
	sent := str(ev, "type")
	if sent == "" {
		a.w.add("events[%d]: missing event type; skipped", i)
		return
	}
	switch typ := normalizeEventType(sent); typ {
	case "RUN_STARTED", "RAW", "TEXT_MESSAGE_END", "TOOL_CALL_END", "REASONING_START",
		"REASONING_END", "REASONING_MESSAGE_END", "REASONING_ENCRYPTED_VALUE", "THINKING_END":
		if typ == "THINKING_END" {
			a.thinkTitle = ""
		}
		// Lifecycle markers and opaque payloads: nothing to show.
	case "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK":
		id := str(ev, "messageId")
		if id == "" && typ == "TEXT_MESSAGE_CHUNK" {
			id = a.lastText // a chunk without id continues the current one
		}
		a.lastText = id
		s := a.text(i, id)
		if role := str(ev, "role"); role != "" {
			s.role = role
		}
		s.text.WriteString(str(ev, "delta"))
	case "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_CHUNK":
		id := str(ev, "toolCallId")
		if id == "" && typ == "TOOL_CALL_CHUNK" {
			id = a.lastTool // a chunk without id continues the current one
		}
		a.lastTool = id
		s := a.tool(i, id)
		if name := str(ev, "toolCallName"); name != "" {
			s.name = name
		}
		s.text.WriteString(str(ev, "delta"))
	case "TOOL_CALL_RESULT":
		a.result(i, str(ev, "toolCallId"), ev["content"])
	case "RUN_ERROR":
		a.runError(i, ev)
	case "STEP_STARTED", "STEP_FINISHED":
		a.step(i, typ == "STEP_STARTED", str(ev, "stepName"))
	case "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_CHUNK":
		id := str(ev, "messageId")
		if id == "" && typ == "REASONING_MESSAGE_CHUNK" {
			id = a.lastReason // a chunk without id continues the current one
		}
		a.lastReason = id
		a.reasoning(i, id).text.WriteString(str(ev, "delta"))
	case "THINKING_START":
		a.thinkTitle = str(ev, "title")
	case "THINKING_TEXT_MESSAGE_START", "THINKING_TEXT_MESSAGE_CONTENT":
		if a.thinking == nil {
			a.thinking = a.open(i, kindReasoning)
			a.thinking.title = a.thinkTitle
		}
		a.thinking.text.WriteString(str(ev, "delta"))
	case "THINKING_TEXT_MESSAGE_END":
		a.thinking = nil
	case "STATE_SNAPSHOT":
		a.stateSlot(i).value = ev["snapshot"]
	case "STATE_DELTA":
		s := a.stateSlot(i)
		if s.value == nil {
			s.value = map[string]any{}
		}
		s.value = a.patch(i, "STATE_DELTA", s.value, ev["delta"])
	case "MESSAGES_SNAPSHOT":
		a.messages(i, ev["messages"])
	case "ACTIVITY_SNAPSHOT":
		a.activitySnapshot(i, ev)
	case "ACTIVITY_DELTA":
		a.activityDelta(i, ev)
	case "CUSTOM":
		if name := str(ev, "name"); name == "on_interrupt" || name == "interrupt" {
			a.interrupt(i, customInterrupt(ev["value"]))
		}
		// Other custom events are application specific: skipped.
	case "RUN_FINISHED":
		a.runFinished(i, ev)
	default:
		a.w.add("events[%d]: unknown AG-UI event type %q; skipped", i, sent)
	}
}

// normalizeEventType accepts the wire spelling (TEXT_MESSAGE_START) and the
// SDK spellings TextMessageStart and text_message_start.
func normalizeEventType(t string) string {
	t = strings.TrimSpace(t)
	if !strings.ContainsFunc(t, unicode.IsLower) {
		return t
	}
	if strings.Contains(t, "_") {
		return strings.ToUpper(t)
	}
	var b strings.Builder
	for i, r := range t {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// patch applies a JSON Patch within the per-request operation budget.
func (a *aguiRun) patch(i int, what string, doc, ops any) any {
	if list, ok := ops.([]any); ok {
		a.patchOps += len(list)
	}
	if a.patchOps > maxPatchOps {
		if !a.patchWarned {
			a.patchWarned = true
			a.w.add("events[%d]: more than %d JSON Patch operations; later deltas skipped", i, maxPatchOps)
		}
		return doc
	}
	doc, err := applyPatch(doc, ops, &a.copyBudget)
	if err != nil {
		a.w.add("events[%d]: %s: %v; rest of the delta skipped", i, what, err)
	}
	return doc
}

// messages renders a MESSAGES_SNAPSHOT: messages, tool calls and tool
// results not already shown by streaming events (matched by id).
func (a *aguiRun) messages(i int, v any) {
	list, ok := v.([]any)
	if !ok {
		a.w.add("events[%d]: MESSAGES_SNAPSHOT.messages is not an array; skipped", i)
		return
	}
	for _, e := range list {
		m, ok := asMap(e)
		if !ok {
			continue
		}
		id, role := str(m, "id"), str(m, "role")
		switch role {
		case "tool":
			if tc := str(m, "toolCallId"); !a.results[tc] {
				a.result(i, tc, m["content"])
			}
		case "reasoning":
			if _, seen := a.reasons[id]; !seen || id == "" {
				s := a.open(i, kindReasoning)
				if id != "" {
					a.reasons[id] = s
				}
				s.text.WriteString(contentText(m["content"]))
			}
		case "activity":
			// Activity messages carry their own events.
		default:
			if _, seen := a.texts[id]; (!seen || id == "") && contentText(m["content"]) != "" {
				s := a.open(i, kindText)
				if id != "" {
					a.texts[id] = s
				}
				s.role = role
				s.text.WriteString(contentText(m["content"]))
			}
			calls, _ := m["toolCalls"].([]any)
			for _, c := range calls {
				cm, _ := asMap(c)
				tid := str(cm, "id")
				if _, seen := a.tools[tid]; seen && tid != "" {
					continue
				}
				fn, _ := asMap(cm["function"])
				s := a.open(i, kindTool)
				if tid != "" {
					a.tools[tid] = s
				}
				s.name = str(fn, "name")
				s.text.WriteString(str(fn, "arguments"))
			}
		}
	}
}

// contentText reads message content: a string, or the text parts of a list.
func contentText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, p := range t {
			if m, ok := asMap(p); ok && str(m, "text") != "" {
				parts = append(parts, str(m, "text"))
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
