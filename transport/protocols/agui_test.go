package protocols

import (
	"strings"
	"testing"
)

func mustAGUI(t *testing.T, body string) Page {
	t.Helper()
	p, err := FromAGUI([]byte(body))
	if err != nil {
		t.Fatalf("FromAGUI: %v", err)
	}
	checkPage(t, p)
	return p
}

// A realistic run as an AG-UI agent streams it.
func TestAGUIRealisticRun(t *testing.T) {
	p := mustAGUI(t, `{"title": "Flight search", "events": [
	  {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
	  {"type": "STEP_STARTED", "stepName": "search"},
	  {"type": "TOOL_CALL_START", "toolCallId": "call_1", "toolCallName": "search_flights", "parentMessageId": "m0"},
	  {"type": "TOOL_CALL_ARGS", "toolCallId": "call_1", "delta": "{\"from\": \"BER\", "},
	  {"type": "TOOL_CALL_ARGS", "toolCallId": "call_1", "delta": "\"to\": \"LIS\", "},
	  {"type": "TOOL_CALL_ARGS", "toolCallId": "call_1", "delta": "\"date\": \"2025-07-01\"}"},
	  {"type": "TOOL_CALL_END", "toolCallId": "call_1"},
	  {"type": "TOOL_CALL_RESULT", "messageId": "m1", "toolCallId": "call_1", "role": "tool", "content": "3 flights found"},
	  {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
	  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "I found "},
	  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "three flights; "},
	  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "the cheapest is **TP 537**."},
	  {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
	  {"type": "STEP_FINISHED", "stepName": "search"},
	  {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}
	]}`)
	wantNoWarnings(t, p.Warnings)
	if p.Title != "Flight search" {
		t.Errorf("title = %q", p.Title)
	}
	wantTypes(t, p.Blocks, "stepper", "code", "callout", "text")
	wantJSON(t, "stepper", dataOfBlock(t, p.Blocks[0]), `{"title": "Steps", "steps": [{"label": "search"}], "current": 0}`)
	wantJSON(t, "tool call", dataOfBlock(t, p.Blocks[1]), `{"title": "search_flights", "language": "json",
	  "content": "{\n  \"from\": \"BER\",\n  \"to\": \"LIS\",\n  \"date\": \"2025-07-01\"\n}"}`)
	wantJSON(t, "result", dataOfBlock(t, p.Blocks[2]), `{"style": "info", "title": "Result of search_flights", "content": "3 flights found"}`)
	wantJSON(t, "text", dataOfBlock(t, p.Blocks[3]), `{"title": "Assistant", "content": "I found three flights; the cheapest is **TP 537**."}`)
	if len(p.Actions) != 0 {
		t.Errorf("actions = %+v", p.Actions)
	}
}

// A pending tool call ends the run with an interrupt: an approval page.
func TestAGUIInterruptBecomesApproval(t *testing.T) {
	p := mustAGUI(t, `{"events": [
	  {"type": "TOOL_CALL_START", "toolCallId": "call_9", "toolCallName": "delete_records"},
	  {"type": "TOOL_CALL_ARGS", "toolCallId": "call_9", "delta": "{\"table\": \"users\", \"where\": \"inactive\"}"},
	  {"type": "TOOL_CALL_END", "toolCallId": "call_9"},
	  {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "interrupt", "interrupts": [
	    {"id": "int_1", "reason": "tool_approval", "message": "Delete 1,204 inactive users?", "toolCallId": "call_9"}]}}
	]}`)
	if p.Title != "Agent run" {
		t.Errorf("title = %q", p.Title)
	}
	wantTypes(t, p.Blocks, "code", "callout")
	wantJSON(t, "callout", dataOfBlock(t, p.Blocks[1]), `{"style": "warning", "title": "Approval required",
	  "content": "Delete 1,204 inactive users?\n\nPending tool call: `+"`delete_records`"+` (arguments shown above)."}`)
	wantJSON(t, "actions", p.Actions, `[
	  {"action_id": "approve", "label": "Approve", "style": "primary"},
	  {"action_id": "reject", "label": "Reject", "style": "danger"}]`)

	// The draft shape: outcome "interrupt" with interrupt.payload carrying the call.
	p = mustAGUI(t, `{"title": "Refund", "events": [
	  {"type": "RUN_FINISHED", "outcome": "interrupt", "interrupt": {"id": "i", "reason": "human_approval",
	    "payload": {"message": "Refund $120 to order 4411?", "toolCall": {"name": "refund", "args": {"order": 4411, "amount": 120}}}}}
	]}`)
	wantTypes(t, p.Blocks, "callout")
	content := dataOfBlock(t, p.Blocks[0])["content"].(string)
	for _, want := range []string{"Refund $120 to order 4411?", "`refund`", "\"amount\": 120"} {
		if !strings.Contains(content, want) {
			t.Errorf("callout content %q lacks %q", content, want)
		}
	}
	if len(p.Actions) != 2 {
		t.Errorf("actions = %+v", p.Actions)
	}

	// A result carrying the reason, no interrupt list.
	p = mustAGUI(t, `{"events": [{"type": "RUN_FINISHED", "outcome": {"type": "interrupt"}, "result": {"reason": "policy_hold"}}]}`)
	wantJSON(t, "generic", dataOfBlock(t, p.Blocks[0])["content"], `"The agent paused (policy hold) and is waiting for your decision."`)

	// A normal finish is not an interrupt.
	p = mustAGUI(t, `{"events": [{"type": "RUN_FINISHED", "outcome": {"type": "success"}}]}`)
	if len(p.Blocks) != 0 || len(p.Actions) != 0 {
		t.Errorf("success run: %+v", p)
	}
}

func TestAGUIReasoning(t *testing.T) {
	p := mustAGUI(t, `{"events": [
	  {"type": "REASONING_START", "messageId": "r0"},
	  {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
	  {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "The user wants "},
	  {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "a summary."},
	  {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
	  {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r2", "delta": "Second "},
	  {"type": "REASONING_MESSAGE_CHUNK", "delta": "thought."},
	  {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "r1", "encryptedValue": "xxx"},
	  {"type": "REASONING_END", "messageId": "r0"},
	  {"type": "THINKING_START", "title": "Planning"},
	  {"type": "THINKING_TEXT_MESSAGE_START"},
	  {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "old-style "},
	  {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "thinking"},
	  {"type": "THINKING_TEXT_MESSAGE_END"},
	  {"type": "THINKING_END"}
	]}`)
	wantNoWarnings(t, p.Warnings)
	wantTypes(t, p.Blocks, "rich_text", "rich_text", "rich_text")
	wantJSON(t, "r1", dataOfBlock(t, p.Blocks[0]), `{"title": "Reasoning", "content": "The user wants a summary.", "collapsible": true}`)
	wantJSON(t, "r2", dataOfBlock(t, p.Blocks[1]), `{"title": "Reasoning", "content": "Second thought.", "collapsible": true}`)
	wantJSON(t, "thinking", dataOfBlock(t, p.Blocks[2]), `{"title": "Planning", "content": "old-style thinking", "collapsible": true}`)
}

func TestAGUIUnknownEventWarns(t *testing.T) {
	p := mustAGUI(t, `{"events": [
	  {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "role": "assistant", "delta": "Hi"},
	  {"type": "TEXT_MESSAGE_CHUNK", "delta": " there"},
	  {"type": "RAW", "event": {}}, {"type": "CUSTOM", "name": "x", "value": 1}, {"type": "STATE_DELTA", "delta": []},
	  {"type": "RUN_STARTED"}, 5, {"delta": "no type"},
	  {"type": "FOO"}
	]}`)
	wantTypes(t, p.Blocks, "text", "code")
	wantJSON(t, "chunked text", dataOfBlock(t, p.Blocks[0])["content"], `"Hi there"`)
	wantWarning(t, p.Warnings, `events[8]: unknown AG-UI event type "FOO"; skipped`)
	wantWarning(t, p.Warnings, "events[6]: not an object")
	wantWarning(t, p.Warnings, "events[7]: missing event type")
	if len(p.Warnings) != 3 {
		t.Errorf("warnings = %q", p.Warnings)
	}
}

func TestAGUIRunError(t *testing.T) {
	p := mustAGUI(t, `{"events": [
	  {"type": "RUN_STARTED"},
	  {"type": "RUN_ERROR", "message": "Rate limit exceeded", "code": "429"}
	]}`)
	wantTypes(t, p.Blocks, "callout")
	wantJSON(t, "error", dataOfBlock(t, p.Blocks[0]), `{"style": "error", "title": "Run error (429)", "content": "Rate limit exceeded"}`)
}

func TestAGUIActivityWithA2UI(t *testing.T) {
	p := mustAGUI(t, `{"title": "Order review", "events": [
	  {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
	  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Here is the order."},
	  {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
	  {"type": "ACTIVITY_SNAPSHOT", "messageId": "a2ui-surface-call_1", "activityType": "a2ui-surface", "replace": true,
	   "content": {"a2ui_operations": [
	     {"version": "v0.9", "createSurface": {"surfaceId": "s1", "catalogId": "basic"}},
	     {"version": "v0.9", "updateComponents": {"surfaceId": "s1", "components": [
	       {"id": "root", "component": "Card", "title": "Order", "children": ["total", "odd", "ok"]},
	       {"id": "total", "component": "Text", "text": {"path": "/total"}},
	       {"id": "ok", "component": "Button", "child": "ok_label", "action": {"event": {"name": "confirm"}}},
	       {"id": "ok_label", "component": "Text", "text": "Confirm"},
	       {"id": "odd", "component": "Sparkle"}
	     ]}},
	     {"version": "v0.9", "updateDataModel": {"surfaceId": "s1", "value": {"total": "$42.00"}}}
	   ]}},
	  {"type": "ACTIVITY_DELTA", "messageId": "a2ui-surface-call_1", "activityType": "a2ui-surface",
	   "patch": [{"op": "replace", "path": "/a2ui_operations/2/updateDataModel/value/total", "value": "$40.00"}]},
	  {"type": "ACTIVITY_SNAPSHOT", "messageId": "plan", "activityType": "PLAN", "content": {"steps": ["a"]}}
	]}`)
	wantTypes(t, p.Blocks, "text", "group")
	wantJSON(t, "card", dataOfBlock(t, p.Blocks[1]), `{"title": "Order", "blocks": [
	  {"type": "text", "data": {"content": "$40.00"}}, {"type": "sparkle", "data": {}}]}`)
	wantJSON(t, "actions", p.Actions, `[{"action_id": "confirm", "label": "Confirm"}]`)
	wantWarning(t, p.Warnings, "events[3]: component odd", "Sparkle")
	wantWarning(t, p.Warnings, "events[5]", `activityType "PLAN"`, "no A2UI")
}

func TestAGUIStateAndSteps(t *testing.T) {
	p := mustAGUI(t, `{"events": [
	  {"type": "STEP_STARTED", "stepName": "plan"},
	  {"type": "STATE_SNAPSHOT", "snapshot": {"progress": 0, "todo": ["a", "b"]}},
	  {"type": "STEP_FINISHED", "stepName": "plan"},
	  {"type": "STEP_STARTED", "stepName": "build"},
	  {"type": "STATE_DELTA", "delta": [
	    {"op": "replace", "path": "/progress", "value": 50},
	    {"op": "add", "path": "/todo/-", "value": "c"},
	    {"op": "remove", "path": "/todo/0"},
	    {"op": "copy", "from": "/todo", "path": "/done"}]},
	  {"type": "STEP_STARTED", "stepName": "ship"},
	  {"type": "STEP_FINISHED", "stepName": "ship"},
	  {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/missing"}]}
	]}`)
	wantTypes(t, p.Blocks, "stepper", "code")
	wantJSON(t, "stepper", dataOfBlock(t, p.Blocks[0]), `{"title": "Steps", "steps": [{"label": "plan"}, {"label": "build"}, {"label": "ship"}], "current": 1}`)
	wantJSON(t, "state", dataOfBlock(t, p.Blocks[1]), `{"title": "State", "language": "json",
	  "content": "{\n  \"done\": [\n    \"b\",\n    \"c\"\n  ],\n  \"progress\": 50,\n  \"todo\": [\n    \"b\",\n    \"c\"\n  ]\n}"}`)
	wantWarning(t, p.Warnings, "events[7]: STATE_DELTA", "/missing")
}

func TestAGUIChunksMessagesSnapshotAndSpellings(t *testing.T) {
	p := mustAGUI(t, `{"events": [
	  {"type": "ToolCallChunk", "toolCallId": "c1", "toolCallName": "lookup", "delta": "not json"},
	  {"type": "tool_call_chunk", "delta": " at all"},
	  {"type": "TOOL_CALL_RESULT", "toolCallId": "c1", "content": "{\"hits\": 2}"},
	  {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "now"},
	  {"type": "MESSAGES_SNAPSHOT", "messages": [
	    {"id": "u1", "role": "user", "content": "What time is it?"},
	    {"id": "a1", "role": "assistant", "content": "", "toolCalls": [
	      {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},
	      {"id": "c3", "type": "function", "function": {"name": "clock", "arguments": "{\"tz\":\"UTC\"}"}}]},
	    {"id": "t3", "role": "tool", "toolCallId": "c3", "content": "12:00"},
	    {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "dup"}]}
	]}`)
	wantNoWarnings(t, p.Warnings)
	wantTypes(t, p.Blocks, "code", "callout", "code", "text", "code", "callout")
	wantJSON(t, "non-JSON args", dataOfBlock(t, p.Blocks[0]), `{"title": "lookup", "language": "text", "content": "not json at all"}`)
	wantJSON(t, "JSON result", dataOfBlock(t, p.Blocks[1])["content"], "\"```json\\n{\\n  \\\"hits\\\": 2\\n}\\n```\"")
	wantJSON(t, "no args", dataOfBlock(t, p.Blocks[2]), `{"title": "now", "language": "json", "content": "{}"}`)
	wantJSON(t, "user message", dataOfBlock(t, p.Blocks[3]), `{"title": "User", "content": "What time is it?"}`)
	wantJSON(t, "snapshot call", dataOfBlock(t, p.Blocks[4])["title"], `"clock"`)
	wantJSON(t, "snapshot result", dataOfBlock(t, p.Blocks[5]), `{"style": "info", "title": "Result of clock", "content": "12:00"}`)
}

func TestAGUIErrors(t *testing.T) {
	cases := []struct {
		name, body, field, constraint string
	}{
		{"malformed", `{"events": [`, "", "json"},
		{"array", `[{"type": "RUN_STARTED"}]`, "", "type"},
		{"missing events", `{"title": "x"}`, "events", "required"},
		{"null events", `{"events": null}`, "events", "required"},
		{"events not array", `{"events": {}}`, "events", "type"},
		{"empty events", `{"title": "x", "events": []}`, "events", "min_items"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := FromAGUI([]byte(c.body))
			wantError(t, err, c.field, c.constraint)
		})
	}
}
