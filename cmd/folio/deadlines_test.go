package main

import (
	"testing"
	"time"

	"folio/transport/node/nodetest/ports"
)

// pageEvents counts the agent events of one page by type (the agent inbox is read
// from the store, so reading it fires nothing), with the reminder numbers seen.
func pageEvents(t *testing.T, p *proc, key, id string) (map[string]int, map[float64]int, []map[string]any) {
	t.Helper()
	st, m, err := p.call("GET", "/v1/agent/inbox?limit=500", key, nil)
	if err != nil || st != 200 {
		t.Fatalf("agent inbox: %d %v %v", st, err, m)
	}
	types, reminders := map[string]int{}, map[float64]int{}
	var executed []map[string]any
	for _, it := range m["events"].([]any) {
		ev := it.(map[string]any)
		if ev["pageId"] != id {
			continue
		}
		types[ev["type"].(string)]++
		switch ev["type"] {
		case "approval.reminder_sent":
			reminders[ev["data"].(map[string]any)["reminder"].(float64)]++
		case "action.executed":
			executed = append(executed, ev)
		}
	}
	return types, reminders, executed
}

// TestKill9DeadlineTimersFireOnce: the real binary is killed with a reminder sent
// and another reminder and a default outcome pending; after the restart the
// pending ones fire from the durable index, each once: reminders 1 and 2 once
// each, one page.overdue, one action.executed by system (auth_method timeout).
func TestKill9DeadlineTimersFireOnce(t *testing.T) {
	dir, addr := t.TempDir(), ports.Free(t)
	flags := []string{"--remind-min-interval", "1s"}
	p := start(t, dir, addr, flags...)
	_, reg, err := p.call("POST", "/v1/auth/agent/register", "", map[string]any{"name": "deadline-crash"})
	if err != nil {
		t.Fatal(err)
	}
	key := reg["apiKey"].(string)
	body := publishBody(1)
	body["remind"] = map[string]any{"every_seconds": 1, "max": 2}
	body["due_in"] = 4
	body["on_timeout"] = map[string]any{"action_id": "reject"}
	st, m, err := p.call("POST", "/v1/publish", key, body)
	if err != nil || st != 201 {
		t.Fatalf("publish: %d %v %v", st, err, m)
	}
	id := m["pageId"].(string)

	waitFor(t, 10*time.Second, "reminder 1", func() bool {
		types, _, _ := pageEvents(t, p, key, id)
		return types["approval.reminder_sent"] >= 1
	})
	if err := p.cmd.Process.Kill(); err != nil { // kill -9
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	p2 := start(t, dir, ports.Free(t), flags...)
	var types map[string]int
	var reminders map[float64]int
	var executed []map[string]any
	waitFor(t, 15*time.Second, "the default outcome after the restart", func() bool {
		types, reminders, executed = pageEvents(t, p2, key, id)
		return types["action.executed"] >= 1
	})
	if len(executed) != 1 || types["page.overdue"] != 1 || types["page.completed"] != 1 {
		t.Errorf("events after the restart: %v, want one action.executed, page.overdue, page.completed", types)
	}
	if a := executed[0]["actor"].(map[string]any); a["identity"] != "system" || a["auth_method"] != "timeout" {
		t.Errorf("action.executed actor = %v", a)
	}
	if types["approval.reminder_sent"] < 1 || types["approval.reminder_sent"] > 2 || reminders[1] != 1 || reminders[2] > 1 {
		t.Errorf("reminders %v (%d events), want reminder 1 once and reminder 2 at most once", reminders, types["approval.reminder_sent"])
	}
	st, pg, _ := p2.call("GET", "/v1/pages/"+id, key, nil)
	if st != 200 || pg["status"] != "completed" || pg["decision"] != "rejected" {
		t.Errorf("page after the restart: %d status %v decision %v", st, pg["status"], pg["decision"])
	}
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
