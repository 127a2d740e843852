package protocols

import (
	"encoding/json"
	"fmt"
	"strings"

	"folio/actors/model/blocks"
)

type slotKind int

const (
	kindText      slotKind = iota // text: joined message deltas
	kindTool                      // code: joined tool-call argument deltas
	kindReasoning                 // rich_text, collapsible
	kindFixed                     // a block known when opened (result, error, interrupt)
	kindSteps                     // the one stepper
	kindState                     // the one state code block
	kindActivity                  // A2UI carried by ACTIVITY_SNAPSHOT, translated at the end
)

// slot is one place in the page, opened by the event at index at.
type slot struct {
	kind   slotKind
	at     int
	role   string          // text
	name   string          // tool name
	title  string          // reasoning span title
	text   strings.Builder // joined deltas
	typ    string          // fixed block type
	data   map[string]any  // fixed block data
	acts   []Action        // fixed: actions it brings (interrupts)
	value  any             // state, activity content
	steps  []*step
	byName map[string]*step
}

type step struct {
	name     string
	finished bool
	seq      int // order of its last start
}

func (a *aguiRun) open(i int, k slotKind) *slot {
	s := &slot{kind: k, at: i}
	a.slots = append(a.slots, s)
	return s
}

func (a *aguiRun) text(i int, id string) *slot {
	if s, ok := a.texts[id]; ok {
		return s
	}
	s := a.open(i, kindText)
	a.texts[id] = s
	return s
}

func (a *aguiRun) tool(i int, id string) *slot {
	if s, ok := a.tools[id]; ok {
		return s
	}
	s := a.open(i, kindTool)
	a.tools[id] = s
	return s
}

func (a *aguiRun) reasoning(i int, id string) *slot {
	if s, ok := a.reasons[id]; ok {
		return s
	}
	s := a.open(i, kindReasoning)
	a.reasons[id] = s
	return s
}

func (a *aguiRun) stateSlot(i int) *slot {
	if a.state == nil {
		a.state = a.open(i, kindState)
	}
	return a.state
}

func (a *aguiRun) fixed(i int, typ string, data map[string]any) *slot {
	s := a.open(i, kindFixed)
	s.typ, s.data = typ, data
	return s
}

// result shows a tool result as an info callout naming the tool.
func (a *aguiRun) result(i int, toolCallID string, content any) {
	title := "Tool result"
	if s, ok := a.tools[toolCallID]; ok && s.name != "" {
		title = "Result of " + s.name
	}
	body := textOrJSON(content)
	if strings.TrimSpace(body) == "" {
		body = "(empty result)"
	}
	a.results[toolCallID] = true
	a.fixed(i, "callout", map[string]any{"style": "info", "title": title, "content": body})
}

func (a *aguiRun) runError(i int, ev map[string]any) {
	msg := str(ev, "message")
	if strings.TrimSpace(msg) == "" {
		msg = "The run failed."
	}
	title := "Run error"
	if code := str(ev, "code"); code != "" {
		title += " (" + code + ")"
	}
	a.fixed(i, "callout", map[string]any{"style": "error", "title": title, "content": msg})
}

// step records a STEP_STARTED / STEP_FINISHED, keyed by step name.
func (a *aguiRun) step(i int, started bool, name string) {
	if name == "" {
		a.w.add("events[%d]: step event without stepName; skipped", i)
		return
	}
	if a.steps == nil {
		a.steps = a.open(i, kindSteps)
		a.steps.byName = map[string]*step{}
	}
	st, ok := a.steps.byName[name]
	if !ok {
		st = &step{name: name}
		a.steps.byName[name] = st
		a.steps.steps = append(a.steps.steps, st)
	}
	if started || st.seq == 0 {
		a.stepSeq++
		st.seq = a.stepSeq
	}
	st.finished = !started
}

// page encodes the slots in order.
func (a *aguiRun) page(title string) Page {
	var acts actionSet
	var out []blocks.Block
	for _, s := range a.slots {
		bl, extra := a.finish(s)
		out = append(out, bl...)
		for _, act := range extra {
			acts.add(act)
		}
	}
	if len(out) == 0 {
		a.w.add("events: no event produced a block")
	}
	return Page{Title: title, Blocks: out, Actions: acts.list, Warnings: a.w.result()}
}

func (a *aguiRun) finish(s *slot) ([]blocks.Block, []Action) {
	switch s.kind {
	case kindText:
		content := s.text.String()
		if strings.TrimSpace(content) == "" {
			return nil, nil
		}
		role := s.role
		if role == "" {
			role = "assistant"
		}
		return one("text", map[string]any{"title": capitalize(role), "content": content}), nil
	case kindTool:
		title := s.name
		if title == "" {
			title = "Tool call"
		}
		content, lang := strings.TrimSpace(s.text.String()), "json"
		if content == "" {
			content = "{}"
		} else if p, ok := prettyRaw(content); ok {
			content = p
		} else {
			lang = "text"
		}
		return one("code", map[string]any{"title": title, "content": content, "language": lang}), nil
	case kindReasoning:
		content := s.text.String()
		if strings.TrimSpace(content) == "" {
			return nil, nil
		}
		title := s.title
		if title == "" {
			title = "Reasoning"
		}
		return one("rich_text", map[string]any{"title": title, "content": content, "collapsible": true}), nil
	case kindSteps:
		steps := make([]any, 0, len(s.steps))
		current, best := len(s.steps)-1, 0
		for i, st := range s.steps {
			steps = append(steps, map[string]any{"label": st.name})
			if !st.finished && st.seq > best {
				current, best = i, st.seq
			}
		}
		return one("stepper", map[string]any{"title": "Steps", "steps": steps, "current": current}), nil
	case kindState:
		return one("code", map[string]any{"title": "State", "language": "json", "content": marshal(s.value, true)}), nil
	case kindActivity:
		return a.finishActivity(s)
	}
	return one(s.typ, s.data), s.acts
}

func one(typ string, data map[string]any) []blocks.Block {
	b, err := json.Marshal(data)
	if err != nil {
		b = []byte(`{}`)
	}
	return []blocks.Block{{Type: typ, Data: b}}
}

func (a *aguiRun) warnAt(i int, format string, args ...any) {
	a.w.add("events[%d]: %s", i, fmt.Sprintf(format, args...))
}
