//go:build linux

package cluster_test

import (
	"testing"
	"time"

	"folio/actors/page"
	"folio/persistence/pgtest"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestDeadlineTimersFireOnceOnThreeNodes: three nodes share one database and one
// clock, and every node holds every page in memory; when the pages' reminders and
// due times come, each node's deadline loop tells its own actor, and still each
// timer fires once in total: one reminder, one page.overdue and one default outcome
// per page (the page's commit check lets one node fire, the others reload and find
// it done).
func TestDeadlineTimersFireOnceOnThreeNodes(t *testing.T) {
	url := pgtest.URL(t)
	clk := nodetest.NewClock(time.Now().UTC().Truncate(time.Second))
	ns := make([]*nodetest.Env, 3)
	for i := range ns {
		ns[i] = nodetest.Open(t, t.TempDir(), clk, func(c *node.Config) {
			c.Store = url
			c.Deadlines = page.DeadlineLimits{RemindFloor: time.Second}
		})
	}
	key, _ := ns[0].Register("deadlines-cluster")
	const pages = 12
	ids := make([]string, pages)
	for i := range ids {
		ids[i] = ns[i%3].Publish(key, map[string]any{
			"due_in": 60, "remind": map[string]any{"every_seconds": 30, "max": 1},
			"on_timeout": map[string]any{"action_id": "approve"},
		})
		for _, e := range ns { // every node holds the page
			e.Must(200, "GET", "/v1/pages/"+ids[i], key, nil)
		}
	}
	count := func() (reminders, overdue, executed int) {
		m := ns[0].Must(200, "GET", "/v1/agent/inbox?limit=500", key, nil)
		for _, it := range m["events"].([]any) {
			switch it.(map[string]any)["type"] {
			case "approval.reminder_sent":
				reminders++
			case "page.overdue":
				overdue++
			case "action.executed":
				executed++
			}
		}
		return
	}
	t0 := time.Now()
	clk.Advance(31 * time.Second)
	waitCount(t, "a reminder per page", func() bool { r, _, _ := count(); return r >= pages })
	t.Logf("reminders after %v", time.Since(t0))
	clk.Advance(30 * time.Second)
	waitCount(t, "a default outcome per page", func() bool { _, _, x := count(); return x >= pages })
	t.Logf("outcomes after %v", time.Since(t0))
	for _, id := range ids { // every node, asked, fires nothing more
		for _, e := range ns {
			if p := e.Must(200, "GET", "/v1/pages/"+id, key, nil); p["status"] != "completed" || p["decision"] != "approved" {
				t.Fatalf("page %s on a node: status %v decision %v", id, p["status"], p["decision"])
			}
		}
	}
	if r, o, x := count(); r != pages || o != pages || x != pages {
		t.Errorf("%d reminders, %d page.overdue, %d action.executed for %d pages: each timer must fire once in total", r, o, x, pages)
	}
}

func waitCount(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
