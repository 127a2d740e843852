package delivery_test

import (
	"strings"
	"testing"
	"time"

	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// clocked starts a node whose time the test moves (the deadline loop reads the index
// every 50 ms of real time, against the node's clock).
func clocked(t *testing.T, opts ...nodetest.Option) (*nodetest.Env, *nodetest.Clock) {
	clk := nodetest.NewClock(time.Now().UTC().Truncate(time.Second))
	return nodetest.Open(t, t.TempDir(), clk, append([]nodetest.Option{allowPrivate}, opts...)...), clk
}

// auditOf lists the page's audit entries of a type.
func auditOf(e *nodetest.Env, key, id, typ string) []map[string]any {
	m := e.Must(200, "GET", "/v1/pages/"+id+"/audit?per_page=200", key, nil)
	var out []map[string]any
	for _, it := range m["items"].([]any) {
		if en := it.(map[string]any); en["event_type"] == typ {
			out = append(out, en)
		}
	}
	return out
}

// TestDefaultOutcomeIsDecidedBySystemOnce: a page whose due time passes with nobody
// deciding gets its default outcome from the deadline loop (not from a request),
// recorded as decided by system with auth_method timeout in the callback, the
// audit, the agent stream and wait; a person deciding afterwards gets 409.
func TestDefaultOutcomeIsDecidedBySystemOnce(t *testing.T) {
	e, clk := clocked(t)
	key, _ := e.Register("deadline")
	rv := newReceiver(t, nil)
	pub := publish(e, key, map[string]any{
		"on_action":  map[string]any{"default_url": rv.URL()},
		"due_in":     3600,
		"on_timeout": map[string]any{"action_id": "reject"},
	})
	id := pub["pageId"].(string)
	pg := e.Must(200, "GET", "/v1/pages/"+id, key, nil)
	want := clk.Now().Add(time.Hour)
	if due, _ := time.Parse(time.RFC3339, pg["due_at"].(string)); !due.Equal(want) || pg["overdue"] != false {
		t.Fatalf("page due_at %v overdue %v, want %v and false", pg["due_at"], pg["overdue"], want)
	}

	clk.Advance(time.Hour + time.Second)
	exec := rv.waitEvents("action.executed", 1, 5*time.Second)[0].json(t)
	actor := exec["actor"].(map[string]any)
	if actor["identity"] != "system" || actor["auth_method"] != "timeout" {
		t.Errorf("callback actor = %v, want system/timeout", actor)
	}
	if d := exec["data"].(map[string]any); d["action_id"] != "reject" || d["decision"] != "rejected" {
		t.Errorf("callback data = %v", d)
	}
	over := rv.waitEvents("page.overdue", 1, 5*time.Second)[0].json(t)["data"].(map[string]any)
	if over["on_timeout"] != "action" || over["action_id"] != "reject" || over["step_id"] != nil {
		t.Errorf("page.overdue data = %v", over)
	}

	if r := act(e, key, id, "approve", "late@example.com"); r.Status != 409 {
		t.Errorf("a person deciding after the default outcome: %d %s, want 409", r.Status, r.Body)
	}
	w := e.Must(200, "GET", "/v1/pages/"+id+"/wait?timeout=1s", key, nil)
	if a := w["actor"].(map[string]any); w["status"] != "completed" || w["decision"] != "rejected" || a["identity"] != "system" || a["auth_method"] != "timeout" {
		t.Errorf("wait = %v", w)
	}
	ex := auditOf(e, key, id, "action.executed")
	if len(ex) != 1 || ex[0]["actor"] != "system" {
		t.Fatalf("audit action.executed = %v, want one by system", ex)
	}
	if d := ex[0]["details"].(map[string]any); d["reason"] != "timeout" || d["auth_method"] != "timeout" {
		t.Errorf("audit details = %v, want reason and auth_method timeout", d)
	}
	if n := len(auditOf(e, key, id, "page.overdue")); n != 1 {
		t.Errorf("%d page.overdue audit entries, want 1", n)
	}
	ev := e.Must(200, "GET", "/v1/agent/inbox?limit=100", key, nil)
	seen := map[string]int{}
	for _, it := range ev["events"].([]any) {
		m := it.(map[string]any)
		if m["pageId"] == id {
			seen[m["type"].(string)]++
			if m["type"] == "action.executed" {
				if a := m["actor"].(map[string]any); a["identity"] != "system" || a["auth_method"] != "timeout" {
					t.Errorf("agent event actor = %v", a)
				}
			}
		}
	}
	if seen["action.executed"] != 1 || seen["page.overdue"] != 1 || seen["page.completed"] != 1 {
		t.Errorf("agent events of the page = %v, want one action.executed, page.overdue, page.completed", seen)
	}
}

// TestStepRemindersThenEscalation: a step's reminders go to the person who still
// has to act (by e-mail) and to the page's webhook, at most remind.max; when the
// step's due time passes it is escalated to another person, who is told and may
// then decide.
func TestStepRemindersThenEscalation(t *testing.T) {
	mail := nodetest.StartSMTP(t)
	e, clk := clocked(t, func(c *node.Config) { c.SMTPAddr = mail.Addr() })
	key, _ := e.Register("reminders")
	rv, hook := newReceiver(t, nil), newReceiver(t, nil)
	id := publish(e, key, map[string]any{
		"on_action": map[string]any{"default_url": rv.URL()},
		"notify":    map[string]any{"channels": []any{map[string]any{"type": "webhook", "target": hook.URL()}}},
		"approval_chain": map[string]any{"steps": []any{
			map[string]any{"step_id": "lead", "assignees": []any{"alice@example.com"}, "due_in": 600,
				"remind":     map[string]any{"every_seconds": 60, "max": 2},
				"on_timeout": map[string]any{"escalate_to": []any{"boss@example.com"}}},
			map[string]any{"step_id": "sec", "assignees": []any{"carol@example.com"}},
		}},
	})["pageId"].(string)

	clk.Advance(61 * time.Second)
	r1 := rv.waitEvents("approval.reminder_sent", 1, 5*time.Second)[0].json(t)["data"].(map[string]any)
	if r1["step_id"] != "lead" || r1["reminder"] != 1.0 || r1["max"] != 2.0 || len(r1["recipients"].([]any)) != 1 || r1["recipients"].([]any)[0] != "alice@example.com" {
		t.Errorf("reminder 1 = %v", r1)
	}
	m := mail.Wait(t, 5*time.Second, func(m nodetest.Mail) bool { return strings.HasPrefix(m.Subject, "Reminder:") })
	if len(m.To) != 1 || m.To[0] != "alice@example.com" || !strings.Contains(m.Text, "Reminder 1 of 2") {
		t.Errorf("reminder mail to %v: %q\n%s", m.To, m.Subject, m.Text)
	}
	if wh := hook.waitEvents("approval.reminder_sent", 1, 5*time.Second)[0].json(t)["data"].(map[string]any); wh["notice"] == nil {
		t.Errorf("webhook reminder data = %v", wh)
	}

	clk.Advance(60 * time.Second)
	rv.waitEvents("approval.reminder_sent", 2, 5*time.Second)
	clk.Advance(480 * time.Second) // 601 s: past the due time; no third reminder
	over := rv.waitEvents("page.overdue", 1, 5*time.Second)[0].json(t)["data"].(map[string]any)
	if over["step_id"] != "lead" || over["on_timeout"] != "escalate" {
		t.Errorf("page.overdue = %v", over)
	}
	esc := rv.waitEvents("approval.escalated", 1, 5*time.Second)[0].json(t)["data"].(map[string]any)
	if got := esc["escalate_to"].([]any); len(got) != 1 || got[0] != "boss@example.com" || esc["due_at"] != nil {
		t.Errorf("approval.escalated = %v", esc)
	}
	mail.Wait(t, 5*time.Second, func(m nodetest.Mail) bool { return len(m.To) == 1 && m.To[0] == "boss@example.com" })
	if n := len(rv.events("approval.reminder_sent")); n != 2 {
		t.Errorf("%d reminders, want remind.max = 2", n)
	}
	if r := act(e, key, id, "approve", "boss@example.com"); r.Status != 200 {
		t.Fatalf("the escalated person deciding: %d %s", r.Status, r.Body)
	}
	ap := e.Must(200, "GET", "/v1/pages/"+id+"/approval", key, nil)
	if ap["current_step"] != "sec" {
		t.Errorf("after the escalated decision current_step = %v", ap["current_step"])
	}
}

// TestDeadlineValidation: bad deadline fields are 400s naming the field and the
// constraint.
func TestDeadlineValidation(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("deadline-rules")
	step := func(extra map[string]any) map[string]any {
		s := map[string]any{"assignees": []any{"a@example.com"}}
		for k, v := range extra {
			s[k] = v
		}
		return map[string]any{"approval_chain": map[string]any{"steps": []any{s}}}
	}
	eleven := []any{}
	for i := 0; i < 11; i++ {
		eleven = append(eleven, strings.Repeat("x", i+1)+"@example.com")
	}
	cases := []struct {
		name              string
		body              map[string]any
		field, constraint string
	}{
		{"due in the past", map[string]any{"due_at": "2001-01-01T00:00:00Z"}, "due_at", "future"},
		{"both", map[string]any{"due_at": "2999-01-01T00:00:00Z", "due_in": 60}, "due_in", "exclusive"},
		{"due_in zero", map[string]any{"due_in": 0}, "due_in", "range"},
		{"due_in text", map[string]any{"due_in": "soon"}, "due_in", "type"},
		{"unknown action", map[string]any{"due_in": 60, "on_timeout": map[string]any{"action_id": "ship"}}, "on_timeout.action_id", "known_action"},
		{"both outcomes", map[string]any{"due_in": 60, "on_timeout": map[string]any{"action_id": "reject", "escalate_to": []any{"b@example.com"}}}, "on_timeout", "one_of"},
		{"timeout without due", map[string]any{"on_timeout": map[string]any{"action_id": "reject"}}, "on_timeout", "requires_due"},
		{"remind too often", map[string]any{"remind": map[string]any{"every_seconds": 10, "max": 3}}, "remind.every_seconds", "range"},
		{"too many reminders", map[string]any{"remind": map[string]any{"every_seconds": 60, "max": 11}}, "remind.max", "range"},
		{"too many escalations", map[string]any{"due_in": 60, "on_timeout": map[string]any{"escalate_to": eleven}}, "on_timeout.escalate_to", "range"},
		{"step due in the past", step(map[string]any{"due_at": "2001-01-01T00:00:00Z"}), "approval_chain.steps[0].due_at", "future"},
		{"step neutral default", step(map[string]any{"due_in": 60, "on_timeout": map[string]any{"action_id": "comment"}}), "approval_chain.steps[0].on_timeout.action_id", "decides"},
	}
	for _, c := range cases {
		body := map[string]any{"title": "Deadline", "actions": []any{
			map[string]any{"action_id": "approve"}, map[string]any{"action_id": "reject"}, map[string]any{"action_id": "comment"}}}
		for k, v := range c.body {
			body[k] = v
		}
		r := e.Do("POST", "/v1/publish", key, body)
		if r.Status != 400 {
			t.Errorf("%s: %d %s, want 400", c.name, r.Status, r.Body)
			continue
		}
		d := r.ErrDetails(t)
		if d["field"] != c.field || d["constraint"] != c.constraint {
			t.Errorf("%s: details %v, want field %s constraint %s", c.name, d, c.field, c.constraint)
		}
	}
}
