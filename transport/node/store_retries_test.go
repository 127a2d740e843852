//go:build linux

package node_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/persistence/pgtest"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// TestStoreRetriesCountedAtMetrics: two nodes on one PostgreSQL database
// publishing for the same tenant and deciding the same pages write the same
// records (the tenant's chain head, the pages' decision records), so some of
// their functions lose the race and are run again; every such re-run shows at
// GET /metrics as folio_store_retries_total (by reason), beside
// folio_store_commits_total, and no caller sees it (one winner per page).
func TestStoreRetriesCountedAtMetrics(t *testing.T) {
	url := pgtest.URL(t)
	onStore := func(c *node.Config) { c.Store = url }
	a := nodetest.New(t, onStore)
	b := nodetest.New(t, onStore)
	key, _ := a.Register("racer")

	retries := func() (float64, float64) {
		var sum, commits float64
		for _, e := range []*nodetest.Env{a, b} {
			r := e.Do("GET", "/metrics", "", nil)
			if r.Status != 200 {
				t.Fatalf("GET /metrics: %d", r.Status)
			}
			sc := bufio.NewScanner(bytes.NewReader(r.Body))
			for sc.Scan() {
				line := sc.Text()
				f := strings.Fields(line)
				if len(f) != 2 {
					continue
				}
				v, err := strconv.ParseFloat(f[1], 64)
				if err != nil {
					continue
				}
				switch {
				case strings.HasPrefix(line, "folio_store_retries_total{"):
					sum += v
				case strings.HasPrefix(line, "folio_store_commits_total "):
					commits += v
				}
			}
		}
		return sum, commits
	}
	if got, _ := retries(); got != 0 {
		t.Fatalf("folio_store_retries_total before any race = %v, want 0", got)
	}

	body, _ := json.Marshal(map[string]any{"title": "Deploy?", "blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "x"}}},
		"actions": []any{map[string]any{"action_id": "approve"}, map[string]any{"action_id": "reject"}}})
	post := func(e *nodetest.Env, path string, body []byte) (int, map[string]any) {
		req, _ := http.NewRequest("POST", e.Srv.URL+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := e.Srv.Client().Do(req)
		if err != nil {
			return 0, nil
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m
	}
	// Rounds of 16 concurrent publishes, 8 through each node, then 8 racers on each
	// new page, 4 through each node: the nodes write the tenant's chain head and the
	// same pages' decision records at once. A function that waited for another
	// node's lock past its turn, or created a record another node created first, is
	// run again and counted. Bounded by 40 rounds and 20 s.
	deadline := time.Now().Add(20 * time.Second)
	var got, commits float64
	for round := 0; round < 40 && time.Now().Before(deadline); round++ {
		var wg sync.WaitGroup
		ids := make([]string, 16)
		statuses := make([]int, 16)
		for i := range ids {
			e := a
			if i%2 == 1 {
				e = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				var m map[string]any
				statuses[i], m = post(e, "/v1/publish", body)
				ids[i], _ = m["pageId"].(string)
			}()
		}
		wg.Wait()
		for _, st := range statuses {
			if st != 201 {
				t.Fatalf("publish: status %d, want 201 (a lost race is run again, never the caller's failure)", st)
			}
		}
		wins := make([]int, len(ids)*8)
		for p, id := range ids {
			for r := 0; r < 8; r++ {
				e := a
				if r%2 == 1 {
					e = b
				}
				wg.Add(1)
				go func() { defer wg.Done(); wins[p*8+r], _ = post(e, "/v1/pages/"+id+"/actions/approve", nil) }()
			}
		}
		wg.Wait()
		for p := range ids {
			n := 0
			for _, st := range wins[p*8 : p*8+8] {
				switch st {
				case 200:
					n++
				case 409:
				default:
					t.Fatalf("a racing decision answered %d, want 200 or 409", st)
				}
			}
			if n != 1 {
				t.Fatalf("page %s: %d decisions answered 200, want one", ids[p], n)
			}
		}
		if got, commits = retries(); got > 0 {
			break
		}
	}
	if got == 0 {
		t.Fatalf("no folio_store_retries_total after racing publishes and decisions on two nodes (%v commits)", commits)
	}
	if commits == 0 {
		t.Fatalf("folio_store_commits_total = 0 after successful publishes")
	}
	t.Logf("%v retries over %v group commits", got, commits)
}
