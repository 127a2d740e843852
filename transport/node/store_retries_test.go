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
// publishing for the same tenant write the same records (its audit chain head
// and sequences), so some of their group transactions lose the race and are run
// again; every such re-run shows at GET /metrics as folio_store_retries_total
// (by reason), beside folio_store_commits_total.
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

	body, _ := json.Marshal(map[string]any{"title": "Deploy?", "blocks": []any{map[string]any{"type": "text", "data": map[string]any{"content": "x"}}}})
	publish := func(e *nodetest.Env) int {
		req, _ := http.NewRequest("POST", e.Srv.URL+"/v1/publish", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := e.Srv.Client().Do(req)
		if err != nil {
			return 0
		}
		_ = res.Body.Close()
		return res.StatusCode
	}
	// Rounds of 16 concurrent publishes, 8 through each node, until a re-run is
	// counted: bounded by 40 rounds and 10 s.
	deadline := time.Now().Add(10 * time.Second)
	var got, commits float64
	for round := 0; round < 40 && time.Now().Before(deadline); round++ {
		var wg sync.WaitGroup
		statuses := make([]int, 16)
		for i := range statuses {
			e := a
			if i%2 == 1 {
				e = b
			}
			wg.Add(1)
			go func() { defer wg.Done(); statuses[i] = publish(e) }()
		}
		wg.Wait()
		for _, st := range statuses {
			if st != 201 {
				t.Fatalf("publish: status %d, want 201 (a lost race is re-run, never the caller's failure)", st)
			}
		}
		if got, commits = retries(); got > 0 {
			break
		}
	}
	if got == 0 {
		t.Fatalf("no folio_store_retries_total after racing publishes on two nodes (%v commits)", commits)
	}
	if commits == 0 {
		t.Fatalf("folio_store_commits_total = 0 after successful publishes")
	}
	t.Logf("%v retries over %v group commits", got, commits)
}
