//go:build linux

// Package cluster_test runs several nodes on one PostgreSQL database, as a cluster
// behind a load balancer does: whichever node a request reaches, a page has one
// decision and every later one is a 409.
package cluster_test

import (
	"fmt"
	"sync"
	"testing"

	"folio/persistence/pgtest"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// nodes starts n nodes sharing one fresh PostgreSQL database.
func nodes(t *testing.T, n int) []*nodetest.Env {
	t.Helper()
	url := pgtest.URL(t)
	out := make([]*nodetest.Env, n)
	for i := range out {
		out[i] = nodetest.Open(t, t.TempDir(), nil, func(c *node.Config) { c.Store = url })
	}
	return out
}

// TestStaleNodeDecidesAgain: node B has the page in memory, node A completes it; B's
// actor must not decide on what it remembers: its commit finds a newer revision,
// reloads, and answers 409 as A itself would.
func TestStaleNodeDecidesAgain(t *testing.T) {
	ns := nodes(t, 2)
	a, b := ns[0], ns[1]
	key, _ := a.Register("stale")
	id := a.Publish(key, nil)
	if p := b.Must(200, "GET", "/v1/pages/"+id, key, nil); p["status"] != "active" {
		t.Fatalf("node B reads status %v", p["status"])
	}
	a.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, map[string]any{"actor": map[string]any{"identity": "a@example.com"}})
	r := b.Do("POST", "/v1/pages/"+id+"/actions/reject", key, map[string]any{"actor": map[string]any{"identity": "b@example.com"}})
	if r.Status != 409 || r.ErrCode(t) != "CONFLICT" {
		t.Fatalf("a second decision through the stale node: %d %s, want 409 CONFLICT", r.Status, nodetest.Excerpt(r.Body, 300))
	}
	p := b.Must(200, "GET", "/v1/pages/"+id, key, nil)
	if p["status"] != "completed" || p["stats"].(map[string]any)["action_count"].(float64) != 1 {
		t.Fatalf("node B after the conflict: status %v stats %v", p["status"], p["stats"])
	}
	// Blocks appended through B, then through A (whose copy is older): A's commit
	// reloads rather than overwrite, so the page holds both blocks.
	text := func(s string) map[string]any {
		return map[string]any{"type": "text", "data": map[string]any{"content": s}}
	}
	id = a.Publish(key, nil)
	a.Must(200, "GET", "/v1/pages/"+id, key, nil)
	b.Must(200, "PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{text("from B")}})
	a.Must(200, "PATCH", "/v1/pages/"+id+"/blocks", key, map[string]any{"blocks": []any{text("from A")}})
	p = b.Must(200, "GET", "/v1/pages/"+id, key, nil)
	contents := []string{}
	for _, bl := range p["blocks"].([]any) {
		if c, ok := bl.(map[string]any)["data"].(map[string]any)["content"].(string); ok {
			contents = append(contents, c)
		}
	}
	if n := len(contents); n < 2 || contents[n-2] != "from B" || contents[n-1] != "from A" {
		t.Fatalf("blocks after appends through B then A: %q (version %v)", contents, p["version"])
	}
}

// TestOneWinnerAcrossNodes: racers spread over three nodes act on the same pages at
// once; every page has exactly one 200, the rest 409, and one action.executed entry.
func TestOneWinnerAcrossNodes(t *testing.T) {
	ns := nodes(t, 3)
	key, _ := ns[0].Register("racers")
	const pages, racers = 12, 9
	ids := make([]string, pages)
	for i := range ids {
		ids[i] = ns[0].Publish(key, nil)
		for _, n := range ns[1:] { // every node holds the page in memory
			n.Must(200, "GET", "/v1/pages/"+ids[i], key, nil)
		}
	}
	type outcome struct {
		status int
		code   string
	}
	res := make([][]outcome, pages)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for p := range ids {
		res[p] = make([]outcome, racers)
		for r := 0; r < racers; r++ {
			wg.Add(1)
			go func(p, r int) {
				defer wg.Done()
				<-start
				action := []string{"approve", "reject"}[r%2]
				resp := ns[r%len(ns)].Do("POST", "/v1/pages/"+ids[p]+"/actions/"+action, key,
					map[string]any{"actor": map[string]any{"identity": fmt.Sprintf("r%d@example.com", r)}})
				res[p][r].status = resp.Status
				if resp.Status != 200 {
					res[p][r].code = resp.ErrCode(t)
				}
			}(p, r)
		}
	}
	close(start)
	wg.Wait()
	for p, id := range ids {
		wins := 0
		for r, o := range res[p] {
			switch {
			case o.status == 200:
				wins++
			case o.status == 409 && o.code == "CONFLICT":
			default:
				t.Errorf("page %d racer %d (node %d): %d %s", p, r, r%len(ns), o.status, o.code)
			}
		}
		if wins != 1 {
			t.Errorf("page %s: %d winners across the nodes, want 1", id, wins)
		}
		items := ns[p%len(ns)].Must(200, "GET", "/v1/pages/"+id+"/audit", key, nil)["items"].([]any)
		executed := 0
		for _, it := range items {
			if it.(map[string]any)["event_type"] == "action.executed" {
				executed++
			}
		}
		if executed != 1 {
			t.Errorf("page %s: %d action.executed audit entries, want 1", id, executed)
		}
	}
	for i, n := range ns {
		if v := n.Must(200, "GET", "/v1/audit/verify", key, nil); v["status"] != "valid" {
			t.Errorf("node %d: the tenant's chain does not verify: %v", i, v)
		}
	}
}
